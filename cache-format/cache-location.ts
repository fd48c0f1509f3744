/**
 * Where a command finds a cache and its hit ledger (the audit and run ledgers sit in the
 * ledger folder too): the two absolute folders every cache command and run agree on.
 */

/** Where a command finds the cache and its hit ledger. */
export interface CacheLocation {
  /** Absolute cache folder. */
  cacheDirectory: string;
  /** Absolute hit-ledger folder. */
  hitsDirectory: string;
}

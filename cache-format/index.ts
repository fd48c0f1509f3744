/**
 * `cache-format`: cache keys, entry bytes, the one reading pipeline, and the file store
 * (DESIGN §6). The MessagePack decoder is deliberately not exported: untrusted bytes are
 * read only through {@link readEntryFile} / {@link readEntryBytes} (STYLE 7).
 */
export * from './entry.js';
export { canonicalEncode, type CanonicalValue } from './canonical-encoding.js';
export { initHashing } from './hashing.js';
export {
  assertKeyPartsSafe,
  computeKey,
  CONTEXT_KEY_PART,
  explainKeyChange,
  isCacheKey,
  normalizeInstruction,
  REPLAY_POLICY_VERSION,
  RESERVED_NAMES,
} from './key.js';
export { contentAddress, encodeCanonical, parseBlobName } from './codec.js';
export { MAX_NESTING_DEPTH } from './msgpack-scan.js';
export { encodeEntry, type EncodedEntry } from './encode-entry.js';
export { upgradeEntry, type UpgradeResult } from './migrate.js';
export {
  readEntryBytes,
  readEntryFile,
  type ExpectedEntry,
  type InvalidEntryReason,
  type ReadEntryResult,
} from './read-entry.js';
export { errorCodeOf, nodeFileSystem, type FileInfo, type FileSystem } from './file-system.js';
export type {
  BlobFile,
  CacheRef,
  CacheStore,
  DeleteOptions,
  ListTempFilesOptions,
  TempFile,
  WriteOptions,
  WriteResult,
  WriteStatus,
} from './store.js';
export { FileCacheStore, type FileCacheStoreOptions } from './file-cache-store.js';
export { blobPath, PROPOSAL_MARKER_FILE, refPath } from './layout.js';
export { AuditLedger, AUDITS_FOLDER, type AuditRecord } from './audit-ledger.js';
export type { CacheLocation } from './cache-location.js';

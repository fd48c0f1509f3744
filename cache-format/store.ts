/**
 * The cache store contract: a key resolves to an immutable, content-addressed blob through
 * a small ref. Reads return results (never throw on bad data); writes are atomic.
 */
import type { Entry } from './entry.js';
import type { ReadEntryResult } from './read-entry.js';

/** One ref: a key and the blob it names. */
export interface CacheRef {
  key: string;
  /** The blob the ref names; undefined when the ref file is malformed (never served; `prune` removes it). */
  blob: string | undefined;
  /** Size of the blob in bytes, as its name records it (0 for a malformed ref). */
  size: number;
  /** When the ref was last written: when the entry was saved. */
  modifiedAt: Date;
}

/** One blob file. */
export interface BlobFile {
  name: string;
  size: number;
  modifiedAt: Date;
}

/** A leftover temp file of an interrupted writer. */
export interface TempFile {
  /** Absolute path. */
  path: string;
  size: number;
  modifiedAt: Date;
}

/**
 * How a write ended:
 * - `saved`: the key now names the new bytes;
 * - `kept`: the key already named exactly these bytes; no file was touched;
 * - `conflict`: another writer's entry holds the key (and stays); nothing of this write is served.
 */
export type WriteStatus = 'saved' | 'kept' | 'conflict';

/** The result of {@link CacheStore.write}. */
export interface WriteResult {
  status: WriteStatus;
  /** The blob of the entry this call tried to write. */
  blob: string;
  /** On `conflict`: the blob the key names now, when known. */
  current?: string;
}

/** Options of {@link CacheStore.write}. */
export interface WriteOptions {
  /**
   * The blob the caller last saw under the key (say, the stale entry a replay failed on):
   * the write replaces it only if the key still names it, so a newer recording by another
   * worker is never overwritten. Without it, a write only fills an empty key (first writer wins).
   * A ref that names no valid blob name is replaced either way (it can never be served).
   */
  replacing?: string;
  /** Replace whatever the key names (last writer wins); for merges such as `cache accept`. */
  overwrite?: boolean;
}

/** Options of {@link CacheStore.delete}. */
export interface DeleteOptions {
  /** Delete only if the key still names this blob (an eviction must not remove a newer recording). */
  onlyBlob?: string;
}

/** Options of {@link CacheStore.listTempFiles}. */
export interface ListTempFilesOptions {
  /** Only files last modified at least this long ago (a live writer's temp file is milliseconds old). */
  olderThanMs: number;
  /** The current time (injectable for tests); default now. */
  now?: Date;
}

/** A cache store (DESIGN §6). */
export interface CacheStore {
  /** True when nothing may be written: writes throw `INVALID_STATE`, hits are not recorded. */
  readonly readOnly: boolean;
  /** The verified entry of `key`. Throws `INVALID_ARGUMENT` only for a malformed key. */
  read(key: string): Promise<ReadEntryResult>;
  /** The verified entry stored as blob `name` (no key check against a ref). */
  readBlob(name: string): Promise<ReadEntryResult>;
  /** Saves `entry` under `entry.key`, atomically. Throws `CACHE_WRITE_FAILED` when the file system fails. */
  write(entry: Entry, options?: WriteOptions): Promise<WriteResult>;
  /** Removes the ref of `key` (the blob stays until prune). True when a ref was removed. */
  delete(key: string, options?: DeleteOptions): Promise<boolean>;
  /** Every ref, sorted by key. Temp files are not listed. */
  list(): Promise<CacheRef[]>;
  /** Every blob file, sorted by name. Temp files are not listed. */
  listBlobs(): Promise<BlobFile[]>;
  /** Removes a blob file (for prune, once no ref names it). True when it was removed. */
  deleteBlob(name: string): Promise<boolean>;
  /** Leftovers of interrupted writers. */
  listTempFiles(options: ListTempFilesOptions): Promise<TempFile[]>;
  /** Removes one temp file listed by {@link listTempFiles}. True when it was removed. */
  removeTempFile(path: string): Promise<boolean>;
  /** Notes that `key` was replayed at `at` (default now), for `cache ls`. A no-op in read-only mode or without a hit ledger. */
  recordHit(key: string, at?: Date): Promise<boolean>;
  /** The last recorded hit of every key that has one. */
  readHits(): Promise<Map<string, Date>>;
}

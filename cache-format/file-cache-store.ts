/**
 * The file cache store (layout in `layout.ts` and README.md). Blobs are immutable and
 * content-addressed; a key resolves to its blob through a ref file.
 *
 * Writes: the blob first (temp file in the same folder, fsync, rename; skipped when the
 * identical blob exists), then the ref. A ref is created with `link(temp, ref)`, which fails
 * atomically when the ref exists: of parallel writers of one key exactly one links, and the
 * others find the ref taken and report `kept` (same bytes) or `conflict` (first writer
 * wins). Replacing a ref (`replacing`, `overwrite`) first claims the old one with a rename to
 * a temp name: only one claimer can succeed, and a claimer that took a ref it did not expect
 * puts it back. In every moment a reader sees either no ref or a complete ref naming a
 * complete blob; a killed writer leaves at most temp files (and a blob no ref names).
 */
import { dirname, join, relative, resolve, sep } from 'node:path';
import { E2EError, isE2EError } from '../errors/index.js';
import { parseBlobName } from './codec.js';
import { encodeEntry } from './encode-entry.js';
import type { Entry } from './entry.js';
import { errorCodeOf, nodeFileSystem, type FileSystem } from './file-system.js';
import { HitLedger, readdirOrEmpty } from './hit-ledger.js';
import { isCacheKey } from './key.js';
import { mapWithLimit } from './map-with-limit.js';
import { malformedRefResult, MAX_CONFLICTED_REF_BYTES } from './ref-problem.js';
import {
  BLOBS_FOLDER,
  blobOfBlobFile,
  blobPath,
  formatRef,
  isTempFileName,
  keyOfRefFile,
  parseRef,
  PROPOSAL_MARKER_FILE,
  PROPOSAL_MARKER_TEXT,
  refPath,
  REFS_FOLDER,
  tempPathBeside,
} from './layout.js';
import { readEntryFile, type ReadEntryResult } from './read-entry.js';
import type {
  BlobFile,
  CacheRef,
  CacheStore,
  DeleteOptions,
  ListTempFilesOptions,
  TempFile,
  WriteOptions,
  WriteResult,
} from './store.js';

/** Options of {@link FileCacheStore}. */
export interface FileCacheStoreOptions {
  /** Nothing is ever written (CI). Default false. */
  readOnly?: boolean;
  /** The file system (a fault injector in tests). Default `node:fs/promises`. */
  fileSystem?: FileSystem;
  /** Folder of the last-hit ledger, outside the committed cache. Without it, hits are not recorded. */
  hitsDirectory?: string;
  /** A proposal folder (`--propose`): the first write also leaves its marker file (`PROPOSAL_MARKER_FILE`). */
  proposal?: boolean;
}

/** What a ref file holds right now. */
type RefState = { kind: 'absent' } | { kind: 'names'; blob: string } | { kind: 'malformed'; bytes?: Uint8Array };

/** How many replace attempts before a write gives up as a conflict (each lost race means another writer won). */
const MAX_REF_ATTEMPTS = 4;
/** Parallel file operations while listing. */
const LIST_CONCURRENCY = 32;

/** A {@link CacheStore} in a folder. */
export class FileCacheStore implements CacheStore {
  /** The cache folder. */
  readonly directory: string;
  readonly readOnly: boolean;
  private readonly fileSystem: FileSystem;
  private readonly hits: HitLedger | undefined;
  private readonly proposal: boolean;
  private marked = false;

  constructor(directory: string, options: FileCacheStoreOptions = {}) {
    this.directory = resolve(directory);
    this.readOnly = options.readOnly ?? false;
    this.fileSystem = options.fileSystem ?? nodeFileSystem;
    this.hits = options.hitsDirectory === undefined ? undefined : new HitLedger(this.fileSystem, resolve(options.hitsDirectory));
    this.proposal = options.proposal ?? false;
  }

  async read(key: string): Promise<ReadEntryResult> {
    assertKey(key, 'read');
    const path = refPath(this.directory, key);
    let state: RefState;
    try {
      state = await this.readRef(path);
    } catch (error) {
      return { kind: 'invalid', reason: 'unreadable', message: `Cache entry ${key}: its ref could not be read (${errorCodeOf(error) ?? 'unknown error'}).` };
    }
    if (state.kind === 'absent') return { kind: 'absent' };
    if (state.kind === 'malformed') return malformedRefResult(key, state.bytes);
    const result = await readEntryFile(this.fileSystem, blobPath(this.directory, state.blob), { blob: state.blob, key });
    if (result.kind !== 'absent') return result;
    return {
      kind: 'invalid',
      reason: 'unreadable',
      message: `Cache entry ${key} names blob ${state.blob}, which is missing; restore the blobs folder or record the step again.`,
      blob: state.blob,
    };
  }

  async readBlob(name: string): Promise<ReadEntryResult> {
    if (parseBlobName(name) === undefined) throw new E2EError('INVALID_ARGUMENT', `readBlob: \`${name}\` is not a blob name (<16 hex digits>-<length>).`);
    return readEntryFile(this.fileSystem, blobPath(this.directory, name), { blob: name });
  }

  async write(entry: Entry, options: WriteOptions = {}): Promise<WriteResult> {
    this.assertWritable('write');
    const { bytes, blob } = await encodeEntry(entry);
    const key = entry.key;
    try {
      const path = refPath(this.directory, key);
      const before = await this.readRef(path);
      if (before.kind === 'names' && before.blob === blob && (await this.blobIsIntact(blob, bytes))) return { status: 'kept', blob };
      await this.markProposal();
      await this.putBlob(blob, bytes);
      return await this.putRef(path, blob, options);
    } catch (error) {
      if (isE2EError(error)) throw error;
      throw new E2EError(
        'CACHE_WRITE_FAILED',
        `Could not save cache entry ${key}: ${describeFailure(error)}. The previous entry, if any, is unchanged.`,
        { cause: error },
      );
    }
  }

  async delete(key: string, options: DeleteOptions = {}): Promise<boolean> {
    this.assertWritable('delete');
    assertKey(key, 'delete');
    const path = refPath(this.directory, key);
    await this.folderInside(dirname(path), 'delete an entry');
    if (options.onlyBlob === undefined) return this.unlinkIfPresent(path);
    const state = await this.readRef(path);
    if (state.kind !== 'names' || state.blob !== options.onlyBlob) return false;
    const claimed = await this.claim(path);
    if (claimed === undefined) return false;
    try {
      if (await this.claimedNames(claimed, options.onlyBlob)) return true;
      await this.restore(claimed, path);
      return false;
    } catch (error) {
      await this.restoreAfterFailure(claimed, path);
      throw error;
    } finally {
      await this.unlinkIfPresent(claimed);
    }
  }

  async list(): Promise<CacheRef[]> {
    const files = await this.filesIn(REFS_FOLDER, keyOfRefFile);
    const refs = await mapWithLimit(files, LIST_CONCURRENCY, async ({ path, id: key }): Promise<CacheRef | undefined> => {
      let modifiedAt: Date;
      try {
        modifiedAt = (await this.fileSystem.lstat(path)).modifiedAt;
      } catch (error) {
        if (errorCodeOf(error) === 'ENOENT') return undefined;
        modifiedAt = new Date(0);
      }
      let state: RefState;
      try {
        state = await this.readRef(path);
      } catch (error) {
        if (errorCodeOf(error) === 'ENOENT') return undefined;
        // A folder, a pipe, an unreadable file under a ref's name: that entry's problem (it reads as invalid), not the listing's.
        state = { kind: 'malformed' };
      }
      if (state.kind === 'absent') return undefined;
      const blob = state.kind === 'names' ? state.blob : undefined;
      return { key, blob, size: blob === undefined ? 0 : parseBlobName(blob)!.size, modifiedAt };
    });
    return refs.filter((ref) => ref !== undefined).sort((a, b) => compare(a.key, b.key));
  }

  async listBlobs(): Promise<BlobFile[]> {
    const files = await this.filesIn(BLOBS_FOLDER, blobOfBlobFile);
    const blobs = await mapWithLimit(files, LIST_CONCURRENCY, async ({ path, id: name }): Promise<BlobFile | undefined> => {
      try {
        const info = await this.fileSystem.lstat(path);
        return { name, size: info.size, modifiedAt: info.modifiedAt };
      } catch (error) {
        if (errorCodeOf(error) === 'ENOENT') return undefined;
        return { name, size: 0, modifiedAt: new Date(0) };
      }
    });
    return blobs.filter((blob) => blob !== undefined).sort((a, b) => compare(a.name, b.name));
  }

  async deleteBlob(name: string): Promise<boolean> {
    this.assertWritable('deleteBlob');
    if (parseBlobName(name) === undefined) throw new E2EError('INVALID_ARGUMENT', `deleteBlob: \`${name}\` is not a blob name.`);
    const path = blobPath(this.directory, name);
    await this.folderInside(dirname(path), 'delete a blob');
    return this.unlinkIfPresent(path);
  }

  async listTempFiles(options: ListTempFilesOptions): Promise<TempFile[]> {
    const now = (options.now ?? new Date()).getTime();
    const candidates = [
      ...(await this.filesIn(REFS_FOLDER, tempName)),
      ...(await this.filesIn(BLOBS_FOLDER, tempName)),
    ];
    const found = await mapWithLimit(candidates, LIST_CONCURRENCY, async ({ path }): Promise<TempFile | undefined> => {
      try {
        const info = await this.fileSystem.lstat(path);
        return now - info.modifiedAt.getTime() >= options.olderThanMs ? { path, size: info.size, modifiedAt: info.modifiedAt } : undefined;
      } catch (error) {
        if (errorCodeOf(error) === 'ENOENT') return undefined;
        throw error;
      }
    });
    return found.filter((file) => file !== undefined).sort((a, b) => compare(a.path, b.path));
  }

  async removeTempFile(path: string): Promise<boolean> {
    this.assertWritable('removeTempFile');
    const inside = relative(this.directory, resolve(path)).split(sep);
    const isOurs = inside.length === 3 && (inside[0] === REFS_FOLDER || inside[0] === BLOBS_FOLDER) && isTempFileName(inside[2]!);
    if (!isOurs) throw new E2EError('INVALID_ARGUMENT', `removeTempFile: ${path} is not a temp file of the cache at ${this.directory}.`);
    await this.folderInside(dirname(resolve(path)), 'remove a temp file');
    return this.unlinkIfPresent(path);
  }

  async recordHit(key: string, at: Date = new Date()): Promise<boolean> {
    assertKey(key, 'recordHit');
    if (this.readOnly || this.hits === undefined) return false;
    return this.hits.record(key, at);
  }

  async readHits(): Promise<Map<string, Date>> {
    return this.hits === undefined ? new Map() : this.hits.readAll();
  }

  private assertWritable(operation: string): void {
    if (this.readOnly) {
      throw new E2EError('INVALID_STATE', `${operation}: the cache at ${this.directory} is open read-only; nothing may be written to it.`);
    }
  }

  /**
   * Makes sure `folder` (inside the cache folder) is reached through real folders only, so no
   * write, rename or delete lands outside the cache through a planted symbolic link. `create`
   * makes missing folders one level at a time, each checked after it exists.
   */
  private async folderInside(folder: string, operation: string, options: { create?: boolean } = {}): Promise<void> {
    const inside = relative(this.directory, folder);
    if (inside.startsWith('..') || resolve(this.directory, inside) !== resolve(folder)) {
      throw new E2EError('CACHE_WRITE_FAILED', `Refused to ${operation}: ${folder} is outside the cache folder ${this.directory}.`);
    }
    if (options.create === true) await this.fileSystem.mkdir(this.directory);
    let current = this.directory;
    for (const part of inside === '' ? [] : inside.split(sep)) {
      current = join(current, part);
      let info: Awaited<ReturnType<FileSystem['lstat']>>;
      try {
        info = await this.fileSystem.lstat(current);
      } catch (error) {
        if (errorCodeOf(error) !== 'ENOENT') throw error;
        // Nothing below a missing folder: there is nothing to delete, and a write makes it here.
        if (options.create !== true) return;
        await this.fileSystem.mkdir(current);
        info = await this.fileSystem.lstat(current);
      }
      if (info.isSymbolicLink || !info.isDirectory) {
        const what = info.isSymbolicLink ? 'is a symbolic link' : 'is not a folder';
        throw new E2EError(
          'CACHE_WRITE_FAILED',
          `Refused to ${operation}: ${relative(this.directory, current)} inside the cache folder ${what}; the cache never writes through it. Remove it and run again.`,
        );
      }
    }
  }

  private async readRef(path: string): Promise<RefState> {
    let bytes: Uint8Array;
    try {
      // Read past a ref's size so a merge conflict's markers and both blob names are seen whole.
      bytes = await this.fileSystem.readFile(path, MAX_CONFLICTED_REF_BYTES);
    } catch (error) {
      if (errorCodeOf(error) === 'ENOENT') return { kind: 'absent' };
      throw error;
    }
    const blob = parseRef(bytes);
    return blob === undefined ? { kind: 'malformed', bytes } : { kind: 'names', blob };
  }

  /** True when the blob file holds exactly `bytes`. */
  private async blobIsIntact(blob: string, bytes: Uint8Array): Promise<boolean> {
    const path = blobPath(this.directory, blob);
    try {
      const info = await this.fileSystem.stat(path);
      if (!info.isFile || info.size !== bytes.length) return false;
      return Buffer.from(await this.fileSystem.readFile(path, bytes.length)).equals(bytes);
    } catch (error) {
      if (errorCodeOf(error) === 'ENOENT') return false;
      throw error;
    }
  }

  /** Leaves the proposal marker once (a proposal folder only); an existing marker is left as it is. */
  private async markProposal(): Promise<void> {
    if (!this.proposal || this.marked) return;
    await this.folderInside(this.directory, 'mark a proposal folder', { create: true });
    try {
      await this.fileSystem.writeNewFile(join(this.directory, PROPOSAL_MARKER_FILE), new TextEncoder().encode(PROPOSAL_MARKER_TEXT));
    } catch (error) {
      if (errorCodeOf(error) !== 'EEXIST') throw error;
    }
    this.marked = true;
  }

  /** Stores the blob unless the identical file is there. Content-addressed, so a racing writer renames identical bytes. */
  private async putBlob(blob: string, bytes: Uint8Array): Promise<void> {
    if (await this.blobIsIntact(blob, bytes)) return;
    const path = blobPath(this.directory, blob);
    await this.folderInside(dirname(path), 'write a blob', { create: true });
    const temp = tempPathBeside(path);
    try {
      await this.fileSystem.writeNewFile(temp, bytes);
      await this.fileSystem.rename(temp, path);
    } catch (error) {
      await this.unlinkQuietly(temp);
      throw error;
    }
    await this.fileSystem.syncDirectory(dirname(path));
  }

  private async putRef(path: string, blob: string, options: WriteOptions): Promise<WriteResult> {
    await this.folderInside(dirname(path), 'write a ref', { create: true });
    const temp = tempPathBeside(path);
    try {
      await this.fileSystem.writeNewFile(temp, formatRef(blob));
      for (let attempt = 0; attempt < MAX_REF_ATTEMPTS; attempt++) {
        if (await this.linkIfAbsent(temp, path)) return { status: 'saved', blob };
        const current = await this.readRef(path);
        if (current.kind === 'absent') continue;
        if (current.kind === 'names' && current.blob === blob) return { status: 'kept', blob };
        const replaceable = options.overwrite === true || current.kind === 'malformed' || current.blob === options.replacing;
        if (!replaceable) return { status: 'conflict', blob, current: current.blob };
        const claimed = await this.claim(path);
        if (claimed === undefined) continue;
        try {
          const stillExpected = options.overwrite === true || (await this.claimedNames(claimed, current.kind === 'names' ? current.blob : undefined));
          if (!stillExpected) {
            await this.restore(claimed, path);
            return conflictWith(blob, await this.readRef(path));
          }
          if (await this.linkIfAbsent(temp, path)) return { status: 'saved', blob };
          // Another writer filled the key in the moment it was empty: it won, unless this write overwrites.
          if (options.overwrite === true) continue;
          return conflictWith(blob, await this.readRef(path));
        } catch (error) {
          await this.restoreAfterFailure(claimed, path);
          throw error;
        } finally {
          await this.unlinkQuietly(claimed);
        }
      }
      return conflictWith(blob, await this.readRef(path));
    } finally {
      await this.unlinkQuietly(temp);
    }
  }

  /** Links `temp` as `path`; false when `path` exists. */
  private async linkIfAbsent(temp: string, path: string): Promise<boolean> {
    try {
      await this.fileSystem.link(temp, path);
    } catch (error) {
      if (errorCodeOf(error) === 'EEXIST') return false;
      throw error;
    }
    await this.fileSystem.syncDirectory(dirname(path));
    return true;
  }

  /** Moves the ref at `path` to a temp name only this call knows; undefined when it is gone. */
  private async claim(path: string): Promise<string | undefined> {
    const claimed = tempPathBeside(path);
    try {
      await this.fileSystem.rename(path, claimed);
      return claimed;
    } catch (error) {
      if (errorCodeOf(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** True when the claimed ref names `blob` (or, with `blob` undefined, names no blob). */
  private async claimedNames(claimed: string, blob: string | undefined): Promise<boolean> {
    const state = await this.readRef(claimed);
    return blob === undefined ? state.kind === 'malformed' : state.kind === 'names' && state.blob === blob;
  }

  /** Puts a claimed ref back, unless another writer has created the key meanwhile (theirs wins). */
  private async restore(claimed: string, path: string): Promise<void> {
    await this.linkIfAbsent(claimed, path);
  }

  /** After a failure mid-replace, puts the claimed ref back so the previous entry stays (unless the key was filled meanwhile). */
  private async restoreAfterFailure(claimed: string, path: string): Promise<void> {
    try {
      await this.restore(claimed, path);
    } catch {
      try {
        if ((await this.readRef(path)).kind === 'absent') await this.fileSystem.rename(claimed, path);
      } catch {
        // The file system keeps failing; the claimed ref stays as a temp file for prune to report.
      }
    }
  }

  private async unlinkIfPresent(path: string): Promise<boolean> {
    try {
      await this.fileSystem.unlink(path);
      return true;
    } catch (error) {
      if (errorCodeOf(error) === 'ENOENT') return false;
      throw error;
    }
  }

  private async unlinkQuietly(path: string): Promise<void> {
    try {
      await this.fileSystem.unlink(path);
    } catch {
      // Already gone, or the file system is failing; prune removes leftovers.
    }
  }

  /** Files in `<dir>/<folder>/<xx>/` whose name `identify` accepts. */
  private async filesIn(folder: string, identify: (name: string) => string | undefined): Promise<Array<{ path: string; id: string }>> {
    const root = join(this.directory, folder);
    const files: Array<{ path: string; id: string }> = [];
    for (const shard of await readdirOrEmpty(this.fileSystem, root)) {
      if (shard.startsWith('.')) continue;
      for (const name of await readdirOrEmpty(this.fileSystem, join(root, shard))) {
        const id = identify(name);
        if (id !== undefined) files.push({ path: join(root, shard, name), id });
      }
    }
    return files;
  }
}

function assertKey(key: string, operation: string): void {
  if (!isCacheKey(key)) throw new E2EError('INVALID_ARGUMENT', `${operation}: \`${key}\` is not a cache key (16 lower-case hex digits).`);
}

function tempName(name: string): string | undefined {
  return isTempFileName(name) ? name : undefined;
}

function conflictWith(blob: string, current: RefState): WriteResult {
  return current.kind === 'names' ? { status: 'conflict', blob, current: current.blob } : { status: 'conflict', blob };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `ENOSPC (rename)`: the error code and system call, without paths or content. */
function describeFailure(error: unknown): string {
  const code = errorCodeOf(error) ?? 'unknown error';
  const syscall = typeof error === 'object' && error !== null ? (error as { syscall?: unknown }).syscall : undefined;
  return typeof syscall === 'string' ? `${code} (${syscall})` : code;
}

/**
 * A cache state: every ref of a cache and what it reads as, taken from a folder (through the
 * file store) or from a git revision (through git's object store, no checkout). Both go
 * through the one reading pipeline, so a state read from git is verified exactly like the
 * working tree: size cap, content hash, decode, schema, key. Refs are listed up front and
 * entries read on demand, in batches (one `git cat-file --batch` per batch).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { blobPath, contentAddress, FileCacheStore, MAX_ENTRY_BYTES, nodeFileSystem, readEntryBytes, type ReadEntryResult } from '../cache-format/index.js';
import { blobOfBlobFile, keyOfRefFile, parseRef } from '../cache-format/layout.js';
import { malformedRefResult, MAX_CONFLICTED_REF_BYTES } from '../cache-format/ref-problem.js';
import { mapWithLimit } from '../cache-format/map-with-limit.js';
import { usageError } from './usage-error.js';
import { gitTopLevel, listTreeFiles, pathInRepository, readObjects, resolveCommit, type GitTreeFile } from './git-objects.js';

/** Where a state comes from. */
export type CacheStateSpec =
  | { kind: 'folder'; directory: string; label: string }
  | { kind: 'revision'; revision: string; commit: string; top: string; folder: string; label: string };

/** One ref of a state and what it reads as. */
export interface StateEntry {
  key: string;
  /** The blob the ref names (undefined for a malformed ref). */
  blob: string | undefined;
  result: ReadEntryResult;
}

/**
 * A cache state: its refs, listed up front (cheap), and their entries, read on demand
 * through the pipeline (so a diff decodes only what changed).
 */
export interface CacheState {
  label: string;
  /** Key → the blob its ref names (undefined for a malformed ref), sorted by key. */
  refs: ReadonlyMap<string, string | undefined>;
  /** What the refs of `keys` read as. */
  read(keys: readonly string[]): Promise<Map<string, ReadEntryResult>>;
  /**
   * The content address of the bytes each key's blob holds now (no decoding), to tell equal
   * bytes from a damaged copy under the same name; undefined when the blob is missing or too large.
   */
  fingerprints(keys: readonly string[]): Promise<Map<string, string | undefined>>;
}

async function fingerprintOf(bytes: Uint8Array | undefined): Promise<string | undefined> {
  return bytes === undefined || bytes.length > MAX_ENTRY_BYTES ? undefined : contentAddress(bytes);
}

const READ_CONCURRENCY = 16;

function sortedRefs(refs: Iterable<readonly [string, string | undefined]>): Map<string, string | undefined> {
  return new Map([...refs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The state of the cache folder `directory` (a missing folder is an empty state). */
export async function openFolderState(directory: string, label: string): Promise<CacheState> {
  const store = new FileCacheStore(directory, { readOnly: true });
  const refs = sortedRefs((await store.list()).map((ref) => [ref.key, ref.blob] as const));
  const fingerprint = async (key: string): Promise<string | undefined> => {
    const blob = refs.get(key);
    if (blob === undefined) return undefined;
    try {
      return await fingerprintOf(await nodeFileSystem.readFile(blobPath(directory, blob), MAX_ENTRY_BYTES));
    } catch {
      return undefined;
    }
  };
  return {
    label,
    refs,
    read: async (keys) => new Map(await mapWithLimit(keys, READ_CONCURRENCY, async (key) => [key, await store.read(key)] as const)),
    fingerprints: async (keys) => new Map(await mapWithLimit(keys, READ_CONCURRENCY, async (key) => [key, await fingerprint(key)] as const)),
  };
}

/** Every entry of `state`, read. */
export async function readAllEntries(state: CacheState): Promise<StateEntry[]> {
  const results = await state.read([...state.refs.keys()]);
  return [...state.refs].map(([key, blob]) => ({ key, blob, result: results.get(key)! }));
}

/** Every entry of the cache folder `directory`, read through the file store. */
export async function readFolderEntries(directory: string): Promise<StateEntry[]> {
  return readAllEntries(await openFolderState(directory, directory));
}

const REF_PATH = /^refs\/[0-9a-f]{2}\/([^/]+)$/;
const BLOB_PATH = /^blobs\/[0-9a-f]{2}\/([^/]+)$/;


/** The state of the cache folder `folder` (relative to the repository top) at `commit`. */
export async function openRevisionState(top: string, commit: string, folder: string, label: string): Promise<CacheState> {
  const files = await listTreeFiles(top, commit, folder);
  const refFiles: Array<{ key: string; file: GitTreeFile }> = [];
  const blobFiles = new Map<string, GitTreeFile>();
  for (const file of files) {
    const refName = REF_PATH.exec(file.path)?.[1];
    const key = refName === undefined ? undefined : keyOfRefFile(refName);
    if (key !== undefined) refFiles.push({ key, file });
    const blobName = BLOB_PATH.exec(file.path)?.[1];
    const blob = blobName === undefined ? undefined : blobOfBlobFile(blobName);
    if (blob !== undefined) blobFiles.set(blob, file);
  }
  // Read past a ref's size so a committed merge conflict is named as one.
  const refBytes = await readObjects(top, refFiles.filter(({ file }) => file.size <= MAX_CONFLICTED_REF_BYTES).map(({ file }) => file.objectId));
  const refBytesOf = new Map(refFiles.map(({ key, file }) => [key, refBytes.get(file.objectId)] as const));
  const refs = sortedRefs(
    refFiles.map(({ key, file }) => {
      const bytes = refBytes.get(file.objectId);
      return [key, bytes === undefined ? undefined : parseRef(bytes)] as const;
    }),
  );
  const fileOf = (key: string): GitTreeFile | undefined => {
    const blob = refs.get(key);
    return blob === undefined ? undefined : blobFiles.get(blob);
  };
  // Sizes come from the tree listing: an oversized blob is refused before its bytes are read.
  const bytesOf = async (keys: readonly string[]): Promise<Map<string, Buffer>> =>
    readObjects(top, keys.flatMap((key) => {
      const file = fileOf(key);
      return file !== undefined && file.size <= MAX_ENTRY_BYTES ? [file.objectId] : [];
    }));
  const fingerprints = async (keys: readonly string[]): Promise<Map<string, string | undefined>> => {
    const blobBytes = await bytesOf(keys);
    return new Map(await mapWithLimit(keys, READ_CONCURRENCY, async (key) => {
      const file = fileOf(key);
      return [key, await fingerprintOf(file === undefined ? undefined : blobBytes.get(file.objectId))] as const;
    }));
  };
  const read = async (keys: readonly string[]): Promise<Map<string, ReadEntryResult>> => {
    const blobBytes = await bytesOf(keys);
    const results = await mapWithLimit(keys, READ_CONCURRENCY, async (key): Promise<readonly [string, ReadEntryResult]> => {
      const blob = refs.get(key);
      if (blob === undefined) return [key, malformedRefResult(key, refBytesOf.get(key))];
      const file = blobFiles.get(blob);
      if (file !== undefined && file.size > MAX_ENTRY_BYTES) {
        return [key, { kind: 'invalid', reason: 'too-large', message: `Cache entry ${key} (blob ${blob}) is ${file.size} bytes, over the ${MAX_ENTRY_BYTES}-byte limit; it was not read.`, blob }];
      }
      const bytes = file === undefined ? undefined : blobBytes.get(file.objectId);
      if (bytes === undefined) return [key, { kind: 'invalid', reason: 'unreadable', message: `Cache entry ${key} names blob ${blob}, which is missing at ${label}.`, blob }];
      return [key, await readEntryBytes(bytes, { blob, key })];
    });
    return new Map(results);
  };
  return { label, refs, read, fingerprints };
}

/** Opens the state `spec` names. */
export async function openCacheState(spec: CacheStateSpec): Promise<CacheState> {
  return spec.kind === 'folder' ? openFolderState(spec.directory, spec.label) : openRevisionState(spec.top, spec.commit, spec.folder, spec.label);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The folder spec of `directory`, labelled by its path relative to `cwd`. */
export function folderSpec(cwd: string, directory: string, label?: string): CacheStateSpec {
  const shown = relative(cwd, directory);
  return { kind: 'folder', directory, label: label ?? (shown === '' ? '.' : shown.startsWith('..') ? directory : shown) };
}

/**
 * What a `cache diff` argument names: an existing folder is a cache folder (it must hold
 * `refs/` or `blobs/`); anything else must be a git revision of the repository around
 * `cwd`, read at the cache folder's place. Throws a usage error naming the fix otherwise.
 */
export async function resolveStateArgument(argument: string, cwd: string, cacheDirectory: string): Promise<CacheStateSpec> {
  const asPath = resolve(cwd, argument);
  if (isDirectory(asPath)) {
    const isCacheFolder = existsSync(resolve(asPath, 'refs')) || existsSync(resolve(asPath, 'blobs')) || readdirSync(asPath).length === 0;
    if (!isCacheFolder) {
      throw usageError(`${argument} is a folder but not a cache folder (no refs/ or blobs/ inside); pass the cache folder itself, e.g. .e2e/cache.`);
    }
    return folderSpec(cwd, asPath);
  }
  const top = await gitTopLevel(cwd);
  if (top === undefined) {
    throw usageError(`${argument} is neither a folder nor a git revision (${cwd} is not in a git repository); pass two cache folders instead.`);
  }
  const commit = await resolveCommit(top, argument);
  if (commit === undefined) throw usageError(`${argument} is neither a folder nor a revision of the git repository at ${top}; pass a commit, branch or tag, or a cache folder.`);
  const folder = pathInRepository(top, cacheDirectory);
  if (folder === undefined) throw usageError(`the cache folder ${cacheDirectory} lies outside the git repository at ${top}; pass --cache-dir inside it, or compare two folders.`);
  return { kind: 'revision', revision: argument, commit, top, folder, label: argument };
}

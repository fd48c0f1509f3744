/**
 * `e2e cache stats`: counts and bytes of a cache folder: entries (refs), how many read and
 * how many do not, blobs and their bytes, blobs no ref names, and writers' leftovers.
 */
import { FileCacheStore, type CacheLocation } from '../cache-format/index.js';
import { readFolderEntries } from './cache-state-source.js';
import { alignColumns, formatBytes } from './text-format.js';

/** The result of `cache stats`. */
export interface CacheStatsResult {
  cacheDirectory: string;
  /** Refs (keys). */
  entries: number;
  /** Entries that read through the pipeline. */
  readable: number;
  /** Entries that do not read (damaged, old or newer schema, missing blob…). */
  unreadable: number;
  /** Readable entries by step kind. */
  byKind: Record<string, number>;
  /** Distinct tests among readable entries. */
  tests: number;
  /** Blob files. */
  blobs: number;
  /** Bytes of every blob file. */
  bytes: number;
  /** Blob files no ref names (`cache prune` removes them). */
  unreferencedBlobs: number;
  unreferencedBytes: number;
  /** Temp files of writers (any age). */
  tempFiles: number;
}

/** Counts the cache at `location`. */
export async function cacheStats(location: CacheLocation): Promise<CacheStatsResult> {
  const store = new FileCacheStore(location.cacheDirectory, { readOnly: true });
  const [entries, blobs, temps] = await Promise.all([
    readFolderEntries(location.cacheDirectory),
    store.listBlobs(),
    store.listTempFiles({ olderThanMs: 0 }),
  ]);
  const byKind: Record<string, number> = {};
  const tests = new Set<string>();
  let readable = 0;
  for (const { result } of entries) {
    if (result.kind !== 'hit') continue;
    readable += 1;
    byKind[result.entry.kind] = (byKind[result.entry.kind] ?? 0) + 1;
    tests.add(result.entry.keyParts.testId);
  }
  const named = new Set(entries.map((entry) => entry.blob));
  const unreferenced = blobs.filter((blob) => !named.has(blob.name));
  return {
    cacheDirectory: location.cacheDirectory,
    entries: entries.length,
    readable,
    unreadable: entries.length - readable,
    byKind,
    tests: tests.size,
    blobs: blobs.length,
    bytes: blobs.reduce((sum, blob) => sum + blob.size, 0),
    unreferencedBlobs: unreferenced.length,
    unreferencedBytes: unreferenced.reduce((sum, blob) => sum + blob.size, 0),
    tempFiles: temps.length,
  };
}

/** `cache stats` as text. */
export function renderCacheStats(result: CacheStatsResult): string {
  const kinds = Object.keys(result.byKind)
    .sort()
    .map((kind) => `${result.byKind[kind]} ${kind}`)
    .join(', ');
  const rows = [
    ['cache', result.cacheDirectory],
    ['entries', `${result.entries}${kinds === '' ? '' : ` (${kinds})`}`],
    ['tests', String(result.tests)],
    ['unreadable', String(result.unreadable)],
    ['blobs', `${result.blobs} (${formatBytes(result.bytes)})`],
    ['unreferenced', `${result.unreferencedBlobs} blobs (${formatBytes(result.unreferencedBytes)})`],
    ['temp files', String(result.tempFiles)],
  ];
  return alignColumns(rows.map(([name, value]) => [`${name}:`, value!])).join('\n');
}

/** `cache stats --json`. */
export function renderCacheStatsJson(result: CacheStatsResult): string {
  return JSON.stringify(result, null, 2);
}

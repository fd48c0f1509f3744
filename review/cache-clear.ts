/**
 * `e2e cache clear`: deletes every ref, blob and writer's temp file of the cache folder, and
 * the shard folders they leave empty. Any other file in the folder (a README, a .gitkeep) stays.
 */
import { rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FileCacheStore, nodeFileSystem, type CacheLocation } from '../cache-format/index.js';
import { readdirOrEmpty } from '../cache-format/hit-ledger.js';
import { BLOBS_FOLDER, REFS_FOLDER } from '../cache-format/layout.js';
import { formatBytes, plural } from './text-format.js';

/** The result of `cache clear`. */
export interface ClearResult {
  cacheDirectory: string;
  entries: number;
  blobs: number;
  tempFiles: number;
  bytesFreed: number;
}

const SHARD = /^[0-9a-f]{2}$/;

async function removeIfEmpty(path: string): Promise<void> {
  try {
    await rmdir(path);
  } catch {
    // Not empty (holds files this tool did not write) or already gone: leave it.
  }
}

/** Deletes every entry this tool wrote in the cache at `location`. */
export async function clearCache(location: CacheLocation): Promise<ClearResult> {
  const store = new FileCacheStore(location.cacheDirectory);
  const refs = await store.list();
  let bytesFreed = 0;
  for (const ref of refs) {
    if (await store.delete(ref.key)) bytesFreed += ref.blob === undefined ? 0 : ref.blob.length + 1;
  }
  const blobs = await store.listBlobs();
  for (const blob of blobs) {
    if (await store.deleteBlob(blob.name)) bytesFreed += blob.size;
  }
  const temps = await store.listTempFiles({ olderThanMs: 0 });
  for (const temp of temps) {
    if (await store.removeTempFile(temp.path)) bytesFreed += temp.size;
  }
  for (const folder of [REFS_FOLDER, BLOBS_FOLDER]) {
    const root = join(location.cacheDirectory, folder);
    for (const shard of await readdirOrEmpty(nodeFileSystem, root)) if (SHARD.test(shard)) await removeIfEmpty(join(root, shard));
    await removeIfEmpty(root);
  }
  return { cacheDirectory: location.cacheDirectory, entries: refs.length, blobs: blobs.length, tempFiles: temps.length, bytesFreed };
}

/** `cache clear` as text. */
export function renderClear(result: ClearResult): string {
  return `Cleared ${result.cacheDirectory}: ${plural(result.entries, 'entry', 'entries')}, ${plural(result.blobs, 'blob')}, ${plural(result.tempFiles, 'temp file')} removed, ${formatBytes(result.bytesFreed)} freed.`;
}

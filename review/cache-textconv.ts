/**
 * `e2e cache show --textconv FILE`: git's textconv for cache files (`.gitattributes`:
 * `.e2e/cache/**\/*.msgpack diff=e2e-cache`), so `git diff` shows entries as text. Git hands
 * over a temp file whose name ends with the original file name, so a blob's content address
 * is still checked. Never throws on bad bytes: an unreadable file renders as its reason.
 */
import { basename } from 'node:path';
import { contentAddress, errorCodeOf, MAX_ENTRY_BYTES, nodeFileSystem, readEntryBytes } from '../cache-format/index.js';
import { keyOfRefFile, MAX_REF_BYTES, parseRef } from '../cache-format/layout.js';
import { hasConflictMarkers } from '../cache-format/ref-problem.js';
import { entryLines } from './entry-text.js';

const BLOB_IN_NAME = /([0-9a-f]{16}-(?:0|[1-9][0-9]{0,9}))\.msgpack$/;
const KEY_IN_NAME = /([0-9a-f]{16}\.ref)$/;

/** Renders the cache file at `path` (a blob or a ref) as text. Never throws. */
export async function textconvCacheFile(path: string): Promise<string> {
  const name = basename(path);
  let bytes: Uint8Array;
  try {
    const info = await nodeFileSystem.stat(path);
    if (!info.isFile) return `Not a cache file: ${name} is not a regular file.`;
    if (info.size > MAX_ENTRY_BYTES) return `Invalid cache entry ${name} (too-large): ${info.size} bytes, over the ${MAX_ENTRY_BYTES}-byte limit; it was not read.`;
    bytes = await nodeFileSystem.readFile(path, MAX_ENTRY_BYTES);
  } catch (error) {
    return `Cannot read ${name}: ${errorCodeOf(error) ?? 'unknown error'}.`;
  }
  const refName = KEY_IN_NAME.exec(name)?.[1];
  const key = refName === undefined ? undefined : keyOfRefFile(refName);
  if (key !== undefined || (bytes.length <= MAX_REF_BYTES && parseRef(bytes) !== undefined)) {
    const blob = parseRef(bytes);
    const label = key === undefined ? 'Cache ref' : `Cache ref ${key}`;
    if (blob !== undefined) return `${label} → blob ${blob}`;
    return hasConflictMarkers(bytes) ? `${label}: merge conflict in the cache (git conflict markers); run \`e2e record\` or pick one side.` : `${label}: malformed (it names no blob).`;
  }
  const named = BLOB_IN_NAME.exec(name)?.[1];
  const blob = named ?? (await contentAddress(bytes));
  const result = await readEntryBytes(bytes, { blob });
  switch (result.kind) {
    case 'hit': {
      const lines = entryLines(result.entry, { blob: result.blob, storedVersion: result.storedVersion });
      if (named === undefined) lines.push('(The file name carries no content address, so the bytes were not checked against one.)');
      return lines.join('\n');
    }
    case 'invalid':
      return `Invalid cache entry ${blob} (${result.reason}): ${result.message}`;
    case 'absent':
      return `Cannot read ${name}: it disappeared.`;
  }
}

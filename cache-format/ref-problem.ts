/**
 * Why a ref file names no blob, in words that name the fix. The common cause in a committed
 * cache is a merge: two branches recorded the same step, git wrote conflict markers into its
 * ref, and only the person merging can say which recording wins.
 */
import type { ReadEntryResult } from './read-entry.js';

/** Largest ref file read to tell a merge conflict from other damage (markers and two blob names, with long branch names). */
export const MAX_CONFLICTED_REF_BYTES = 1024;

const textDecoder = new TextDecoder('utf-8', { fatal: false });
/** Git's conflict markers at the start of a line: `<<<<<<< ours`, `=======`, `>>>>>>> theirs` (and diff3's `|||||||`). */
const CONFLICT_MARKER = /^(?:<{7}|={7}|>{7}|\|{7})(?: |\r?$)/m;

/** True when the ref file's bytes hold git conflict markers. */
export function hasConflictMarkers(bytes: Uint8Array): boolean {
  return CONFLICT_MARKER.test(textDecoder.decode(bytes.subarray(0, MAX_CONFLICTED_REF_BYTES)));
}

/** The message of a ref that names no blob: a merge conflict says so and names both fixes. */
export function malformedRefMessage(key: string, bytes: Uint8Array | undefined): string {
  if (bytes !== undefined && hasConflictMarkers(bytes)) {
    return `Cache entry ${key}: merge conflict in the cache: its ref file holds git conflict markers; run \`e2e record\` or pick one side (keep one blob name line, delete the marker lines).`;
  }
  return `Cache entry ${key}: its ref file does not name a blob; record the step again.`;
}

/** The reading result of a ref that names no blob (`merge-conflict` or `schema`). */
export function malformedRefResult(key: string, bytes: Uint8Array | undefined): Extract<ReadEntryResult, { kind: 'invalid' }> {
  const reason = bytes !== undefined && hasConflictMarkers(bytes) ? 'merge-conflict' : 'schema';
  return { kind: 'invalid', reason, message: malformedRefMessage(key, bytes) };
}

/**
 * `e2e cache show <entry>`: one entry as readable text. The entry is named by its key, a
 * unique key prefix, or a blob name (prefix); an ambiguous prefix is a usage error that lists
 * the candidates. The entry is read through the one pipeline, so a damaged one shows why.
 */
import { AuditLedger, FileCacheStore, nodeFileSystem, type AuditRecord, type CacheLocation, type Entry, type InvalidEntryReason } from '../cache-format/index.js';
import { usageError } from './usage-error.js';
import { describeStep, entryLines } from './entry-text.js';

/** The result of `cache show`. */
export type CacheShowResult =
  | { kind: 'entry'; key: string; blob: string; storedVersion: number; entry: Entry; audit?: AuditRecord }
  | { kind: 'invalid'; key: string | undefined; blob: string | undefined; reason: InvalidEntryReason | 'absent'; message: string };

const QUERY_PATTERN = /^[0-9a-f]{1,16}(-[0-9]*)?$/;
/** Most candidates named in an ambiguity message. */
const MAX_CANDIDATES_SHOWN = 8;

/** Finds the entry `query` names in the cache at `location` and reads it, with its last audit (`e2e cache audit`) when there is one. */
export async function showCacheEntry(location: CacheLocation, query: string): Promise<CacheShowResult> {
  const result = await findCacheEntry(location, query);
  if (result.kind !== 'entry') return result;
  const audit = (await new AuditLedger(nodeFileSystem, location.hitsDirectory).readAll()).get(result.key);
  return audit === undefined ? result : { ...result, audit };
}

async function findCacheEntry(location: CacheLocation, query: string): Promise<CacheShowResult> {
  const wanted = query.trim().toLowerCase();
  if (!QUERY_PATTERN.test(wanted)) {
    throw usageError(`\`${query}\` is not a cache key, key prefix or blob name; run \`e2e cache ls\` to see the keys.`);
  }
  const store = new FileCacheStore(location.cacheDirectory, { readOnly: true });
  const refs = wanted.includes('-') ? [] : (await store.list()).filter((ref) => ref.key.startsWith(wanted));
  if (refs.length > 1) {
    const exact = refs.find((ref) => ref.key === wanted);
    if (exact === undefined) throw usageError(await ambiguity(store, query, refs.map((ref) => ref.key)));
  }
  const ref = refs.length === 1 ? refs[0]! : refs.find((candidate) => candidate.key === wanted);
  if (ref !== undefined) {
    const result = await store.read(ref.key);
    switch (result.kind) {
      case 'hit':
        return { kind: 'entry', key: ref.key, blob: result.blob, storedVersion: result.storedVersion, entry: result.entry };
      case 'invalid':
        return { kind: 'invalid', key: ref.key, blob: ref.blob, reason: result.reason, message: result.message };
      case 'absent':
        return { kind: 'invalid', key: ref.key, blob: ref.blob, reason: 'absent', message: `Cache entry ${ref.key} was removed while it was read.` };
    }
  }
  const blobs = (await store.listBlobs()).filter((blob) => blob.name.startsWith(wanted));
  if (blobs.length === 0) throw usageError(`no cache entry matches \`${query}\` in ${location.cacheDirectory}; run \`e2e cache ls\` to see the keys.`);
  if (blobs.length > 1) throw usageError(`\`${query}\` matches ${blobs.length} blobs (${blobs.slice(0, MAX_CANDIDATES_SHOWN).map((blob) => blob.name).join(', ')}); give more characters.`);
  const blob = blobs[0]!.name;
  const result = await store.readBlob(blob);
  switch (result.kind) {
    case 'hit':
      return { kind: 'entry', key: result.entry.key, blob, storedVersion: result.storedVersion, entry: result.entry };
    case 'invalid':
      return { kind: 'invalid', key: undefined, blob, reason: result.reason, message: result.message };
    case 'absent':
      return { kind: 'invalid', key: undefined, blob, reason: 'absent', message: `Blob ${blob} was removed while it was read.` };
  }
}

async function ambiguity(store: FileCacheStore, query: string, keys: string[]): Promise<string> {
  const shown = await Promise.all(
    keys.slice(0, MAX_CANDIDATES_SHOWN).map(async (key) => {
      const result = await store.read(key);
      return result.kind === 'hit' ? `${key} (${result.entry.keyParts.testId}: ${describeStep(result.entry.keyParts)})` : `${key} (unreadable)`;
    }),
  );
  const more = keys.length > MAX_CANDIDATES_SHOWN ? `, and ${keys.length - MAX_CANDIDATES_SHOWN} more` : '';
  return `\`${query}\` matches ${keys.length} entries: ${shown.join('; ')}${more}; give more characters of the key.`;
}

/** `cache show` as text. */
export function renderCacheShow(result: CacheShowResult): string {
  if (result.kind === 'entry') return [...entryLines(result.entry, { blob: result.blob, storedVersion: result.storedVersion }), ...auditLines(result.audit)].join('\n');
  return `Cache entry ${result.key ?? `blob ${result.blob ?? '?'}`} does not read (${result.reason}): ${result.message}`;
}

/** `cache show --json`. */
export function renderCacheShowJson(result: CacheShowResult): string {
  return JSON.stringify(result, null, 2);
}

/** The entry's last audit as lines: the score, each survivor, and what each caught mutant is proven by. */
function auditLines(audit: AuditRecord | undefined): string[] {
  if (audit === undefined) return [];
  const notRun = audit.notRun > 0 ? `, ${audit.notRun} not run` : '';
  return [
    `Last audit: ${audit.caught} of ${audit.total} mutants caught${notRun} (${audit.auditedAt})`,
    ...audit.survivors.map((survivor) => `  survived: ${survivor}`),
    ...(audit.equivalent ?? []).map((mutant) => `  equivalent (the test's own checks pass with it too; left out): ${mutant}`),
    ...(audit.proofs ?? []).map((proof) => `  caught: ${proof}`),
  ];
}

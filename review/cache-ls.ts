/**
 * `e2e cache ls`: one row per entry (test, target, instruction, age, actions, last hit),
 * grouped by test; unreadable entries listed apart with the reason. One generation: an entry a
 * newer recording of the same step supersedes is counted, not listed. Ages are computed from
 * the recording time and an injected `now`.
 */
import { AuditLedger, FileCacheStore, nodeFileSystem, type AuditRecord, type CacheLocation, type Entry } from '../cache-format/index.js';
import { readFolderEntries } from './cache-state-source.js';
import { describeParams } from './entry-text.js';
import { alignColumns, formatAge, plural } from './text-format.js';
import { visibleText } from '../semantics/visible-text.js';

/** One readable entry. */
export interface ListedEntry {
  key: string;
  blob: string;
  testId: string;
  project: string;
  target: string;
  kind: Entry['kind'];
  instruction: string;
  params: Record<string, string>;
  occurrence: number;
  /** When the entry was recorded (ISO 8601). */
  recordedAt: string;
  /** Recorded actions (`act`) or evidence checks (judgments). */
  actions: number;
  /** The last replay (ISO 8601), when the hit ledger has one. */
  lastHitAt: string | undefined;
  /** The entry's last `e2e cache audit`, when the audit ledger has one. */
  audit?: AuditRecord | undefined;
}

/** An entry that does not read. */
export interface UnreadableEntry {
  key: string;
  reason: string;
  message: string;
}

/** The result of `cache ls`. */
export interface CacheListResult {
  cacheDirectory: string;
  entries: ListedEntry[];
  unreadable: UnreadableEntry[];
  /** Keys of entries a listed entry supersedes (`cache prune` removes them); not in `entries`. */
  superseded: string[];
}

/** Lists the cache at `location`: every entry read through the pipeline, with its last hit. */
export async function listCache(location: CacheLocation): Promise<CacheListResult> {
  const stateEntries = await readFolderEntries(location.cacheDirectory);
  const hits = await new FileCacheStore(location.cacheDirectory, { readOnly: true, hitsDirectory: location.hitsDirectory }).readHits();
  const audits = await new AuditLedger(nodeFileSystem, location.hitsDirectory).readAll();
  const entries: ListedEntry[] = [];
  const unreadable: UnreadableEntry[] = [];
  const supersededKeys = new Set(stateEntries.flatMap(({ result }) => (result.kind === 'hit' && result.entry.supersedes !== undefined ? [result.entry.supersedes] : [])));
  const superseded: string[] = [];
  for (const { key, result } of stateEntries) {
    if (result.kind === 'hit' && supersededKeys.has(key)) {
      superseded.push(key);
      continue;
    }
    switch (result.kind) {
      case 'hit': {
        const { entry } = result;
        const parts = entry.keyParts;
        entries.push({
          key,
          blob: result.blob,
          testId: parts.testId,
          project: parts.projectId,
          target: parts.target,
          kind: entry.kind,
          instruction: parts.instruction,
          params: parts.params,
          occurrence: parts.occurrence,
          recordedAt: entry.provenance.recordedAt,
          actions: entry.kind === 'act' ? entry.actions.length : entry.evidence.length,
          lastHitAt: hits.get(key)?.toISOString(),
        });
        const audit = audits.get(key);
        if (audit !== undefined) entries.at(-1)!.audit = audit;
        break;
      }
      case 'invalid':
        unreadable.push({ key, reason: result.reason, message: result.message });
        break;
      case 'absent':
        unreadable.push({ key, reason: 'absent', message: `Cache entry ${key} disappeared while it was listed.` });
        break;
    }
  }
  entries.sort((a, b) => compareText(a.testId, b.testId) || compareText(a.target, b.target) || compareText(a.instruction, b.instruction) || a.occurrence - b.occurrence || compareText(a.key, b.key));
  return { cacheDirectory: location.cacheDirectory, entries, unreadable, superseded: superseded.sort() };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Characters of the key shown in the table (enough for `cache show <prefix>`). */
const SHORT_KEY_LENGTH = 8;

function ago(iso: string | undefined, now: Date): string {
  if (iso === undefined) return 'never';
  const age = formatAge(now.getTime() - Date.parse(iso));
  return age === 'just now' ? age : `${age} ago`;
}

/** `cache ls` as text: a header line per test, then aligned rows. */
export function renderCacheList(result: CacheListResult, now: Date): string {
  if (result.entries.length === 0 && result.unreadable.length === 0) return `No cache entries in ${result.cacheDirectory}.`;
  // The audit column shows once some entry was audited (`e2e cache audit`).
  const audited = result.entries.some((entry) => entry.audit !== undefined);
  const rows: string[][] = [['', 'key', 'target', 'step', 'instruction', 'age', 'actions', 'last hit', ...(audited ? ['audit'] : [])]];
  const headerAt = new Map<number, string>();
  let previousTest: string | undefined;
  for (const entry of result.entries) {
    if (entry.testId !== previousTest) {
      headerAt.set(rows.length, entry.testId);
      previousTest = entry.testId;
    }
    const params = describeParams(entry.params);
    const occurrence = entry.occurrence > 0 ? ` (occurrence ${entry.occurrence + 1})` : '';
    rows.push([
      '',
      entry.key.slice(0, SHORT_KEY_LENGTH),
      entry.target,
      entry.kind,
      `${entry.instruction}${params === '' ? '' : ` with ${params}`}${occurrence}`,
      formatAge(now.getTime() - Date.parse(entry.recordedAt)),
      String(entry.actions),
      ago(entry.lastHitAt, now),
      ...(audited ? [entry.audit === undefined ? 'never' : `${entry.audit.caught} of ${entry.audit.total} caught`] : []),
    ]);
  }
  const aligned = alignColumns(rows);
  const lines: string[] = [];
  aligned.forEach((line, index) => {
    const test = headerAt.get(index);
    if (test !== undefined) lines.push(test);
    lines.push(line);
  });
  const tests = new Set(result.entries.map((entry) => entry.testId)).size;
  lines.push('', `${plural(result.entries.length, 'entry', 'entries')} in ${plural(tests, 'test')}`);
  if (result.superseded.length > 0) {
    lines.push(`${plural(result.superseded.length, 'older entry', 'older entries')} superseded by a newer recording of the same step, not shown (\`e2e cache prune\` removes them)`);
  }
  if (result.unreadable.length > 0) {
    lines.push('', `Unreadable (${result.unreadable.length}; \`e2e cache prune\` removes those that can never be served):`);
    for (const entry of result.unreadable) lines.push(`  ${entry.key}  ${entry.reason}: ${entry.message}`);
  }
  // One logical line each: a line break inside a value (a forged test id) is spelled out, never a line of its own.
  return lines.map(visibleText).join('\n');
}

/** `cache ls --json`. */
export function renderCacheListJson(result: CacheListResult): string {
  return JSON.stringify({ cacheDirectory: result.cacheDirectory, entries: result.entries, unreadable: result.unreadable, superseded: result.superseded }, null, 2);
}

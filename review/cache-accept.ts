/**
 * `e2e cache accept <dir…>`: merges proposal folders (same layout as the cache, written by
 * `e2e run --propose <dir>`) into the cache. Every proposed entry is read through the one
 * pipeline first; all or nothing: when any entry is invalid, or two proposals wrote the same
 * key with different blobs (a conflict, never last-writer-wins), nothing is merged and the
 * command exits 2. A proposed entry replaces the cache's entry of the same key; entries the
 * proposals lack stay. `--dry-run` plans the same merge and writes nothing.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FileCacheStore, type CacheLocation, type Entry } from '../cache-format/index.js';
import { usageError } from './usage-error.js';
import { describeStep } from './entry-text.js';
import { alignColumns, plural } from './text-format.js';
import { visibleText } from '../semantics/visible-text.js';

/** How a merged entry landed. */
export type AcceptStatus = 'added' | 'replaced' | 'kept';

/** One merged entry. */
export interface AcceptedEntry {
  key: string;
  blob: string;
  status: AcceptStatus;
  /** The proposal folder(s) it came from. */
  from: string[];
  /** `<test id>: <step>`. */
  step: string;
}

/** A proposed entry that does not read. */
export interface RefusedEntry {
  key: string;
  from: string;
  reason: string;
  message: string;
}

/** Two or more proposals wrote one key with different blobs. */
export interface AcceptConflict {
  key: string;
  step: string;
  proposals: Array<{ from: string; blob: string }>;
}

/** The result of `cache accept`. */
export interface AcceptResult {
  cacheDirectory: string;
  /** False when something was refused or conflicted: then nothing was written. */
  applied: boolean;
  /** Planned only (`--dry-run`): `merged` says what accepting would do; nothing was written. */
  dryRun: boolean;
  merged: AcceptedEntry[];
  refused: RefusedEntry[];
  conflicts: AcceptConflict[];
}

interface Proposed {
  entry: Entry;
  blob: string;
  from: string[];
}

function assertProposalFolder(directory: string, shown: string): void {
  let isFolder = false;
  try {
    isFolder = statSync(directory).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) throw usageError(`proposal folder ${shown} does not exist; pass the folder given to \`e2e run --propose\`.`);
  if (!existsSync(join(directory, 'refs'))) throw usageError(`${shown} is not a cache proposal (no refs/ inside); pass the folder given to \`e2e run --propose\`.`);
}

/** Merges the proposal folders `proposals` (absolute paths, shown as `labels`) into the cache at `location`. */
export async function acceptProposals(
  location: CacheLocation,
  proposals: ReadonlyArray<{ directory: string; label: string }>,
  options: { dryRun?: boolean } = {},
): Promise<AcceptResult> {
  const dryRun = options.dryRun === true;
  if (proposals.length === 0) throw usageError('name at least one proposal folder: `e2e cache accept <dir…>`.');
  for (const proposal of proposals) assertProposalFolder(proposal.directory, proposal.label);
  const byKey = new Map<string, Proposed>();
  const refused: RefusedEntry[] = [];
  const conflicting = new Map<string, AcceptConflict>();
  for (const proposal of proposals) {
    const source = new FileCacheStore(proposal.directory, { readOnly: true });
    for (const ref of await source.list()) {
      const result = await source.read(ref.key);
      if (result.kind !== 'hit') {
        const problem = result.kind === 'invalid' ? result : { reason: 'absent', message: `Cache entry ${ref.key} disappeared while it was read.` };
        refused.push({ key: ref.key, from: proposal.label, reason: problem.reason, message: problem.message });
        continue;
      }
      const earlier = byKey.get(ref.key);
      if (earlier === undefined) {
        byKey.set(ref.key, { entry: result.entry, blob: result.blob, from: [proposal.label] });
      } else if (earlier.blob === result.blob) {
        earlier.from.push(proposal.label);
      } else {
        const conflict = conflicting.get(ref.key) ?? {
          key: ref.key,
          step: `${result.entry.keyParts.testId}: ${describeStep(result.entry.keyParts)}`,
          proposals: earlier.from.map((from) => ({ from, blob: earlier.blob })),
        };
        conflict.proposals.push({ from: proposal.label, blob: result.blob });
        conflicting.set(ref.key, conflict);
      }
    }
  }
  const conflicts = [...conflicting.values()];
  const target = new FileCacheStore(location.cacheDirectory, { readOnly: dryRun });
  const current = new Map((await target.list()).map((ref) => [ref.key, ref.blob]));
  const planned = [...byKey.entries()].filter(([key]) => !conflicting.has(key)).sort(([a], [b]) => (a < b ? -1 : 1));
  const merged: AcceptedEntry[] = planned.map(([key, proposed]) => ({
    key,
    blob: proposed.blob,
    status: !current.has(key) ? 'added' : current.get(key) === proposed.blob ? 'kept' : 'replaced',
    from: proposed.from,
    step: `${proposed.entry.keyParts.testId}: ${describeStep(proposed.entry.keyParts)}`,
  }));
  const applied = refused.length === 0 && conflicts.length === 0;
  if (applied && !dryRun) {
    for (const [, proposed] of planned) await target.write(proposed.entry, { overwrite: true });
  }
  return { cacheDirectory: location.cacheDirectory, applied, dryRun, merged, refused, conflicts };
}

/** `cache accept` as text. */
export function renderAccept(result: AcceptResult): string {
  const lines: string[] = [];
  if (result.applied) {
    const counts = (status: AcceptStatus): number => result.merged.filter((entry) => entry.status === status).length;
    const verb = result.dryRun ? 'Would accept' : 'Accepted';
    lines.push(`${verb} ${plural(result.merged.length, 'entry', 'entries')} into ${result.cacheDirectory}: ${counts('added')} added, ${counts('replaced')} replaced, ${counts('kept')} already there.`);
    lines.push(...alignColumns(result.merged.map((entry) => [entry.status, entry.key, entry.step]), '  '));
    if (result.dryRun) lines.push('Nothing was written (--dry-run).');
    return lines.join('\n');
  }
  lines.push(`Nothing was accepted: ${plural(result.conflicts.length, 'conflict')}, ${plural(result.refused.length, 'invalid entry', 'invalid entries')}.`);
  for (const conflict of result.conflicts) {
    lines.push(`  conflict ${conflict.key} (${conflict.step}): ${conflict.proposals.map((proposal) => `${proposal.from} has ${proposal.blob}`).join(', ')}`);
  }
  for (const entry of result.refused) lines.push(`  invalid  ${entry.key} in ${entry.from} (${entry.reason}): ${entry.message}`);
  lines.push('Resolve each conflict by removing one proposal\'s entry (or accept the proposals one at a time), and re-record invalid entries; then accept again.');
  // One logical line each: a line break inside a value (a forged test id) is spelled out, never a line of its own.
  return lines.map(visibleText).join('\n');
}

/** `cache accept --json`. */
export function renderAcceptJson(result: AcceptResult): string {
  return JSON.stringify(result, null, 2);
}

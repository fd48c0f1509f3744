/**
 * `e2e cache prune`: mark and sweep. Mark: every entry a current test can reach (its test id
 * and target belong to a listed test), of the current schema version, readable, not superseded
 * by a newer recording of the same step that is kept too (no ledger needed, so it works in a
 * fresh clone), and (with `unusedForRuns`) used in the last N runs. Sweep: the refs of every other entry, blobs no
 * remaining ref names, and temp files of killed writers older than a grace period. Entries of
 * a newer e2e and entries that could not be read for a passing reason (permissions, I/O) stay.
 * Always reports what it removes (or, dry-run, would remove) and the bytes freed.
 */
import { join, relative } from 'node:path';
import { OLDEST_WRITTEN_ENTRY_VERSION, FileCacheStore, nodeFileSystem, type CacheLocation, type CacheRef, type ReadEntryResult } from '../cache-format/index.js';
import { RunLedger } from '../cache-format/run-ledger.js';
import { E2EError } from '../errors/index.js';
import { describeStep } from './entry-text.js';
import { usageError } from './usage-error.js';
import { DEFAULT_PRUNE_GRACE_MS } from './prune-grace.js';
import { alignColumns, formatAge, formatBytes, plural } from './text-format.js';
import { visibleText } from '../semantics/visible-text.js';

/** Why something is removed. */
export type PruneReason = 'unreachable' | 'old-schema' | 'invalid' | 'superseded' | 'unused' | 'unreferenced-blob' | 'temp-file';

/** One thing prune removes. */
export interface PruneItem {
  reason: PruneReason;
  /** The key (entries), blob name (blobs) or path relative to the cache folder (temp files). */
  name: string;
  /** Bytes freed: the ref file for entries, the file for blobs and temp files. */
  bytes: number;
  /** In words: the step, the read problem, the age. */
  detail: string;
}

/** The current tests, as prune reads them: which test (cache test id) runs in which project (Playwright's list mode gives it). */
export interface ReachableTests {
  tests: readonly { testId: string; project: string }[];
}

/** Options of {@link pruneCache}. */
export interface PruneOptions {
  location: CacheLocation;
  /** Every current test (from Playwright's list mode). */
  inventory: ReachableTests;
  /** List what would go, remove nothing. */
  dryRun: boolean;
  /** Also remove entries neither hit nor saved during the last N recorded runs. */
  unusedForRuns?: number | undefined;
  /** Temp files and never-referenced blobs younger than this belong to live writers. Default 10 minutes. */
  graceMs?: number | undefined;
  /** The current time (tests). Default now. */
  now?: Date | undefined;
}

/** The result of `cache prune`. */
export interface PruneResult {
  cacheDirectory: string;
  dryRun: boolean;
  removed: PruneItem[];
  bytesFreed: number;
  /** Entries kept. */
  keptEntries: number;
  /** Things worth knowing that did not remove anything (kept newer entries, too few runs recorded). */
  notes: string[];
}

/**
 * The reading pipeline's words for a schema version this e2e does not read and is not newer:
 * one it no longer reads, or a version field below the first version (there is no older
 * schema yet, so such an entry is the oldest kind of "old").
 */
const UNSUPPORTED_VERSION = /schema version -?\d+, which this e2e no longer reads|`version` is not a schema version/;

type Verdict = { keep: true; note?: string } | { keep: false; reason: PruneReason; detail: string };

function refBytes(ref: CacheRef): number {
  return ref.blob === undefined ? 0 : ref.blob.length + 1;
}

function judgeRead(result: ReadEntryResult, ref: CacheRef, blobExists: boolean, reachable: (testId: string, targets: string[]) => boolean): Verdict {
  switch (result.kind) {
    case 'absent':
      return { keep: true };
    case 'hit': {
      const { entry } = result;
      const step = `${entry.keyParts.testId}: ${describeStep(entry.keyParts)} [${entry.keyParts.target}]`;
      if (result.storedVersion < OLDEST_WRITTEN_ENTRY_VERSION) return { keep: false, reason: 'old-schema', detail: `${step} (schema version ${result.storedVersion})` };
      if (!reachable(entry.keyParts.testId, [entry.keyParts.target, entry.keyParts.projectId])) return { keep: false, reason: 'unreachable', detail: step };
      return { keep: true };
    }
    case 'invalid':
      switch (result.reason) {
        case 'newer-version':
          return { keep: true, note: `kept ${ref.key}: written by a newer e2e` };
        case 'merge-conflict':
          return { keep: true, note: `kept ${ref.key}: ${result.message}` };
        case 'unreadable':
          return ref.blob !== undefined && !blobExists
            ? { keep: false, reason: 'invalid', detail: `names blob ${ref.blob}, which is missing` }
            : { keep: true, note: `kept ${ref.key}: it could not be read just now (${result.message})` };
        case 'schema':
          return UNSUPPORTED_VERSION.test(result.message) ? { keep: false, reason: 'old-schema', detail: result.message } : { keep: false, reason: 'invalid', detail: `schema: ${result.message}` };
        case 'too-large':
        case 'hash-mismatch':
        case 'undecodable':
        case 'key-mismatch':
          return { keep: false, reason: 'invalid', detail: `${result.reason}: ${result.message}` };
      }
  }
}

/** A ref that names no blob is removed; a merge conflict stops the prune, since both sides' blobs would look unreferenced. */
function unnamedRef(result: ReadEntryResult): Verdict {
  if (result.kind === 'invalid' && result.reason === 'merge-conflict') {
    throw new E2EError('INVALID_STATE', `${result.message} \`e2e cache prune\` removes nothing until it is resolved.`);
  }
  return { keep: false, reason: 'invalid', detail: 'its ref file names no blob' };
}

/** Marks and sweeps the cache at `options.location`. */
export async function pruneCache(options: PruneOptions): Promise<PruneResult> {
  const { location, inventory, dryRun } = options;
  const now = options.now ?? new Date();
  const graceMs = options.graceMs ?? DEFAULT_PRUNE_GRACE_MS;
  const store = new FileCacheStore(location.cacheDirectory, { readOnly: dryRun, hitsDirectory: location.hitsDirectory });
  const [refs, blobs] = await Promise.all([store.list(), store.listBlobs()]);
  if (inventory.tests.length === 0 && refs.length > 0) {
    throw usageError('the test list is empty, so every entry would look unreachable; check the config\'s testDir and testMatch, or run `e2e cache clear` to remove everything.');
  }
  const reachableSet = new Set(inventory.tests.map((test) => `${test.testId}\u0000${test.project}`));
  const reachable = (testId: string, targets: string[]): boolean => targets.some((target) => reachableSet.has(`${testId}\u0000${target}`));
  const blobNames = new Set(blobs.map((blob) => blob.name));
  const removed: PruneItem[] = [];
  const notes: string[] = [];
  const kept: CacheRef[] = [];
  const keptReads = new Map<string, ReadEntryResult>();
  for (const ref of refs) {
    const read = ref.blob === undefined ? undefined : await store.read(ref.key);
    const verdict: Verdict =
      ref.blob === undefined || read === undefined
        ? unnamedRef(read ?? (await store.read(ref.key)))
        : judgeRead(read, ref, blobNames.has(ref.blob), reachable);
    if (verdict.keep) {
      kept.push(ref);
      if (read !== undefined) keptReads.set(ref.key, read);
      if (verdict.note !== undefined) notes.push(verdict.note);
    } else {
      removed.push({ reason: verdict.reason, name: ref.key, bytes: refBytes(ref), detail: verdict.detail });
    }
  }
  markSuperseded(kept, keptReads, removed);
  const stillKept = await markUnused(options, store, kept, removed, notes);
  const removedKeys = new Set(removed.map((item) => item.name));
  const removedRefs = new Map(refs.filter((ref) => removedKeys.has(ref.key)).map((ref) => [ref.key, ref]));
  const orphaned = new Set([...removedRefs.values()].map((ref) => ref.blob));
  const named = new Set(stillKept.map((ref) => ref.blob));
  for (const blob of blobs) {
    if (named.has(blob.name)) continue;
    const age = now.getTime() - blob.modifiedAt.getTime();
    if (!orphaned.has(blob.name) && age < graceMs) continue;
    removed.push({ reason: 'unreferenced-blob', name: blob.name, bytes: blob.size, detail: orphaned.has(blob.name) ? 'named only by removed entries' : 'no ref names it' });
  }
  for (const temp of await store.listTempFiles({ olderThanMs: graceMs, now })) {
    const age = formatAge(now.getTime() - temp.modifiedAt.getTime());
    removed.push({ reason: 'temp-file', name: relative(location.cacheDirectory, temp.path), bytes: temp.size, detail: `left by an interrupted writer (${age} old)` });
  }
  const left = dryRun ? [] : await sweep(store, removed, removedRefs, location.cacheDirectory, notes);
  const done = removed.filter((item) => !left.includes(item));
  return {
    cacheDirectory: location.cacheDirectory,
    dryRun,
    removed: done,
    bytesFreed: done.reduce((sum, item) => sum + item.bytes, 0),
    keptEntries: refs.length - done.filter((item) => item.reason !== 'unreferenced-blob' && item.reason !== 'temp-file').length,
    notes,
  };
}

/**
 * Moves entries that a kept entry of the same test and kind supersedes from `kept` to `removed`
 * (the superseding entry stays, so the step keeps one generation). An entry that supersedes
 * itself, or one a removed entry names, stays.
 */
function markSuperseded(kept: CacheRef[], reads: ReadonlyMap<string, ReadEntryResult>, removed: PruneItem[]): void {
  const supersededBy = new Map<string, string>();
  for (const [key, read] of reads) {
    if (read.kind !== 'hit' || read.entry.supersedes === undefined || read.entry.supersedes === key) continue;
    const older = reads.get(read.entry.supersedes);
    if (older?.kind !== 'hit' || older.entry.kind !== read.entry.kind || older.entry.keyParts.testId !== read.entry.keyParts.testId) continue;
    supersededBy.set(read.entry.supersedes, key);
  }
  for (let index = kept.length - 1; index >= 0; index--) {
    const ref = kept[index]!;
    const newer = supersededBy.get(ref.key);
    const read = reads.get(ref.key);
    if (newer === undefined || read?.kind !== 'hit') continue;
    kept.splice(index, 1);
    const step = `${read.entry.keyParts.testId}: ${describeStep(read.entry.keyParts)} [${read.entry.keyParts.target}]`;
    removed.push({ reason: 'superseded', name: ref.key, bytes: refBytes(ref), detail: `${step} (superseded by ${newer})` });
  }
}

/** How far in the future a run record may be dated and still count (clocks of one machine drift little). */
const CLOCK_SKEW_MS = 5 * 60_000;

/** Moves entries not used during the last N runs from `kept` to `removed`; returns what stays. */
async function markUnused(options: PruneOptions, store: FileCacheStore, kept: CacheRef[], removed: PruneItem[], notes: string[]): Promise<CacheRef[]> {
  const runsWanted = options.unusedForRuns;
  if (runsWanted === undefined) return kept;
  const now = (options.now ?? new Date()).getTime();
  const recorded = await new RunLedger(nodeFileSystem, options.location.hitsDirectory).readAll();
  // A run dated in the future (clock skew, a copied ledger) would put the cutoff past every real use.
  const runs = recorded.filter((run) => run.getTime() <= now + CLOCK_SKEW_MS);
  if (runs.length < recorded.length) {
    notes.push(`ignored ${plural(recorded.length - runs.length, 'run record')} dated in the future in ${options.location.hitsDirectory} (clock skew?)`);
  }
  if (runs.length < runsWanted) {
    notes.push(`only ${plural(runs.length, 'run')} recorded in ${options.location.hitsDirectory}; --unused-for ${runsWanted} removed nothing`);
    return kept;
  }
  const cutoff = runs[runs.length - runsWanted]!.getTime();
  const hits = await store.readHits();
  return kept.filter((ref) => {
    const lastUse = Math.max(hits.get(ref.key)?.getTime() ?? 0, ref.modifiedAt.getTime());
    if (lastUse >= cutoff) return true;
    removed.push({ reason: 'unused', name: ref.key, bytes: refBytes(ref), detail: `neither replayed nor recorded in the last ${plural(runsWanted, 'run')}` });
    return false;
  });
}

async function sweep(store: FileCacheStore, removed: PruneItem[], refs: ReadonlyMap<string, CacheRef>, directory: string, notes: string[]): Promise<PruneItem[]> {
  const left: PruneItem[] = [];
  for (const item of removed) {
    try {
      await sweepOne(store, item, refs, directory, notes);
    } catch (error) {
      // One odd file (a folder named like a blob, a symlinked shard) is that item's problem: the sweep goes on.
      left.push(item);
      notes.push(`could not remove ${item.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return left;
}

async function sweepOne(store: FileCacheStore, item: PruneItem, refs: ReadonlyMap<string, CacheRef>, directory: string, notes: string[]): Promise<void> {
  switch (item.reason) {
    case 'unreachable':
    case 'old-schema':
    case 'invalid':
    case 'superseded':
    case 'unused': {
      const blob = refs.get(item.name)?.blob;
      const gone = await store.delete(item.name, blob === undefined ? {} : { onlyBlob: blob });
      if (!gone) notes.push(`kept ${item.name}: it changed while prune ran`);
      break;
    }
    case 'unreferenced-blob':
      await store.deleteBlob(item.name);
      break;
    case 'temp-file':
      await store.removeTempFile(join(directory, item.name));
      break;
  }
}

const REASON_LABELS: Readonly<Record<PruneReason, string>> = {
  unreachable: 'unreachable',
  'old-schema': 'old schema',
  invalid: 'invalid',
  superseded: 'superseded',
  unused: 'unused',
  'unreferenced-blob': 'blob',
  'temp-file': 'temp file',
};

/** `cache prune` as text. */
export function renderPrune(result: PruneResult): string {
  const verb = result.dryRun ? 'Would remove' : 'Removed';
  const lines = [`${verb} ${plural(result.removed.length, 'item')}, ${formatBytes(result.bytesFreed)} ${result.dryRun ? 'to free' : 'freed'}; ${plural(result.keptEntries, 'entry', 'entries')} kept.`];
  if (result.removed.length > 0) lines.push(...alignColumns(result.removed.map((item) => [REASON_LABELS[item.reason], item.name, item.detail]), '  '));
  for (const note of result.notes) lines.push(`note: ${note}`);
  if (result.dryRun && result.removed.length > 0) lines.push('Nothing was removed (--dry-run).');
  // One logical line each: a line break inside a value (a forged test id) is spelled out, never a line of its own.
  return lines.map(visibleText).join('\n');
}

/** `cache prune --json`. */
export function renderPruneJson(result: PruneResult): string {
  return JSON.stringify(result, null, 2);
}

/**
 * What the end of an attempt writes for one `act` step (DESIGN §6). Entries are written only
 * for steps that passed, took an action, changed something a replay can check, and were
 * followed by a passing verification in an attempt that passed. A recording with the same
 * flow as the stored entry leaves the file alone (`kept`); a different one replaces exactly
 * the entry this attempt saw (compare-and-swap). A replay that needed repair or ended in a
 * failure evicts its entry unless a new recording replaced it. Read-only caches are never
 * written; with a proposal store, new and healed recordings go there instead.
 */
import type { ScreenNode } from './engine.js';
import { canonicalEncode, type ActEntry, type CacheStore, type Entry } from '../cache-format/index.js';
import { buildActEntry } from '../recorder/record-step.js';
import type { StepRecorder } from '../recorder/record-step.js';
import type { CacheOutcome, CacheWrite } from './cache-outcome.js';
import type { StepKey } from './cache-key.js';
import type { Logger } from './logger.js';
import type { StepVerdict } from './step-contract.js';
import type { VerificationKind } from './step-record.js';

/** The entry an attempt found under a step's key when the step started. */
export interface SeenEntry {
  blob: string;
  /** The stored `act` entry, when it read as one. */
  entry?: ActEntry;
}

/** One `act` step as the attempt cache tracked it. */
export interface TrackedStep {
  index: number;
  key: StepKey;
  recorder: StepRecorder;
  uniqueValues: Readonly<Record<string, string>>;
  outcome: CacheOutcome;
  seen?: SeenEntry;
  executor?: { name: string; version?: string };
  verdict?: StepVerdict;
  modelCalls?: number;
  /** The screen once the page held still after the executor concluded (the recording's end). */
  endScreen?: { tree: ScreenNode; url: string };
}

/** Where writes may go, decided once per attempt. */
export interface WriteTargets {
  /** The cache, when it may be written (read-write mode). */
  store?: CacheStore;
  /** In read-only mode with `--propose`: where new and healed recordings go. */
  proposals?: CacheStore;
  /** No entry may change (the attempt failed without a model answering, or was interrupted). */
  frozen: boolean;
  attemptPassed: boolean;
  toolVersion: string;
  recordedAt: string;
  redact(text: string): string;
  logger: Logger;
}

/** The recorded flow: what a replay repeats and checks. Provenance and summary are not part of it. */
function flowOf(entry: ActEntry): string {
  const { actions, startRoute, endRoute, origins, appeared, gone, acted, verified } = entry;
  return canonicalEncode({ actions, startRoute, endRoute, origins, appeared, gone, acted, verified });
}

/** True when two entries replay the same way (a re-recording that need not rewrite the file). */
export function sameFlow(left: ActEntry, right: ActEntry): boolean {
  return flowOf(left) === flowOf(right);
}

/**
 * Save a recorded entry where the targets say: in the store (replacing exactly the entry this
 * attempt saw), else in the proposal folder. `kept` when `same` finds it equal to the entry
 * read; undefined when another writer's entry won meanwhile (theirs stays). Store failures throw.
 */
export async function saveEntry<E extends Entry>(
  entry: E,
  seen: { blob: string; entry?: E } | undefined,
  same: (left: E, right: E) => boolean,
  targets: WriteTargets,
  label: string,
): Promise<CacheWrite | undefined> {
  if (seen?.entry !== undefined && same(seen.entry, entry)) return 'kept';
  if (targets.store !== undefined) {
    const result = await targets.store.write(entry, seen === undefined ? {} : { replacing: seen.blob });
    if (result.status !== 'conflict') return result.status;
    targets.logger.debug(`cache: ${label} was recorded by another writer meanwhile; theirs stays`);
    return undefined;
  }
  if (targets.proposals !== undefined) return (await targets.proposals.write(entry, { overwrite: true })).status === 'kept' ? 'kept' : 'saved';
  return 'no-change';
}

/** The write of one tracked step. Never throws for a failing store: the failure is logged and reported as `no-change`. */
export async function writeStep(step: TrackedStep, verifiedBy: VerificationKind | undefined, targets: WriteTargets): Promise<CacheWrite> {
  if (step.outcome.mode === 'self-finalized' || targets.frozen) return 'no-change';
  const label = `step ${step.index} (entry ${step.key.key})`;
  const candidate = candidateEntry(step, verifiedBy, targets);
  try {
    if (candidate.kind === 'entry') {
      const saved = await saveEntry(candidate.entry, step.seen, sameFlow, targets, label);
      if (saved !== undefined) return saved;
    }
    if (step.outcome.mode === 'agent-concluded' && step.seen !== undefined && targets.store !== undefined) {
      return (await targets.store.delete(step.key.key, { onlyBlob: step.seen.blob })) ? 'evicted' : 'no-change';
    }
  } catch (error) {
    targets.logger.warn(targets.redact(`cache: could not update ${label}: ${error instanceof Error ? error.message : String(error)}`));
    return 'no-change';
  }
  if (candidate.kind === 'unconfirmed') return 'unconfirmed';
  if (candidate.kind === 'not-cacheable') targets.logger.debug(targets.redact(`cache: ${label} is not recorded: ${candidate.reason}`));
  return 'no-change';
}

type Candidate = { kind: 'entry'; entry: ActEntry } | { kind: 'unconfirmed' } | { kind: 'not-cacheable'; reason: string } | { kind: 'none' };

/** The entry a passed step would be saved as, or why there is none. */
function candidateEntry(step: TrackedStep, verifiedBy: VerificationKind | undefined, targets: WriteTargets): Candidate {
  if (step.verdict?.status !== 'passed') return { kind: 'none' };
  const finished = step.recorder.finish(step.endScreen);
  if (finished.kind === 'not-cacheable') return finished;
  if (!targets.attemptPassed || verifiedBy === undefined) return { kind: 'unconfirmed' };
  const provenance: ActEntry['provenance'] = {
    verifiedBy,
    executor: step.executor?.name ?? 'unknown',
    toolVersion: targets.toolVersion,
    recordedAt: targets.recordedAt,
  };
  if (step.executor?.version !== undefined) provenance.executorVersion = step.executor.version;
  return buildActEntry(finished.recording, {
    key: step.key.key,
    keyParts: step.key.parts,
    summary: step.verdict.summary,
    provenance,
    redact: targets.redact,
    uniqueValues: step.uniqueValues,
  });
}

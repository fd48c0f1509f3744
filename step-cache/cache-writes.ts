/**
 * What the end of an attempt writes for one `act` step (DESIGN §6). Entries are written only
 * for steps that passed, took an action, changed something a replay can check, and were
 * followed by a passing verification in an attempt that passed. A recording with the same
 * flow as the stored entry leaves the file alone (`kept`); a different one replaces exactly
 * the entry this attempt saw (compare-and-swap). Nothing else ever removes an entry: a step
 * that failed, was blocked or went unverified keeps the last known-good one (`kept`, with the
 * reason in `writeDetail`). Read-only caches are never written; with a proposal store, new and
 * healed recordings go there instead.
 */
import { canonicalEncode, type ActEntry, type CacheStore, type Entry } from '../cache-format/index.js';
import type { CacheWrite } from '../contract/cache-outcome.js';
import type { Logger } from '../contract/logger.js';
import type { VerificationKind } from '../contract/step-seams.js';
import type { TrackedStep } from './tracked-step.js';
import { messageOf } from '../errors/index.js';

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
  /** The attempt's outbound boundary for entries: true when an entry's text holds no secret value. */
  cleanEntry(text: string): boolean;
  /** Lines leave by the attempt's console sink, which redacts them. */
  logger: Logger;
  /** The key of the entry a new recording of `step` supersedes at its place in the test, if any. */
  supersededBy?: (step: TrackedStep) => Promise<string | undefined>;
}

/** An outcome without the audit's `causedBy`, which is not part of what was recorded. */
function uncaused<T extends { causedBy?: unknown }>(outcome: T): Omit<T, 'causedBy'> {
  const { causedBy: _causedBy, ...rest } = outcome;
  return rest;
}

/**
 * The recorded flow: what a replay repeats and checks. Provenance and summary are not part of
 * it, nor the causes `e2e record --audit` found: a re-recording of the same flow keeps them.
 */
function flowOf(entry: ActEntry): string {
  const { actions, startRoute, endRoute, origins, appeared, gone, acted, verified } = entry;
  return canonicalEncode({ actions, startRoute, endRoute, origins, appeared: appeared.map(uncaused), gone: gone.map(uncaused), acted: acted?.map(uncaused), verified });
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

/** What a finished step would be saved as. */
export type Candidate<E extends Entry> = { kind: 'entry'; entry: E } | { kind: 'unconfirmed' } | { kind: 'not-cacheable'; reason: string } | { kind: 'none' };

/** Who recorded an entry and when, and what verified it. */
export function provenanceOf(step: TrackedStep, verifiedBy: VerificationKind, targets: WriteTargets): ActEntry['provenance'] {
  const provenance: ActEntry['provenance'] = {
    verifiedBy,
    executor: step.executor?.name ?? 'unknown',
    toolVersion: targets.toolVersion,
    recordedAt: targets.recordedAt,
  };
  if (step.executor?.version !== undefined) provenance.executorVersion = step.executor.version;
  return provenance;
}

/**
 * The write of one tracked step, `act` or judgment: save its candidate; a stored entry nothing
 * verified replaced stays as it is. Never throws for a failing store: the failure is logged
 * and reported as `failed`.
 */
export async function writeStep<E extends Entry>(
  step: TrackedStep<E>,
  candidate: (targets: WriteTargets) => Candidate<E>,
  same: (left: E, right: E) => boolean,
  targets: WriteTargets,
): Promise<CacheWrite> {
  if (step.outcome.mode === 'self-finalized' || targets.frozen) return 'no-change';
  const label = `step ${step.index} (entry ${step.key.key})`;
  const found = candidate(targets);
  try {
    if (found.kind === 'entry') {
      const saved = await saveEntry(await placed(found.entry, step, targets), step.seen, same, targets, label);
      if (saved !== undefined) return saved;
    }
  } catch (error) {
    // The run then exits CACHE_WRITE_FAILED (the report's run-level errors): a lost recording is not a pass.
    // Redacted where it leaves: the report (its cache outcome) and the console.
    const message = `could not update ${label}: ${messageOf(error)}`;
    targets.logger.warn(`cache: ${message}`);
    step.outcome.writeError = message;
    return 'failed';
  }
  if (found.kind === 'not-cacheable') targets.logger.debug(`cache: ${label} is not recorded: ${found.reason}`);
  // The last known-good entry outlives every run that did not verify a replacement (DESIGN §6).
  if (step.seen?.entry !== undefined && found.kind !== 'entry') {
    step.outcome.writeDetail = `${keptBecause(step, found, targets.attemptPassed)}, nothing replaced the recorded entry`;
    return 'kept';
  }
  if (found.kind === 'unconfirmed') return 'unconfirmed';
  return 'no-change';
}

/** `entry` with its place in the test, and, recorded under a new key, the entry it supersedes there. */
async function placed<E extends Entry>(entry: E, step: TrackedStep<E>, targets: WriteTargets): Promise<E> {
  const supersedes = step.seen === undefined ? await targets.supersededBy?.(step) : undefined;
  return supersedes === undefined ? { ...entry, position: step.index } : { ...entry, position: step.index, supersedes };
}

/** Why a stored entry stays although its step ran again (`the step failed`). */
function keptBecause(step: TrackedStep, found: Candidate<Entry>, attemptPassed: boolean): string {
  if (step.verdict?.status === 'failed') return 'the step failed';
  if (step.verdict?.status === 'blocked') return 'the step was blocked';
  if (!attemptPassed) return 'the test failed after the step';
  if (found.kind === 'unconfirmed') return 'the step was not verified';
  if (found.kind === 'not-cacheable') return `the new recording cannot be cached (${found.reason})`;
  return 'the step did not finish';
}

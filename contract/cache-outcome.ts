/**
 * The cache outcome of a step (DESIGN §6), as `result.cache` and the report show it: how the
 * step ran (`mode`), why the cache could not finish it (`reason`, `detail`), which entry it
 * used (`entry`, the key) and, after the attempt, what happened to that entry (`write`).
 */

/** How the cache of an attempt is opened (`cache.mode`): written, only read, or not used. */
export type CacheMode = 'read-write' | 'read-only' | 'off';

/**
 * How a step ran: `self-finalized` (replayed with no model call), `agent-concluded` (replay
 * started, then the agent took over from the current screen with `ctx.replayedPrefix`),
 * `missed` (the agent ran from the start, or, without an agent, the step could not run).
 */
export const CACHE_OUTCOME_MODES = ['self-finalized', 'agent-concluded', 'missed'] as const;
export type CacheOutcomeMode = (typeof CACHE_OUTCOME_MODES)[number];

/** Why the cache did not finish the step. */
export const CACHE_REASONS = [
  'no-entry',
  'retry',
  'invalid-entry',
  'wrong-context',
  'target-not-found',
  'target-ambiguous',
  'gap',
  'action-failed',
  'end-mismatch',
] as const;
export type CacheReason = (typeof CACHE_REASONS)[number];

/**
 * What a replay that did not pass says about the app (DESIGN §6, "Regression or drift"):
 * `regression` (every recorded control was found and every action performed, but the recorded
 * outcome did not appear: the app no longer does what the step recorded), `drift` (the screen
 * diverged before the actions could run: a target not found or ambiguous, a wrong route, an
 * invalid entry, a gap, an action that could not be performed, a judgment's evidence gone).
 */
export const REPLAY_CLASSIFICATIONS = ['regression', 'drift'] as const;
export type ReplayClassification = (typeof REPLAY_CLASSIFICATIONS)[number];

/**
 * What the end of the attempt did to the step's entry: `saved` (a new or healed recording, to
 * the proposal folder in read-only mode with `--propose`), `kept` (the stored entry stays
 * untouched: equal to the new recording, or the step failed, was blocked or went unverified and
 * nothing verified replaced it, see `writeDetail`), `unconfirmed` (no entry was stored and no
 * passing verification followed, or the attempt failed), `evicted` (read from reports of older
 * versions; this version never evicts), `no-change` (a replayed step, nothing a replay could
 * check, or a read-only cache), `failed` (the store could not save it: disk full, a read-only
 * folder, a file where the cache folder should be; the run exits 3, `CACHE_WRITE_FAILED`).
 */
export const CACHE_WRITES = ['saved', 'kept', 'unconfirmed', 'evicted', 'no-change', 'failed'] as const;
export type CacheWrite = (typeof CACHE_WRITES)[number];

/** The cache outcome of one step. */
export interface CacheOutcome {
  mode: CacheOutcomeMode;
  reason?: CacheReason;
  /** Where and why (`at action 2 of 3, tap button "Apply": not found within 5 s`), or the miss explanation. */
  detail?: string;
  /** Set on every replay that did not pass: was it the app (`regression`) or the screen (`drift`)? */
  classification?: ReplayClassification;
  /** The step's cache key. */
  entry?: string;
  /** Set at the end of the attempt. */
  write?: CacheWrite;
  /** Why the write `failed` (redacted; no paths beyond the cache's own). */
  writeError?: string;
  /** Why a stored entry was `kept` although the step did not pass (`the step failed, nothing replaced the recorded entry`). */
  writeDetail?: string;
}

/** A step's final outcome, as {@link AttemptCache.finishAttempt} reports it. */
export interface WriteReport {
  stepIndex: number;
  outcome: CacheOutcome;
}

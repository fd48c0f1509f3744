/**
 * The cache outcome of a step (DESIGN §6), as `result.cache` and the report show it: how the
 * step ran (`mode`), why the cache could not finish it (`reason`, `detail`), which entry it
 * used (`entry`, the key) and, after the attempt, what happened to that entry (`write`).
 */

/** How a step ran. */
export type CacheMode =
  /** Replayed with no model call. */
  | 'self-finalized'
  /** Replay started, then the agent took over from the current screen with `ctx.replayedPrefix`. */
  | 'agent-concluded'
  /** The agent ran from the start (or, without an agent, the step could not run). */
  | 'missed';

/** Why the cache did not finish the step. */
export type CacheReason =
  | 'no-entry'
  | 'retry'
  | 'invalid-entry'
  | 'wrong-context'
  | 'target-not-found'
  | 'target-ambiguous'
  | 'gap'
  | 'action-failed'
  | 'end-mismatch';

/** What the end of the attempt did to the step's entry. */
export type CacheWrite =
  /** A new or healed recording was saved (to the proposal folder in read-only mode with `--propose`). */
  | 'saved'
  /** The recording equals the stored one; no file was touched. */
  | 'kept'
  /** The step was not followed by a passing verification (or its attempt failed); nothing was saved. */
  | 'unconfirmed'
  /** The entry no longer replays and nothing replaced it; it was removed. */
  | 'evicted'
  /** Nothing to write: a replayed step, a step that failed, nothing a replay could check, or a read-only cache. */
  | 'no-change'
  /** The store could not save (or evict) it: disk full, a read-only folder, a file where the cache folder should be. The run exits 3, `CACHE_WRITE_FAILED`. */
  | 'failed';

/** The cache outcome of one step. */
export interface CacheOutcome {
  mode: CacheMode;
  reason?: CacheReason;
  /** Where and why (`at action 2 of 3, tap button "Apply": not found within 5 s`), or the miss explanation. */
  detail?: string;
  /** The step's cache key. */
  entry?: string;
  /** Set at the end of the attempt. */
  write?: CacheWrite;
  /** Why the write `failed` (redacted; no paths beyond the cache's own). */
  writeError?: string;
}

/** A step's final outcome, as {@link AttemptCache.finishAttempt} reports it. */
export interface WriteReport {
  stepIndex: number;
  outcome: CacheOutcome;
}

/**
 * What the step runner decided about one step (`step-runner.ts`): each named step of
 * `runStep` returns one of these, and the runner reports and records the step from it.
 */
import type { CacheOutcome } from '../contract/cache-outcome.js';
import type { ReplayedPrefix, StepVerdict } from '../contract/step-contract.js';
import type { FinishedStepView, JudgedEvidence } from '../contract/step-seams.js';

/** What the interceptor handed on with a step it did not replay (nothing without an interceptor). */
export interface HandOff {
  /** The replayed start the executor continues from. */
  prefix?: ReplayedPrefix | undefined;
  /** Reported on the step's record. */
  cache?: CacheOutcome | undefined;
  /** Told how the step ended. */
  afterStep?: ((finished: FinishedStepView) => void) | undefined;
}

/** Nothing handed on. */
export const NO_HAND_OFF: HandOff = Object.freeze({});

/** The interceptor ran the step itself (a replay); the executor did not run. */
export interface Replayed {
  kind: 'replayed';
  verdict: StepVerdict;
  cache: CacheOutcome | undefined;
}

/**
 * What the runner decided about one step, before the verdict is reported and recorded:
 * - `refused`: it never started (a vision assert the executor cannot see; a page on a refused origin);
 * - `replayed`: the interceptor ran it;
 * - `unavailable`: no executor can run it (no model), after the interceptor handed it on;
 * - `concluded`: the executor returned a verdict (checked, a hard stop outranking it), with a judgment's evidence;
 * - `errored`: the interceptor or the executor threw, or the step was stopped (deadline, budget, policy).
 */
export type StepDecision =
  | { kind: 'refused'; verdict: StepVerdict }
  | Replayed
  | { kind: 'unavailable'; verdict: StepVerdict; handOff: HandOff }
  | { kind: 'concluded'; verdict: StepVerdict; handOff: HandOff; evidence: JudgedEvidence | undefined }
  | { kind: 'errored'; verdict: StepVerdict; handOff: HandOff };

/** What the interceptor handed on, for the decisions that went past it. */
export function handOffOf(decision: StepDecision): HandOff {
  return decision.kind === 'refused' || decision.kind === 'replayed' ? NO_HAND_OFF : decision.handOff;
}

/** The cache outcome the step reports: the replay's, or the one the interceptor handed on. */
export function cacheOf(decision: StepDecision): CacheOutcome | undefined {
  return decision.kind === 'replayed' ? decision.cache : handOffOf(decision).cache;
}

/**
 * Why a replay stopped, as a value the replay's named steps return (`replay-step.ts`).
 */

/** Why a replay stopped (the cache reasons a replay itself can produce). */
export type ReplayStopReason = 'wrong-context' | 'target-not-found' | 'target-ambiguous' | 'gap' | 'action-failed' | 'end-mismatch';

/** A stop: its reason, the line that says why, and whether the action it stopped at may have changed the app. */
export class ReplayStop {
  constructor(
    readonly reason: ReplayStopReason,
    readonly message: string,
    readonly mayHaveCommitted = false,
  ) {}
}

/** A stop at a gap: what the agent takes over. */
export function gapStop(): ReplayStop {
  return new ReplayStop('gap', 'cannot be repeated; the agent takes over here');
}

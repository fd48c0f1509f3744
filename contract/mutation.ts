/**
 * What `e2e cache audit` changes in one replayed step (a *mutant*), as the runner hands it to
 * the cache: the mutation, the entry it applies to, and the page-side tools it needs. The
 * replayer applies it; nothing here knows a page.
 */

/** The kinds of mutant (DESIGN §6, "Audit"). */
export type MutationKind = 'skip-action' | 'break-handlers' | 'hide-evidence';

/**
 * One change to one step: `skip-action` leaves recorded action `action` (0-based) out;
 * `break-handlers` performs it while the page's own event listeners never hear of it (the
 * browser's default still happens); `hide-evidence` hides the nodes a judgment's cached answer
 * rested on before it replays.
 */
export type StepMutation = { kind: 'skip-action'; action: number } | { kind: 'break-handlers'; action: number } | { kind: 'hide-evidence' };

/** What an engine does to the live app for a mutation. */
export interface MutationSurface {
  /**
   * Stop every event before the page's own listeners hear it, without cancelling the browser's
   * default (a native checkbox still ticks, typed text still shows). Returns the undo.
   */
  silenceHandlers(): Promise<() => Promise<void>>;
  /** Hide the nodes with these ids (of the latest observation) from the page. */
  hideNodes(ids: readonly string[]): Promise<void>;
}

/** The mutant of one attempt: which entry's step it changes, how, and with what. */
export interface AttemptMutation {
  /** The cache key of the entry whose step is mutated. */
  entry: string;
  mutation: StepMutation;
  surface: MutationSurface;
}

/**
 * What a replay under `e2e record --audit` saw of each recorded end outcome of its step on the
 * screen it ended on: whether it held, by position in the entry's lists (`appeared[i]`: that
 * control is on the screen; `gone[i]`: it is not; `acted[i]`: the acted-on control is as the
 * step left it). Compared between a mutant and the unmutated replay, it says which outcomes the
 * mutated action causes.
 */
export interface EndFacts {
  route: boolean;
  appeared: boolean[];
  gone: boolean[];
  acted: boolean[];
}

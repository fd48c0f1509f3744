/**
 * Replay one recorded `act` step with no model (DESIGN §6); a divergence stops it with a reason
 * and the prefix that ran. See replayer/README.md, "Replaying a step". The named steps: the
 * start check, one step per recorded action (through `replay-call.ts`), the end-state wait.
 */
import type { ActEntry, RecordedAction } from '../cache-format/entry.js';
import { isEngineError } from '../contract/engine.js';
import type { ReplayClassification } from '../contract/cache-outcome.js';
import type { EndFacts, MutationSurface, StepMutation } from '../contract/mutation.js';
import type { ActionOutcome, Observation, ReplayedPrefix, StepActions } from '../contract/step-contract.js';
import { sleep } from '../contract/deadline.js';
import { hasTrait, isE2EError, messageOf } from '../errors/index.js';
import { describeAction } from '../semantics/describe-action.js';
import { canDismiss } from '../semantics/dismissal.js';
import { originOf } from '../semantics/route-of.js';
import type { TreeIndex } from '../semantics/tree-index.js';
import { fillUniquePlaceholders } from '../semantics/unique-placeholders.js';
import type { NeedleSource } from '../semantics/target-needles.js';
import { allHold, checkEndState, endFacts, type SkippedDismissal } from './end-check.js';
import { replayCall } from './replay-call.js';
import { heldReading, ReplayScreen, type ReadInFull } from './replay-screen.js';
import { gapStop, ReplayStop, type ReplayStopReason } from './replay-stop.js';
import { matchRoute } from './route-match.js';

export type { ReplayStopReason } from './replay-stop.js';

/** The outcome of a replay. */
export type ReplayOutcome =
  /** `notes`: what the end check tolerated or the replay skipped, for the outcome's detail; `facts`: with `probe`, each outcome on the end screen. */
  | { kind: 'finished'; actions: string[]; notes?: string[]; facts?: EndFacts }
  /** `classification`: `regression` when every action ran and only the recorded outcome is missing, else `drift`. */
  | { kind: 'stopped'; reason: ReplayStopReason; classification: ReplayClassification; detail: string; prefix: ReplayedPrefix; facts?: EndFacts };

/** Default bounded wait for a missing control, and for the end state to settle. */
export const DEFAULT_WAIT_FOR_TARGET_MS = 5_000;
/** Default pause between observations while waiting. */
export const DEFAULT_POLL_INTERVAL_MS = 100;
/**
 * How long a dismissal's container (a consent banner…) is looked for before the action is
 * skipped as having nothing to dismiss: such UI often renders a moment after the page, but a
 * missing banner must not cost the full target wait. Capped by the target wait.
 */
export const DISMISSAL_LOOK_MS = 1_000;

/** What a replay needs. */
export interface ReplayStepOptions {
  entry: ActEntry;
  /** The step's policed actions (the same surface the agent gets); the last action runs through them. */
  actions: StepActions;
  /**
   * The same actions with a brief settle (they return once the screen changed, without a quiet
   * wait), for every action but the last: each next target is waited for anyway, and the last
   * action settles fully before the end check. Default: `actions`.
   */
  briefActions?: StepActions;
  /**
   * A fresh observation with its tree (`ctx.observe({ tree: true })`); asked, it reads in full
   * the nodes holding some words, or every node, where the engine would leave nodes out.
   */
  observe: (options?: ReadInFull) => Promise<Observation>;
  /** This run's `unique()` values by param name. */
  uniqueValues?: Readonly<Record<string, string>>;
  /** Names of the secrets this step may type. */
  secretsAvailable?: Iterable<string>;
  /** How long to wait for a missing control, and for the end state. Default 5 s. */
  waitForTargetMs?: number;
  /** How long to look for a dismissal's container before skipping it. Default {@link DISMISSAL_LOOK_MS}, at most `waitForTargetMs`. */
  dismissalLookMs?: number;
  /** Pause between observations while waiting. Default 100 ms. */
  pollIntervalMs?: number;
  signal?: AbortSignal;
  /** `e2e cache audit`: an action of the step skipped or made ineffective, with the page-side tools it needs. */
  mutation?: { mutation: StepMutation; surface: MutationSurface } | undefined;
  /**
   * `e2e record --audit`: once the actions ran, wait (up to the end-state wait) for every
   * recorded outcome rather than for a passing end check, and report which held (`facts`).
   */
  probe?: boolean | undefined;
  /**
   * An audit's replay (`e2e cache audit`, `e2e record --audit`): the end-state wait also ends
   * once the screen has held still this long with no request in flight ({@link holdsStill}),
   * since waiting on cannot change it. Without it (or without `holdsStill`), the full wait.
   */
  stopWhenStillMs?: number | undefined;
  /**
   * True once the screen, unchanged since the latest observation, has held still for `quietMs`
   * with no request in flight; false when it changed, or `maxMs` ran out first; undefined at
   * once when the engine cannot tell. The step's `holdsStill` service.
   */
  holdsStill?: ((quietMs: number, maxMs: number) => Promise<boolean | undefined>) | undefined;
  /**
   * With `stopWhenStillMs`: the actions, returning the screen right after each one (no settle
   * wait); the replay then waits for each next target, and for the end state, until a change
   * or a still screen. Default: `actions` and `briefActions`.
   */
  immediateActions?: StepActions | undefined;
}

/** What one recorded action's step came to. */
type ActionStep =
  | { kind: 'ran' }
  /** A dismissal whose container was absent, or the audit's skipped action. */
  | { kind: 'skipped'; dismissal?: SkippedDismissal; note?: string }
  | { kind: 'stopped'; stop: ReplayStop };

/** A stopped replay wait rejects with the signal's own reason (the step's stop error). */
const passReason = (reason: unknown): unknown => reason;

/**
 * Whether a failed action may still have changed the app: the error's own
 * `mayHaveCommitted` when it carries one, false for failures raised before anything was
 * sent, true otherwise (the agent then looks before it repeats the action).
 */
function mayHaveCommitted(error: unknown): boolean {
  const flag = typeof error === 'object' && error !== null ? (error as { mayHaveCommitted?: unknown }).mayHaveCommitted : undefined;
  if (typeof flag === 'boolean') return flag;
  if (isEngineError(error)) return error.engineCode === 'ACTION_MAY_HAVE_COMMITTED' || error.engineCode === 'OPERATION_TIMEOUT';
  // Failures raised before anything reached the app (the `preFlight` trait) changed nothing.
  return !(isE2EError(error) && hasTrait(error.code, 'preFlight'));
}

/**
 * One line for a failed action: the runner's message without its echo of the action
 * (`tap button "Apply" failed: `) and without the screen it appends after a newline.
 */
function failureLine(error: unknown): string {
  const firstLine = messageOf(error).split('\n')[0] ?? '';
  const marker = firstLine.indexOf(' failed: ');
  return marker === -1 ? firstLine : firstLine.slice(marker + ' failed: '.length);
}

/** `url` resolved against `base`; left as is when it does not parse (the action then fails visibly). */
function resolveUrl(url: string, base: string): string {
  try {
    return new URL(url, base).href;
  } catch {
    return url;
  }
}

/** One replay of one entry: what ran, what was skipped, and the live screen. */
class StepReplay {
  readonly #options: ReplayStepOptions;
  readonly #entry: ActEntry;
  readonly #uniqueValues: Readonly<Record<string, string>>;
  readonly #waitMs: number;
  readonly #pollMs: number;
  readonly #sentences: string[];
  readonly #screen: ReplayScreen;
  readonly #ran: string[] = [];
  readonly #skipped: SkippedDismissal[] = [];
  readonly #notes: string[] = [];

  constructor(options: ReplayStepOptions) {
    this.#options = options;
    this.#entry = options.entry;
    this.#uniqueValues = options.uniqueValues ?? {};
    this.#waitMs = options.waitForTargetMs ?? DEFAULT_WAIT_FOR_TARGET_MS;
    this.#pollMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.#sentences = options.entry.actions.map(describeAction);
    this.#screen = new ReplayScreen({
      entry: options.entry,
      observe: options.observe,
      uniqueValues: this.#uniqueValues,
      waitMs: this.#waitMs,
      lookMs: Math.min(options.dismissalLookMs ?? DISMISSAL_LOOK_MS, this.#waitMs),
      pollMs: this.#pollMs,
      signal: options.signal,
      held: heldReading([...matchedSources(options.entry, this.#uniqueValues), ...endCheckSources(options.entry, this.#uniqueValues)]),
      ...(options.stopWhenStillMs === undefined || options.holdsStill === undefined ? {} : { still: { quietMs: options.stopWhenStillMs, holds: options.holdsStill } }),
    });
  }

  get #total(): number {
    return this.#entry.actions.length;
  }

  async run(): Promise<ReplayOutcome> {
    await this.#screen.refresh();
    const start = this.#checkStart();
    if (start !== undefined) return this.#stopped(start.stop, start.actionIndex);
    // The end check compares the end with this start: where the engine left nodes out, both read the same controls in full.
    await this.#screen.readFully(endCheckSources(this.#entry, this.#uniqueValues));
    const replayStart = { tree: this.#screen.indexOf(this.#screen.current.tree), url: this.#screen.current.url };
    for (const [actionIndex, action] of this.#entry.actions.entries()) {
      this.#options.signal?.throwIfAborted();
      const step = await this.#replayAction(actionIndex, action);
      if (step.kind === 'stopped') return this.#stopped(step.stop, actionIndex);
      if (step.kind === 'skipped' && step.dismissal !== undefined) {
        this.#skipped.push(step.dismissal);
        this.#notes.push(step.note!);
      }
    }
    return this.#awaitEndState(replayStart);
  }

  /** The start route matches, and every value the actions type has one in this run. */
  #checkStart(): { stop: ReplayStop; actionIndex: number | undefined } | undefined {
    const start = matchRoute(this.#entry.startRoute, this.#screen.current.url);
    if (start.kind === 'mismatch') return { stop: new ReplayStop('wrong-context', `start route ${start.detail}`), actionIndex: undefined };
    const secrets = new Set(this.#options.secretsAvailable ?? []);
    for (const [actionIndex, action] of this.#entry.actions.entries()) {
      const value = 'value' in action ? action.value : undefined;
      if (value?.kind === 'secret' && !secrets.has(value.name)) {
        return { stop: new ReplayStop('action-failed', `the secret ${value.name} is not available to this step`), actionIndex };
      }
      if (value?.kind === 'unique' && !Object.hasOwn(this.#uniqueValues, value.param)) {
        return { stop: new ReplayStop('action-failed', `the unique() param ${value.param} has no value in this run`), actionIndex };
      }
    }
    return undefined;
  }

  /** The page is on an origin the recording visited, and a navigation goes to one (an entry without a location has no origins to keep to). */
  #checkOrigin(action: RecordedAction): ReplayStop | undefined {
    const { origins } = this.#entry;
    if (origins === undefined) return undefined;
    const current = this.#screen.current.url;
    const origin = originOf(current);
    if (origin !== undefined && !origins.includes(origin)) return new ReplayStop('wrong-context', `the page is on ${origin}, which the recording never visited`);
    if (action.verb === 'navigate') {
      const destination = originOf(resolveUrl(fillUniquePlaceholders(action.url, this.#uniqueValues), current));
      if (destination !== undefined && !origins.includes(destination)) return new ReplayStop('action-failed', `refused: ${destination} is an origin the recording never visited`);
    }
    return undefined;
  }

  /** Repeat one recorded action: checks, dismissal, re-found targets, the call, the screen it left. */
  async #replayAction(actionIndex: number, action: RecordedAction): Promise<ActionStep> {
    const mutation = this.#options.mutation;
    if (mutation?.mutation.kind === 'skip-action' && mutation.mutation.action === actionIndex) return { kind: 'skipped' };
    if (action.verb === 'gap') return { kind: 'stopped', stop: gapStop() };
    const wrongOrigin = this.#checkOrigin(action);
    if (wrongOrigin !== undefined) return { kind: 'stopped', stop: wrongOrigin };
    if (canDismiss(action) && action.dismisses !== undefined && !(await this.#screen.dismissalShows(action.dismisses, action.target))) {
      // The sentence already names the container: it is the target's own.
      const note = `skipped: action ${actionIndex + 1} of ${this.#total}, ${this.#sentences[actionIndex]!}: its ${action.dismisses.role} was absent`;
      return { kind: 'skipped', dismissal: { container: action.dismisses, target: action.target }, note };
    }
    const found = await this.#screen.findAll(action);
    if (found.kind === 'stop') return { kind: 'stopped', stop: found.stop };
    const [target] = found.refs;
    const covered = this.#screen.covered(action, target);
    if (covered !== undefined) return { kind: 'stopped', stop: covered };
    const call = replayCall(action, found.refs, this.#uniqueValues);
    if (call.kind === 'stop') return { kind: 'stopped', stop: call.stop };
    const { stopWhenStillMs, holdsStill, immediateActions } = this.#options;
    const stillWaits = stopWhenStillMs !== undefined && holdsStill !== undefined && immediateActions !== undefined;
    const surface = stillWaits ? immediateActions : actionIndex < this.#total - 1 ? (this.#options.briefActions ?? this.#options.actions) : this.#options.actions;
    const silenced = mutation?.mutation.kind === 'break-handlers' && mutation.mutation.action === actionIndex ? await mutation.surface.silenceHandlers() : undefined;
    let outcome: ActionOutcome;
    try {
      outcome = await call.run(surface);
    } catch (error) {
      // These end the step rather than the replay (the `endsReplay` trait); they propagate to the runner.
      if (this.#options.signal?.aborted === true || (isE2EError(error) && hasTrait(error.code, 'endsReplay'))) throw error;
      const failure = failureLine(error);
      return { kind: 'stopped', stop: (await this.#screen.obstructed(error, target)) ?? new ReplayStop('action-failed', failure, mayHaveCommitted(error)) };
    } finally {
      await silenced?.();
    }
    this.#ran.push(this.#sentences[actionIndex]!);
    await this.#screen.after(outcome.observation);
    return { kind: 'ran' };
  }

  /** Wait up to the target wait for the recorded end state to hold. */
  async #awaitEndState(replayStart: { tree: TreeIndex; url: string }): Promise<ReplayOutcome> {
    const skipped = this.#skipped;
    if (skipped.length === this.#total) {
      const what = this.#notes.map((note) => note.replace(/^skipped: /, '')).join('; ');
      return this.#stopped(new ReplayStop('end-mismatch', `every action was skipped (${what}), so nothing the replay did proves the step`), undefined);
    }
    const deadline = Date.now() + this.#waitMs;
    // Where the engine left nodes out, the controls the end check counts are read in full.
    const endSources = endCheckSources(this.#entry, this.#uniqueValues);
    const { stopWhenStillMs, holdsStill } = this.#options;
    let reading: ReadInFull | undefined;
    // An audit's replay: the screen held still this long with no request in flight, so waiting on changes nothing.
    let still = false;
    for (;;) {
      reading = (await this.#screen.readFully(endSources)) ?? reading;
      const end = { entry: this.#entry, replayStart, end: this.#screen.current, uniqueValues: this.#uniqueValues, skipped };
      const check = checkEndState(end);
      // With `probe`, a passing check waits on until every recorded outcome holds (or the wait ends).
      const facts = this.#options.probe === true ? endFacts(end) : undefined;
      const over = still || Date.now() >= deadline;
      const settled = facts === undefined || allHold(facts) || over;
      if (check.ok && settled) {
        const lines = [...this.#notes, ...(check.changedForms ?? []).map((line) => `changed form: ${line}`), ...(check.tolerated ?? []).map((line) => `tolerated: ${line}`)];
        const finished: ReplayOutcome = lines.length === 0 ? { kind: 'finished', actions: this.#ran } : { kind: 'finished', actions: this.#ran, notes: lines };
        return facts === undefined ? finished : { ...finished, facts };
      }
      if (!check.ok && over) {
        const stillNote = still ? ` (the screen then held still for ${formatSeconds(stopWhenStillMs!)})` : '';
        const stopped = this.#stopped(new ReplayStop('end-mismatch', `after all ${this.#total} actions, ${check.detail}${stillNote}`), undefined);
        return facts === undefined ? stopped : { ...stopped, facts };
      }
      const held = stopWhenStillMs === undefined ? undefined : await holdsStill?.(stopWhenStillMs, Math.max(0, deadline - Date.now()));
      // Unchanged since the latest look: the screen is as checked, and one more check ends the wait.
      if (held === true) {
        still = true;
        continue;
      }
      if (held === undefined) await sleep(this.#pollMs, this.#options.signal, passReason);
      await this.#screen.refresh(reading);
    }
  }

  #stopped(stop: ReplayStop, actionIndex: number | undefined): ReplayOutcome {
    const total = this.#total;
    const where = actionIndex === undefined ? '' : `at action ${actionIndex + 1} of ${total}, ${this.#sentences[actionIndex]}: `;
    const detail = `${where}${stop.message}`;
    // Only an end check after actions that really ran blames the app; every other stop is the screen's.
    const regression = stop.reason === 'end-mismatch' && actionIndex === undefined && this.#skipped.length < total;
    return {
      kind: 'stopped',
      reason: stop.reason,
      classification: regression ? 'regression' : 'drift',
      detail,
      prefix: { actions: [...this.#ran], total, reason: stop.reason, detail, lastMayHaveCommitted: stop.mayHaveCommitted },
    };
  }
}

/** What the replay of an entry may look for, its `unique()` placeholders filled: each action's target, destination and dismissal's container. */
function matchedSources(entry: ActEntry, uniqueValues: Readonly<Record<string, string>>): NeedleSource[] {
  const fill = (text: string | undefined): string | undefined => (text === undefined ? undefined : fillUniquePlaceholders(text, uniqueValues));
  const sources: NeedleSource[] = [];
  for (const action of entry.actions) {
    const fields = action as { target?: NeedleSource; destination?: NeedleSource; dismisses?: { name: string } };
    for (const control of [fields.target, fields.destination]) {
      if (control !== undefined) sources.push({ name: fill(control.name) ?? '', text: fill(control.text), placeholder: fill(control.placeholder), testId: control.testId });
    }
    if (fields.dismisses !== undefined) sources.push({ name: fill(fields.dismisses.name) ?? '' });
  }
  return sources;
}

/** `1 s`, `0.5 s`. */
function formatSeconds(milliseconds: number): string {
  return `${Number((milliseconds / 1000).toFixed(1))} s`;
}

/** The controls an entry's end check counts, their `unique()` placeholders filled: what a partly read screen must read in full. */
function endCheckSources(entry: ActEntry, uniqueValues: Readonly<Record<string, string>>): NeedleSource[] {
  const fill = (text: string | undefined): string | undefined => (text === undefined ? undefined : fillUniquePlaceholders(text, uniqueValues));
  const controls = [...entry.appeared, ...entry.gone, ...(entry.verified ?? []), ...(entry.acted ?? []).map((check) => check.target)];
  return controls.map((control) => ({ name: fill(control.name) ?? '', text: fill(control.text), testId: control.testId }));
}

/** Replay a recorded step. Throws only for cancellation and runtime hard stops. */
export function replayStep(options: ReplayStepOptions): Promise<ReplayOutcome> {
  return new StepReplay(options).run();
}

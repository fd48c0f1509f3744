/**
 * The three seams the cache plugs into, kept small on purpose:
 *
 * - {@link ActionListener} (`onAction`): called once per policed action (and per mutating
 *   project tool) with the screens before and after, so the recorder can describe targets
 *   semantically and build an entry.
 * - {@link VerificationListener} (`onVerification`): called once per passed verification (an
 *   `expect` on a locator or page, whichever module it came from, a passed `agent.assert` or
 *   `agent.waitFor`), with what it looked at, so the cache saves only verified steps and rests
 *   their end checks on what the test checked.
 * - {@link StepInterceptor} (`stepInterceptor`): called before the executor runs, with the
 *   same policed services, so the replayer can run a cached step itself (`handled`) or run
 *   part of it and hand the executor a `replayedPrefix` (`continueWith`).
 */
import type { ErrorCode } from '../errors/index.js';
import type { CacheOutcome } from './cache-outcome.js';
import type { NodeRef, ScreenNode } from './engine.js';
import type { ParamSource } from './param-values.js';
import type { Observation, ObserveOptions, ReplayedPrefix, StepActions, StepInfo, StepVerdict, TargetDescription } from './step-contract.js';
import type { PolicedVerb } from './verbs.js';

/** An observation as the runner keeps it: redacted, always with its tree. */
export interface RunnerObservation extends Observation {
  tree: ScreenNode;
}

/** Every verb an action event can carry: the verbs of `ctx.actions` (`contract/verbs.ts`), and project tools. */
export type ActionVerb = PolicedVerb | 'tool';

/** Where a typed value came from. */
export type ValueOrigin =
  | { kind: 'literal' }
  | { kind: 'param'; name: string }
  | { kind: 'unique'; param: string }
  | { kind: 'secret'; name: string };

/** The step an event belongs to. */
export interface EventStep {
  index: number;
  kind: StepInfo['kind'];
  instruction: string;
}

/** One policed action, as listeners see it. Every string is redacted. */
export interface ActionEvent {
  step: EventStep;
  verb: ActionVerb;
  /** The target, for node actions. */
  ref?: NodeRef;
  /** The target node as the `before` screen showed it. */
  node?: ScreenNode;
  /**
   * The call's arguments, named like the `ctx.actions` parameters: `value`, `replace`, `name`
   * (a secret's or a tool's name, never a secret value), `mutates`, `key`, `checked`,
   * `direction`, `paths`, `destination`, `url`, `point`, `from`, `to`.
   */
  args: Record<string, unknown>;
  /** For typed and selected values: where the value came from. */
  value?: ValueOrigin;
  /** The sentence the report shows (`tap button "Apply"`). */
  sentence: string;
  /** The screen the action was authorized against. */
  before: RunnerObservation;
  /** The screen after the action settled (or after the failure). */
  after?: RunnerObservation;
  outcome: 'ok' | ErrorCode;
  /** True when a failed action may still have changed the app. */
  mayHaveCommitted: boolean;
}

/** What passed a verification that confirms the steps before it. */
export type VerificationKind = 'expect' | 'assert' | 'waitFor' | 'extract';

/** What a verification looked at: nodes of a redacted screen (an `expect`'s locator matches). */
export interface LookedAtScreen {
  tree: ScreenNode;
  url: string;
  nodeIds: readonly string[];
}

/** One passed verification, as listeners see it. Every string is redacted. */
export interface VerificationEvent {
  kind: VerificationKind;
  /** What was checked (`toHaveText`, `not.toHaveCount`, the assert question). */
  detail: string;
  /** The last step that had finished when it passed; -1 before any. */
  afterStep: number;
  /**
   * For a positive `expect` on a locator, when {@link LookedAtWanted} asked for it: the nodes
   * it matched on the screen right after it passed. A judgment's evidence reaches the cache
   * through its interceptor's `afterStep` instead.
   */
  lookedAt?: LookedAtScreen;
}

/** Subscriber to {@link VerificationEvent}s. Must not throw; errors are logged and ignored. */
export type VerificationListener = (event: VerificationEvent) => void;

/** Asked before a verification after step `afterStep` reads the screen for its `lookedAt` (a screen read per `expect` otherwise). */
export type LookedAtWanted = (afterStep: number) => boolean;

/** Subscriber to {@link ActionEvent}s. Must not throw; errors are logged and ignored. */
export type ActionListener = (event: ActionEvent) => void;

/** What an interceptor learns about a step before the executor runs. */
export interface InterceptedStep {
  info: StepInfo;
  /** The instruction as written, placeholders kept, redacted. */
  template: string;
  /** Where each param came from (`unique()` values, secrets by name). */
  paramSources: Record<string, ParamSource>;
  agent: { name: string; context: string };
  /** The executor that runs after the interceptor; absent when none can run (no model), so only a replay can finish the step. */
  executor?: { name: string; version?: string; cache: 'inherit' | 'off' };
  attempt: { testId: string; retry: number; titlePath: string[] };
  target: TargetDescription;
}

/**
 * What a replay may ask of an observation beyond `ctx.observe`: when the engine leaves nodes
 * out (a list of 200,000 rows read in part), read in full every node holding one of these
 * words (`include`), or every node (`unbounded`), so a recorded control is judged on all the
 * nodes that could be taken for it.
 */
export interface ServiceObserveOptions extends ObserveOptions {
  include?: readonly string[];
  unbounded?: boolean;
  /**
   * Keep reading the nodes holding the `include` words in full on every later screen of the
   * step, those the runner takes while acting and settling too (until the next `hold`): a
   * replay asks once for the words of every control it will match.
   */
  hold?: boolean;
}

/** The policed services an interceptor may use; the same as an executor's, counted the same way. */
export interface StepServices {
  actions: StepActions;
  /**
   * The same policed actions with a brief settle: each returns once the screen has left the
   * shape it was resolved against, without waiting for it to hold still. For replaying the
   * recorded actions before the last one (the replayer waits for each next target itself).
   */
  briefActions: StepActions;
  observe(options?: ServiceObserveOptions): Promise<Observation>;
  signal: AbortSignal;
  redact(text: string): string;
  /** Milliseconds left until the step deadline. */
  remainingMs(): number;
  /**
   * True once the screen, unchanged since the step's latest observation, has held still for
   * `quietMs` with no request in flight; false as soon as it changed, or when `maxMs` ran out
   * first; undefined at once when the engine cannot tell (it has no change wait).
   */
  holdsStill?(quietMs: number, maxMs: number): Promise<boolean | undefined>;
  /**
   * The same policed actions returning the screen right after each action, without waiting for
   * it to change: for an audit's replay, which waits for a change or a still screen itself
   * ({@link holdsStill}), so an action that changes nothing costs no settle wait.
   */
  immediateActions?: StepActions;
}

/** A passed judgment's evidence, resolved by the runner against the screen the judge saw. */
export interface JudgedEvidence {
  /** The cited node ids, as the executor gave them. */
  nodeIds: string[];
  /** The observation the ids belong to (the step's latest); undefined when the revision did not match it. */
  screen: RunnerObservation | undefined;
  /** False when the judge's ids could not be validated: nothing may be cached. */
  cacheable: boolean;
}

/** A step as it ended, for an interceptor's `afterStep` (see {@link InterceptResult}). */
export interface FinishedStepView {
  /** The final verdict (after the runner's checks; without evidence). */
  verdict: StepVerdict;
  /** Present for a passed judgment whose executor named evidence. */
  evidence?: JudgedEvidence;
  /**
   * For a passed `act` step that acted: the screen once the page went quiet after the
   * executor concluded, so a recording ends where the step's effects ended (a submit that
   * fetches and then navigates), not at the last action's first settled screen.
   */
  endScreen?: RunnerObservation;
}

/** What an interceptor decided. */
export type InterceptResult =
  /** The step is done (e.g. replayed with no model); the executor does not run. */
  | { handled: { verdict: StepVerdict; cache?: CacheOutcome } }
  /**
   * Run the executor, optionally after a partial replay; `cache` is reported on the step.
   * `afterStep` is called once the step ended, with its final verdict and, for a passed
   * judgment, its evidence (the judgment cache records it); it must not throw.
   */
  | { continueWith?: ReplayedPrefix; cache?: CacheOutcome; afterStep?: (finished: FinishedStepView) => void };

/** Called before each step (`act`, `assert`, `waitFor`, `extract`) reaches the executor. */
export type StepInterceptor = (step: InterceptedStep, services: StepServices) => Promise<InterceptResult>;

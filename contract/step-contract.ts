/**
 * The step contract (DESIGN §3): what an executor receives (`StepContext`) and returns
 * (`StepVerdict`). The runner owns the mechanics, the executor owns the thinking. These
 * types compile without the `ai` package: the model is typed structurally.
 */
import type { ErrorCode } from '../errors/index.js';
import type { EngineLocation, KeyModifier, NodeRef, Point, ScreenNode, ScrollDirection, Verb } from './engine.js';

/** Step kinds. Only `act` steps are recorded as action traces. */
export type StepKind = 'act' | 'assert' | 'waitFor' | 'extract';

/** A verdict. `passed` has no code; `blocked` needs one. */
export interface StepVerdict {
  status: 'passed' | 'failed' | 'blocked';
  summary: string;
  errorCode?: ErrorCode;
  /** For `extract`: the answer, checked against `ctx.step.schema` by the runner. */
  value?: unknown;
  /**
   * For a passed judgment (`assert`, `waitFor`, `extract`): the screen nodes the answer rests
   * on. The runner hands it to the cache, which turns it into evidence checks; it is never
   * part of the step's outcome. Ignored on other verdicts.
   */
  evidence?: StepEvidence;
}

/** What a passed judgment rests on (see {@link StepVerdict.evidence}). */
export interface StepEvidence {
  /** Ids of lines of the judged screen (`n12`). */
  nodeIds: string[];
  /** Revision of the observation the ids were read from; it must be the step's latest observation. */
  revision: number;
  /** False when the ids could not be checked against the screen (unknown after the repair round, vision only): nothing is cached. */
  cacheable: boolean;
}

/**
 * A language model as the AI SDK types it (`LanguageModel` from `ai`). Kept opaque here so
 * the contract compiles without `ai`; `executor/` narrows it.
 */
export type OpaqueLanguageModel = object | string;

/** A step executor: the built-in agent, a user's tool loop, or a scripted one. */
export interface StepExecutor {
  name: string;
  version?: string;
  /** `'off'`: never replay or record this executor's acts. Default `'inherit'`. */
  cache?: 'inherit' | 'off';
  /** When true, `assert`'s vision request arrives as `ctx.step.vision`. */
  vision?: boolean;
  model?: OpaqueLanguageModel;
  judge?: OpaqueLanguageModel;
  runStep(ctx: StepContext): Promise<StepVerdict>;
}

/** What the executor learns about the step. */
export interface StepInfo {
  kind: StepKind;
  /** The instruction with params filled in; secrets read `<secret:name>`. */
  instruction: string;
  /** Params with secrets shown as `<secret:name>` and `unique()` values as their current value. */
  params: Record<string, string>;
  /** Index of the step in the attempt's timeline (0-based). */
  index: number;
  /** Vision request of an `assert`, only for executors that declare `vision: true`. */
  vision?: boolean | 'only';
  /** Names of secrets this step may type. */
  secrets: string[];
  /** What each of those secrets is for, when its config says (`secrets.<name>.purpose`); shown to the model beside the name. */
  secretPurposes?: Record<string, string>;
  /** For `extract`: the zod schema the answer must satisfy. */
  schema?: unknown;
  /** For `waitFor`: milliseconds between checks of an unchanged screen. */
  intervalMs?: number;
}

/** A redacted observation of the screen. */
export interface Observation {
  /** The text screen of DESIGN §4 (header line + one node per line), secrets redacted. */
  text: string;
  /** Monotonic revision within the attempt. */
  revision: number;
  /** Redacted URL (query and fragment kept; secrets replaced). */
  url: string;
  /** Path for the header line. */
  path: string;
  nodeCount: number;
  /** The node tree, when requested. Redacted like the text. Never set when {@link treeUnavailable}. */
  tree?: ScreenNode;
  /**
   * True when the screen could not be read as a tree (the page broke the capture). The text
   * says so, ids of earlier observations are invalid (actions on them fail `ACTION_FAILED`),
   * and a masked screenshot comes along when policy allows. A missing tree does not prove a
   * control is absent.
   */
  treeUnavailable?: boolean;
  /** Whether an on-screen keyboard is showing; absent when the engine cannot tell (the web engine). */
  keyboardVisible?: boolean;
  /** A masked PNG, when requested and allowed (never after a secret fill). */
  pixels?: Uint8Array;
  /** True when pixels were requested but withheld by policy. */
  pixelsWithheld?: boolean;
  /**
   * Nodes of the page {@link text} leaves out (0 when it shows every node): past the screen
   * budget, long runs and far parts of the page become `… N more …` lines. The tree holds what
   * the engine read; `find` reaches the rest.
   */
  leftOut?: number;
  /** With `observe({ find })`: the nodes whose words contain the text, in document order. */
  found?: FoundNodes;
}

/** What `observe({ find })` found. */
export interface FoundNodes {
  /** The text looked for, as given. */
  query: string;
  /** Ids of the matching nodes (at most 50), each shown in `text` with its ancestors. */
  ids: string[];
  /** How many nodes match (more than `ids` holds when over 50). */
  total: number;
  /** True when the engine could not read every match (more than a screen's worth in one run). */
  partial?: boolean;
}

/** Options for `ctx.observe`. */
export interface ObserveOptions {
  tree?: boolean;
  pixels?: boolean;
  /**
   * Find nodes by their words, also ones a bounded screen leaves out: every node whose name,
   * text, value, placeholder or test id contains this text (case and runs of whitespace
   * ignored) is read and shown, and listed in `found`; later screens of the step keep showing
   * the first of them.
   */
  find?: string;
}

/** The result of one action: what changed on screen. */
export interface ActionOutcome {
  /** The change report since the screen the caller last received (DESIGN §4). */
  changes: string;
  /** The observation after the action settled. */
  observation: Observation;
}

/** Policed actions. Targets are `{ id }` from the latest observation. */
export interface StepActions {
  /** With `modifiers` only where `ctx.target.tapModifiers` is true; elsewhere `UNSUPPORTED_CAPABILITY`. */
  tap(target: NodeRef, options?: TapOptions): Promise<ActionOutcome>;
  doubleTap(target: NodeRef, options?: TapOptions): Promise<ActionOutcome>;
  longPress(target: NodeRef): Promise<ActionOutcome>;
  secondaryTap(target: NodeRef, options?: TapOptions): Promise<ActionOutcome>;
  hover(target: NodeRef): Promise<ActionOutcome>;
  type(target: NodeRef, value: string, options?: { replace?: boolean }): Promise<ActionOutcome>;
  typeSecret(target: NodeRef, name: string): Promise<ActionOutcome>;
  press(target: NodeRef | undefined, key: string): Promise<ActionOutcome>;
  select(target: NodeRef, value: string): Promise<ActionOutcome>;
  check(target: NodeRef, checked?: boolean): Promise<ActionOutcome>;
  scroll(direction: ScrollDirection, target?: NodeRef): Promise<ActionOutcome>;
  scrollTo(target: NodeRef): Promise<ActionOutcome>;
  /**
   * Scroll (the page, or `options.target`) one screen at a time in `direction` until `until`
   * holds for the screen after a scroll (checked on the current screen first), at most
   * `options.maxScrolls` (default 10) times. Each scroll is a policed, counted `scroll` action.
   * Fails `ACTION_FAILED` when the condition never holds or scrolling stops changing the screen.
   */
  scrollUntil(direction: ScrollDirection, until: (observation: Observation) => boolean, options?: ScrollUntilOptions): Promise<ActionOutcome>;
  upload(target: NodeRef, paths: string[]): Promise<ActionOutcome>;
  drag(target: NodeRef, destination: NodeRef): Promise<ActionOutcome>;
  navigate(url: string): Promise<ActionOutcome>;
  back(): Promise<ActionOutcome>;
  /** Resize the viewport (CSS pixels); engines without the `resize` verb fail `UNSUPPORTED_CAPABILITY`. */
  resize(size: { width: number; height: number }): Promise<ActionOutcome>;
  /** Keyboard actions on the focused field. */
  typeText(value: string): Promise<ActionOutcome>;
  pressKey(key: string): Promise<ActionOutcome>;
  dismissKeyboard(): Promise<ActionOutcome>;
  /** Point actions: the engine's coordinate action, or the listed control under the point. */
  tapAt(point: Point): Promise<ActionOutcome>;
  hoverAt(point: Point): Promise<ActionOutcome>;
  dragAt(from: Point, to: Point): Promise<ActionOutcome>;
  hitTest(point: Point): Promise<NodeRef | undefined>;
}

/** Options of a tap. */
export interface TapOptions {
  /** Keys held during the tap (`Shift`, `Control`, `ControlOrMeta`, `Alt`, `Meta`). */
  modifiers?: KeyModifier[];
}

/** Options of {@link StepActions.scrollUntil}. */
export interface ScrollUntilOptions {
  /** Scroll this node's scrollable area instead of the page. */
  target?: NodeRef;
  /** Most scrolls before giving up. Default 10. */
  maxScrolls?: number;
}

/** What the target offers. */
export interface TargetInfo {
  name: string;
  platform: string;
  verbs: readonly Verb[];
  /** Where the engine's screens are: `url` on the web (routes, origins, `navigate`); absent for an engine without a location (a terminal). */
  location?: EngineLocation | undefined;
  /** True when `tap`, `doubleTap` and `secondaryTap` take `{ modifiers }`. */
  tapModifiers: boolean;
}

/** A target as the runner is given it: `tapModifiers` defaults to false. */
export type TargetDescription = Omit<TargetInfo, 'tapModifiers'> & { tapModifiers?: boolean | undefined };

/** Why a replay stopped and what ran, for a hand-off. */
export interface ReplayedPrefix {
  /** The actions that ran, as sentences (`tap button "Apply"`). */
  actions: string[];
  /** Total actions in the recording. */
  total: number;
  /** Why replay stopped (a cache reason). */
  reason: string;
  /** Where and why, one line. */
  detail: string;
  /** True when the last attempted action may have committed before it failed. */
  lastMayHaveCommitted: boolean;
}

/** A completed step of the test, as the ledger shows it. */
export interface LedgerEntry {
  index: number;
  kind: StepKind;
  instruction: string;
  status: StepVerdict['status'];
  summary: string;
}

/** Token usage of one model call. */
export interface ModelUsage {
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
  /** Milliseconds the call took (shown per step by `e2e run --debug`). */
  durationMs?: number;
}

/** Budgets and accounting. */
export interface StepBudgets {
  /**
   * Run a project tool's body under the budgets. A mutating tool takes an action slot first
   * and leaves a gap in the recording. Calling `ctx.actions`/`ctx.observe` inside fails with
   * `INVALID_STATE` instead of deadlocking.
   */
  runTool<T>(tool: { name: string; mutates: boolean }, body: () => Promise<T>): Promise<T>;
  /** Count one model call (throws `STEP_BUDGET_EXHAUSTED` past `maxModelCalls`). */
  recordModelCall(usage?: ModelUsage): void;
  /** Milliseconds left until the step deadline. */
  remainingMs(): number;
  /** Actions left under `maxSteps`. */
  remainingActions(): number;
  /** Model calls left under `maxModelCalls`. */
  remainingModelCalls(): number;
}

/** One model turn for the failure report. */
export interface TurnRecord {
  index: number;
  calls: string[];
  outcome: string;
}

/** The attempt the step belongs to. */
export interface AttemptInfo {
  testId: string;
  /** This attempt's id: unique per test attempt (a retry is another attempt). */
  attemptId: string;
  retry: number;
  titlePath: string[];
  /** Free-form memory for the executor; never reported. */
  memory: Map<string, unknown>;
  signal: AbortSignal;
  /** True once a secret was typed in this attempt (no pixels from then on). */
  secretFilled(): boolean;
}

/** Everything an executor gets for one step. */
export interface StepContext {
  step: StepInfo;
  observe(options?: ObserveOptions): Promise<Observation>;
  actions: StepActions;
  target: TargetInfo;
  signal: AbortSignal;
  replayedPrefix?: ReplayedPrefix;
  model?: OpaqueLanguageModel;
  judge?: OpaqueLanguageModel;
  providerOptions?: Record<string, Record<string, unknown>>;
  /** The agent's context plus the test's. Secrets redacted. */
  agentContext: string;
  ledger: readonly LedgerEntry[];
  attempt: AttemptInfo;
  budgets: StepBudgets;
  /** Under `--debug`, attach the model transcript. Call once, at the end. */
  attachTranscript(text: string): void;
  /** Keep a clipped record of model turns for the failure report. */
  attachTurns(turns: TurnRecord[]): void;
  /** Keep pixels as a screenshot artifact; resolves with its report id. */
  attachScreenshot(pixels: Uint8Array, label: string): Promise<string>;
  /** Redact configured secret values from any text. */
  redact(text: string): string;
  /** Write a diagnostic line to the `--debug` output (redacted). Optional for hand-built contexts. */
  debug?(message: string): void;
}

/**
 * The step runner (DESIGN §3): one attempt-scoped object that turns each `agent.*` call into one
 * bounded step and hands the thinking to a `StepExecutor`. See step/README.md.
 */
import { E2EError, didYouMean, isE2EError, messageOf } from '../errors/index.js';
import { DEFAULT_TEST_TIMEOUT_MS, StepBudget, limitsFor, type LimitOverrides, type TokenUsage } from './budgets.js';
import { Deadline, systemClock, type Clock } from '../contract/deadline.js';
import type { EngineInstance } from '../contract/engine.js';
import { prepareInstruction, requireInstruction, type PreparedInstruction } from './instruction.js';
import { redactingLogger, silentLogger, type Logger } from '../contract/logger.js';
import { OriginPolicy, describeUrl } from './origin-policy.js';
import { createPolicedActions, type ActionHost } from './policed-actions.js';
import { createScreenObserver, presentObservation, type ScreenObserver } from './screen-observer.js';
import { redactDeep } from '../secrets/redactor.js';
import type { SecretVault } from '../secrets/vault.js';
import type {
  LedgerEntry,
  OpaqueLanguageModel,
  ReplayedPrefix,
  StepActions,
  StepEvidence,
  StepExecutor,
  StepInfo,
  StepKind,
  StepVerdict,
  TargetDescription,
  TurnRecord,
} from '../contract/step-contract.js';
import { toLedgerEntry, type ArtifactRef, type StepRecord, type VerificationKind, type VerificationRecord } from './step-record.js';
import type {
  ActionEvent,
  ActionListener,
  FinishedStepView,
  InterceptedStep,
  JudgedEvidence,
  LookedAtScreen,
  LookedAtWanted,
  RunnerObservation,
  StepInterceptor,
  VerificationEvent,
  VerificationListener,
} from '../contract/step-seams.js';
import { buildStepContext, observerFor, type StepContextHost } from './step-context.js';
import { isSchema, parseOptions, type RunStepOptions } from './step-options.js';
import { StepSession } from './step-session.js';
import { stepTitle } from './step-title.js';
import { checkVerdict, statusForCode, stepEvidenceOf } from './verdict.js';
import type { CacheOutcome } from '../contract/cache-outcome.js';
import { NO_HAND_OFF, cacheOf, handOffOf, type HandOff, type Replayed, type StepDecision } from './step-decision.js';

export type { RunStepOptions } from './step-options.js';

/** One agent entry as the runner needs it. */
export interface AgentEntry {
  /** A custom executor; without one the built-in agent runs (when a model is set). */
  executor?: StepExecutor | undefined;
  model?: OpaqueLanguageModel | undefined;
  judge?: OpaqueLanguageModel | undefined;
  providerOptions?: Record<string, Record<string, unknown>> | undefined;
  /** The agent's context (what it should know about the app). */
  context: string;
  limits: LimitOverrides;
}

/** The built-in agent and judgments (from `executor/`), injected by the runner host. */
export interface BuiltInAgent {
  /** The built-in executor for an entry with a model, or undefined when it cannot run. */
  executorFor(entry: AgentEntry): StepExecutor | undefined;
  /** The built-in judgment for `assert`/`waitFor`/`extract`, or undefined without a model. */
  judgeFor(entry: AgentEntry, kind: 'assert' | 'waitFor' | 'extract'): StepExecutor | undefined;
}

/** Where artifacts (screenshots, transcripts) go; the host attaches them to the test. `label` says what it shows (redacted). */
export interface ArtifactSink {
  attach(artifact: { name: string; contentType: string; body: Uint8Array | string; label?: string }): Promise<void>;
}

/** Options of {@link createAttemptRunner}. */
export interface AttemptRunnerOptions {
  engine: EngineInstance;
  target: TargetDescription;
  secrets: SecretVault;
  /** Allowed origins. */
  origins: OriginPolicy | readonly string[];
  /** Uploads must resolve inside this folder. */
  projectRoot: string;
  agents: Readonly<Record<string, AgentEntry>>;
  /** Agent used when a call names none. Default `default`, else the first entry. */
  defaultAgent?: string | undefined;
  /** The attempt: `id` defaults to `<testId>:<retry>`. */
  attempt: { testId: string; retry: number; titlePath: string[]; id?: string | undefined };
  /** The test timeout: the default `act` step timeout. Default 120 s. */
  testTimeoutMs?: number | undefined;
  /** The test's action timeout (Playwright's `use.actionTimeout`): a judgment's default time when above 30 s. */
  actionTimeoutMs?: number | undefined;
  /** The test's own context, appended to the agent's. */
  testContext?: string | undefined;
  logger?: Logger | undefined;
  onAction?: ActionListener | undefined;
  /** Told every passed verification ({@link AttemptRunner.recordVerification}). */
  onVerification?: VerificationListener | undefined;
  /** Whether a verification after a step should carry what it looked at; default never. */
  wantsLookedAt?: LookedAtWanted | undefined;
  stepInterceptor?: StepInterceptor | undefined;
  builtIn?: BuiltInAgent | undefined;
  artifacts?: ArtifactSink | undefined;
  /** Attach a screenshot after every step (never after a secret fill). Default true. */
  evidence?: boolean | undefined;
  /** Keep transcripts (`--debug`). Default false. */
  debug?: boolean | undefined;
  clock?: Clock | undefined;
  /** Replaces the default observer (tests). */
  observer?: ScreenObserver | undefined;
}

/** What one step produced. */
export interface StepOutcome {
  index: number;
  verdict: StepVerdict;
  modelCalls: number;
  tokens: TokenUsage;
  /** Committed actions as sentences (`tap button "Apply"`). */
  actions: string[];
  durationMs: number;
  cache?: CacheOutcome;
  /** The model turns the executor recorded (`ctx.attachTurns`), clipped and redacted. */
  turns?: TurnRecord[];
}

/** A step call, checked: what was asked, of which agent. */
interface StepCall {
  kind: StepKind;
  /** `agent.act`, … (for messages). */
  method: string;
  text: string;
  options: RunStepOptions;
  agentName: string;
  entry: AgentEntry;
}

/** A started step: its instruction prepared, its executor chosen, its session running. */
interface StartedStep {
  prepared: PreparedInstruction;
  executor: StepExecutor | undefined;
  session: StepSession;
  /** When the step started (the clock's time). */
  started: number;
}

/** The attempt-scoped step runner. */
export class AttemptRunner {
  readonly #options: AttemptRunnerOptions;
  readonly #clock: Clock;
  readonly #vault: SecretVault;
  readonly #policy: OriginPolicy;
  readonly #logger: Logger;
  readonly #observer: ScreenObserver;
  readonly #attemptDeadline: Deadline;
  readonly #memory = new Map<string, unknown>();
  readonly #records: StepRecord[] = [];
  readonly #verifications: VerificationRecord[] = [];
  #current: StepSession | undefined;
  #secretFilled = false;
  /** `app.open()` calls in flight. */
  #openings = 0;
  #stepCount = 0;
  #artifactCount = 0;
  readonly #host: ActionHost;
  readonly #contextHost: StepContextHost;

  constructor(options: AttemptRunnerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#vault = options.secrets;
    // An engine without a location has no origins to keep to: its policy allows everything.
    this.#policy = options.origins instanceof OriginPolicy ? options.origins : options.target.location === 'url' ? new OriginPolicy(options.origins) : OriginPolicy.unlocated();
    this.#logger = redactingLogger(options.logger ?? silentLogger, (text) => this.#vault.redact(text));
    this.#observer = options.observer ?? createScreenObserver(options.engine, this.#vault);
    this.#attemptDeadline = Deadline.start({ clock: this.#clock });
    this.#host = this.#actionHost();
    this.#contextHost = {
      engine: options.engine,
      observer: this.#observer,
      target: { ...options.target, tapModifiers: options.target.tapModifiers === true },
      attempt: {
        testId: options.attempt.testId,
        retry: options.attempt.retry,
        titlePath: options.attempt.titlePath,
        attemptId: options.attempt.id ?? `${options.attempt.testId}:${options.attempt.retry}`,
      },
      memory: this.#memory,
      attemptSignal: this.#attemptDeadline.signal,
      secretFilled: () => this.#secretFilled,
      redact: (text) => this.redact(text),
      ledger: () => this.ledger(),
      emit: (event) => this.#host.emit(event),
      debug: options.debug === true,
      log: (message) => this.#logger.debug(message),
      attach: (artifact) => this.#attach(artifact),
      nextArtifactId: (kind) => this.#nextArtifactId(kind),
    };
  }

  /** Aborts when the attempt ends or is cancelled. */
  get signal(): AbortSignal {
    return this.#attemptDeadline.signal;
  }

  /** Finished steps, in order. */
  get records(): readonly StepRecord[] {
    return this.#records;
  }

  /** Passed verifications, in order. */
  get verifications(): readonly VerificationRecord[] {
    return this.#verifications;
  }

  /** The ledger: completed steps of the attempt. */
  ledger(): LedgerEntry[] {
    return this.#records.map(toLedgerEntry);
  }

  /** True once a secret was typed (no pixels leave the runner from then on). */
  secretFilled(): boolean {
    return this.#secretFilled;
  }

  /** Redact configured secret values from `text`. */
  redact(text: string): string {
    return this.#vault.redact(text);
  }

  /**
   * The engine's navigation hook, for the whole attempt: a navigation to a non-allowed origin
   * is refused whoever starts it. During a step it ends the step `POLICY_DENIED`; between
   * steps (a timer, a meta refresh, a popup, the test's own code) it is stopped and warned
   * about. `app.open()` is the one exception: the test says where it starts.
   */
  allowNavigation(url: string): boolean {
    const decision = this.#policy.check(url);
    if (decision.allowed) return true;
    const session = this.#current;
    if (session !== undefined && !session.ended) {
      this.#logger.debug(`navigation refused: ${describeUrl(url)}`);
      session.stop(new E2EError('POLICY_DENIED', this.redact(`Navigation to ${describeUrl(url)} was stopped: ${decision.reason}.`)));
      return false;
    }
    if (this.#openings > 0) return true;
    this.#logger.warn(`a navigation to ${describeUrl(url)} between agent steps was stopped by the origin policy: ${decision.reason}.`);
    return false;
  }

  /** Run the test's own `app.open()`: it may go to any origin (the next step refuses to act on a refused one). */
  async opening<T>(work: () => Promise<T>): Promise<T> {
    this.#openings++;
    try {
      return await work();
    } finally {
      this.#openings--;
    }
  }

  /**
   * Note a passed verification (an `expect`, an assert, a waitFor) after the latest finished
   * step and tell the `onVerification` listener; `lookedAt` (raw engine text) is redacted here.
   */
  recordVerification(kind: VerificationKind, detail: string, lookedAt?: LookedAtScreen): void {
    const record: VerificationRecord = { kind, detail: this.redact(detail), afterStep: this.#records.length - 1 };
    this.#verifications.push(record);
    const event: VerificationEvent = { ...record };
    if (lookedAt !== undefined) event.lookedAt = redactDeep({ tree: lookedAt.tree, url: lookedAt.url, nodeIds: [...lookedAt.nodeIds] }, (text) => this.redact(text));
    try {
      this.#options.onVerification?.(event);
    } catch (error) {
      this.#logger.warn(`a verification listener failed: ${messageOf(error)}`);
    }
  }

  /** True when a verification passing now should carry what it looked at (a listener wants it). */
  wantsLookedAt(): boolean {
    return this.#options.wantsLookedAt?.(this.#records.length - 1) === true;
  }

  /** Set the cache outcome of a finished step (the recorder reports `write` at the end of the attempt). */
  annotateStep(index: number, cache: CacheOutcome): void {
    const record = this.#records.find((item) => item.index === index);
    if (record !== undefined) record.cache = redactDeep(cache, (text) => this.redact(text));
  }

  /** End the attempt: a running step stops with `error` (default `CANCELLED`). */
  close(error?: E2EError): void {
    this.#attemptDeadline.abort(error ?? new E2EError('CANCELLED', 'The test ended while the step was running.'));
  }

  /**
   * Run one step. Bad calls throw `INVALID_ARGUMENT`; everything else ends in the outcome's verdict.
   * The step is checked, started, decided (see {@link StepDecision}), ended, then recorded.
   */
  async runStep(kind: StepKind, instruction: unknown, rawOptions?: unknown): Promise<StepOutcome> {
    const call = this.#checkCall(kind, instruction, rawOptions);
    const step = this.#startStep(call);
    const { session } = step;
    this.#logger.debug(`step ${session.info.index} ${kind}: ${session.info.instruction}`);
    let decision: StepDecision;
    let endScreen: RunnerObservation | undefined;
    try {
      decision = await this.#decide(call, step);
      endScreen = await this.#endScreen(decision, session);
    } finally {
      session.end();
      session.deadline.dispose();
    }
    const verdict = this.#reportedVerdict(call, decision.verdict);
    this.#tellInterceptor(decision, verdict, endScreen);
    await this.#evidence(session.info.index, `after ${stepTitle(kind, this.redact(session.info.instruction))}`, session.artifacts);
    const record = this.#record(call, step, decision, verdict);
    this.#records.push(record);
    this.#logger.debug(`step ${record.index} ${verdict.status}${verdict.errorCode === undefined ? '' : ` ${verdict.errorCode}`}: ${verdict.summary}`);
    return outcomeOf(record, verdict);
  }

  /** Check a step call before anything runs: instruction, options, agent, no step running, attempt not stopped. */
  #checkCall(kind: StepKind, instruction: unknown, rawOptions: unknown): StepCall {
    const method = `agent.${kind}`;
    const text = requireInstruction(instruction, method);
    const options = parseOptions(kind, rawOptions, method);
    if (kind === 'extract' && !isSchema(options.schema)) {
      throw new E2EError('INVALID_ARGUMENT', 'agent.extract(question, schema) needs a zod schema as its second argument, e.g. z.object({ total: z.number() }).');
    }
    const agentName = options.agent ?? this.#defaultAgentName();
    const entry = this.#options.agents[agentName];
    if (entry === undefined) {
      const names = Object.keys(this.#options.agents);
      throw new E2EError('INVALID_ARGUMENT', `${method}: no agent named \`${agentName}\`${didYouMean(agentName, names)}; configured agents: ${names.join(', ')}.`);
    }
    if (this.#current !== undefined && !this.#current.ended) {
      throw new E2EError('INVALID_STATE', `${method} was called while another step runs; await each agent call before the next.`);
    }
    this.#attemptDeadline.throwIfStopped();
    return { kind, method, text, options, agentName, entry };
  }

  /** Start the step: its instruction prepared, its index taken, its executor chosen, its session running under its limits. */
  #startStep(call: StepCall): StartedStep {
    const { kind, entry, options } = call;
    const prepared = prepareInstruction(call.text, options.params, this.#vault, call.method);
    const index = this.#stepCount++;
    const started = this.#clock.now();
    const executor = this.#executorFor(kind, entry);
    const viaCustom = entry.executor !== undefined && (kind === 'act' || kind === 'assert');
    const limits = limitsFor(kind, {
      viaExecutor: viaCustom,
      entry: entry.limits,
      call: { maxSteps: options.maxSteps, maxModelCalls: options.maxModelCalls, timeoutMs: options.timeout },
      testTimeoutMs: this.#options.testTimeoutMs ?? DEFAULT_TEST_TIMEOUT_MS,
      actionTimeoutMs: this.#options.actionTimeoutMs,
    });
    const info = this.#stepInfo(kind, index, prepared, options, executor);
    const deadline = this.#attemptDeadline.child(
      limits.timeoutMs,
      () => new E2EError('STEP_TIMEOUT', `The step did not finish within ${formatSeconds(limits.timeoutMs)}; raise \`timeout\` or split the instruction.`),
    );
    const session = new StepSession({ info, budget: new StepBudget(limits), deadline, paramSources: prepared.sources, clock: this.#clock });
    this.#current = session;
    return { prepared, executor, session, started };
  }

  #defaultAgentName(): string {
    const names = Object.keys(this.#options.agents);
    return this.#options.defaultAgent ?? (names.includes('default') ? 'default' : (names[0] ?? 'default'));
  }

  #executorFor(kind: StepKind, entry: AgentEntry): StepExecutor | undefined {
    const builtIn = this.#options.builtIn;
    if (kind === 'act') return entry.executor ?? builtIn?.executorFor(entry);
    if (kind === 'assert' && entry.executor !== undefined) return entry.executor;
    return builtIn?.judgeFor(entry, kind === 'assert' ? 'assert' : kind);
  }

  #stepInfo(kind: StepKind, index: number, prepared: PreparedInstruction, options: RunStepOptions, executor: StepExecutor | undefined): StepInfo {
    const info: StepInfo = { kind, instruction: prepared.instruction, params: prepared.params, index, secrets: prepared.secretNames };
    const purposes = prepared.secretNames.flatMap((name) => {
      const purpose = this.#vault.purposeOf(name);
      return purpose === undefined ? [] : [[name, purpose] as const];
    });
    if (purposes.length > 0) info.secretPurposes = Object.fromEntries(purposes);
    if (options.vision !== undefined && (executor?.vision === true || kind !== 'assert')) info.vision = options.vision;
    if (options.schema !== undefined) info.schema = options.schema;
    if (options.interval !== undefined) info.intervalMs = options.interval;
    return info;
  }

  /** Decide the step: refused before it starts, replayed by the interceptor, or handed to the executor. Never throws. */
  async #decide(call: StepCall, step: StartedStep): Promise<StepDecision> {
    const refusal = this.#refusal(call);
    if (refusal !== undefined) return { kind: 'refused', verdict: refusal };
    const { session } = step;
    const actions = createPolicedActions(this.#host, session);
    let handOff: HandOff = NO_HAND_OFF;
    try {
      const interception = await this.#intercept(call, step, actions);
      if (interception.kind === 'replayed') return interception;
      handOff = interception.handOff;
      if (step.executor === undefined) return { kind: 'unavailable', verdict: unavailableVerdict(call), handOff };
      return await this.#execute(call, step, step.executor, actions, handOff);
    } catch (error) {
      return { kind: 'errored', verdict: this.#final(this.#verdictOfError(error, session), session), handOff };
    }
  }

  /** Why the step may not start: a vision assert its executor cannot see, or a page on an origin the policy refuses. */
  #refusal({ kind, options, entry }: StepCall): StepVerdict | undefined {
    if (kind === 'assert' && options.vision !== undefined && options.vision !== false && entry.executor !== undefined && entry.executor.vision !== true) {
      return {
        status: 'blocked',
        errorCode: 'UNSUPPORTED_CAPABILITY',
        summary: `agent.assert with vision needs an executor that declares \`vision: true\`; ${entry.executor.name} does not.`,
      };
    }
    const place = this.#refusedPlace();
    return place === undefined ? undefined : { status: 'blocked', errorCode: 'POLICY_DENIED', summary: place };
  }

  /** Offer the step to the interceptor (the cache): it replays the step itself, or hands it on with what it found. */
  async #intercept(call: StepCall, step: StartedStep, actions: StepActions): Promise<Replayed | { kind: 'handed-off'; handOff: HandOff }> {
    const interceptor = this.#options.stepInterceptor;
    if (interceptor === undefined) return { kind: 'handed-off', handOff: NO_HAND_OFF };
    const { session } = step;
    const result = await session.deadline.race(
      interceptor(this.#intercepted(call, step), {
        actions,
        briefActions: createPolicedActions(this.#host, session, { settle: 'brief' }),
        observe: observerFor(this.#contextHost, session),
        signal: session.deadline.signal,
        redact: (text) => this.redact(text),
        remainingMs: () => session.deadline.remainingMs(),
      }),
    );
    if ('handled' in result) {
      const verdict = this.#final(checkVerdict(result.handled.verdict, call.kind, this.#facts(session)), session);
      return { kind: 'replayed', verdict, cache: result.handled.cache };
    }
    return { kind: 'handed-off', handOff: { prefix: result.continueWith, cache: result.cache, afterStep: result.afterStep } };
  }

  /** Run the executor on the step's context; its verdict is checked against the rules and the facts. */
  async #execute(call: StepCall, step: StartedStep, executor: StepExecutor, actions: StepActions, handOff: HandOff): Promise<StepDecision> {
    const { kind, entry, options } = call;
    const { session } = step;
    const agent = { context: this.#agentContext(entry, options.agentContext), model: entry.model, judge: entry.judge, providerOptions: entry.providerOptions };
    const context = buildStepContext(this.#contextHost, { agent, executor, session, actions, prefix: handOff.prefix });
    const raw = await session.deadline.race(Promise.resolve().then(() => executor.runStep(context)));
    const named = stepEvidenceOf(raw, kind);
    const evidence = named === undefined ? undefined : judgedEvidence(named, session.latest);
    return { kind: 'concluded', verdict: this.#final(checkVerdict(raw, kind, this.#facts(session)), session), handOff, evidence };
  }

  /** Why no step may act where the page is now (an origin the policy refuses), or undefined. */
  #refusedPlace(): string | undefined {
    let url: string;
    try {
      url = this.#options.engine.session.url();
    } catch {
      return undefined;
    }
    const decision = this.#policy.check(url);
    if (decision.allowed) return undefined;
    return this.redact(`The page is at ${describeUrl(url)}, where no step may act: ${decision.reason}.`);
  }

  /**
   * The screen a recorded act step ends on: taken once the page held still, so effects that
   * land after the last action settled (a submit that fetches, then navigates) are part of it.
   * Only an interceptor that waits for the step's end wants it.
   */
  async #endScreen(decision: StepDecision, session: StepSession): Promise<RunnerObservation | undefined> {
    const wanted = handOffOf(decision).afterStep !== undefined;
    if (!wanted || session.info.kind !== 'act' || decision.verdict.status !== 'passed' || session.sentences.length === 0 || session.latest === undefined) return undefined;
    try {
      const screen = await this.#observer.quiet(session.latest, session.deadline.signal);
      session.latest = screen;
      return screen;
    } catch (error) {
      this.#logger.debug(`the end screen of step ${session.info.index} could not be taken: ${messageOf(error)}`);
      return undefined;
    }
  }

  /** The verdict as reported: an extracted value that misses its schema fails; the summary is redacted. */
  #reportedVerdict({ kind, options }: StepCall, decided: StepVerdict): StepVerdict {
    let verdict = decided;
    if (kind === 'extract' && verdict.status === 'passed' && !(options.schema as { safeParse(input: unknown): { success: boolean } }).safeParse(verdict.value).success) {
      verdict = { status: 'failed', errorCode: 'MODEL_OUTPUT_INVALID', summary: 'The extracted value does not match the schema.' };
    }
    return { ...verdict, summary: this.redact(verdict.summary) };
  }

  /** Tell an interceptor that waits for the step's end how it ended (a passed judgment with its evidence). */
  #tellInterceptor(decision: StepDecision, verdict: StepVerdict, endScreen: RunnerObservation | undefined): void {
    const { afterStep } = handOffOf(decision);
    if (afterStep === undefined) return;
    const evidence = decision.kind === 'concluded' && verdict.status === 'passed' ? decision.evidence : undefined;
    try {
      const finished: FinishedStepView = evidence === undefined ? { verdict } : { verdict, evidence };
      if (endScreen !== undefined) finished.endScreen = endScreen;
      afterStep(finished);
    } catch (error) {
      this.#logger.warn(`the step interceptor's afterStep failed: ${messageOf(error)}`);
    }
  }

  /** The record of the finished step, already redacted. */
  #record(call: StepCall, step: StartedStep, decision: StepDecision, verdict: StepVerdict): StepRecord {
    const { session, executor } = step;
    const record: StepRecord = {
      index: session.info.index,
      kind: call.kind,
      instruction: session.info.instruction,
      agent: call.agentName,
      executor: executor?.name ?? 'none',
      status: verdict.status,
      summary: verdict.summary,
      modelCalls: session.budget.modelCalls(),
      tokens: session.budget.tokens(),
      actions: [...session.sentences],
      durationMs: Math.max(0, this.#clock.now() - step.started),
      timing: { modelMs: session.budget.modelMs(), ...session.timing },
      artifacts: session.artifacts,
    };
    if (verdict.errorCode !== undefined) record.errorCode = verdict.errorCode;
    const cache = cacheOf(decision);
    if (cache !== undefined) record.cache = redactDeep(cache, (value) => this.redact(value));
    if (session.turns !== undefined) record.turns = session.turns;
    return record;
  }

  /** A hard stop outranks whatever the executor concluded. */
  #final(verdict: StepVerdict, session: StepSession): StepVerdict {
    const stop = session.hardStop;
    if (stop === undefined) return verdict;
    return { status: statusForCode(stop.code), errorCode: stop.code, summary: stop.message };
  }

  #facts(session: StepSession): { budgetSpent: boolean; deadlinePassed: boolean; cancelled: boolean } {
    return {
      budgetSpent: session.budget.isSpent(),
      deadlinePassed: session.deadline.timeIsUp(),
      cancelled: this.#attemptDeadline.signal.aborted,
    };
  }

  #verdictOfError(error: unknown, session: StepSession): StepVerdict {
    if (isE2EError(error)) {
      const verdict = { status: statusForCode(error.code), errorCode: error.code, summary: this.redact(error.message) };
      // A thrown runtime-only code obeys the same rule as a returned one.
      return checkVerdict(verdict, session.info.kind, this.#facts(session));
    }
    const message = messageOf(error);
    return {
      status: 'failed',
      errorCode: 'STEP_NO_CONCLUSION',
      summary: this.redact(`The executor threw instead of returning a verdict: ${message}`),
    };
  }

  /** The step as the interceptor sees it. */
  #intercepted({ entry, agentName, options }: StepCall, { prepared, executor, session }: StartedStep): InterceptedStep {
    const intercepted: InterceptedStep = {
      info: session.info,
      template: prepared.template,
      paramSources: prepared.sources,
      agent: { name: agentName, context: this.#agentContext(entry, options.agentContext) },
      attempt: { testId: this.#options.attempt.testId, retry: this.#options.attempt.retry, titlePath: [...this.#options.attempt.titlePath] },
      target: this.#options.target,
    };
    if (executor !== undefined) {
      intercepted.executor = { name: executor.name, cache: executor.cache ?? 'inherit' };
      if (executor.version !== undefined) intercepted.executor.version = executor.version;
    }
    return intercepted;
  }

  /** The agent's context, then the test's, then the step's: what `ctx.agentContext` and the cache key's digest hold. */
  #agentContext(entry: AgentEntry, stepContext: string | undefined): string {
    const parts = [entry.context, this.#options.testContext ?? '', stepContext ?? ''].filter((part) => part.trim() !== '');
    return this.redact(parts.join('\n\n'));
  }

  #actionHost(): ActionHost {
    return {
      engine: this.#options.engine,
      verbs: new Set(this.#options.target.verbs),
      tapModifiers: this.#options.target.tapModifiers === true,
      platform: this.#options.target.platform,
      vault: this.#vault,
      policy: this.#policy,
      projectRoot: this.#options.projectRoot,
      observer: this.#observer,
      markSecretFilled: () => {
        this.#secretFilled = true;
      },
      emit: (event: ActionEvent) => {
        try {
          this.#options.onAction?.(event);
        } catch (error) {
          this.#logger.warn(`an action listener failed: ${messageOf(error)}`);
        }
      },
      present: presentObservation,
    };
  }

  #nextArtifactId(kind: string): string {
    this.#artifactCount += 1;
    return `e2e-${kind}-${this.#artifactCount}`;
  }

  async #attach(artifact: { name: string; contentType: string; body: Uint8Array | string; label?: string }): Promise<void> {
    try {
      await this.#options.artifacts?.attach(artifact);
    } catch (error) {
      this.#logger.warn(`could not attach ${artifact.name}: ${messageOf(error)}`);
    }
  }

  /** A screenshot after each step for the report (labelled `after agent.act "…"`), unless a secret was filled. */
  async #evidence(index: number, label: string, artifacts: ArtifactRef[]): Promise<void> {
    if (this.#options.evidence === false || this.#secretFilled || this.#options.artifacts === undefined) return;
    const deadline = this.#attemptDeadline.child(5_000);
    try {
      const pixels = await deadline.race(this.#options.engine.screenshot());
      const id = this.#nextArtifactId('screenshot');
      const shown = this.redact(label);
      artifacts.push({ id, kind: 'screenshot', label: shown });
      await this.#attach({ name: id, contentType: 'image/png', body: pixels, label: shown });
    } catch (error) {
      this.#logger.debug(`no screenshot after step ${index}: ${messageOf(error)}`);
    } finally {
      deadline.dispose();
    }
  }
}

/** A step no executor can run: the built-in agent or judgments need a model. */
function unavailableVerdict({ kind, agentName }: StepCall): StepVerdict {
  const needs = kind === 'act' ? 'the built-in agent and its model' : 'the built-in judgments';
  const fix = kind === 'act' || kind === 'assert' ? ' or give it an `executor`' : '';
  return { status: 'blocked', errorCode: 'MODEL_UNAVAILABLE', summary: `agent.${kind} needs ${needs}: set \`model\` on agents.${agentName}${fix}.` };
}

/** What the caller of `runStep` gets, from the step's record. */
function outcomeOf(record: StepRecord, verdict: StepVerdict): StepOutcome {
  const outcome: StepOutcome = {
    index: record.index,
    verdict,
    modelCalls: record.modelCalls,
    tokens: record.tokens,
    actions: record.actions,
    durationMs: record.durationMs,
  };
  if (record.cache !== undefined) outcome.cache = record.cache;
  if (record.turns !== undefined) outcome.turns = record.turns;
  return outcome;
}

/** A judgment's evidence with the screen its ids belong to: the step's latest observation, when the revisions agree. */
function judgedEvidence(evidence: StepEvidence, latest: RunnerObservation | undefined): JudgedEvidence {
  const screen = latest !== undefined && latest.revision === evidence.revision ? latest : undefined;
  return { nodeIds: evidence.nodeIds, screen, cacheable: evidence.cacheable };
}

function formatSeconds(milliseconds: number): string {
  return milliseconds % 1000 === 0 ? `${milliseconds / 1000} s` : `${(milliseconds / 1000).toFixed(1)} s`;
}

/** Create the step runner of one attempt. */
export function createAttemptRunner(options: AttemptRunnerOptions): AttemptRunner {
  return new AttemptRunner(options);
}

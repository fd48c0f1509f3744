/**
 * The state of one attempt that outlives its steps: the finished steps and verifications, the
 * step running now, the attempt's deadline, its origin policy, its vault and logger, and what
 * it lends each step (the policed actions' host, the step context's host). The step pipeline
 * (`step-pipeline.ts`) runs one step against it; `AttemptRunner` (`step-runner.ts`) is the face.
 */
import { E2EError, messageOf } from '../errors/index.js';
import { Deadline, systemClock, type Clock } from '../contract/deadline.js';
import type { EngineInstance } from '../contract/engine.js';
import { silentLogger, type Logger } from '../contract/logger.js';
import { Outbound } from '../secrets/outbound.js';
import { redactDeep } from '../secrets/redactor.js';
import type { SecretVault } from '../secrets/vault.js';
import type { CacheOutcome } from '../contract/cache-outcome.js';
import type { LedgerEntry, OpaqueLanguageModel, StepExecutor, TargetDescription } from '../contract/step-contract.js';
import type { ActionEvent, ActionListener, LookedAtScreen, LookedAtWanted, StepInterceptor, VerificationEvent, VerificationListener } from '../contract/step-seams.js';
import type { LimitOverrides } from './budgets.js';
import { OriginPolicy, describeUrl } from './origin-policy.js';
import type { ActionHost } from './policed-actions.js';
import { createScreenObserver, presentObservation, type ScreenObserver } from './screen-observer.js';
import type { ScreenBudget } from './screen-budget.js';
import type { StepContextHost } from './step-context.js';
import { toLedgerEntry, type ArtifactRef, type StepRecord, type VerificationKind, type VerificationRecord } from './step-record.js';
import type { StepSession } from './step-session.js';

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
  /** Told every passed verification ({@link AttemptState.recordVerification}). */
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
  /** The attempt's outbound boundary (shared with its cache); default one over `secrets`. */
  outbound?: Outbound | undefined;
  /** How much of a screen the model reads (the config's `screen`); default `DEFAULT_SCREEN_BUDGET` (1,500 nodes, 40,000 characters). */
  screenBudget?: ScreenBudget | undefined;
}

/** What lives for the whole attempt, across its steps. */
export class AttemptState {
  readonly options: AttemptRunnerOptions;
  readonly clock: Clock;
  readonly vault: SecretVault;
  readonly policy: OriginPolicy;
  readonly logger: Logger;
  readonly observer: ScreenObserver;
  /** Where every record leaves the attempt, redacted once: the report, transcripts, the console (and the cache's entries). */
  readonly outbound: Outbound;
  /** Aborts when the attempt ends; each step's deadline is its child. */
  readonly deadline: Deadline;
  /** Finished steps, in order. */
  readonly records: StepRecord[] = [];
  /** Passed verifications, in order. */
  readonly verifications: VerificationRecord[] = [];
  /** What the policed actions of every step act through. */
  readonly actionHost: ActionHost;
  /** What every step's context is built on. */
  readonly contextHost: StepContextHost;
  /** The step running now, or the last one. */
  current: StepSession | undefined;
  readonly #memory = new Map<string, unknown>();
  #secretFilled = false;
  /** `app.open()` calls in flight. */
  #openings = 0;
  #stepCount = 0;
  #artifactCount = 0;

  constructor(options: AttemptRunnerOptions) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.vault = options.secrets;
    // An engine without a location has no origins to keep to: its policy allows everything.
    this.policy = options.origins instanceof OriginPolicy ? options.origins : options.target.location === 'url' ? new OriginPolicy(options.origins) : OriginPolicy.unlocated();
    this.outbound = options.outbound ?? new Outbound(this.vault);
    this.logger = this.outbound.logger(options.logger ?? silentLogger);
    this.observer = options.observer ?? createScreenObserver(options.engine, this.vault, {
        budget: options.screenBudget,
        onLeftOut: (leftOut) => this.current?.noteLeftOut(leftOut),
      });
    this.deadline = Deadline.start({ clock: this.clock });
    this.actionHost = this.#actionHost();
    this.contextHost = {
      engine: options.engine,
      observer: this.observer,
      target: { ...options.target, tapModifiers: options.target.tapModifiers === true },
      attempt: {
        testId: options.attempt.testId,
        retry: options.attempt.retry,
        titlePath: options.attempt.titlePath,
        attemptId: options.attempt.id ?? `${options.attempt.testId}:${options.attempt.retry}`,
      },
      memory: this.#memory,
      attemptSignal: this.deadline.signal,
      secretFilled: () => this.#secretFilled,
      redact: (text) => this.redact(text),
      ledger: () => this.ledger(),
      emit: (event) => this.actionHost.emit(event),
      debug: options.debug === true,
      log: (message) => this.logger.debug(message),
      transcript: (text) => this.outbound.text('transcript', text),
      attach: (artifact) => this.attach(artifact),
      nextArtifactId: (kind) => this.nextArtifactId(kind),
    };
  }

  /** The ledger: completed steps of the attempt. */
  ledger(): LedgerEntry[] {
    return this.records.map(toLedgerEntry);
  }

  /** True once a secret was typed (no pixels leave the runner from then on). */
  secretFilled(): boolean {
    return this.#secretFilled;
  }

  /** Redact configured secret values from `text`. */
  redact(text: string): string {
    return this.vault.redact(text);
  }

  /** The next step's index. */
  nextStepIndex(): number {
    return this.#stepCount++;
  }

  /** The engine's navigation hook: see `AttemptRunner.allowNavigation`. */
  allowNavigation(url: string): boolean {
    const decision = this.policy.check(url);
    if (decision.allowed) return true;
    const session = this.current;
    if (session !== undefined && !session.ended) {
      this.logger.debug(`navigation refused: ${describeUrl(url)}`);
      // The stop becomes the step's verdict, redacted with its record.
      session.stop(new E2EError('POLICY_DENIED', `Navigation to ${describeUrl(url)} was stopped: ${decision.reason}.`));
      return false;
    }
    if (this.#openings > 0) return true;
    this.logger.warn(`a navigation to ${describeUrl(url)} between agent steps was stopped by the origin policy: ${decision.reason}.`);
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

  /** Why no step may act where the page is now (an origin the policy refuses), or undefined. Redacted with the step's record. */
  refusedPlace(): string | undefined {
    let url: string;
    try {
      url = this.options.engine.session.url();
    } catch {
      return undefined;
    }
    const decision = this.policy.check(url);
    if (decision.allowed) return undefined;
    return `The page is at ${describeUrl(url)}, where no step may act: ${decision.reason}.`;
  }

  /**
   * Note a passed verification after the latest finished step (a record of the report, leaving
   * by the outbound boundary); `lookedAt` (raw engine text, for the cache) is cleaned here as it enters.
   */
  recordVerification(kind: VerificationKind, detail: string, lookedAt?: LookedAtScreen): void {
    const record: VerificationRecord = this.outbound.record('report', { kind, detail, afterStep: this.records.length - 1 });
    this.verifications.push(record);
    const event: VerificationEvent = { ...record };
    if (lookedAt !== undefined) event.lookedAt = redactDeep({ tree: lookedAt.tree, url: lookedAt.url, nodeIds: [...lookedAt.nodeIds] }, (text) => this.redact(text));
    try {
      this.options.onVerification?.(event);
    } catch (error) {
      this.logger.warn(`a verification listener failed: ${messageOf(error)}`);
    }
  }

  /** True when a verification passing now should carry what it looked at (a listener wants it). */
  wantsLookedAt(): boolean {
    return this.options.wantsLookedAt?.(this.records.length - 1) === true;
  }

  /** Set the cache outcome of a finished step (the recorder reports `write` at the end of the attempt). */
  annotateStep(index: number, cache: CacheOutcome): void {
    const record = this.records.find((item) => item.index === index);
    if (record !== undefined) record.cache = this.outbound.record('report', cache);
  }

  /** The agent's context, then the test's, then the step's: what `ctx.agentContext` and the cache key's digest hold. */
  agentContext(entry: AgentEntry, stepContext: string | undefined): string {
    const parts = [entry.context, this.options.testContext ?? '', stepContext ?? ''].filter((part) => part.trim() !== '');
    return this.redact(parts.join('\n\n'));
  }

  nextArtifactId(kind: string): string {
    this.#artifactCount += 1;
    return `e2e-${kind}-${this.#artifactCount}`;
  }

  async attach(artifact: { name: string; contentType: string; body: Uint8Array | string; label?: string }): Promise<void> {
    try {
      await this.options.artifacts?.attach(artifact);
    } catch (error) {
      this.logger.warn(`could not attach ${artifact.name}: ${messageOf(error)}`);
    }
  }

  /**
   * A screenshot after each step for the report (labelled `after agent.act "…"`), unless a secret
   * was filled. The label leaves twice, each way once: as the attachment's name, and in the step's record.
   */
  async evidence(index: number, label: string, artifacts: ArtifactRef[]): Promise<void> {
    if (this.options.evidence === false || this.#secretFilled || this.options.artifacts === undefined) return;
    const deadline = this.deadline.child(5_000);
    try {
      const pixels = await deadline.race(this.options.engine.screenshot());
      const id = this.nextArtifactId('screenshot');
      artifacts.push({ id, kind: 'screenshot', label });
      await this.attach({ name: id, contentType: 'image/png', body: pixels, label: this.outbound.text('report', label) });
    } catch (error) {
      this.logger.debug(`no screenshot after step ${index}: ${messageOf(error)}`);
    } finally {
      deadline.dispose();
    }
  }

  #actionHost(): ActionHost {
    return {
      engine: this.options.engine,
      verbs: new Set(this.options.target.verbs),
      tapModifiers: this.options.target.tapModifiers === true,
      platform: this.options.target.platform,
      vault: this.vault,
      policy: this.policy,
      projectRoot: this.options.projectRoot,
      observer: this.observer,
      markSecretFilled: () => {
        this.#secretFilled = true;
      },
      emit: (event: ActionEvent) => {
        try {
          this.options.onAction?.(event);
        } catch (error) {
          this.logger.warn(`an action listener failed: ${messageOf(error)}`);
        }
      },
      present: presentObservation,
    };
  }
}

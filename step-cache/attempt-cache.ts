/**
 * The replay cache of one attempt (DESIGN §6), plugged into the step runner's three seams: its
 * interceptor keys each step and hands it to the {@link ActCache} or the {@link JudgmentCache};
 * its action listener gives them every policed action; its verification listener learns which
 * steps a verification confirmed and what it looked at. Nothing is written while the attempt runs:
 * {@link AttemptCache.finishAttempt} saves the verified recordings, keeps unchanged ones, and
 * evicts entries that needed repair. step-cache/README.md follows one step through it.
 */
import type { CacheStore } from '../cache-format/index.js';
import type { CacheMode, WriteReport } from '../contract/cache-outcome.js';
import type { AttemptMutation } from '../contract/mutation.js';
import { systemClock, type Clock } from '../contract/deadline.js';
import { silentLogger, type Logger } from '../contract/logger.js';
import type { StepVerdict } from '../contract/step-contract.js';
import type {
  ActionListener,
  InterceptResult,
  InterceptedStep,
  LookedAtScreen,
  LookedAtWanted,
  StepInterceptor,
  StepServices,
  VerificationEvent,
  VerificationKind,
  VerificationListener,
} from '../contract/step-seams.js';
import type { ErrorCode } from '../errors/index.js';
import { ActCache, type ReplayWaits, type StepEndFacts } from './act-cache.js';
import { OccurrenceCounter, stepKey, type KeyScope } from './cache-key.js';
import type { WriteTargets } from './cache-writes.js';
import { JudgmentCache } from './judgment-cache.js';
import { NearestEntryIndex } from './nearest-entry.js';
import type { TrackedStep } from './tracked-step.js';
import { hasTrait, messageOf } from '../errors/index.js';

export type { CacheMode, CacheOutcome, CacheOutcomeMode, CacheReason, CacheWrite, WriteReport } from '../contract/cache-outcome.js';

/** Options of {@link createAttemptCache}. */
export interface AttemptCacheOptions {
  /** The cache (opened read-only in `read-only` mode). */
  store: CacheStore;
  mode: CacheMode;
  /** A step whose entry exists but no longer replays fails `REPLAY_STALE` with no model call. */
  strict: boolean;
  /** The Playwright project (one per target). */
  projectId: string;
  /** The test id key part (`formatTestId(file, titlePath)`); default the runner's `attempt.testId`. */
  testId?: string | undefined;
  /** `app.identity` (default the app URL's origin). */
  appIdentity: string;
  /** The engine's name and contract version (never its patch version). */
  engine: { name: string; contractVersion: number };
  /** False when the engine has no location (no `url`): recordings keep no routes or origins. Default true. */
  located?: boolean | undefined;
  /** This e2e's version, for provenance. */
  toolVersion: string;
  /** Configured secrets, name → value: values are checked out of every key and entry. */
  secrets: Readonly<Record<string, string | undefined>>;
  /** Redacts configured secret values (the attempt's vault): what enters a key is cleaned with it. */
  redact(text: string): string;
  /** The attempt's outbound boundary for entries (`runner/wire-attempt.ts` gives it): true when an entry's text holds no secret value. */
  cleanEntry?: ((text: string) => boolean) | undefined;
  /** `e2e run --propose <dir>`: in read-only mode, new and healed recordings are written here. */
  proposalStore?: CacheStore | undefined;
  /** Note replays in the store's hit ledger (read-write mode only). */
  hitsEnabled: boolean;
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  /** Replay waits (tests shorten them; an audit's attempt stops a still screen's wait). Defaults: the replayer's (5 s, 100 ms, no still stop). */
  replay?: ReplayWaits | undefined;
  /** `e2e cache audit`: one step of the attempt is replayed mutated (the runner reads it from the audit plan). */
  mutant?: AttemptMutation | undefined;
  /** `e2e record --audit`: each replayed `act` step reports which of its recorded outcomes held at its end. */
  onEndFacts?: ((report: StepEndFacts) => void) | undefined;
}

/** Verification kinds that confirm the `act` steps before them. */
const CONFIRMING: ReadonlySet<string> = new Set<VerificationKind>(['expect', 'assert', 'waitFor']);


/** A finished step as the runner records it (`AttemptRunner.records`). */
export interface FinishedStep {
  index: number;
  status: StepVerdict['status'];
  summary: string;
  errorCode?: StepVerdict['errorCode'];
}

/** How the attempt ended. */
export interface AttemptEnd {
  /** True when the test passed. */
  passed: boolean;
  /** The attempt failed because no model answered (`MODEL_UNAVAILABLE`, `MODEL_PROVIDER_FAILED`): nothing changes. */
  noModelAnswered?: boolean;
  /** The run was interrupted (first Ctrl-C): nothing changes. */
  interrupted?: boolean;
  /** The runner's step records, instead of calling `stepFinished` for each step. */
  steps?: readonly FinishedStep[];
}

export type { LookedAtScreen } from '../contract/step-seams.js';

/** The cache of one attempt. */
export interface AttemptCache {
  /** Pass as the runner's `stepInterceptor`. */
  interceptor: StepInterceptor;
  /** Pass as the runner's `onAction`. */
  listener: ActionListener;
  /**
   * Pass as the runner's `onVerification`: the confirming kinds (`expect`, `assert`,
   * `waitFor`) let the `act` steps before them be saved; an event's `lookedAt` (an `expect`'s
   * locator; an `agent.assert`'s evidence arrives by itself) lets the recording of the step it
   * follows rest its end check on it (`semantics/end-purpose.ts`).
   */
  verificationListener: VerificationListener;
  /** Pass as the runner's `wantsLookedAt`: true when step `afterStepIndex` is an `act` step the agent ran, being recorded. */
  wantsLookedAt: LookedAtWanted;
  /** Step `stepIndex` ended with `verdict`. */
  stepFinished(stepIndex: number, verdict: StepVerdict): void;
  /** Write what the attempt verified; returns each cached step's final outcome (with `write`). Call once. */
  finishAttempt(end: AttemptEnd): Promise<WriteReport[]>;
  /** The index of the step the attempt's mutant was applied to, once it was (`e2e cache audit`). */
  readonly mutatedStep: number | undefined;
}

/** Create the cache of one attempt; its entries leave by the attempt's outbound boundary (`cleanEntry`). */
export function createAttemptCache(options: AttemptCacheOptions & { cleanEntry(text: string): boolean }): AttemptCache {
  return new AttemptCacheImpl(options);
}

class AttemptCacheImpl implements AttemptCache {
  readonly #options: AttemptCacheOptions & { cleanEntry(text: string): boolean };
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #scope: KeyScope;
  readonly #acts: ActCache;
  readonly #judgments: JudgmentCache;
  readonly #occurrences = new OccurrenceCounter();
  readonly #nearest: NearestEntryIndex;
  readonly #verifications: { kind: VerificationKind; afterStep: number }[] = [];
  #finished: Promise<WriteReport[]> | undefined;
  #mutatedStep: number | undefined;

  readonly interceptor: StepInterceptor = (step, services) => this.#intercept(step, services);
  readonly listener: ActionListener = (event) => {
    this.#judgments.noteAction(event);
    this.#acts.noteAction(event);
  };
  readonly verificationListener: VerificationListener = (event) => this.#verificationPassed(event);
  readonly wantsLookedAt: LookedAtWanted = (afterStepIndex) => this.#options.mode !== 'off' && this.#acts.recording(afterStepIndex) !== undefined;

  constructor(options: AttemptCacheOptions & { cleanEntry(text: string): boolean }) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    const secretValues = Object.values(options.secrets).filter((value): value is string => value !== undefined && value !== '');
    this.#scope = {
      projectId: options.projectId,
      testId: options.testId,
      appIdentity: options.appIdentity,
      engine: options.engine,
      redact: options.redact,
      secretValues,
    };
    this.#nearest = new NearestEntryIndex(options.store);
    const decision = { store: options.store, nearest: this.#nearest, strict: options.strict, recordsRetries: options.mode === 'read-write', located: options.located !== false };
    const mutant = { mutant: options.mutant, onMutated: (index: number) => void (this.#mutatedStep ??= index) };
    this.#acts = new ActCache({ ...decision, ...mutant, secretNameOf: (value) => this.#secretNameOf(value), replay: options.replay, onEndFacts: options.onEndFacts });
    this.#judgments = new JudgmentCache({ ...decision, ...mutant, clock: options.clock, replay: options.replay });
  }

  get mutatedStep(): number | undefined {
    return this.#mutatedStep;
  }

  #verificationPassed(event: VerificationEvent): void {
    this.#verifications.push({ kind: event.kind, afterStep: event.afterStep });
    if (event.lookedAt !== undefined) this.#lookedAt(event.afterStep, event.lookedAt);
  }

  /** What a passing verification after step `afterStepIndex` looked at goes into that step's recording. */
  #lookedAt(afterStepIndex: number, lookedAt: LookedAtScreen): void {
    if (this.#options.mode === 'off') return;
    this.#acts.recording(afterStepIndex)?.recorder.lookedAt({ screen: { tree: lookedAt.tree, url: lookedAt.url }, nodeIds: lookedAt.nodeIds });
  }

  /** A live judgment's evidence is also what it looked at to verify the `act` step right before it. */
  #withEvidenceForAct(index: number, result: InterceptResult): InterceptResult {
    if ('handled' in result) return result;
    const afterStep = result.afterStep;
    return {
      ...result,
      afterStep: (finished) => {
        afterStep?.(finished);
        const evidence = finished.evidence;
        if (finished.verdict.status !== 'passed' || evidence?.screen === undefined || !evidence.cacheable) return;
        this.#lookedAt(index - 1, { tree: evidence.screen.tree, url: evidence.screen.url, nodeIds: evidence.nodeIds });
      },
    };
  }

  stepFinished(stepIndex: number, verdict: StepVerdict): void {
    const step = this.#tracked().find((tracked) => tracked.index === stepIndex);
    if (step !== undefined) step.verdict = verdict;
  }

  finishAttempt(end: AttemptEnd): Promise<WriteReport[]> {
    this.#finished ??= this.#finish(end);
    return this.#finished;
  }

  #tracked(): TrackedStep[] {
    return [...this.#acts.tracked, ...this.#judgments.tracked];
  }

  // --- the interceptor -------------------------------------------------------------------

  async #intercept(step: InterceptedStep, services: StepServices): Promise<InterceptResult> {
    // Every step counts, cached or not, so an occurrence key part never depends on what was cached before it.
    const occurrence = this.#occurrences.next(step, this.#options.redact);
    if (this.#options.mode === 'off') return {};
    this.#judgments.noteStep(step);
    if (step.info.kind === 'act') {
      const key = await stepKey(step, occurrence, this.#scope);
      // Judgments after this act are keyed after it, whether or not it is cached itself.
      this.#judgments.noteActKey(key.key);
      return this.#acts.intercept(step, key, services);
    }
    // Judgments are keyed after the acts before them, and replayed by their evidence.
    if (!this.#judgments.accepts(step)) return {};
    const result = await this.#judgments.intercept(step, await stepKey(step, occurrence, this.#scope, this.#judgments.actKeys), services);
    return step.info.kind === 'extract' ? result : this.#withEvidenceForAct(step.info.index, result);
  }

  #secretNameOf(value: string): string | undefined {
    for (const [name, secret] of Object.entries(this.#options.secrets)) if (secret !== undefined && secret !== '' && secret === value) return name;
    return undefined;
  }

  // --- the end of the attempt ------------------------------------------------------------

  async #finish(end: AttemptEnd): Promise<WriteReport[]> {
    for (const record of end.steps ?? []) {
      const verdict: StepVerdict = { status: record.status, summary: record.summary };
      if (record.errorCode !== undefined) verdict.errorCode = record.errorCode;
      this.stepFinished(record.index, verdict);
    }
    const modelFree = this.#tracked().some((step) => hasTrait(step.verdict?.errorCode, 'freezesCache'));
    const targets: WriteTargets = {
      frozen: end.interrupted === true || (!end.passed && (end.noModelAnswered === true || modelFree)),
      attemptPassed: end.passed,
      toolVersion: this.#options.toolVersion,
      recordedAt: new Date(this.#clock.now()).toISOString(),
      cleanEntry: this.#options.cleanEntry,
      logger: this.#logger,
    };
    // The keys every step of this attempt uses: a step that moved to another position keeps its entry.
    const inUse = new Set(this.#tracked().map((step) => step.key.key));
    targets.supersededBy = (step) => this.#nearest.supersededAt(step.key.parts, step.index, inUse);
    if (this.#options.mode === 'read-write' && !this.#options.store.readOnly) targets.store = this.#options.store;
    else if (this.#options.mode === 'read-only' && this.#options.proposalStore !== undefined) targets.proposals = this.#options.proposalStore;
    const reports: WriteReport[] = [];
    for (const step of [...this.#acts.tracked].sort(byIndex)) {
      step.outcome.write = await this.#acts.write(step, this.#verifiedBy(step.index), targets);
      reports.push(await this.#reported(step));
    }
    for (const step of [...this.#judgments.tracked].sort(byIndex)) {
      step.outcome.write = await this.#judgments.write(step, targets);
      reports.push(await this.#reported(step));
    }
    return reports.sort((left, right) => left.stepIndex - right.stepIndex);
  }

  /** The step's final outcome; a replayed step is noted in the hit ledger. */
  async #reported(step: TrackedStep): Promise<WriteReport> {
    if (step.outcome.mode === 'self-finalized') await this.#noteHit(step.key.key);
    return { stepIndex: step.index, outcome: { ...step.outcome } };
  }

  /** The kind of the first passing verification after step `index`. */
  #verifiedBy(index: number): VerificationKind | undefined {
    return this.#verifications.find((verification) => verification.afterStep >= index && CONFIRMING.has(verification.kind))?.kind;
  }

  async #noteHit(key: string): Promise<void> {
    if (!this.#options.hitsEnabled || this.#options.mode !== 'read-write') return;
    try {
      await this.#options.store.recordHit(key, new Date(this.#clock.now()));
    } catch (error) {
      this.#logger.debug(`cache: could not note the hit of ${key}: ${messageOf(error)}`);
    }
  }
}

const byIndex = (left: { index: number }, right: { index: number }): number => left.index - right.index;

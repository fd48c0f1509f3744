/**
 * The replay cache of one attempt (DESIGN §6), plugged into the step runner's two seams:
 *
 * - the {@link StepInterceptor} keys each `act` step, replays its entry with no model
 *   (`self-finalized`), hands the agent a `replayedPrefix` when replay stops
 *   (`agent-concluded`), or lets the agent run from the start (`missed`, with the reason
 *   and, for a miss, the nearest entry of the test and the key part that changed);
 * - the {@link ActionListener} records every action of the step, replayed ones included, so
 *   a healed step's recording is the replayed prefix plus the agent's actions;
 * - `assert`, `waitFor` and `extract` steps go to the {@link JudgmentCache}
 *   (`judgment-cache.ts`): keyed after the acts before them, replayed by checking the
 *   evidence their judge rested on.
 *
 * Nothing is written while the attempt runs: {@link AttemptCache.finishAttempt} saves the
 * verified recordings, keeps unchanged ones, and evicts entries that needed repair.
 */
import type { ActEntry, CacheStore } from '../cache-format/index.js';
import { isE2EError, type ErrorCode } from '../errors/index.js';
import { StepRecorder } from '../recorder/record-step.js';
import { fillUniquePlaceholders } from '../recorder/unique-placeholders.js';
import { replayStep, type ReplayOutcome } from '../replayer/replay-step.js';
import { stepKey, type KeyScope, type StepKey } from './cache-key.js';
import type { CacheOutcome, WriteReport } from './cache-outcome.js';
import { writeStep, type SeenEntry, type TrackedStep, type WriteTargets } from './cache-writes.js';
import { systemClock, type Clock } from './deadline.js';
import { JudgmentCache } from './judgment-cache.js';
import { silentLogger, type Logger } from './logger.js';
import { NearestEntryIndex } from './nearest-entry.js';
import type { ScreenNode } from './engine.js';
import type { StepVerdict } from './step-contract.js';
import type { VerificationKind } from './step-record.js';
import type { ActionListener, FinishedStepView, InterceptResult, InterceptedStep, StepInterceptor, StepServices } from './step-seams.js';

export type { CacheMode, CacheOutcome, CacheReason, CacheWrite, WriteReport } from './cache-outcome.js';

/** Cache modes (DESIGN §6). */
export type AttemptCacheMode = 'read-write' | 'read-only' | 'off';

/** Options of {@link createAttemptCache}. */
export interface AttemptCacheOptions {
  /** The cache (opened read-only in `read-only` mode). */
  store: CacheStore;
  mode: AttemptCacheMode;
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
  /** This e2e's version, for provenance. */
  toolVersion: string;
  /** Configured secrets, name → value: values are checked out of every key and entry. */
  secrets: Readonly<Record<string, string | undefined>>;
  /** Redacts configured secret values (the attempt's vault). */
  redact(text: string): string;
  /** `e2e run --propose <dir>`: in read-only mode, new and healed recordings are written here. */
  proposalStore?: CacheStore | undefined;
  /** Note replays in the store's hit ledger (read-write mode only). */
  hitsEnabled: boolean;
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  /** Replay waits (tests shorten them). Defaults: the replayer's (5 s, 100 ms). */
  replay?: { waitForTargetMs?: number; pollIntervalMs?: number } | undefined;
}

/** What a verification looked at: node ids of a redacted screen. */
export interface LookedAtScreen {
  tree: ScreenNode;
  url: string;
  nodeIds: readonly string[];
}

/** Verification kinds that confirm the `act` steps before them. */
const CONFIRMING: ReadonlySet<string> = new Set<VerificationKind>(['expect', 'assert', 'waitFor']);

/** Failures after which no entry changes: no model answered, the run was model-free, or it was interrupted. */
const FREEZING_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['MODEL_UNAVAILABLE', 'MODEL_PROVIDER_FAILED', 'REPLAY_STALE', 'CANCELLED']);

/** A finished step as the runner records it (`AttemptRunner.records`). */
export interface FinishedStep {
  index: number;
  status: StepVerdict['status'];
  summary: string;
  errorCode?: StepVerdict['errorCode'];
  modelCalls: number;
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
  /** The runner's passed verifications, instead of calling `verificationPassed` for each. */
  verifications?: readonly { kind: VerificationKind; afterStep: number }[];
}

/** The cache of one attempt. */
export interface AttemptCache {
  /** Pass as the runner's `stepInterceptor`. */
  interceptor: StepInterceptor;
  /** Pass as the runner's `onAction`. */
  listener: ActionListener;
  /** A verification passed after step `afterStepIndex` (the last finished step; -1 before any). */
  verificationPassed(kind: VerificationKind, afterStepIndex: number): void;
  /** True when what a verification after step `afterStepIndex` looks at would go into a recording (that step is an `act` step the agent ran). */
  wantsLookedAt(afterStepIndex: number): boolean;
  /**
   * What a passing verification after step `afterStepIndex` looked at: nodes of a redacted
   * screen (an `expect`'s locator; an `agent.assert`'s evidence arrives by itself). The
   * step's recording then rests its end check on them (`recorder/end-purpose.ts`).
   */
  verificationLookedAt(afterStepIndex: number, lookedAt: LookedAtScreen): void;
  /** Step `stepIndex` ended with `verdict`. */
  stepFinished(stepIndex: number, verdict: StepVerdict, modelCalls: number): void;
  /** Write what the attempt verified; returns each cached step's final outcome (with `write`). Call once. */
  finishAttempt(end: AttemptEnd): Promise<WriteReport[]>;
  /** The cache outcome of a step so far; undefined when the cache took no part. */
  outcomeOf(stepIndex: number): CacheOutcome | undefined;
}

/** Create the cache of one attempt. */
export function createAttemptCache(options: AttemptCacheOptions): AttemptCache {
  return new AttemptCacheImpl(options);
}

class AttemptCacheImpl implements AttemptCache {
  readonly #options: AttemptCacheOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #scope: KeyScope;
  readonly #nearest: NearestEntryIndex;
  readonly #judgments: JudgmentCache;
  readonly #steps = new Map<number, TrackedStep>();
  readonly #verifications: { kind: VerificationKind; afterStep: number }[] = [];
  #finished: Promise<WriteReport[]> | undefined;

  readonly interceptor: StepInterceptor = (step, services) => this.#intercept(step, services);
  readonly listener: ActionListener = (event) => {
    this.#judgments.noteAction(event);
    if (event.step.kind !== 'act') return;
    this.#steps.get(event.step.index)?.recorder.recordEvent(event);
  };

  constructor(options: AttemptCacheOptions) {
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
    this.#judgments = new JudgmentCache({
      store: options.store,
      mode: options.mode,
      strict: options.strict,
      scope: this.#scope,
      redact: options.redact,
      nearest: this.#nearest,
      clock: options.clock,
      replay: options.replay,
    });
  }

  verificationPassed(kind: VerificationKind, afterStepIndex: number): void {
    this.#verifications.push({ kind, afterStep: afterStepIndex });
  }

  wantsLookedAt(afterStepIndex: number): boolean {
    const step = this.#steps.get(afterStepIndex);
    return step !== undefined && step.outcome.mode !== 'self-finalized' && this.#options.mode !== 'off';
  }

  verificationLookedAt(afterStepIndex: number, lookedAt: LookedAtScreen): void {
    if (!this.wantsLookedAt(afterStepIndex)) return;
    this.#steps.get(afterStepIndex)!.recorder.lookedAt({ screen: { tree: lookedAt.tree, url: lookedAt.url }, nodeIds: lookedAt.nodeIds });
  }

  stepFinished(stepIndex: number, verdict: StepVerdict, modelCalls: number): void {
    this.#judgments.stepFinished(stepIndex, verdict);
    const step = this.#steps.get(stepIndex);
    if (step === undefined) return;
    step.verdict = verdict;
    step.modelCalls = modelCalls;
  }

  outcomeOf(stepIndex: number): CacheOutcome | undefined {
    const outcome = this.#steps.get(stepIndex)?.outcome;
    return outcome === undefined ? this.#judgments.outcomeOf(stepIndex) : { ...outcome };
  }

  finishAttempt(end: AttemptEnd): Promise<WriteReport[]> {
    this.#finished ??= this.#finish(end);
    return this.#finished;
  }

  // --- the interceptor -------------------------------------------------------------------

  async #intercept(step: InterceptedStep, services: StepServices): Promise<InterceptResult> {
    if (this.#options.mode === 'off') return {};
    this.#judgments.noteStep(step);
    switch (step.info.kind) {
      case 'act':
        return this.#interceptAct(step, services);
      case 'extract':
        // Judgment entries (executor/judgment-cache.ts): keyed after the acts before them, replayed by their evidence.
        return this.#judgments.intercept(step, services);
      case 'assert':
      case 'waitFor':
        return this.#withEvidenceForAct(step.info.index, await this.#judgments.intercept(step, services));
    }
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
        this.verificationLookedAt(index - 1, { tree: evidence.screen.tree, url: evidence.screen.url, nodeIds: evidence.nodeIds });
      },
    };
  }

  async #interceptAct(step: InterceptedStep, services: StepServices): Promise<InterceptResult> {
    const key = await stepKey(step, step.occurrence, this.#scope);
    // Judgments after this act are keyed after it, whether or not it is cached itself.
    this.#judgments.noteActKey(key.key);
    if (step.executor?.cache === 'off') return {};
    const uniqueValues: Record<string, string> = {};
    const literalParams: Record<string, string> = {};
    for (const [name, source] of Object.entries(step.paramSources)) {
      if (source.kind === 'unique') uniqueValues[name] = source.value;
      else if (source.kind === 'literal') literalParams[name] = source.value;
    }
    const tracked: TrackedStep = {
      index: step.info.index,
      key,
      recorder: new StepRecorder({
        instruction: step.info.instruction,
        literalParams,
        uniqueValues,
        secretNameOf: (value) => this.#secretNameOf(value),
      }),
      uniqueValues,
      outcome: { mode: 'missed', entry: key.key },
    };
    if (step.executor !== undefined) {
      tracked.executor = step.executor.version === undefined ? { name: step.executor.name } : { name: step.executor.name, version: step.executor.version };
    }
    this.#steps.set(step.info.index, tracked);

    const read = await this.#options.store.read(key.key);
    if (read.kind === 'hit') tracked.seen = read.entry.kind === 'act' ? { blob: read.blob, entry: read.entry } : { blob: read.blob };
    else if (read.kind === 'invalid' && read.blob !== undefined) tracked.seen = { blob: read.blob };

    if (step.attempt.retry > 0) return this.#missed(tracked, step, 'retry', `retry ${step.attempt.retry} runs the agent from the start`);
    switch (read.kind) {
      case 'absent':
        return this.#missed(tracked, step, 'no-entry', await this.#nearest.explain(key.parts));
      case 'invalid':
        return this.#stale(tracked, step, 'invalid-entry', read.message);
      case 'hit':
        if (read.entry.kind !== 'act') return this.#stale(tracked, step, 'invalid-entry', `Cache entry ${key.key} holds a ${read.entry.kind} entry, not an act entry.`);
        return this.#replay(tracked, step, services, read.entry);
    }
  }

  async #replay(tracked: TrackedStep, step: InterceptedStep, services: StepServices, entry: ActEntry): Promise<InterceptResult> {
    const replayOptions = this.#options.replay ?? {};
    let replay: ReplayOutcome;
    try {
      replay = await replayStep({
        entry,
        actions: services.actions,
        briefActions: services.briefActions,
        observe: () => services.observe({ tree: true }),
        uniqueValues: tracked.uniqueValues,
        secretsAvailable: step.info.secrets,
        signal: services.signal,
        ...(replayOptions.waitForTargetMs === undefined ? {} : { waitForTargetMs: replayOptions.waitForTargetMs }),
        ...(replayOptions.pollIntervalMs === undefined ? {} : { pollIntervalMs: replayOptions.pollIntervalMs }),
      });
    } catch (error) {
      // A hard stop (timeout, cancellation, spent budget) ends the step; the entry stays as it is.
      const code = isE2EError(error) ? error.code : 'ENGINE_FAILURE';
      tracked.outcome = { mode: 'missed', reason: 'action-failed', detail: `the replay was stopped (${code})`, entry: tracked.key.key };
      throw error;
    }
    if (replay.kind === 'finished') {
      tracked.outcome = { mode: 'self-finalized', entry: tracked.key.key };
      if (replay.notes !== undefined && replay.notes.length > 0) tracked.outcome.detail = replay.notes.join('; ');
      const summary = fillUniquePlaceholders(entry.summary, tracked.uniqueValues);
      return { handled: { verdict: { status: 'passed', summary }, cache: { ...tracked.outcome } } };
    }
    if (this.#options.strict || step.executor === undefined) return this.#stale(tracked, step, replay.reason, replay.detail);
    tracked.outcome = { mode: 'agent-concluded', reason: replay.reason, detail: replay.detail, entry: tracked.key.key };
    return { continueWith: replay.prefix, cache: { ...tracked.outcome }, afterStep: endScreenOf(tracked) };
  }

  /** The agent runs from the start; without one, a strict run fails `REPLAY_STALE` rather than `MODEL_UNAVAILABLE`. */
  #missed(tracked: TrackedStep, step: InterceptedStep, reason: 'no-entry' | 'retry', detail: string): InterceptResult {
    tracked.outcome = { mode: 'missed', reason, detail, entry: tracked.key.key };
    if (this.#options.strict && step.executor === undefined) {
      return this.#blocked(tracked, step, `it cannot replay (${detail})`, 'record it with `e2e record`');
    }
    return { cache: { ...tracked.outcome }, afterStep: endScreenOf(tracked) };
  }

  /** An entry exists but does not replay: the agent repairs it, unless the run is strict or has no agent. */
  #stale(tracked: TrackedStep, step: InterceptedStep, reason: NonNullable<CacheOutcome['reason']>, detail: string): InterceptResult {
    tracked.outcome = { mode: 'missed', reason, detail, entry: tracked.key.key };
    if (!this.#options.strict && step.executor !== undefined) return { cache: { ...tracked.outcome }, afterStep: endScreenOf(tracked) };
    const why = this.#options.strict ? 'strict mode makes no model call' : `agents.${step.agent.name} has no model or executor to repair it`;
    return this.#blocked(tracked, step, `its cache entry no longer replays (${reason}: ${detail}); ${why}`, 'record it again with `e2e record`');
  }

  #blocked(tracked: TrackedStep, step: InterceptedStep, problem: string, fix: string): InterceptResult {
    const summary = this.#options.redact(`Step ${step.info.index} (agent.act ${JSON.stringify(step.info.instruction)}): ${problem}. Fix: ${fix}.`);
    return { handled: { verdict: { status: 'blocked', errorCode: 'REPLAY_STALE', summary }, cache: { ...tracked.outcome } } };
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
      this.stepFinished(record.index, verdict, record.modelCalls);
    }
    for (const verification of end.verifications ?? []) this.verificationPassed(verification.kind, verification.afterStep);
    const tracked = [...this.#steps.values()].sort((left, right) => left.index - right.index);
    const modelFree =
      tracked.some((step) => step.verdict?.errorCode !== undefined && FREEZING_CODES.has(step.verdict.errorCode)) || this.#judgments.endedWithAny(FREEZING_CODES);
    const targets: WriteTargets = {
      frozen: end.interrupted === true || (!end.passed && (end.noModelAnswered === true || modelFree)),
      attemptPassed: end.passed,
      toolVersion: this.#options.toolVersion,
      recordedAt: new Date(this.#clock.now()).toISOString(),
      redact: this.#options.redact,
      logger: this.#logger,
    };
    if (this.#options.mode === 'read-write' && !this.#options.store.readOnly) targets.store = this.#options.store;
    else if (this.#options.mode === 'read-only' && this.#options.proposalStore !== undefined) targets.proposals = this.#options.proposalStore;
    const reports: WriteReport[] = [];
    for (const step of tracked) {
      step.outcome.write = await writeStep(step, this.#verifiedBy(step.index), targets);
      if (step.outcome.mode === 'self-finalized') await this.#noteHit(step.key.key);
      reports.push({ stepIndex: step.index, outcome: { ...step.outcome } });
    }
    for (const report of await this.#judgments.finish(targets)) {
      if (report.outcome.mode === 'self-finalized' && report.outcome.entry !== undefined) await this.#noteHit(report.outcome.entry);
      reports.push(report);
    }
    return reports.sort((left, right) => left.stepIndex - right.stepIndex);
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
      this.#logger.debug(`cache: could not note the hit of ${key}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Narrow an unknown `result.cache` value to a {@link CacheOutcome} (for reporters). */
export function isCacheOutcome(value: unknown): value is CacheOutcome {
  if (typeof value !== 'object' || value === null) return false;
  const mode = (value as { mode?: unknown }).mode;
  return mode === 'self-finalized' || mode === 'agent-concluded' || mode === 'missed';
}

/** Keeps the step's settled end screen for its recording. */
function endScreenOf(tracked: TrackedStep): (finished: FinishedStepView) => void {
  return (finished) => {
    if (finished.endScreen !== undefined) tracked.endScreen = { tree: finished.endScreen.tree, url: finished.endScreen.url };
  };
}

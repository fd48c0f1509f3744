/**
 * The step runner (DESIGN §3): the face of one attempt, which turns each `agent.*` call into one
 * bounded step and hands the thinking to a `StepExecutor`. What lives for the attempt is
 * `attempt-state.ts`; what one step goes through is `step-pipeline.ts`. See step/README.md.
 */
import { E2EError } from '../errors/index.js';
import type { TokenUsage } from './budgets.js';
import type { LedgerEntry, StepKind, StepVerdict, TurnRecord } from '../contract/step-contract.js';
import type { LookedAtScreen, RunnerObservation } from '../contract/step-seams.js';
import type { CacheOutcome } from '../contract/cache-outcome.js';
import type { Outbound } from '../secrets/outbound.js';
import { AttemptState, type AttemptRunnerOptions } from './attempt-state.js';
import { checkCall, decide, endScreen, recordOf, reportedVerdict, startStep, tellInterceptor } from './step-pipeline.js';
import type { StepRecord, VerificationKind, VerificationRecord } from './step-record.js';
import type { StepDecision } from './step-decision.js';
import { stepTitle } from './step-title.js';

export type { RunStepOptions } from './step-options.js';
export type { AgentEntry, ArtifactSink, AttemptRunnerOptions, BuiltInAgent } from './attempt-state.js';

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

/** The attempt-scoped step runner. */
export class AttemptRunner {
  readonly #attempt: AttemptState;

  constructor(options: AttemptRunnerOptions) {
    this.#attempt = new AttemptState(options);
  }

  /** Aborts when the attempt ends or is cancelled. */
  get signal(): AbortSignal {
    return this.#attempt.deadline.signal;
  }

  /** Finished steps, in order. */
  get records(): readonly StepRecord[] {
    return this.#attempt.records;
  }

  /** Passed verifications, in order. */
  get verifications(): readonly VerificationRecord[] {
    return this.#attempt.verifications;
  }

  /** The ledger: completed steps of the attempt. */
  ledger(): LedgerEntry[] {
    return this.#attempt.ledger();
  }

  /** True once a secret was typed (no pixels leave the runner from then on). */
  secretFilled(): boolean {
    return this.#attempt.secretFilled();
  }

  /** Where the attempt's records leave it (the report, what the test gets back, transcripts, the console, cache entries), each redacted once. */
  get outbound(): Outbound {
    return this.#attempt.outbound;
  }

  /**
   * The engine's navigation hook, for the whole attempt: a navigation to a non-allowed origin
   * is refused whoever starts it. During a step it ends the step `POLICY_DENIED`; between
   * steps (a timer, a meta refresh, a popup, the test's own code) it is stopped and warned
   * about. `app.open()` is the one exception: the test says where it starts.
   */
  allowNavigation(url: string): boolean {
    return this.#attempt.allowNavigation(url);
  }

  /** Run the test's own `app.open()`: it may go to any origin (the next step refuses to act on a refused one). */
  opening<T>(work: () => Promise<T>): Promise<T> {
    return this.#attempt.opening(work);
  }

  /**
   * Note a passed verification (an `expect`, an assert, a waitFor) after the latest finished
   * step and tell the `onVerification` listener; `lookedAt` (raw engine text) is redacted here.
   */
  recordVerification(kind: VerificationKind, detail: string, lookedAt?: LookedAtScreen): void {
    this.#attempt.recordVerification(kind, detail, lookedAt);
  }

  /** True when a verification passing now should carry what it looked at (a listener wants it). */
  wantsLookedAt(): boolean {
    return this.#attempt.wantsLookedAt();
  }

  /** Set the cache outcome of a finished step (the recorder reports `write` at the end of the attempt). */
  annotateStep(index: number, cache: CacheOutcome): void {
    this.#attempt.annotateStep(index, cache);
  }

  /** End the attempt: a running step stops with `error` (default `CANCELLED`). */
  close(error?: E2EError): void {
    this.#attempt.deadline.abort(error ?? new E2EError('CANCELLED', 'The test ended while the step was running.'));
  }

  /**
   * Run one step. Bad calls throw `INVALID_ARGUMENT`; everything else ends in the outcome's verdict.
   * The step is checked, started, decided (see {@link StepDecision}), ended, then recorded.
   */
  async runStep(kind: StepKind, instruction: unknown, rawOptions?: unknown): Promise<StepOutcome> {
    const attempt = this.#attempt;
    const call = checkCall(attempt, kind, instruction, rawOptions);
    const step = startStep(attempt, call);
    const { session } = step;
    attempt.logger.debug(`step ${session.info.index} ${kind}: ${session.info.instruction}`);
    let decision: StepDecision;
    let screen: RunnerObservation | undefined;
    try {
      decision = await decide(attempt, call, step);
      screen = await endScreen(attempt, decision, session);
    } finally {
      session.end();
      session.deadline.dispose();
    }
    const decided = reportedVerdict(call, decision.verdict);
    await attempt.evidence(session.info.index, `after ${stepTitle(kind, session.info.instruction)}`, session.artifacts);
    // The record leaves the attempt redacted, once; the test's outcome and the cache's entry take its summary.
    const record = recordOf(attempt, call, step, decision, decided);
    const verdict = { ...decided, summary: record.summary };
    tellInterceptor(attempt, decision, verdict, screen);
    attempt.records.push(record);
    attempt.logger.debug(`step ${record.index} ${decided.status}${decided.errorCode === undefined ? '' : ` ${decided.errorCode}`}: ${decided.summary}`);
    return outcomeOf(record, verdict);
  }
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

/** Create the step runner of one attempt. */
export function createAttemptRunner(options: AttemptRunnerOptions): AttemptRunner {
  return new AttemptRunner(options);
}

/**
 * The state of one running step, shared by its policed actions, its observations and its
 * budgets: the newest observation the caller received, the serialized action queue, the
 * counters, the deadline, the hard stop that ends the step early, and what the step attached.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { E2EError } from '../errors/index.js';
import type { StepBudget } from './budgets.js';
import { systemClock, type Clock, type Deadline } from '../contract/deadline.js';
import type { ParamSource } from './instruction.js';
import type { StepInfo, TurnRecord } from '../contract/step-contract.js';
import type { ArtifactRef, LeftOutScreens, StepTiming } from './step-record.js';
import type { RunnerObservation } from '../contract/step-seams.js';

/** Marks code running inside `ctx.budgets.runTool`, where actions and observations would wait for themselves. */
export const toolScope = new AsyncLocalStorage<{ name: string }>();

/** One step's mutable state. */
export class StepSession {
  readonly info: StepInfo;
  readonly budget: StepBudget;
  readonly deadline: Deadline;
  readonly paramSources: Record<string, ParamSource>;
  /** Sentences of the actions that committed. */
  readonly sentences: string[] = [];
  /** The newest observation handed to the caller; actions are authorized against it. */
  latest: RunnerObservation | undefined;
  /** Observing (observations, settling, screenshots) and acting in the engine; model time is the budget's. */
  readonly timing: Omit<StepTiming, 'modelMs'> = { observeMs: 0, actionMs: 0 };
  /** Artifacts the step attached (transcripts, screenshots), in order; the record keeps this list. */
  readonly artifacts: ArtifactRef[] = [];
  /** The model turns the executor recorded last (`ctx.attachTurns`), clipped and redacted. */
  turns: TurnRecord[] | undefined;
  /** The step's screens whose text left nodes out, and the most one of them left out. */
  readonly leftOut: LeftOutScreens = { screens: 0, most: 0 };
  readonly #clock: Clock;
  #queue: Promise<unknown> = Promise.resolve();
  #ended = false;
  #hardStop: E2EError | undefined;

  constructor(options: { info: StepInfo; budget: StepBudget; deadline: Deadline; paramSources: Record<string, ParamSource>; clock?: Clock | undefined }) {
    this.#clock = options.clock ?? systemClock;
    this.info = options.info;
    this.budget = options.budget;
    this.deadline = options.deadline;
    this.paramSources = options.paramSources;
  }

  /** A screen of the step was rendered as text leaving `count` nodes out. */
  noteLeftOut(count: number): void {
    this.leftOut.screens++;
    this.leftOut.most = Math.max(this.leftOut.most, count);
  }

  /** True once the step has returned its outcome. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The hard stop that ended the step, if any. */
  get hardStop(): E2EError | undefined {
    return this.#hardStop;
  }

  /** End the step now with `error` (budget spent, policy denied…); the first one wins. */
  stop(error: E2EError): void {
    if (this.#hardStop !== undefined || this.#ended) return;
    this.#hardStop = error;
    this.deadline.abort(error);
  }

  /** Mark the step finished: later calls on its context fail `INVALID_STATE`. */
  end(): void {
    this.#ended = true;
  }

  /** Throw when the step can take no more calls (ended, stopped, inside a tool). `what` names the call. */
  assertUsable(what: string): void {
    if (this.#ended) {
      throw new E2EError('INVALID_STATE', `${what} was called after the step ended; use the step context only while runStep runs.`);
    }
    const tool = toolScope.getStore();
    if (tool !== undefined) {
      throw new E2EError(
        'INVALID_STATE',
        `${what} was called inside budgets.runTool('${tool.name}'); it would wait for the tool to finish. Call it before or after the tool body.`,
      );
    }
    this.deadline.throwIfStopped();
  }

  /** Run `work`, adding its time to `timing[part]` whether it succeeds or not. */
  async timed<T>(part: 'observeMs' | 'actionMs', work: () => Promise<T>): Promise<T> {
    const started = this.#clock.now();
    try {
      return await work();
    } finally {
      this.timing[part] += Math.max(0, this.#clock.now() - started);
    }
  }

  /** Run `work` after every earlier queued call (actions never overlap). */
  serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

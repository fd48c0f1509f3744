/**
 * One cached step as the attempt tracks it, `act` and judgment alike, and the decision every
 * cached step goes through before its executor runs: read the entry under its key, then
 * replay it, or let the executor run (`missed`), or, when nothing may run, block the step
 * `REPLAY_STALE`. Only the replay itself and the wording differ by kind.
 */
import { CONTEXT_KEY_PART, type CacheStore, type Entry } from '../cache-format/index.js';
import type { CacheOutcome, CacheReason, ReplayClassification } from '../contract/cache-outcome.js';
import type { FinishedStepView, InterceptedStep, InterceptResult } from '../contract/step-seams.js';
import type { StepKind, StepVerdict } from '../contract/step-contract.js';
import type { StepKey } from './cache-key.js';
import type { NearestEntryIndex } from './nearest-entry.js';

/** The entry an attempt found under a step's key when the step started. */
export interface SeenEntry<E extends Entry = Entry> {
  blob: string;
  /** The stored entry, when it read as one of the step's kind. */
  entry?: E;
}

/** One cached step of the attempt. */
export interface TrackedStep<E extends Entry = Entry> {
  index: number;
  kind: StepKind;
  key: StepKey;
  outcome: CacheOutcome;
  seen?: SeenEntry<E>;
  /** The stored entry did not replay: only a newer verified recording replaces it; it is never evicted. */
  stale: boolean;
  executor?: { name: string; version?: string };
  /** How the step ended (from the runner's records). */
  verdict?: Pick<StepVerdict, 'status' | 'errorCode' | 'summary'>;
}

/** How one kind of step words its cache decisions. */
export interface StepWording {
  /** What a retry does instead of replaying (`runs the agent from the start`). */
  retry: string;
  /** The problem when the stored entry does not replay (`its cache entry no longer replays`). */
  noLongerReplays: string;
  /** Why nothing can repair it without a model (`has no model or executor to repair it`). */
  noRepairer: string;
  staleFix: string;
  /** The kind of entry the step needs (`an act entry`). */
  entryName: string;
}

/** What the decision needs from the attempt. */
export interface DecisionContext {
  store: CacheStore;
  nearest: NearestEntryIndex;
  strict: boolean;
  /** Only a read-write run re-records on a retry; read-only runs replay a retry again. */
  recordsRetries: boolean;
  /** False for an engine without a location (a terminal): recordings keep no routes (entries of version 2). */
  located: boolean;
}

/** The executor of `step` as provenance records it. */
export function executorOf(step: InterceptedStep): { name: string; version?: string } | undefined {
  if (step.executor === undefined) return undefined;
  return step.executor.version === undefined ? { name: step.executor.name } : { name: step.executor.name, version: step.executor.version };
}

/** A freshly tracked step, `missed` until the cache decides otherwise. */
export function trackStep<E extends Entry>(step: InterceptedStep, key: StepKey): TrackedStep<E> {
  const tracked: TrackedStep<E> = { index: step.info.index, kind: step.info.kind, key, outcome: { mode: 'missed', entry: key.key }, stale: false };
  const executor = executorOf(step);
  if (executor !== undefined) tracked.executor = executor;
  return tracked;
}

/**
 * Read the step's entry and decide: `replay` a hit of the right kind; otherwise the executor
 * runs with `afterStep` (or, strict or without one, the step is blocked).
 */
export async function decideStep<E extends Entry>(
  tracked: TrackedStep<E>,
  step: InterceptedStep,
  context: DecisionContext,
  wording: StepWording,
  isKind: (entry: Entry) => entry is E,
  replay: (entry: E) => Promise<InterceptResult>,
  afterStep: (finished: FinishedStepView) => void,
): Promise<InterceptResult> {
  const { key } = tracked;
  const read = await context.store.read(key.key);
  if (read.kind === 'hit') tracked.seen = isKind(read.entry) ? { blob: read.blob, entry: read.entry } : { blob: read.blob };
  else if (read.kind === 'invalid' && read.blob !== undefined) tracked.seen = { blob: read.blob };

  if (step.attempt.retry > 0 && context.recordsRetries) return missed(tracked, step, context, 'retry', `retry ${step.attempt.retry} ${wording.retry}`, afterStep);
  switch (read.kind) {
    case 'absent': {
      const miss = await context.nearest.explainMiss(key.parts);
      // The same step recorded under another agent context: the context, not the app, changed.
      const contextOnly = miss.differences.length === 1 && miss.differences[0] === CONTEXT_KEY_PART;
      return missed(tracked, step, context, contextOnly ? 'wrong-context' : 'no-entry', miss.detail, afterStep);
    }
    case 'invalid':
      return staleStep(tracked, step, context, wording, 'invalid-entry', read.message, afterStep);
    case 'hit':
      if (tracked.seen?.entry === undefined) {
        return staleStep(tracked, step, context, wording, 'invalid-entry', `Cache entry ${key.key} holds a ${read.entry.kind} entry, not ${wording.entryName}.`, afterStep);
      }
      return replay(tracked.seen.entry);
  }
}

/** The executor runs from the start; without one, a strict run fails `REPLAY_STALE` rather than `MODEL_UNAVAILABLE`. */
function missed(
  tracked: TrackedStep,
  step: InterceptedStep,
  context: DecisionContext,
  reason: 'no-entry' | 'retry' | 'wrong-context',
  detail: string,
  afterStep: (finished: FinishedStepView) => void,
): InterceptResult {
  tracked.outcome = { mode: 'missed', reason, detail, entry: tracked.key.key };
  if (context.strict && step.executor === undefined) return blockedStep(tracked, step, context, `it cannot replay (${detail})`, 'record it with `e2e record`');
  return { cache: { ...tracked.outcome }, afterStep };
}

/** An entry exists but does not replay: the executor repairs it, unless the run is strict or has no executor. */
export function staleStep(
  tracked: TrackedStep,
  step: InterceptedStep,
  context: DecisionContext,
  wording: StepWording,
  reason: CacheReason,
  detail: string,
  afterStep: (finished: FinishedStepView) => void,
  classification: ReplayClassification = 'drift',
): InterceptResult {
  tracked.outcome = { mode: 'missed', reason, detail, entry: tracked.key.key, classification };
  if (!context.strict && step.executor !== undefined) return { cache: { ...tracked.outcome }, afterStep };
  const why = context.strict ? 'strict mode makes no model call' : `agents.${step.agent.name} ${wording.noRepairer}`;
  return blockedStep(tracked, step, context, `${wording.noLongerReplays} (${reason}: ${detail}); ${why}`, wording.staleFix);
}

/**
 * A replay whose every action ran but whose recorded outcome did not appear, where nothing may
 * repair it: the step fails like a failed expectation (`ASSERTION_FAILED`, exit class 1), since
 * the app, not the recording, changed. `lastAction` is the sentence of the action it followed.
 */
export function regressedStep(tracked: TrackedStep, step: InterceptedStep, context: DecisionContext, detail: string, lastAction: string): InterceptResult {
  tracked.outcome = { mode: 'missed', reason: 'end-mismatch', detail, entry: tracked.key.key, classification: 'regression' };
  const missing = detail.replace(/^after all \d+ actions?, /, '');
  // Redacted with the step's record, where it leaves the attempt.
  const summary =
    `Step ${step.info.index} (agent.${step.info.kind} ${JSON.stringify(step.info.instruction)}): regression: after its last action (${lastAction}), ${missing}. ` +
    'The app no longer does what this step recorded; the recorded entry is kept. If the change is intended, record the step again with `e2e record`.';
  return { handled: { verdict: { status: 'failed', errorCode: 'ASSERTION_FAILED', summary }, cache: { ...tracked.outcome } } };
}

function blockedStep(tracked: TrackedStep, step: InterceptedStep, context: DecisionContext, problem: string, fix: string): InterceptResult {
  const summary = `Step ${step.info.index} (agent.${step.info.kind} ${JSON.stringify(step.info.instruction)}): ${problem}. Fix: ${fix}.`;
  return { handled: { verdict: { status: 'blocked', errorCode: 'REPLAY_STALE', summary }, cache: { ...tracked.outcome } } };
}

/**
 * The `act` steps of an attempt: keyed, replayed with no model by the replayer
 * (`self-finalized`), handed to the agent with a `replayedPrefix` where replay stops
 * (`agent-concluded`), or left to the agent from the start (`missed`). Every action of a
 * step that may be written goes to its recorder, so a healed step's recording is the replayed
 * prefix plus the agent's actions; a replay's actions wait aside until the replay ends, and a
 * step that replayed fully (never written) records none of them.
 */
import type { ActEntry, Entry } from '../cache-format/index.js';
import type { CacheWrite } from '../contract/cache-outcome.js';
import type { AttemptMutation, EndFacts } from '../contract/mutation.js';
import type { ScreenNode } from '../contract/engine.js';
import type { ActionEvent, FinishedStepView, InterceptResult, InterceptedStep, StepServices, VerificationKind } from '../contract/step-seams.js';
import { fillUniquePlaceholders } from '../semantics/unique-placeholders.js';
import { isE2EError } from '../errors/index.js';
import { buildActEntry, StepRecorder } from '../recorder/record-step.js';
import { replayStep, type ReplayOutcome } from '../replayer/replay-step.js';
import type { StepKey } from './cache-key.js';
import { provenanceOf, sameFlow, writeStep, type Candidate, type WriteTargets } from './cache-writes.js';
import { describeAction } from '../semantics/describe-action.js';
import { decideStep, regressedStep, staleStep, trackStep, type DecisionContext, type StepWording, type TrackedStep } from './tracked-step.js';

/** One `act` step as the cache tracked it. */
export interface TrackedAct extends TrackedStep<ActEntry> {
  recorder: StepRecorder;
  /** The actions of the replay in progress: recorded only when it hands the step to the agent. */
  replayed?: ActionEvent[] | undefined;
  uniqueValues: Readonly<Record<string, string>>;
  /** The screen once the page held still after the executor concluded (the recording's end). */
  endScreen?: { tree: ScreenNode; url: string };
}

/** Replay waits: tests shorten them; an audit's run ends an end-state wait once the screen holds still. */
export interface ReplayWaits {
  waitForTargetMs?: number;
  pollIntervalMs?: number;
  /**
   * An audit's attempt (`e2e cache audit`, `e2e record --audit`): the end-state wait of a
   * replayed `act` step also ends once the screen held still this long with no request in
   * flight. A control run (no mutant) applies it to every step, a mutant's run to its mutated
   * step only, so the steps after it (the test's own standard) wait as a plain replay does.
   */
  stopWhenStillMs?: number;
}

/** Options of {@link ActCache}. */
export interface ActCacheOptions extends DecisionContext {
  /** The name of the configured secret whose value is exactly `value`, if any. */
  secretNameOf(value: string): string | undefined;
  /** Replay waits (tests shorten them). Defaults: the replayer's. */
  replay?: ReplayWaits | undefined;
  /** `e2e cache audit`: the mutant of this attempt; applied when its entry's step replays. */
  mutant?: AttemptMutation | undefined;
  /** Called with the step index once the mutant was applied to a step. */
  onMutated?: ((stepIndex: number) => void) | undefined;
  /** `e2e record --audit`: replays wait for every recorded outcome and hand over which held (a mutant's run: its mutated step only). */
  onEndFacts?: ((report: StepEndFacts) => void) | undefined;
}

/** Which recorded outcomes held at the end of one replayed step (`e2e record --audit`). */
export interface StepEndFacts {
  /** The key of the replayed entry. */
  entry: string;
  /** The step's index in its attempt. */
  step: number;
  facts: EndFacts;
}

const WORDING: StepWording = {
  retry: 'runs the agent from the start',
  noLongerReplays: 'its cache entry no longer replays',
  noRepairer: 'has no model or executor to repair it',
  staleFix: 'record it again with `e2e record`',
  entryName: 'an act entry',
};

const isActEntry = (entry: Entry): entry is ActEntry => entry.kind === 'act';

/** The `act` entries of one attempt. */
export class ActCache {
  readonly #options: ActCacheOptions;
  readonly #steps = new Map<number, TrackedAct>();

  constructor(options: ActCacheOptions) {
    this.#options = options;
  }

  /** The steps tracked so far. */
  get tracked(): readonly TrackedAct[] {
    return [...this.#steps.values()];
  }

  /** The step being recorded at `index` (the agent ran it, or finished it after a replay), if any. */
  recording(index: number): TrackedAct | undefined {
    const step = this.#steps.get(index);
    return step === undefined || step.outcome.mode === 'self-finalized' ? undefined : step;
  }

  /** A policed action of an `act` step: its recorder keeps it (a replay's, once the replay hands the step on). */
  noteAction(event: ActionEvent): void {
    if (event.step.kind !== 'act') return;
    const step = this.#steps.get(event.step.index);
    if (step?.replayed !== undefined) step.replayed.push(event);
    else step?.recorder.recordEvent(event);
  }

  /** The interceptor for an `act` step already keyed as `key`. */
  async intercept(step: InterceptedStep, key: StepKey, services: StepServices): Promise<InterceptResult> {
    if (step.executor?.cache === 'off') return {};
    const uniqueValues: Record<string, string> = {};
    const literalParams: Record<string, string> = {};
    for (const [name, source] of Object.entries(step.paramSources)) {
      if (source.kind === 'unique') uniqueValues[name] = source.value;
      else if (source.kind === 'literal') literalParams[name] = source.value;
    }
    const tracked: TrackedAct = {
      ...trackStep<ActEntry>(step, key),
      recorder: new StepRecorder({
        instruction: step.info.instruction,
        literalParams,
        uniqueValues,
        secretNameOf: (value) => this.#options.secretNameOf(value),
        located: this.#options.located,
      }),
      uniqueValues,
    };
    this.#steps.set(step.info.index, tracked);
    return decideStep(tracked, step, this.#options, WORDING, isActEntry, (entry) => this.#replay(tracked, step, services, entry), endScreenOf(tracked));
  }

  async #replay(tracked: TrackedAct, step: InterceptedStep, services: StepServices, entry: ActEntry): Promise<InterceptResult> {
    const replayOptions = this.#options.replay ?? {};
    const mutant = this.#options.mutant;
    const mutated = mutant !== undefined && mutant.entry === tracked.key.key && mutant.mutation.kind !== 'hide-evidence';
    if (mutated) this.#options.onMutated?.(step.info.index);
    let replay: ReplayOutcome;
    tracked.replayed = [];
    try {
      replay = await replayStep({
        entry,
        actions: services.actions,
        briefActions: services.briefActions,
        observe: (reading) => services.observe({ tree: true, ...reading }),
        uniqueValues: tracked.uniqueValues,
        secretsAvailable: step.info.secrets,
        signal: services.signal,
        ...(mutated ? { mutation: { mutation: mutant.mutation, surface: mutant.surface } } : {}),
        // Only the control run's facts and a mutant's own step's are read (audit/causal-record.ts): the other steps of a mutant's run do not wait for them.
        ...(this.#options.onEndFacts === undefined || !(mutant === undefined || mutated) ? {} : { probe: true }),
        ...(replayOptions.waitForTargetMs === undefined ? {} : { waitForTargetMs: replayOptions.waitForTargetMs }),
        ...(replayOptions.pollIntervalMs === undefined ? {} : { pollIntervalMs: replayOptions.pollIntervalMs }),
        ...(replayOptions.stopWhenStillMs !== undefined && (mutant === undefined || mutated) ? { stopWhenStillMs: replayOptions.stopWhenStillMs, holdsStill: services.holdsStill, immediateActions: services.immediateActions } : {}),
      });
    } catch (error) {
      // A hard stop (timeout, cancellation, spent budget) ends the step; the entry stays as it is.
      const code = isE2EError(error) ? error.code : 'ENGINE_FAILURE';
      tracked.outcome = { mode: 'missed', reason: 'action-failed', detail: `the replay was stopped (${code})`, entry: tracked.key.key };
      tracked.replayed = undefined;
      throw error;
    }
    // Only a step handed to the agent may be written: a full or a failed replay records nothing.
    const replayed = tracked.replayed;
    tracked.replayed = undefined;
    if (replay.facts !== undefined) this.#options.onEndFacts?.({ entry: tracked.key.key, step: step.info.index, facts: replay.facts });
    if (replay.kind === 'finished') {
      tracked.outcome = { mode: 'self-finalized', entry: tracked.key.key };
      if (replay.notes !== undefined && replay.notes.length > 0) tracked.outcome.detail = replay.notes.join('; ');
      const summary = fillUniquePlaceholders(entry.summary, tracked.uniqueValues);
      return { handled: { verdict: { status: 'passed', summary }, cache: { ...tracked.outcome } } };
    }
    if (this.#options.strict || step.executor === undefined) {
      if (replay.classification === 'regression') return regressedStep(tracked, step, this.#options, replay.detail, describeAction(entry.actions[entry.actions.length - 1]!));
      return staleStep(tracked, step, this.#options, WORDING, replay.reason, replay.detail, endScreenOf(tracked));
    }
    // With an agent, a regression is handed off too: an intended change can be re-recorded, and a failing one keeps the entry.
    for (const event of replayed) tracked.recorder.recordEvent(event);
    tracked.outcome = { mode: 'agent-concluded', reason: replay.reason, detail: replay.detail, entry: tracked.key.key, classification: replay.classification };
    tracked.stale = true;
    return { continueWith: replay.prefix, cache: { ...tracked.outcome }, afterStep: endScreenOf(tracked) };
  }

  /** Write one tracked step; `verifiedBy` is the first passing verification after it. */
  write(step: TrackedAct, verifiedBy: VerificationKind | undefined, targets: WriteTargets): Promise<CacheWrite> {
    return writeStep(step, () => candidateOf(step, verifiedBy, targets), sameFlow, targets);
  }
}

/** The entry a passed step would be saved as, or why there is none. */
function candidateOf(step: TrackedAct, verifiedBy: VerificationKind | undefined, targets: WriteTargets): Candidate<ActEntry> {
  if (step.verdict?.status !== 'passed') return { kind: 'none' };
  const finished = step.recorder.finish(step.endScreen);
  if (finished.kind === 'not-cacheable') return finished;
  if (!targets.attemptPassed || verifiedBy === undefined) return { kind: 'unconfirmed' };
  return buildActEntry(finished.recording, {
    key: step.key.key,
    keyParts: step.key.parts,
    summary: step.verdict.summary,
    provenance: provenanceOf(step, verifiedBy, targets),
    clean: (text) => targets.cleanEntry(text),
    uniqueValues: step.uniqueValues,
  });
}

/** Keeps the step's settled end screen for its recording. */
function endScreenOf(tracked: TrackedAct): (finished: FinishedStepView) => void {
  return (finished) => {
    if (finished.endScreen !== undefined) tracked.endScreen = { tree: finished.endScreen.tree, url: finished.endScreen.url };
  };
}

/**
 * The judgment steps of an attempt (`assert`, `waitFor`, `extract`), the judgment side of
 * `act-cache.ts`: keyed like `act` steps plus the keys of the acts before them, replayed by
 * the replayer checking the evidence a passing judge rested on (`replayer/replay-judgment.ts`),
 * recorded by the recorder from the evidence a live judge named (`recorder/record-judgment.ts`).
 * The wait policy is here: see step-cache/README.md.
 */
import { canonicalEncode, MAX_PRECEDING_STEPS, type Entry, type JudgmentEntry } from '../cache-format/index.js';
import type { CacheWrite } from '../contract/cache-outcome.js';
import type { Clock } from '../contract/deadline.js';
import type { AttemptMutation } from '../contract/mutation.js';
import type { ActionEvent, FinishedStepView, InterceptedStep, InterceptResult, StepServices } from '../contract/step-seams.js';
import type { StepVerdict } from '../contract/step-contract.js';
import type { JudgmentKind } from '../recorder/judgment-evidence.js';
import { buildJudgmentEntry, recordJudgment, type JudgmentRecordingResult } from '../recorder/record-judgment.js';
import { replayJudgment } from '../replayer/replay-judgment.js';
import type { StepKey } from './cache-key.js';
import { provenanceOf, writeStep, type Candidate, type WriteTargets } from './cache-writes.js';
import { decideStep, staleStep, trackStep, type DecisionContext, type StepWording, type TrackedStep } from './tracked-step.js';

/** Longest grace an `assert`/`extract` replay gives a screen still settling before its evidence counts as failed. */
export const JUDGMENT_GRACE_MS = 1_000;
/** Pause between looks while a replayed judgment waits. */
const DEFAULT_POLL_MS = 100;
/** Time a model-free `waitFor` replay leaves before the step deadline. */
const DEADLINE_MARGIN_MS = 500;
/** Verbs whose `value` the app shows back: text the test typed proves nothing. */
const TYPING_VERBS: ReadonlySet<string> = new Set(['type', 'typeText', 'select']);

/** Options of {@link JudgmentCache}. */
export interface JudgmentCacheOptions extends DecisionContext {
  clock?: Clock | undefined;
  /** Replay waits (tests shorten them): the grace is at most `waitForTargetMs`. */
  replay?: { waitForTargetMs?: number; pollIntervalMs?: number } | undefined;
  /** `e2e cache audit`: the mutant of this attempt; applied when its entry's judgment replays. */
  mutant?: AttemptMutation | undefined;
  /** Called with the step index once the mutant was applied to a step. */
  onMutated?: ((stepIndex: number) => void) | undefined;
}

/** One judgment step as the cache tracked it. */
export interface TrackedJudgment extends TrackedStep<JudgmentEntry> {
  kind: JudgmentKind;
  /** What a passed live judgment left to record. */
  recorded?: JudgmentRecordingResult;
}

const WORDING: Omit<StepWording, 'entryName'> = {
  retry: 'asks the judge again',
  noLongerReplays: 'its cached evidence no longer holds',
  noRepairer: 'has no model to judge it live',
  staleFix: 'if the app changed on purpose, record the step again with `e2e record`',
};

/** What a replay repeats: the route, the checks and the value. Summary and provenance are not part of it. */
function contentOf(entry: Pick<JudgmentEntry, 'route' | 'evidence' | 'extracted'>): string {
  return canonicalEncode({ route: entry.route, evidence: entry.evidence, extracted: entry.extracted });
}

const sameContent = (left: JudgmentEntry, right: JudgmentEntry): boolean => contentOf(left) === contentOf(right);

/** The judgment entries of one attempt. */
export class JudgmentCache {
  readonly #options: JudgmentCacheOptions;
  readonly #steps = new Map<number, TrackedJudgment>();
  /** Keys of the `act` steps so far, in order. */
  readonly #actKeys: string[] = [];
  /** Values typed into the app so far in this attempt (redacted). */
  readonly #typed = new Set<string>();
  /** This run's `unique()` values by param name, from every step so far. */
  readonly #uniqueValues: Record<string, string> = {};

  constructor(options: JudgmentCacheOptions) {
    this.#options = options;
  }

  /** The steps tracked so far. */
  get tracked(): readonly TrackedJudgment[] {
    return [...this.#steps.values()];
  }

  /** The keys of the `act` steps so far: a judgment is keyed after them. */
  get actKeys(): readonly string[] {
    return this.#actKeys;
  }

  /** Every step's params: `unique()` values become placeholders in recorded evidence. */
  noteStep(step: InterceptedStep): void {
    for (const [name, source] of Object.entries(step.paramSources)) if (source.kind === 'unique') this.#uniqueValues[name] = source.value;
  }

  /** An `act` step's key: later judgments are keyed after it. */
  noteActKey(key: string): void {
    this.#actKeys.push(key);
  }

  /** Every policed action: what it typed can never be a judgment's evidence. */
  noteAction(event: ActionEvent): void {
    const value = event.args.value;
    if (TYPING_VERBS.has(event.verb) && typeof value === 'string' && value.trim() !== '') this.#typed.add(value);
  }

  /** True when the judgment may be cached at all (`key` then comes from {@link actKeys}). */
  accepts(step: InterceptedStep): boolean {
    return step.executor?.cache !== 'off' && this.#actKeys.length <= MAX_PRECEDING_STEPS;
  }

  /** The interceptor for a judgment step keyed as `key`: replay its evidence, or let the judge run and record what it rested on. */
  async intercept(step: InterceptedStep, key: StepKey, services: StepServices): Promise<InterceptResult> {
    const kind = step.info.kind as JudgmentKind;
    const tracked: TrackedJudgment = { ...trackStep<JudgmentEntry>(step, key), kind };
    this.#steps.set(step.info.index, tracked);
    const isKind = (entry: Entry): entry is JudgmentEntry => entry.kind === kind;
    const wording: StepWording = { ...WORDING, entryName: `a ${kind} entry` };
    return decideStep(tracked, step, this.#options, wording, isKind, (entry) => this.#replay(tracked, step, services, entry, wording), (finished) =>
      this.#afterStep(tracked, finished),
    );
  }

  async #replay(tracked: TrackedJudgment, step: InterceptedStep, services: StepServices, entry: JudgmentEntry, wording: StepWording): Promise<InterceptResult> {
    const canGoLive = !this.#options.strict && step.executor !== undefined;
    const remaining = services.remainingMs();
    const waitMs =
      tracked.kind === 'waitFor'
        ? Math.max(0, canGoLive ? remaining / 2 : remaining - DEADLINE_MARGIN_MS)
        : Math.max(0, Math.min(this.#options.replay?.waitForTargetMs ?? JUDGMENT_GRACE_MS, JUDGMENT_GRACE_MS, remaining / 2));
    const mutant = this.#options.mutant;
    const mutated = mutant !== undefined && mutant.entry === tracked.key.key && mutant.mutation.kind === 'hide-evidence';
    if (mutated) this.#options.onMutated?.(step.info.index);
    const replay = await replayJudgment({
      entry,
      observe: () => services.observe({ tree: true }),
      waitMs,
      pollMs: Math.max(10, this.#options.replay?.pollIntervalMs ?? DEFAULT_POLL_MS),
      signal: services.signal,
      uniqueValues: this.#uniqueValues,
      schema: step.info.schema,
      clock: this.#options.clock,
      hideEvidence: mutated ? (ids) => mutant.surface.hideNodes(ids) : undefined,
    });
    if (replay.kind === 'finished') {
      tracked.outcome = { mode: 'self-finalized', entry: tracked.key.key };
      const verdict: StepVerdict = { status: 'passed', summary: replay.summary };
      if ('value' in replay) verdict.value = replay.value;
      return { handled: { verdict, cache: { ...tracked.outcome } } };
    }
    tracked.stale = true;
    const waited = tracked.kind === 'waitFor' ? ` (waited ${Math.round(replay.waitedMs / 100) / 10} s)` : '';
    return staleStep(tracked, step, this.#options, wording, 'end-mismatch', `${replay.detail}${waited}`, (finished) => this.#afterStep(tracked, finished));
  }

  /** A live judgment ended: a passed one leaves its recording for the end of the attempt. */
  #afterStep(tracked: TrackedJudgment, finished: FinishedStepView): void {
    tracked.verdict = finished.verdict;
    // A failing judgment is never cached, and leaves nothing to record.
    if (finished.verdict.status !== 'passed') return;
    tracked.recorded = recordJudgment({
      kind: tracked.kind,
      question: tracked.key.parts.instruction,
      verdict: finished.verdict,
      evidence: finished.evidence,
      typedValues: this.#typed,
      uniqueValues: this.#uniqueValues,
      located: this.#options.located,
    });
  }

  /** Write one tracked judgment. */
  write(step: TrackedJudgment, targets: WriteTargets): Promise<CacheWrite> {
    return writeStep(step, () => candidateOf(step, targets), sameContent, targets);
  }
}

/** The entry a passed judgment is saved as, or why there is none. */
function candidateOf(step: TrackedJudgment, targets: WriteTargets): Candidate<JudgmentEntry> {
  const recorded = step.recorded;
  if (step.verdict?.status !== 'passed' || recorded === undefined) return { kind: 'none' };
  if (recorded.kind === 'not-cacheable') return recorded;
  const built = buildJudgmentEntry(recorded.recording, {
    kind: step.kind,
    key: step.key.key,
    keyParts: step.key.parts,
    provenance: provenanceOf(step, step.kind, targets),
    clean: (text) => targets.cleanEntry(text),
  });
  if (built.kind === 'entry' && !targets.attemptPassed) return { kind: 'unconfirmed' };
  return built;
}

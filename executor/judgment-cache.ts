/**
 * The judgment half of the attempt cache (issue 5): `assert`, `waitFor` and `extract` steps
 * keyed like `act` steps plus the keys of the acts before them, replayed by checking the
 * evidence a passing judge rested on instead of asking a model.
 *
 * - Replay: the evidence must hold on the live screen (`replayer/check-evidence.ts`); an
 *   `assert` or `extract` gets a short grace for a screen still settling, a `waitFor` polls
 *   (all of its time without a model, half of it with one). Holding → passed with no model
 *   call (`self-finalized`); `extract` also rebuilds its value and re-validates it.
 * - Not holding → the judge runs live (`missed`, `end-mismatch`, the failing check in
 *   `detail`), or, strict or with no model, the step is blocked `REPLAY_STALE` with the
 *   failing check in its message. A live pass records new evidence; the stale entry is
 *   replaced or evicted at the end of the attempt.
 * - Recording: only a passed judgment whose executor named checkable evidence
 *   (`StepVerdict.evidence`, handed over through `afterStep`); written at the end of an
 *   attempt that passed, under the same rules as `act` entries (read-only writes nothing,
 *   equal content is kept, no model answering or an interruption changes nothing).
 */
import {
  canonicalEncode,
  judgmentEntrySchema,
  MAX_ENTRY_BYTES,
  MAX_PRECEDING_STEPS,
  MAX_VALUE_CHARS,
  type CacheStore,
  type EvidenceCheck,
  type JudgmentEntry,
  type Route,
} from '../cache-format/index.js';
import type { ErrorCode } from '../errors/index.js';
import { buildJudgmentEvidence, type JudgmentKind } from '../recorder/judgment-evidence.js';
import { fillUniquePlaceholders, maskUniqueValues } from '../recorder/unique-placeholders.js';
import { checkEvidence, type EvidenceResult } from '../replayer/check-evidence.js';
import { stepKey, type KeyScope, type StepKey } from './cache-key.js';
import type { CacheOutcome, CacheReason, CacheWrite, WriteReport } from './cache-outcome.js';
import { saveEntry, type WriteTargets } from './cache-writes.js';
import { systemClock, type Clock } from './deadline.js';
import type { NearestEntryIndex } from './nearest-entry.js';
import type { StepVerdict } from './step-contract.js';
import type { ActionEvent, FinishedStepView, InterceptedStep, InterceptResult, StepServices } from './step-seams.js';

/** Longest grace an `assert`/`extract` replay gives a screen still settling before its evidence counts as failed. */
export const JUDGMENT_GRACE_MS = 1_000;
/** Pause between looks while a replayed judgment waits. */
const DEFAULT_POLL_MS = 100;
/** Time a model-free `waitFor` replay leaves before the step deadline. */
const DEADLINE_MARGIN_MS = 500;
/** Verbs whose `value` the app shows back: text the test typed proves nothing. */
const TYPING_VERBS: ReadonlySet<string> = new Set(['type', 'typeText', 'select']);

/** Options of {@link JudgmentCache}. */
export interface JudgmentCacheOptions {
  store: CacheStore;
  mode: 'read-write' | 'read-only' | 'off';
  strict: boolean;
  scope: KeyScope;
  redact(text: string): string;
  nearest: NearestEntryIndex;
  clock?: Clock | undefined;
  /** Replay waits (tests shorten them): the grace is at most `waitForTargetMs`. */
  replay?: { waitForTargetMs?: number; pollIntervalMs?: number } | undefined;
}

/** What a passed live judgment left to record. */
type Recorded =
  | { kind: 'evidence'; route: Route; checks: EvidenceCheck[]; extracted?: string; summary: string }
  | { kind: 'not-cacheable'; reason: string };

/** One judgment step as the cache tracked it. */
interface TrackedJudgment {
  index: number;
  kind: JudgmentKind;
  key: StepKey;
  outcome: CacheOutcome;
  seen?: { blob: string; entry?: JudgmentEntry };
  /** The stored evidence did not hold (the entry is replaced or evicted at the end). */
  stale: boolean;
  executor?: { name: string; version?: string };
  status?: StepVerdict['status'];
  errorCode?: ErrorCode;
  recorded?: Recorded;
}

function pause(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || milliseconds <= 0) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, milliseconds);
    signal.addEventListener('abort', done, { once: true });
  });
}

function isSchema(value: unknown): value is { safeParse(input: unknown): { success: boolean; data?: unknown } } {
  return typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

function clip(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** What a replay repeats: the route, the checks and the value. Summary and provenance are not part of it. */
function contentOf(entry: Pick<JudgmentEntry, 'route' | 'evidence' | 'extracted'>): string {
  return canonicalEncode({ route: entry.route, evidence: entry.evidence, extracted: entry.extracted });
}

/** The judgment entries of one attempt. */
export class JudgmentCache {
  readonly #options: JudgmentCacheOptions;
  readonly #clock: Clock;
  readonly #steps = new Map<number, TrackedJudgment>();
  /** Keys of the `act` steps so far, in order. */
  readonly #actKeys: string[] = [];
  /** Values typed into the app so far in this attempt (redacted). */
  readonly #typed = new Set<string>();
  /** This run's `unique()` values by param name, from every step so far. */
  readonly #uniqueValues: Record<string, string> = {};

  constructor(options: JudgmentCacheOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
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

  /** The final status of a step (from the runner's records). */
  stepFinished(stepIndex: number, verdict: StepVerdict): void {
    const step = this.#steps.get(stepIndex);
    if (step === undefined) return;
    step.status = verdict.status;
    if (verdict.errorCode !== undefined) step.errorCode = verdict.errorCode;
  }

  /** True when a judgment step ended with one of `codes` (no model answered, a stale replay…): the attempt then changes no entry. */
  endedWithAny(codes: ReadonlySet<ErrorCode>): boolean {
    return [...this.#steps.values()].some((step) => step.errorCode !== undefined && codes.has(step.errorCode));
  }

  /** The cache outcome of a judgment step so far. */
  outcomeOf(stepIndex: number): CacheOutcome | undefined {
    const outcome = this.#steps.get(stepIndex)?.outcome;
    return outcome === undefined ? undefined : { ...outcome };
  }

  /** The interceptor for a judgment step: replay its evidence, or let the judge run and record what it rested on. */
  async intercept(step: InterceptedStep, services: StepServices): Promise<InterceptResult> {
    if (step.executor?.cache === 'off' || this.#actKeys.length > MAX_PRECEDING_STEPS) return {};
    const kind = step.info.kind as JudgmentKind;
    const key = await stepKey(step, step.occurrence, this.#options.scope, this.#actKeys);
    const tracked: TrackedJudgment = { index: step.info.index, kind, key, outcome: { mode: 'missed', entry: key.key }, stale: false };
    if (step.executor !== undefined) {
      tracked.executor = step.executor.version === undefined ? { name: step.executor.name } : { name: step.executor.name, version: step.executor.version };
    }
    this.#steps.set(step.info.index, tracked);

    const read = await this.#options.store.read(key.key);
    if (read.kind === 'hit') tracked.seen = read.entry.kind === kind ? { blob: read.blob, entry: read.entry as JudgmentEntry } : { blob: read.blob };
    else if (read.kind === 'invalid' && read.blob !== undefined) tracked.seen = { blob: read.blob };

    if (step.attempt.retry > 0 && this.#options.mode === 'read-write') {
      return this.#missed(tracked, step, 'retry', `retry ${step.attempt.retry} asks the judge again`);
    }
    switch (read.kind) {
      case 'absent':
        return this.#missed(tracked, step, 'no-entry', await this.#options.nearest.explain(key.parts));
      case 'invalid':
        return this.#stale(tracked, step, 'invalid-entry', read.message);
      case 'hit':
        if (tracked.seen?.entry === undefined) return this.#stale(tracked, step, 'invalid-entry', `Cache entry ${key.key} holds a ${read.entry.kind} entry, not a ${kind} entry.`);
        return this.#replay(tracked, step, services, tracked.seen.entry);
    }
  }

  async #replay(tracked: TrackedJudgment, step: InterceptedStep, services: StepServices, entry: JudgmentEntry): Promise<InterceptResult> {
    const canGoLive = !this.#options.strict && step.executor !== undefined;
    const poll = Math.max(10, this.#options.replay?.pollIntervalMs ?? DEFAULT_POLL_MS);
    const remaining = services.remainingMs();
    const waitMs =
      tracked.kind === 'waitFor'
        ? Math.max(0, canGoLive ? remaining / 2 : remaining - DEADLINE_MARGIN_MS)
        : Math.max(0, Math.min(this.#options.replay?.waitForTargetMs ?? JUDGMENT_GRACE_MS, JUDGMENT_GRACE_MS, remaining / 2));
    const started = this.#clock.now();
    let result: EvidenceResult | { ok: true; value: unknown } | { ok: false; detail: string };
    for (;;) {
      const observation = await services.observe({ tree: true });
      result = observation.tree === undefined ? { ok: false, detail: 'the screen gave no tree' } : checkEvidence(entry, { tree: observation.tree, url: observation.url }, this.#uniqueValues);
      if (result.ok && tracked.kind === 'extract') result = this.#rebuild(entry, step.info.schema);
      const left = waitMs - (this.#clock.now() - started);
      if (result.ok || left <= 0 || services.signal.aborted) break;
      await pause(Math.min(poll, left), services.signal);
    }
    if (result.ok) {
      tracked.outcome = { mode: 'self-finalized', entry: tracked.key.key };
      const verdict: StepVerdict = { status: 'passed', summary: fillUniquePlaceholders(entry.summary, this.#uniqueValues) };
      if (tracked.kind === 'extract' && 'value' in result) verdict.value = result.value;
      return { handled: { verdict, cache: { ...tracked.outcome } } };
    }
    tracked.stale = true;
    const waited = tracked.kind === 'waitFor' ? ` (waited ${Math.round((this.#clock.now() - started) / 100) / 10} s)` : '';
    return this.#stale(tracked, step, 'end-mismatch', `${result.detail}${waited}`);
  }

  /** The recorded value of an `extract`, rebuilt from its JSON text and re-validated with the step's schema. */
  #rebuild(entry: JudgmentEntry, schema: unknown): { ok: true; value: unknown } | { ok: false; detail: string } {
    if (entry.extracted === undefined) return { ok: false, detail: 'the entry holds no extracted value' };
    let value: unknown;
    try {
      value = JSON.parse(fillUniquePlaceholders(entry.extracted, this.#uniqueValues)) as unknown;
    } catch {
      return { ok: false, detail: 'the recorded value no longer reads as JSON' };
    }
    if (!isSchema(schema)) return { ok: false, detail: 'the step has no schema to re-validate the recorded value with' };
    const parsed = schema.safeParse(value);
    return parsed.success ? { ok: true, value: 'data' in parsed ? parsed.data : value } : { ok: false, detail: 'the recorded value no longer matches the schema' };
  }

  /** The judge runs; without one, a strict run fails `REPLAY_STALE` rather than `MODEL_UNAVAILABLE`. */
  #missed(tracked: TrackedJudgment, step: InterceptedStep, reason: 'no-entry' | 'retry', detail: string): InterceptResult {
    tracked.outcome = { mode: 'missed', reason, detail, entry: tracked.key.key };
    if (this.#options.strict && step.executor === undefined) return this.#blocked(tracked, step, `it cannot replay (${detail})`, 'record it with `e2e record`');
    return this.#live(tracked);
  }

  /** An entry exists but does not hold: the judge runs live, unless the run is strict or has no judge. */
  #stale(tracked: TrackedJudgment, step: InterceptedStep, reason: CacheReason, detail: string): InterceptResult {
    tracked.outcome = { mode: 'missed', reason, detail, entry: tracked.key.key };
    if (!this.#options.strict && step.executor !== undefined) return this.#live(tracked);
    const why = this.#options.strict ? 'strict mode makes no model call' : `agents.${step.agent.name} has no model to judge it live`;
    return this.#blocked(
      tracked,
      step,
      `its cached evidence no longer holds (${reason}: ${detail}); ${why}`,
      'if the app changed on purpose, record the step again with `e2e record`',
    );
  }

  #live(tracked: TrackedJudgment): InterceptResult {
    return { cache: { ...tracked.outcome }, afterStep: (finished) => this.#afterStep(tracked, finished) };
  }

  #blocked(tracked: TrackedJudgment, step: InterceptedStep, problem: string, fix: string): InterceptResult {
    const summary = this.#options.redact(`Step ${step.info.index} (agent.${tracked.kind} ${JSON.stringify(step.info.instruction)}): ${problem}. Fix: ${fix}.`);
    return { handled: { verdict: { status: 'blocked', errorCode: 'REPLAY_STALE', summary }, cache: { ...tracked.outcome } } };
  }

  /** A live judgment ended: a passed one with checkable evidence is kept for the end of the attempt. */
  #afterStep(tracked: TrackedJudgment, finished: FinishedStepView): void {
    tracked.status = finished.verdict.status;
    // A failing judgment is never cached, and leaves nothing to record.
    if (finished.verdict.status === 'passed') tracked.recorded = this.#recordedOf(tracked, finished);
  }

  #recordedOf(tracked: TrackedJudgment, { verdict, evidence }: FinishedStepView): Recorded {
    if (evidence === undefined) return { kind: 'not-cacheable', reason: 'the judgment named no evidence' };
    if (!evidence.cacheable) return { kind: 'not-cacheable', reason: "the judge's evidence could not be checked against the screen" };
    if (evidence.screen === undefined) return { kind: 'not-cacheable', reason: 'the evidence belongs to an older screen than the judgment ended on' };
    const built = buildJudgmentEvidence({
      kind: tracked.kind,
      question: tracked.key.parts.instruction,
      tree: evidence.screen.tree,
      url: evidence.screen.url,
      nodeIds: evidence.nodeIds,
      typedValues: this.#typed,
      uniqueValues: this.#uniqueValues,
    });
    if (built.kind === 'not-cacheable') return built;
    const summary = clip(maskUniqueValues(verdict.summary, this.#uniqueValues), 1024);
    const recorded: Recorded = { kind: 'evidence', route: built.route, checks: built.checks, summary };
    if (tracked.kind === 'extract') {
      const text = verdict.value === undefined ? undefined : JSON.stringify(verdict.value);
      if (text === undefined || text.length > MAX_VALUE_CHARS) {
        return { kind: 'not-cacheable', reason: `the extracted value is not JSON text of at most ${MAX_VALUE_CHARS} characters` };
      }
      recorded.extracted = maskUniqueValues(text, this.#uniqueValues);
    }
    return recorded;
  }

  /** The entry a passed judgment is saved as, or why there is none. */
  #entryOf(tracked: TrackedJudgment, targets: WriteTargets): { kind: 'entry'; entry: JudgmentEntry } | { kind: 'none'; reason?: string } {
    const recorded = tracked.recorded;
    if (tracked.status !== 'passed' || recorded === undefined) return { kind: 'none' };
    if (recorded.kind === 'not-cacheable') return { kind: 'none', reason: recorded.reason };
    const provenance: JudgmentEntry['provenance'] = {
      verifiedBy: tracked.kind,
      executor: tracked.executor?.name ?? 'unknown',
      toolVersion: targets.toolVersion,
      recordedAt: targets.recordedAt,
    };
    if (tracked.executor?.version !== undefined) provenance.executorVersion = tracked.executor.version;
    const candidate = {
      version: 1,
      kind: tracked.kind,
      key: tracked.key.key,
      keyParts: tracked.key.parts,
      route: recorded.route,
      evidence: recorded.checks,
      ...(recorded.extracted === undefined ? {} : { extracted: recorded.extracted }),
      summary: recorded.summary,
      provenance,
    };
    const parsed = judgmentEntrySchema.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      // Name where, never what: the offending value may be anything the page showed.
      return { kind: 'none', reason: `the entry does not validate at ${issue?.path.join('.') ?? 'its root'}: ${issue?.code ?? 'invalid'}` };
    }
    const text = JSON.stringify(parsed.data);
    if (text.length > MAX_ENTRY_BYTES) return { kind: 'none', reason: `the entry is larger than ${MAX_ENTRY_BYTES} bytes` };
    if (targets.redact(text) !== text) return { kind: 'none', reason: 'the entry would contain a secret value' };
    return { kind: 'entry', entry: parsed.data };
  }

  /** Write what the attempt judged; returns each judgment step's final outcome. Never throws for a failing store. */
  async finish(targets: WriteTargets): Promise<WriteReport[]> {
    const reports: WriteReport[] = [];
    for (const step of [...this.#steps.values()].sort((left, right) => left.index - right.index)) {
      step.outcome.write = await this.#write(step, targets);
      reports.push({ stepIndex: step.index, outcome: { ...step.outcome } });
    }
    return reports;
  }

  async #write(step: TrackedJudgment, targets: WriteTargets): Promise<CacheWrite> {
    if (step.outcome.mode === 'self-finalized' || targets.frozen) return 'no-change';
    const label = `step ${step.index} (entry ${step.key.key})`;
    const candidate = this.#entryOf(step, targets);
    try {
      if (candidate.kind === 'entry' && targets.attemptPassed) {
        const saved = await saveEntry(candidate.entry, step.seen, (left, right) => contentOf(left) === contentOf(right), targets, label);
        if (saved !== undefined) return saved;
      }
      if (step.stale && step.seen !== undefined && targets.store !== undefined) {
        return (await targets.store.delete(step.key.key, { onlyBlob: step.seen.blob })) ? 'evicted' : 'no-change';
      }
    } catch (error) {
      targets.logger.warn(targets.redact(`cache: could not update ${label}: ${error instanceof Error ? error.message : String(error)}`));
      return 'no-change';
    }
    if (candidate.kind === 'entry') return 'unconfirmed';
    if (candidate.reason !== undefined) targets.logger.debug(targets.redact(`cache: ${label} is not recorded: ${candidate.reason}`));
    return 'no-change';
  }
}

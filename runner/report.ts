/**
 * The run report (`.e2e/report.json`, DESIGN §7): versioned, tests → attempts → steps, with
 * the run summary and the exit code of DESIGN §3. Workers hand their step records over as
 * a JSON attachment ({@link ATTEMPT_ATTACHMENT}); the reporter assembles this file.
 */
import { z } from 'zod';
import { ERROR_CODES, combineExitClasses, exitClassOf, type ErrorCode, type ExitClass } from '../errors/index.js';
import type { TurnRecord } from '../contract/step-contract.js';
import { CACHE_OUTCOME_MODES, CACHE_REASONS, CACHE_WRITES, REPLAY_CLASSIFICATIONS, type CacheOutcome } from '../contract/cache-outcome.js';
import type { LeftOutScreens, StepRecord, StepTiming, VerificationRecord } from '../step/step-record.js';
import { stepTitle } from '../step/step-title.js';
import { visibleText } from '../semantics/visible-text.js';

/** The report schema version this build writes. */
export const REPORT_VERSION = 1;

/** Name of the attachment that carries one attempt's records from a worker. */
export const ATTEMPT_ATTACHMENT = 'e2e-steps';

/** One step in the report. */
export interface ReportStep {
  kind: StepRecord['kind'];
  instruction: string;
  status: StepRecord['status'];
  errorCode: ErrorCode | null;
  summary: string;
  modelCalls: number;
  tokens: { input: number; output: number; cached: number };
  actions: string[];
  cache: CacheOutcome | null;
  durationMs: number;
  /** Where the time went: model calls (as the executor reported them), observing, acting. */
  timing: StepTiming;
  /** The call in the test (`tests/todos.e2e.ts:12`, relative to the config's folder), when known. */
  location: string | null;
  /** Under a failed or blocked step: the last model turns its executor recorded (`ctx.attachTurns`), oldest first. */
  turns?: TurnRecord[];
  /**
   * When screens of the step were bounded (step/README.md, "Bounded screens"): how many of the
   * screens rendered as text left nodes out, and the most nodes one of them left out.
   */
  leftOut?: LeftOutScreens;
}

/** How many of a failed step's last turns the report and the console show. */
export const SHOWN_TURNS = 5;

/** The last turns of a failed step as indented lines for a failure message (empty without turns). */
export function turnLines(turns: readonly TurnRecord[] | undefined): string[] {
  if (turns === undefined || turns.length === 0) return [];
  const shown = turns.slice(-SHOWN_TURNS);
  return [
    `Last model turns (${shown.length} of ${turns.length}):`,
    ...shown.map((turn) => `  turn ${turn.index}: ${turn.calls.length === 0 ? '(no tool call)' : turn.calls.join('; ')} → ${turn.outcome}`),
  ];
}

/** One attempt (a Playwright test result). */
export interface ReportAttempt {
  retry: number;
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  errorCode?: ErrorCode;
  /** First line of the failure, redacted. */
  error?: string;
  steps: ReportStep[];
  /** Verifications that passed (`expect` on a locator or page, assert, waitFor), with the step they followed. */
  verifications: VerificationRecord[];
}

/** One test. */
export interface ReportTest {
  id: string;
  file: string;
  titlePath: string[];
  project: string;
  outcome: 'expected' | 'unexpected' | 'flaky' | 'skipped';
  attempts: ReportAttempt[];
}

/** Totals of the run. */
export interface ReportSummary {
  tests: { passed: number; failed: number; flaky: number; skipped: number };
  modelCalls: number;
  tokens: { input: number; output: number; cached: number };
  /**
   * Agent steps by how the replay cache took part; each step the cache took part in counts once
   * (see runner/README.md). `regressed`: replays that failed because the recorded outcome did not
   * appear; `stale`: replays that stopped on drift and failed `REPLAY_STALE`.
   */
  cache: { replayed: number; handedOff: number; recorded: number; missed: number; unverified: number; regressed: number; stale: number };
}

/** A failure outside any test (config load, web server). */
export interface RunError {
  code: ErrorCode;
  message: string;
}

/** The whole report. */
export interface Report {
  version: typeof REPORT_VERSION;
  status: 'passed' | 'failed' | 'timedout' | 'interrupted';
  tests: ReportTest[];
  errors: RunError[];
  summary: ReportSummary;
  exitCode: ExitClass;
}

/** A step record with its call site in the test (`tests/todos.e2e.ts:12`). */
export type AttemptStep = StepRecord & { location?: string };

/** What a worker attaches for one attempt. */
export interface AttemptPayload {
  version: typeof REPORT_VERSION;
  errorCode?: ErrorCode;
  steps: AttemptStep[];
  verifications: VerificationRecord[];
  /** True when the attempt typed a secret: Playwright's artifacts of it are withheld. */
  secretFilled?: boolean;
}

const tokensSchema = z.object({ input: z.number(), output: z.number(), cached: z.number() });
const cacheOutcomeSchema = z.object({
  mode: z.enum(CACHE_OUTCOME_MODES),
  reason: z.enum(CACHE_REASONS).optional(),
  detail: z.string().optional(),
  classification: z.enum(REPLAY_CLASSIFICATIONS).optional(),
  entry: z.string().optional(),
  write: z.enum(CACHE_WRITES).optional(),
  writeError: z.string().optional(),
  writeDetail: z.string().optional(),
});
const stepRecordSchema = z.object({
  index: z.number(),
  kind: z.enum(['act', 'assert', 'waitFor', 'extract']),
  instruction: z.string(),
  agent: z.string(),
  executor: z.string(),
  status: z.enum(['passed', 'failed', 'blocked']),
  errorCode: z.enum(ERROR_CODES).optional(),
  summary: z.string(),
  modelCalls: z.number(),
  tokens: tokensSchema,
  actions: z.array(z.string()),
  cache: cacheOutcomeSchema.optional(),
  durationMs: z.number(),
  timing: z.object({ modelMs: z.number(), observeMs: z.number(), actionMs: z.number() }).optional(),
  turns: z.array(z.object({ index: z.number(), calls: z.array(z.string()), outcome: z.string() })).optional(),
  leftOut: z.object({ screens: z.number(), most: z.number() }).optional(),
  artifacts: z.array(z.object({ id: z.string(), kind: z.enum(['screenshot', 'transcript']), label: z.string() })),
  location: z.string().optional(),
});
const attemptPayloadSchema = z.object({
  version: z.literal(REPORT_VERSION),
  errorCode: z.enum(ERROR_CODES).optional(),
  steps: z.array(stepRecordSchema),
  verifications: z.array(z.object({ kind: z.enum(['expect', 'assert', 'waitFor', 'extract']), detail: z.string(), afterStep: z.number() })),
  secretFilled: z.boolean().optional(),
});

/** Parse an attempt attachment; undefined when it is missing or malformed. */
export function parseAttemptPayload(body: string | undefined): AttemptPayload | undefined {
  if (body === undefined) return undefined;
  try {
    const parsed = attemptPayloadSchema.safeParse(JSON.parse(body));
    return parsed.success ? (parsed.data as AttemptPayload) : undefined;
  } catch {
    return undefined;
  }
}

/** A step record as the report shows it. */
export function toReportStep(record: AttemptStep): ReportStep {
  const step: ReportStep = {
    kind: record.kind,
    instruction: record.instruction,
    status: record.status,
    errorCode: record.errorCode ?? null,
    summary: record.summary,
    modelCalls: record.modelCalls,
    tokens: record.tokens,
    actions: record.actions,
    cache: record.cache ?? null,
    durationMs: record.durationMs,
    timing: record.timing ?? { modelMs: 0, observeMs: 0, actionMs: 0 },
    location: record.location ?? null,
  };
  if (record.status !== 'passed' && record.turns !== undefined && record.turns.length > 0) step.turns = record.turns.slice(-SHOWN_TURNS);
  if (record.leftOut !== undefined) step.leftOut = { screens: record.leftOut.screens, most: record.leftOut.most };
  return step;
}

/**
 * Where one step counts in the summary's cache line; undefined when the cache took no part.
 * `errorCode` is the step's own: a drift that failed `REPLAY_STALE` counts as `stale`.
 */
export function cacheCountOf(cache: unknown, attemptPassed: boolean, errorCode?: string | null): keyof ReportSummary['cache'] | undefined {
  if (typeof cache !== 'object' || cache === null) return undefined;
  const { mode, write, classification, writeDetail } = cache as { mode?: unknown; write?: unknown; classification?: unknown; writeDetail?: unknown };
  if (mode === 'self-finalized') return 'replayed';
  if (mode === 'agent-concluded') return 'handedOff';
  if (mode !== 'missed') return undefined;
  if (classification === 'regression') return 'regressed';
  if (classification === 'drift' && errorCode === 'REPLAY_STALE') return 'stale';
  // A `kept` with a reason is an entry a failing step left alone, not a recording.
  if (write === 'saved' || (write === 'kept' && writeDetail === undefined)) return 'recorded';
  if (write === 'unconfirmed' && attemptPassed) return 'unverified';
  return 'missed';
}

/**
 * Run-level errors for verified steps the cache could not save: the run exits 3
 * (`CACHE_WRITE_FAILED`) even when its tests passed, since the recording is lost.
 */
export function unsavedStepErrors(tests: readonly ReportTest[]): RunError[] {
  const problems: string[] = [];
  for (const test of tests) {
    for (const attempt of test.attempts) {
      for (const step of attempt.steps) {
        const cache = step.cache;
        if (cache?.write !== 'failed') continue;
        problems.push(`${[test.file, ...test.titlePath].join(' › ')}: ${cache.writeError ?? 'could not be saved'}`);
      }
    }
  }
  if (problems.length === 0) return [];
  const count = problems.length === 1 ? '1 verified step' : `${problems.length} verified steps`;
  return [{
    code: 'CACHE_WRITE_FAILED',
    message: `${count} could not be saved to the cache (check the cache folder is writable and the disk has room, then record again): ${problems.join('; ')}`,
  }];
}

/** Totals over every attempt's steps. */
export function summarize(tests: readonly ReportTest[]): ReportSummary {
  const summary: ReportSummary = {
    tests: { passed: 0, failed: 0, flaky: 0, skipped: 0 },
    modelCalls: 0,
    tokens: { input: 0, output: 0, cached: 0 },
    cache: { replayed: 0, handedOff: 0, recorded: 0, missed: 0, unverified: 0, regressed: 0, stale: 0 },
  };
  for (const test of tests) {
    if (test.outcome === 'expected') summary.tests.passed += 1;
    else if (test.outcome === 'unexpected') summary.tests.failed += 1;
    else if (test.outcome === 'flaky') summary.tests.flaky += 1;
    else summary.tests.skipped += 1;
    for (const attempt of test.attempts) {
      for (const step of attempt.steps) {
        summary.modelCalls += step.modelCalls;
        summary.tokens.input += step.tokens.input;
        summary.tokens.output += step.tokens.output;
        summary.tokens.cached += step.tokens.cached;
        const counted = cacheCountOf(step.cache, attempt.status === 'passed', step.errorCode);
        if (counted !== undefined) summary.cache[counted] += 1;
      }
    }
  }
  return summary;
}

/**
 * The exit code of a run (DESIGN §3, highest wins): an interrupted run is 130; a failed
 * test counts with the class of its E2E error code, or 1 without one; run-level errors
 * count with their code's class.
 */
export function exitCodeOf(run: Pick<Report, 'status' | 'tests' | 'errors'>): ExitClass {
  if (run.status === 'interrupted') return 130;
  const classes: ExitClass[] = run.errors.map((error) => exitClassOf(error.code));
  for (const test of run.tests) {
    if (test.outcome !== 'unexpected') continue;
    const last = test.attempts[test.attempts.length - 1];
    if (last?.status === 'interrupted') classes.push(130);
    else classes.push(last?.errorCode === undefined ? 1 : exitClassOf(last.errorCode));
  }
  if (run.status !== 'passed' && classes.length === 0) classes.push(1);
  return combineExitClasses(classes);
}

function compact(value: number): string {
  if (value < 1000) return String(value);
  if (value < 1_000_000) return `${(value / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  return `${(value / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The two summary lines of DESIGN §7. */
export function summaryLines(summary: ReportSummary): string[] {
  const tokens = summary.tokens.input + summary.tokens.output;
  const cache = summary.cache;
  // Failed replays are counted apart only when there are any, so a clean run reads as before.
  const failedReplays = cache.regressed + cache.stale > 0 ? ` · ${cache.regressed} regressed · ${cache.stale} stale` : '';
  return [
    `      AI  ${compact(tokens)} tokens · ${plural(summary.modelCalls, 'model call')}`,
    `   Cache  ${cache.replayed} replayed · ${cache.handedOff} handed off · ${cache.recorded} recorded · ${cache.missed} missed · ${cache.unverified} unverified${failedReplays}`,
  ];
}

/** Most unverified steps listed by name; the rest are counted. */
const LISTED_UNVERIFIED = 10;

/**
 * The steps the agent ran in a passing attempt that nothing verified (so nothing was
 * recorded), each by its line in the test, with the fix. None when there are none.
 */
export function unverifiedStepLines(report: Pick<Report, 'tests'>): string[] {
  const named: string[] = [];
  for (const test of report.tests) {
    for (const attempt of test.attempts) {
      for (const step of attempt.steps) {
        if (cacheCountOf(step.cache, attempt.status === 'passed', step.errorCode) !== 'unverified') continue;
        const where = step.location ?? `${test.file} › ${test.titlePath.join(' › ')}`;
        named.push(`    ${visibleText(where)}  ${stepTitle(step.kind, step.instruction)}`);
      }
    }
  }
  if (named.length === 0) return [];
  const more = named.length > LISTED_UNVERIFIED ? [`    … and ${named.length - LISTED_UNVERIFIED} more (see .e2e/report.json)`] : [];
  return [
    `Not recorded: nothing verified ${named.length === 1 ? 'this step' : `these ${named.length} steps`}. Follow each with a check of the screen: \`expect\` on a locator or page (from 'e2e' or '@playwright/test') or \`agent.assert\`.`,
    ...named.slice(0, LISTED_UNVERIFIED),
    ...more,
    '',
  ];
}

/** Most handed-off steps listed by name; the rest are counted. */
const LISTED_HANDED_OFF = 10;

/**
 * The steps whose replay stopped and handed the rest to the agent, each by its line in the
 * test with why (`target-not-found: at action 2 of 3, …`), so a reviewer knows which entries
 * the app outgrew. None when there are none.
 */
export function handedOffStepLines(report: Pick<Report, 'tests'>): string[] {
  const named: string[] = [];
  for (const test of report.tests) {
    for (const attempt of test.attempts) {
      for (const step of attempt.steps) {
        if (cacheCountOf(step.cache, attempt.status === 'passed') !== 'handedOff') continue;
        const { reason, detail } = step.cache as { reason?: unknown; detail?: unknown };
        const why = [reason, detail].filter((part): part is string => typeof part === 'string' && part !== '').join(': ');
        const where = step.location ?? `${test.file} › ${test.titlePath.join(' › ')}`;
        named.push(`    ${where}  ${stepTitle(step.kind, step.instruction)}${why === '' ? '' : ` (${why})`}`);
      }
    }
  }
  if (named.length === 0) return [];
  const more = named.length > LISTED_HANDED_OFF ? [`    … and ${named.length - LISTED_HANDED_OFF} more (see .e2e/report.json)`] : [];
  return [
    `Handed off: the replay of ${named.length === 1 ? 'this step' : `these ${named.length} steps`} stopped and the agent finished it (\`e2e cache diff\` shows what a record run changed).`,
    ...named.slice(0, LISTED_HANDED_OFF),
    ...more,
    '',
  ];
}

const reportSchema = z.object({
  version: z.number(),
  status: z.enum(['passed', 'failed', 'timedout', 'interrupted']),
  exitCode: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3), z.literal(130)]),
  tests: z.array(z.unknown()),
  errors: z.array(z.object({ code: z.enum(ERROR_CODES), message: z.string() })),
  summary: z.unknown(),
});

/** The result of reading a report file. */
export type ReportReadResult =
  | { kind: 'report'; report: Report }
  | { kind: 'unsupported-version'; version: number }
  | { kind: 'invalid'; reason: string };

/** Parse report text; a newer version is refused by name. */
export function parseReport(text: string): ReportReadResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { kind: 'invalid', reason: 'report.json is not JSON' };
  }
  const parsed = reportSchema.safeParse(data);
  if (!parsed.success) return { kind: 'invalid', reason: 'report.json does not match the report schema' };
  if (parsed.data.version !== REPORT_VERSION) return { kind: 'unsupported-version', version: parsed.data.version };
  return { kind: 'report', report: data as Report };
}

/**
 * The run report: exit code (DESIGN §3, highest wins), totals, summary lines, versions.
 */
import { describe, expect, it } from 'vitest';
import { exitCodeOf, handedOffStepLines, parseAttemptPayload, parseReport, REPORT_VERSION, summarize, summaryLines, toReportStep, unverifiedStepLines, type ReportAttempt, type ReportStep, type ReportTest } from './report.js';

function step(overrides: Partial<ReportStep> = {}): ReportStep {
  return {
    kind: 'act',
    instruction: 'add a todo',
    status: 'passed',
    errorCode: null,
    summary: 'ok',
    modelCalls: 1,
    tokens: { input: 1000, output: 100, cached: 0 },
    actions: [],
    cache: null,
    durationMs: 10,
    timing: { modelMs: 0, observeMs: 0, actionMs: 0 },
    location: null,
    ...overrides,
  };
}

function test(outcome: ReportTest['outcome'], attempt: Partial<ReportAttempt> = {}): ReportTest {
  return {
    id: 'id',
    file: 'a.e2e.ts',
    titlePath: ['t'],
    project: 'web',
    outcome,
    attempts: [{ retry: 0, status: outcome === 'expected' ? 'passed' : 'failed', steps: [], verifications: [], ...attempt }],
  };
}

describe('exitCodeOf', () => {
  it('is 0 for a passing run and 1 for a failure without an e2e code', () => {
    expect(exitCodeOf({ status: 'passed', tests: [test('expected')], errors: [] })).toBe(0);
    expect(exitCodeOf({ status: 'failed', tests: [test('unexpected')], errors: [] })).toBe(1);
  });

  it("uses the class of a failure's e2e code, the highest winning", () => {
    const policy = test('unexpected', { errorCode: 'POLICY_DENIED' });
    const unreachable = test('unexpected', { errorCode: 'APP_UNREACHABLE' });
    expect(exitCodeOf({ status: 'failed', tests: [policy], errors: [] })).toBe(2);
    expect(exitCodeOf({ status: 'failed', tests: [policy, unreachable, test('unexpected')], errors: [] })).toBe(3);
    expect(exitCodeOf({ status: 'failed', tests: [], errors: [{ code: 'APP_UNREACHABLE', message: 'web server' }] })).toBe(3);
  });

  it('is 130 for an interrupted run, and flaky tests do not fail it', () => {
    expect(exitCodeOf({ status: 'interrupted', tests: [test('expected')], errors: [] })).toBe(130);
    expect(exitCodeOf({ status: 'passed', tests: [test('flaky', { errorCode: 'ACTION_FAILED' })], errors: [] })).toBe(0);
  });
});

describe('summary', () => {
  it('totals model calls, tokens and cache outcomes over every attempt', () => {
    const steps = [
      step({ cache: { mode: 'self-finalized' }, modelCalls: 0, tokens: { input: 0, output: 0, cached: 0 } }),
      step({ cache: { mode: 'agent-concluded' }, tokens: { input: 3000, output: 500, cached: 1000 } }),
      step({ cache: { mode: 'missed', reason: 'no-entry' }, tokens: { input: 500, output: 100, cached: 0 } }),
    ];
    const summary = summarize([test('expected', { steps })]);
    expect(summary).toMatchObject({ modelCalls: 2, tokens: { input: 3500, output: 600, cached: 1000 }, cache: { replayed: 1, handedOff: 1, recorded: 0, missed: 1, unverified: 0 } });
    expect(summaryLines(summary)).toEqual([
      '      AI  4.1k tokens · 2 model calls',
      '   Cache  1 replayed · 1 handed off · 0 recorded · 1 missed · 0 unverified',
    ]);
  });

  it('counts a miss whose recording was saved as recorded, not missed', () => {
    const saved = Array.from({ length: 12 }, () => step({ cache: { mode: 'missed', reason: 'no-entry', write: 'saved' } }));
    const kept = step({ cache: { mode: 'missed', reason: 'retry', write: 'kept' } });
    const summary = summarize([test('expected', { steps: [...saved, kept] })]);
    expect(summary.cache).toEqual({ replayed: 0, handedOff: 0, recorded: 13, missed: 0, unverified: 0, regressed: 0, stale: 0 });
    expect(summaryLines(summary)[1]).toBe('   Cache  0 replayed · 0 handed off · 13 recorded · 0 missed · 0 unverified');
  });

  it('counts a step nothing verified in a passing attempt as unverified, and one in a failed attempt as missed', () => {
    const unconfirmed = step({ cache: { mode: 'missed', reason: 'no-entry', write: 'unconfirmed' } });
    const summary = summarize([test('expected', { steps: [unconfirmed] }), test('unexpected', { steps: [unconfirmed] })]);
    expect(summary.cache).toEqual({ replayed: 0, handedOff: 0, recorded: 0, missed: 1, unverified: 1, regressed: 0, stale: 0 });
  });

  it('counts failed replays apart: a regression as regressed, a drift that failed REPLAY_STALE as stale, a failing step that kept its entry as missed', () => {
    const regressed = step({ status: 'failed', errorCode: 'ASSERTION_FAILED', cache: { mode: 'missed', reason: 'end-mismatch', classification: 'regression' } });
    const stale = step({ status: 'blocked', errorCode: 'REPLAY_STALE', cache: { mode: 'missed', reason: 'target-not-found', classification: 'drift' } });
    const keptAfterFailure = step({ status: 'failed', cache: { mode: 'missed', reason: 'retry', write: 'kept', writeDetail: 'the step failed, nothing replaced the recorded entry' } });
    const summary = summarize([test('unexpected', { steps: [regressed, regressed, stale, keptAfterFailure] })]);
    expect(summary.cache).toEqual({ replayed: 0, handedOff: 0, recorded: 0, missed: 1, unverified: 0, regressed: 2, stale: 1 });
    expect(summaryLines(summary)[1]).toBe('   Cache  0 replayed · 0 handed off · 0 recorded · 1 missed · 0 unverified · 2 regressed · 1 stale');
  });

  it('names each unverified step by its line in the test, with the fix', () => {
    const unconfirmed = step({ instruction: 'add a todo', location: 'tests/todos.e2e.ts:12', cache: { mode: 'missed', reason: 'no-entry', write: 'unconfirmed' } });
    const recorded = step({ cache: { mode: 'missed', write: 'saved' } });
    const lines = unverifiedStepLines({ tests: [test('expected', { steps: [recorded, unconfirmed] })] });
    expect(lines[0]).toMatch(/^Not recorded: nothing verified this step\. .*expect.*'@playwright\/test'.*agent\.assert/);
    expect(lines.slice(1)).toEqual(['    tests/todos.e2e.ts:12  agent.act "add a todo"', '']);
    expect(unverifiedStepLines({ tests: [test('expected', { steps: [recorded] })] })).toEqual([]);
  });

  it('names each handed-off step by its line in the test, with why its replay stopped', () => {
    const handedOff = step({
      instruction: 'apply the coupon',
      location: 'tests/cart.e2e.ts:9',
      cache: { mode: 'agent-concluded', reason: 'target-not-found', detail: 'at action 2 of 3, tap button "Apply": not found within 15 s', write: 'saved' },
    });
    const replayed = step({ cache: { mode: 'self-finalized', write: 'no-change' } });
    const lines = handedOffStepLines({ tests: [test('expected', { steps: [replayed, handedOff] })] });
    expect(lines[0]).toMatch(/^Handed off: the replay of this step stopped and the agent finished it/);
    expect(lines.slice(1)).toEqual(['    tests/cart.e2e.ts:9  agent.act "apply the coupon" (target-not-found: at action 2 of 3, tap button "Apply": not found within 15 s)', '']);
    expect(handedOffStepLines({ tests: [test('expected', { steps: [replayed] })] })).toEqual([]);
  });

  it('writes small counts in full and one model call in the singular', () => {
    const summary = summarize([test('expected', { steps: [step({ tokens: { input: 700, output: 12, cached: 0 } })] })]);
    expect(summaryLines(summary)[0]).toBe('      AI  712 tokens · 1 model call');
  });
});

describe('a step in the report', () => {
  it('says what its bounded screens left out, as the worker recorded it, and nothing for a step whose screens showed everything', () => {
    const record = {
      index: 0,
      kind: 'act',
      instruction: 'select item 150,000',
      agent: 'default',
      executor: 'built-in',
      status: 'passed',
      summary: 'Selected it.',
      modelCalls: 2,
      tokens: { input: 10, output: 1, cached: 0 },
      actions: ['tap listitem "Item 150,000"'],
      durationMs: 5,
      timing: { modelMs: 0, observeMs: 0, actionMs: 0 },
      artifacts: [],
    };
    const payload = parseAttemptPayload(
      JSON.stringify({ version: REPORT_VERSION, steps: [{ ...record, leftOut: { screens: 2, most: 199_935 } }, { ...record, index: 1 }], verifications: [] }),
    );
    expect(payload).toBeDefined();
    const [bounded, whole] = payload!.steps.map(toReportStep);
    expect(bounded!.leftOut).toEqual({ screens: 2, most: 199_935 });
    expect(whole).not.toHaveProperty('leftOut');
  });
});

describe('parseReport', () => {
  it('refuses a newer version by name and malformed text', () => {
    expect(parseReport('{"version":2,"status":"passed","exitCode":0,"tests":[],"errors":[],"summary":{}}')).toEqual({ kind: 'unsupported-version', version: 2 });
    expect(parseReport('not json').kind).toBe('invalid');
    expect(parseReport('{"version":1,"status":"passed","exitCode":0,"tests":[],"errors":[],"summary":{}}').kind).toBe('report');
  });
});

/**
 * One real `e2e run` of the behaviour fixture: a scripted StepExecutor (no model) drives
 * Chromium through `agent.act`; the fixture's tests check each verdict, budget, misuse rule,
 * action rule and the origin policy from inside Playwright Test, and this file checks the run
 * from outside: exit code, report.json, summary lines, and the other origin's request count.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportStep, ReportTest } from '../../runner/report.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { ensureBuilt } from './support/build.js';
import { runE2E, type E2ERun } from './support/e2e-process.js';
import { startFixtureServers, type FixtureServers } from './support/fixture-servers.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/behaviour', import.meta.url));

let servers: FixtureServers;
let run: E2ERun;

function testNamed(title: string): ReportTest {
  const found = run.report?.tests.find((test) => test.titlePath.at(-1) === title);
  if (found === undefined) throw new Error(`no test "${title}" in the report`);
  return found;
}

function stepsOf(title: string): ReportStep[] {
  return testNamed(title).attempts.at(-1)?.steps ?? [];
}

beforeAll(async () => {
  ensureBuilt();
  servers = await startFixtureServers();
  run = await runE2E(['run', '--workers=1'], { cwd: FIXTURE, env: servers.env });
}, scaledTimeout(180_000));

afterAll(async () => {
  await servers.close();
});

describe('e2e run with a scripted executor', () => {
  it('passes every behaviour check and exits 0', () => {
    const failed = run.report?.tests.filter((test) => test.outcome !== 'expected').map((test) => test.titlePath.join(' › '));
    expect(failed, run.stdout + run.stderr).toEqual([]);
    expect(run.report?.tests.length).toBeGreaterThanOrEqual(30);
    expect(run.exitCode).toBe(0);
    expect(run.report).toMatchObject({ version: 1, status: 'passed', exitCode: 0, errors: [] });
  });

  it('never sends a refused navigation, link or window.location to the other origin', () => {
    for (const path of ['/page.html', '/landing.html', '/assigned.html']) expect(servers.other.requests).not.toContain(path);
  });

  it("warns about the test's own navigation to another origin between steps, which is stopped too", () => {
    expect(run.stdout + run.stderr).toContain('/between.html between agent steps was stopped by the origin policy');
  });

  it('never lets a refused 302 hop reach the other origin', () => {
    expect(servers.app.requests).toContain('/redirect-away');
    expect(servers.other.requests).toEqual([]);
  });

  it('records each step with kind, status, code, actions and usage', () => {
    expect(stepsOf('maxSteps refuses the action past the budget')).toMatchObject([
      {
        kind: 'act',
        instruction: 'type three times',
        status: 'failed',
        errorCode: 'STEP_BUDGET_EXHAUSTED',
        actions: ['type "a" into textbox "New todo"', 'type "b" into textbox "New todo"'],
      },
    ]);
    const [refused, counted] = stepsOf("an agent entry's maxModelCalls refuses the call past the budget");
    expect(refused).toMatchObject({ errorCode: 'STEP_BUDGET_EXHAUSTED', modelCalls: 2, tokens: { input: 2000, output: 200, cached: 800 } });
    expect(counted).toMatchObject({ status: 'passed', errorCode: null, modelCalls: 2, tokens: { input: 3000, output: 1100, cached: 0 } });
    expect(stepsOf('the deadline ends a step whose executor ignores the signal')[0]).toMatchObject({ errorCode: 'STEP_TIMEOUT' });
    expect(stepsOf('the deadline ends a step whose executor ignores the signal')[0]!.durationMs).toBeLessThan(scaledTimeout(2000));
  });

  it('keeps the verifications that passed, with the step each followed', () => {
    const attempt = testNamed('a passing expect on the screen is recorded as a verification of the step before it').attempts.at(-1);
    expect(attempt?.verifications).toEqual([
      { kind: 'expect', detail: 'toHaveCount', afterStep: 0 },
      { kind: 'expect', detail: 'toHaveTitle', afterStep: 0 },
    ]);
    const asserted = testNamed('assert runs through a custom executor and counts as a verification').attempts.at(-1);
    expect(asserted?.verifications).toEqual([{ kind: 'assert', detail: 'the screen says Todos', afterStep: 1 }]);
  });

  it('prints the run summary and totals the usage', () => {
    expect(run.stdout).toContain('      AI  6.3k tokens · 4 model calls\n');
    // The scripted executors keep out of the cache (`cache: 'off'`); the two model-less judgments miss it.
    expect(run.stdout).toContain('   Cache  0 replayed · 0 handed off · 0 recorded · 2 missed · 0 unverified\n');
    expect(run.report?.summary).toMatchObject({ modelCalls: 4, tokens: { input: 5000, output: 1300, cached: 800 } });
  });
});

/**
 * Playwright users' habits through the real `e2e` binary on the habits fixture (a scripted,
 * cacheable executor on a todo page whose add button can be relabelled):
 *
 * - `expect` imported from `@playwright/test` verifies a step exactly like ours: `record`
 *   saves it and `replay` replays it; a step only a plain value follows is named as unverified;
 * - the summary counts what happened (recorded, replayed, handed off, missed, unverified);
 * - every `agent.*` step and every `expect` points at the test's own line, in the steps the
 *   reporters get, in the console's failure and in the trace;
 * - inside each agent step: its actions as sentences (a secret by name), its cache outcome
 *   and model use as nested steps, and its screenshot labelled by the step.
 *
 * The runs build on each other, in order; the relabelled app's test and the failing test share one run.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportTest } from '../../runner/report.js';
import { ensureBuilt } from './support/build.js';
import { runE2E, type E2ERun } from './support/e2e-process.js';
import { startHabitsApp, type HabitsApp } from './support/habits-app.js';
import { unzip } from './support/secret-scan.js';
import type { LoggedStep, LoggedTest } from './fixtures/habits/step-log-reporter.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/habits/', import.meta.url));
const PIN = 'pin-4417-Qz';

let app: HabitsApp;
let work: string;

async function run(args: string[]): Promise<{ run: E2ERun; steps: LoggedTest[] }> {
  const stepLog = join(work, `steps-${Date.now()}.json`);
  const finished = await runE2E(args, { cwd: FIXTURE, env: { ...app.env, E2E_FIXTURE_STEP_LOG: stepLog, E2E_SECRET_PIN: PIN } });
  return { run: finished, steps: JSON.parse(readFileSync(stepLog, 'utf8')) as LoggedTest[] };
}

function loggedTest(steps: LoggedTest[], title: string): LoggedTest {
  const found = steps.find((test) => test.title === title);
  if (found === undefined) throw new Error(`no test "${title}" in the step log`);
  return found;
}

/** The test's own steps (not fixtures or hooks), as `category | title @file:line`. */
function outline(steps: LoggedStep[], depth = 0): string[] {
  const lines: string[] = [];
  for (const step of steps) {
    if (step.category === 'fixture' || step.category === 'hook') continue;
    const where = step.location === null ? '' : ` @${step.location.file.slice(FIXTURE.length)}:${step.location.line}`;
    lines.push(`${'  '.repeat(depth)}${step.category} | ${step.title}${where}`);
    lines.push(...outline(step.steps, depth + 1));
  }
  return lines;
}

function reportTest(finished: E2ERun, title: string): ReportTest {
  const found = finished.report?.tests.find((test) => test.titlePath.at(-1) === title);
  if (found === undefined) throw new Error(`no test "${title}" in the report`);
  return found;
}

function summaryOf(finished: E2ERun): string {
  // With a custom reporter beside ours, the summary goes to stderr (the reporter may own stdout).
  return `${finished.stdout}\n${finished.stderr}`.split('\n').find((line) => line.startsWith('   Cache  ')) ?? '(no summary)';
}

const PLAYWRIGHT_EXPECT = 'an expect from Playwright Test verifies the step before it';
const E2E_EXPECT = 'an expect from e2e verifies the step before it';
const UNCHECKED = 'a step only a plain value follows is not verified';
const SECRET_NOTE = 'a typed secret shows by name in the steps';

let recorded: { run: E2ERun; steps: LoggedTest[] };

/**
 * One `e2e run` for two tests that share nothing but the run: the test whose add button was relabelled (its step is handed
 * to the agent) and the test whose step the agent cannot do. Started by the first test that reads it. The failing test's
 * file (tests/unable.e2e.ts) sorts after the other's, so it runs last and its failure restarts no worker for the other.
 */
let handedOffAndFailingRun: Promise<{ run: E2ERun; steps: LoggedTest[] }> | undefined;

function handedOffAndFailing(): Promise<{ run: E2ERun; steps: LoggedTest[] }> {
  handedOffAndFailingRun ??= (async () => {
    app.setAddLabel('Create');
    try {
      return await run(['run', 'playwright-expect', 'unable']);
    } finally {
      app.setAddLabel('Add');
    }
  })();
  return handedOffAndFailingRun;
}

beforeAll(async () => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'e2e-habits-'));
  app = await startHabitsApp(join(work, 'cache'));
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  recorded = await run(['record', 'playwright-expect', 'e2e-expect', 'unchecked', 'secret-note', '--', '--trace', 'on']);
}, scaledTimeout(180_000));

afterAll(async () => {
  await app.close();
  rmSync(work, { recursive: true, force: true });
});

describe('a record run', () => {
  it('saves the steps an expect from @playwright/test or from e2e verified', () => {
    expect(recorded.run.exitCode, recorded.run.stdout + recorded.run.stderr).toBe(0);
    for (const title of [PLAYWRIGHT_EXPECT, E2E_EXPECT]) {
      expect(reportTest(recorded.run, title).attempts[0]?.steps[0]?.cache, title).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'saved' });
    }
    expect(reportTest(recorded.run, PLAYWRIGHT_EXPECT).attempts[0]?.verifications).toEqual([
      { kind: 'expect', detail: 'toHaveText', afterStep: 0 },
      { kind: 'expect', detail: 'not.toHaveCount', afterStep: 0 },
    ]);
    expect(reportTest(recorded.run, UNCHECKED).attempts[0]?.steps[0]?.cache).toMatchObject({ mode: 'missed', write: 'unconfirmed' });
  });

  it('counts them as recorded, not missed, and names the unverified step by its line with the fix', () => {
    // The secret step changed nothing a replay could check (a field's value), so nothing was saved: a miss.
    expect(summaryOf(recorded.run)).toBe('   Cache  0 replayed · 0 handed off · 2 recorded · 1 missed · 1 unverified');
    expect(recorded.run.report?.summary.cache).toEqual({ replayed: 0, handedOff: 0, recorded: 2, missed: 1, unverified: 1, regressed: 0, stale: 0 });
    expect(`${recorded.run.stdout}${recorded.run.stderr}`).toMatch(/Not recorded: nothing verified this step\. .*'@playwright\/test'.*\n {4}tests\/unchecked\.e2e\.ts:6 {2}agent\.act 'add a todo "Buy milk"'\n/);
  });

  it("points every agent step, its nested steps and every expect at the test's line", () => {
    expect(outline(loggedTest(recorded.steps, PLAYWRIGHT_EXPECT).steps)).toEqual([
      'pw:api | Navigate @tests/playwright-expect.e2e.ts:6',
      `test.step | agent.act 'add a todo "Buy milk"' @tests/playwright-expect.e2e.ts:7`,
      '  test.step | type "Buy milk" into textbox "New todo" @tests/playwright-expect.e2e.ts:7',
      '  test.step | tap button "Add" @tests/playwright-expect.e2e.ts:7',
      `  test.attach | Attach "after agent.act 'add a todo \\"Buy milk\\"'" @tests/playwright-expect.e2e.ts:7`,
      '  test.step | cache: missed, the agent ran (no-entry: no entry; this test has no recorded entries) @tests/playwright-expect.e2e.ts:7',
      '  test.step | model: 1 call · 1.4k tokens (1.2k in, 150 out, 400 cached) @tests/playwright-expect.e2e.ts:7',
      'expect | Expect "toHaveText" @tests/playwright-expect.e2e.ts:8',
      'expect | Expect "not toHaveCount" @tests/playwright-expect.e2e.ts:9',
    ]);
    // Our own `expect` wraps Playwright's; its step still points at the test, not at node_modules/e2e.
    expect(outline(loggedTest(recorded.steps, E2E_EXPECT).steps)).toContain('expect | Expect "toHaveText" @tests/e2e-expect.e2e.ts:6');
    expect(reportTest(recorded.run, PLAYWRIGHT_EXPECT).attempts[0]?.steps[0]?.location).toBe('tests/playwright-expect.e2e.ts:7');
  });

  it('labels each screenshot by its step', () => {
    const agentStep = loggedTest(recorded.steps, PLAYWRIGHT_EXPECT).steps.find((step) => step.title.startsWith('agent.act'));
    expect(agentStep?.steps.flatMap((step) => step.attachments)).toEqual([`after agent.act 'add a todo "Buy milk"'`]);
  });

  it('shows a typed secret by name in the step titles, never its value', () => {
    const lines = outline(loggedTest(recorded.steps, SECRET_NOTE).steps);
    expect(lines).toContain('  test.step | type <secret:pin> into textbox "New todo" @tests/secret-note.e2e.ts:6');
    expect(lines.join('\n')).not.toContain(PIN);
  });

  it("lists the actions inside each agent step in the trace, at the test's line", () => {
    const folder = join(FIXTURE, '.e2e', 'test-results');
    const traceFolder = readdirSync(folder).find((name) => name.startsWith('playwright-expect'));
    const archive = unzip(readFileSync(join(folder, traceFolder ?? 'missing', 'trace.zip')));
    const events = (archive.get('test.trace')?.toString('utf8') ?? '')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { type: string; callId?: string; parentId?: string; title?: string; stack?: Array<{ file: string; line: number }> });
    const before = events.filter((event) => event.type === 'before');
    const agentStep = before.find((event) => event.title === `agent.act 'add a todo "Buy milk"'`);
    expect(agentStep?.stack?.[0]).toMatchObject({ file: join(FIXTURE, 'tests', 'playwright-expect.e2e.ts'), line: 7 });
    const inside = before.filter((event) => event.parentId === agentStep?.callId).map((event) => event.title);
    expect(inside).toEqual(expect.arrayContaining(['type "Buy milk" into textbox "New todo"', 'tap button "Add"', 'cache: missed, the agent ran (no-entry: no entry; this test has no recorded entries)']));
    const assertion = before.find((event) => event.title === 'Expect "toHaveText"');
    expect(assertion?.stack?.[0]).toMatchObject({ file: join(FIXTURE, 'tests', 'playwright-expect.e2e.ts'), line: 8 });
  });
});

describe('later runs', () => {
  it('replay what the expect from @playwright/test verified, with no model call', async () => {
    const { run: replayed, steps } = await run(['replay', 'playwright-expect', 'e2e-expect']);
    expect(replayed.exitCode, replayed.stdout + replayed.stderr).toBe(0);
    expect(summaryOf(replayed)).toBe('   Cache  2 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified');
    expect(outline(loggedTest(steps, PLAYWRIGHT_EXPECT).steps).slice(1, 6)).toEqual([
      `test.step | agent.act 'add a todo "Buy milk"' @tests/playwright-expect.e2e.ts:7`,
      '  test.step | type "Buy milk" into textbox "New todo" @tests/playwright-expect.e2e.ts:7',
      '  test.step | tap button "Add" @tests/playwright-expect.e2e.ts:7',
      `  test.attach | Attach "after agent.act 'add a todo \\"Buy milk\\"'" @tests/playwright-expect.e2e.ts:7`,
      '  test.step | cache: replayed, no model call @tests/playwright-expect.e2e.ts:7',
    ]);
    expect(outline(loggedTest(steps, PLAYWRIGHT_EXPECT).steps)).toContain('  test.step | model: no call @tests/playwright-expect.e2e.ts:7');
  }, scaledTimeout(120_000));

  it('hand a step to the agent where the app changed, and say where and why', async () => {
    const { run: healed, steps } = await handedOffAndFailing();
    const output = `${healed.stdout}\n${healed.stderr}`;
    // The run's exit code is the failing test's (below); the test whose step was handed off passes.
    expect(reportTest(healed, PLAYWRIGHT_EXPECT).outcome, output).toBe('expected');
    expect(reportTest(healed, PLAYWRIGHT_EXPECT).attempts[0]?.steps[0]?.cache).toMatchObject({ mode: 'agent-concluded', reason: 'target-not-found' });
    // The summary counts the handed-off step (and the failing test's two missed ones), and names the step it handed off, at its line, with why its replay stopped.
    expect(summaryOf(healed)).toBe('   Cache  0 replayed · 1 handed off · 0 recorded · 2 missed · 0 unverified');
    expect(output).toMatch(/Handed off: the replay of this step stopped.*\n    tests\/playwright-expect\.e2e\.ts:7  agent\.act 'add a todo "Buy milk"' \(target-not-found: at action 2 of 2, tap button "Add": not found/);
    const lines = outline(loggedTest(steps, PLAYWRIGHT_EXPECT).steps);
    expect(lines).toContain('  test.step | tap button "Create" @tests/playwright-expect.e2e.ts:7');
    expect(lines.find((line) => line.includes('cache: '))).toMatch(/cache: handed off to the agent \(target-not-found: at action 2 of 2, tap button "Add": not found/);
  }, scaledTimeout(180_000));

  it("fail a step at the test's line, in the console and in the steps", async () => {
    const { run: failed, steps } = await handedOffAndFailing();
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toContain('> 7 |   await agent.act(\'archive the todo "Buy milk"\');');
    const test = loggedTest(steps, 'a step the agent cannot do fails the test');
    expect(test.errorLocation).toEqual({ file: join(FIXTURE, 'tests', 'unable.e2e.ts'), line: 7 });
    const failedStep = test.steps.find((step) => step.title === `agent.act 'archive the todo "Buy milk"'`);
    expect(failedStep?.error).toContain('failed (ACTION_FAILED): There is no "Archive" button on the screen.');
    expect(outline(failedStep?.steps ?? [])).toContain('test.step | type "Buy milk" into textbox "New todo" @tests/unable.e2e.ts:7');
    // Its two steps are the summary's 2 missed (the summary line is checked above, with the handed-off step).
    expect(reportTest(failed, 'a step the agent cannot do fails the test').attempts[0]?.steps.map((step) => step.cache?.mode)).toEqual(['missed', 'missed']);
  }, scaledTimeout(180_000));
});

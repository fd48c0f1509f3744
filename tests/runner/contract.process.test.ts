/**
 * The executor contract as the documents promise it, through the real binary and a fixture
 * project that imports `e2e`, `e2e/web` as an installed package would (package self-reference
 * to `dist/`): scripted executors and the built-in agent on mock models, on pages served from
 * 127.0.0.1 — a page that breaks the walk, a cookie banner over a button, a long list.
 *
 * Once the first run is checked, the runs without a browser and the plain config's run go side
 * by side: each has a project folder of its own (the fixture, a lane of it, the plain config).
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report, ReportStep } from '../../runner/report.js';
import { fixtureLane, type FixtureLane } from '../support/fixture-lane.js';
import { serveStatic, type StaticServer } from '../support/static-server.js';
import { ensureBuilt } from './support/build.js';
import { outcomesByTitle, runE2E, type E2ERun } from './support/e2e-process.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/contract/', import.meta.url));
const PLAIN = fileURLToPath(new URL('./fixtures/plain-config/', import.meta.url));

let server: StaticServer;
let first: E2ERun;

function testNamed(report: Report | undefined, title: string) {
  const found = report?.tests.find((test) => test.titlePath.at(-1) === title);
  if (found === undefined) throw new Error(`No test "${title}" in the report: ${JSON.stringify(report?.tests.map((test) => test.titlePath))}`);
  return found;
}

function stepsOf(report: Report | undefined, title: string): ReportStep[] {
  return testNamed(report, title).attempts.at(-1)?.steps ?? [];
}

beforeAll(async () => {
  ensureBuilt();
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  server = await serveStatic(join(FIXTURE, 'app'));
  first = await runE2E(['run'], { cwd: FIXTURE, env: { E2E_FIXTURE_APP_URL: server.origin } });
}, scaledTimeout(240_000));

afterAll(async () => {
  await server.close();
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  rmSync(join(PLAIN, '.e2e'), { recursive: true, force: true });
});

describe('the executor contract through e2e run', () => {
  it('passes every contract test but the one that fails on purpose', () => {
    expect(outcomesByTitle(first)).toEqual({
      'a page that breaks the walk gives a screen without a tree, and point actions still work': 'expected',
      'after a secret fill a screen without a tree comes without pixels': 'expected',
      'the built-in agent carries on by its pixels when the page breaks the walk': 'expected',
      'a tap blocked by a cookie banner tells the model what is in the way': 'unexpected',
      'surfaceOf(engine).page() is INVALID_STATE outside an attempt and once the page is closed': 'expected',
      'the check ran before the attempt started': 'expected',
      'ctx.agentContext holds the agent context, then the test context, then the step context': 'expected',
      'a recorded step keyed by the agent context': 'expected',
      'a judgment gets the action timeout when it is above 30 s': 'expected',
      'taps hold modifier keys on the web engine': 'expected',
      'scrollUntil scrolls until the condition holds, and says when it never does': 'expected',
      'resize changes the viewport': 'expected',
      'the attempt has an id, the web engine leaves keyboardVisible out, and a secret brings its purpose': 'expected',
      'the built-in agent reads a secret purpose beside its name': 'expected',
    });
    expect(first.exitCode).toBe(1);
  });

  it('names the element in the way of a blocked tap, in the model turns the report and the console show', () => {
    const [step] = stepsOf(first.report, 'a tap blocked by a cookie banner tells the model what is in the way');
    expect(step).toMatchObject({ kind: 'act', status: 'failed', errorCode: 'ACTION_FAILED', summary: 'A cookie banner is in the way of Save.' });
    expect(step?.turns?.map((turn) => turn.calls)).toEqual([[expect.stringMatching(/^tap \{"target":"n\d+"\}$/)], [expect.stringMatching(/^complete_step /)]]);
    expect(step?.turns?.[0]?.outcome).toMatch(/^failed: tap #n\d+ failed \(ACTION_FAILED\): .*something is in the way: .*<div class="cookie-banner">.*intercepts pointer events/);
    // Playwright prints the failure with the last turns under the step's error.
    expect(first.stdout).toContain('expect(agent).act("save the checkout") failed (ACTION_FAILED): A cookie banner is in the way of Save.');
    expect(first.stdout).toMatch(/Last model turns \(2 of 2\):\n\s+turn \d+: tap \{"target":"n\d+"\} → failed: .*intercepts pointer events/);
  });

  it('shows no turns under a passed step', () => {
    const [step] = stepsOf(first.report, 'the built-in agent carries on by its pixels when the page breaks the walk');
    expect(step).toMatchObject({ status: 'passed', actions: ['tap at (70, 40)'] });
    expect(step).not.toHaveProperty('turns');
  });

  it('misses with wrong-context, naming the agent context, once the test context changes', async () => {
    const [recorded] = stepsOf(first.report, 'a recorded step keyed by the agent context');
    expect(recorded?.cache).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'saved' });
    const run = await runE2E(['run', '--grep', 'keyed by the agent context'], {
      cwd: FIXTURE,
      env: { E2E_FIXTURE_APP_URL: server.origin, E2E_FIXTURE_TEST_CONTEXT: 'Prices are in pounds.' },
    });
    expect(run.exitCode).toBe(0);
    const [step] = stepsOf(run.report, 'a recorded step keyed by the agent context');
    expect(step?.cache).toMatchObject({ mode: 'missed', reason: 'wrong-context', detail: "no entry; nearest entry of this test differs in the agent's context" });
  }, scaledTimeout(120_000));
});

describe('a browser that is not there', { concurrent: true }, () => {
  let lane: FixtureLane;

  beforeAll(() => {
    // The other test of this part runs in the fixture itself (its cache is the first run's).
    lane = fixtureLane(FIXTURE, 'no-browser');
  });

  afterAll(() => {
    lane?.remove();
  });

  it('fails ENVIRONMENT_UNAVAILABLE with exit 3 and the fix when E2E_CHROMIUM_PATH is not a browser', async ({ expect }) => {
    const run = await runE2E(['run', '--grep', 'the check ran before'], { cwd: lane.folder, env: { E2E_FIXTURE_APP_URL: server.origin, E2E_CHROMIUM_PATH: '/bin/true' } });
    expect(run.exitCode).toBe(3);
    expect(run.stdout).toContain('ENVIRONMENT_UNAVAILABLE: the browser at /bin/true did not start');
    expect(run.stdout).toContain('Point E2E_CHROMIUM_PATH at a Chromium executable');
    expect(testNamed(run.report, 'the check ran before the attempt started').attempts[0]?.errorCode).toBe('ENVIRONMENT_UNAVAILABLE');
  }, scaledTimeout(120_000));

  it('fails the same way for a path that does not exist, while e2e cache ls still lists the cache', async ({ expect }) => {
    const env = { E2E_FIXTURE_APP_URL: server.origin, E2E_CHROMIUM_PATH: join(FIXTURE, 'no-such-browser') };
    const run = await runE2E(['run', '--grep', 'the check ran before'], { cwd: FIXTURE, env });
    expect(run.exitCode).toBe(3);
    expect(run.stdout).toContain('which is not an executable file. Fix the path or unset it');
    const list = await runE2E(['cache', 'ls'], { cwd: FIXTURE, env });
    expect(list.stderr).toBe('');
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toContain('tap the tap button');
  }, scaledTimeout(120_000));
});

describe("the documents' config shape", { concurrent: true }, () => {
  it('runs a plain object typed `satisfies E2EConfig` through e2e run and e2e cache ls, and leaves no wrapper behind', async ({ expect }) => {
    const app = await serveStatic(join(PLAIN, 'app'));
    try {
      const run = await runE2E(['run'], { cwd: PLAIN, env: { E2E_FIXTURE_APP_URL: app.origin } });
      expect(run.stderr).not.toContain('Error');
      expect(run.exitCode).toBe(0);
      const [step] = stepsOf(run.report, 'a plain config object runs through e2e run');
      expect(step).toMatchObject({ kind: 'assert', status: 'passed', summary: 'The screen says Ready.' });
      const list = await runE2E(['cache', 'ls'], { cwd: PLAIN, env: {} });
      expect(list.exitCode).toBe(0);
      expect(list.stdout).toContain('No cache entries in');
      expect(readdirSync(PLAIN).filter((name) => name.startsWith('.e2e-config-'))).toEqual([]);
    } finally {
      await app.close();
    }
  }, scaledTimeout(120_000));
});

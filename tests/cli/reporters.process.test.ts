/**
 * Playwright's reporters and retries through the real `e2e` binary on a fixture project (the
 * shared todo page, a scripted executor, no model): a JUnit or JSON report on stdout is the
 * whole of stdout (the summary goes to stderr), agent test failures are JUnit `<failure>`s and
 * configuration problems `<error>`s, `--list` leaves `.e2e/` as it was, and a retry replays
 * again under `replay` while `record` runs the agent on it.
 *
 * The steps build on each other, in order; the last three only read what the first two recorded,
 * so they go side by side, the two that write a report each in a lane of the fixture (`--list`
 * checks that the fixture's own `.e2e/` stays as it was).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportTest } from '../../runner/report.js';
import { snapshotTree } from '../support/directory-snapshot.js';
import { parseXml } from '../support/xml.js';
import { ensureBuilt } from '../runner/support/build.js';
import { runE2E, type E2ERun } from '../runner/support/e2e-process.js';
import { fixtureLane, type FixtureLane } from '../support/fixture-lane.js';
import { startFixtureServers, type FixtureServers } from '../runner/support/fixture-servers.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/reporters/', import.meta.url));

let servers: FixtureServers;
let cacheDir: string;
const lanes: FixtureLane[] = [];

/** `e2e <args>` in the fixture, or in a lane of it named `lane`. */
function e2e(args: string[], lane?: string): Promise<E2ERun> {
  return runE2E(args, { cwd: lane === undefined ? FIXTURE : laneFolder(lane), env: { ...servers.env, E2E_FIXTURE_CACHE_DIR: cacheDir } });
}

function laneFolder(name: string): string {
  const made = fixtureLane(FIXTURE, name);
  lanes.push(made);
  return made.folder;
}

function testNamed(run: E2ERun, title: string): ReportTest {
  const found = run.report?.tests.find((test) => test.titlePath.at(-1) === title);
  if (found === undefined) throw new Error(`no test "${title}" in the report:\n${run.stdout}\n${run.stderr}`);
  return found;
}

beforeAll(async () => {
  ensureBuilt();
  servers = await startFixtureServers();
  cacheDir = mkdtempSync(join(tmpdir(), 'e2e-reporters-cache-'));
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
}, scaledTimeout(300_000));

afterAll(async () => {
  await servers.close();
  rmSync(cacheDir, { recursive: true, force: true });
  for (const lane of lanes) lane.remove();
});

describe('reporters and retries through the binary', () => {
  it('records with a retry: the retry of a failed attempt runs the agent again and saves', async () => {
    const run = await e2e(['record', '--retries', '1', '--grep', 'adds a todo|second attempt']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const flaky = testNamed(run, 'passes on its second attempt');
    expect(flaky.outcome).toBe('flaky');
    expect(flaky.attempts.map((attempt) => attempt.steps[0]?.cache)).toMatchObject([
      { mode: 'missed', reason: 'no-entry' },
      { mode: 'missed', reason: 'retry', write: 'saved' },
    ]);
    // With Playwright's own terminal reporters, the summary stays on stdout.
    expect(run.stdout).toMatch(/Cache {2}\d+ replayed/);
  }, scaledTimeout(120_000));

  it('replays a retry again under `e2e replay`, and a JSON report on stdout is the whole of stdout', async () => {
    const run = await e2e(['replay', '--retries', '1', '--reporter', 'json', '-g', 'adds a todo|second attempt']);
    expect(run.exitCode, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as { stats: { expected: number; flaky: number; unexpected: number } };
    expect(json.stats).toMatchObject({ expected: 1, flaky: 1, unexpected: 0 });
    const flaky = testNamed(run, 'passes on its second attempt');
    expect(flaky.attempts.map((attempt) => attempt.steps[0]?.cache)).toMatchObject([{ mode: 'self-finalized' }, { mode: 'self-finalized' }]);
    expect(flaky.attempts.map((attempt) => attempt.errorCode)).toEqual([undefined, undefined]);
    expect(run.stderr).toMatch(/Cache {2}\d+ replayed/);
  }, scaledTimeout(120_000));

  it.concurrent('writes JUnit to stdout as the whole of stdout: test failures are <failure>, configuration problems <error>', async ({ expect }) => {
    // CI: read-only, so the agent runs only where nothing is recorded.
    const run = await runE2E(['run', '--reporter', 'junit', '-G', 'second attempt'], { cwd: laneFolder('junit'), env: { ...servers.env, E2E_FIXTURE_CACHE_DIR: cacheDir, CI: '1' } });
    expect(run.exitCode).toBe(2);
    const elements = parseXml(run.stdout);
    expect(elements[0]?.name).toBe('testsuites');
    const cases = elements.filter((element) => element.name === 'testcase');
    expect(cases.map((element) => element.attributes['name'])).toEqual(['adds a todo', 'misses a control', 'lacks its seed data']);
    const problemOf = (title: string) => {
      const start = elements.findIndex((element) => element.name === 'testcase' && element.attributes['name'] === title);
      return elements.slice(start + 1).find((element) => element.name === 'testcase' || element.name === 'failure' || element.name === 'error');
    };
    expect(problemOf('adds a todo')?.name).toBe('testcase');
    expect(problemOf('misses a control')).toMatchObject({ name: 'failure', attributes: { type: 'expect.act' } });
    expect(problemOf('misses a control')?.attributes['message']).toContain('LOCATOR_NOT_FOUND');
    expect(problemOf('lacks its seed data')).toMatchObject({ name: 'error' });
    expect(problemOf('lacks its seed data')?.attributes['message']).toContain('SEED_DATA_MISSING');
    // The summary went to stderr; the report is still written.
    expect(run.stderr).toMatch(/Cache {2}\d+ replayed/);
    expect(run.report?.exitCode).toBe(2);
  }, scaledTimeout(120_000));

  it.concurrent('lists the tests with --list and leaves .e2e/ (report.json, the HTML report) as it was', async ({ expect }) => {
    const before = snapshotTree(join(FIXTURE, '.e2e'));
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['report.json', join('html-report', 'index.html')]));
    const report = readFileSync(join(FIXTURE, '.e2e', 'report.json'), 'utf8');
    const run = await e2e(['replay', '--list']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('Total: 4 tests in 1 file');
    expect(run.stdout).not.toContain('Cache ');
    expect(snapshotTree(join(FIXTURE, '.e2e'))).toEqual(before);
    expect(readFileSync(join(FIXTURE, '.e2e', 'report.json'), 'utf8')).toBe(report);
  }, scaledTimeout(120_000));

  it.concurrent('says which environment variables choose a model when `e2e record` meets a step and no model is configured', async ({ expect }) => {
    const run = await e2e(['record', '-c', 'no-model.config.ts', '-g', 'misses a control'], 'no-model');
    expect(run.exitCode).toBe(2);
    expect(run.report?.tests[0]?.attempts[0]?.errorCode).toBe('MODEL_UNAVAILABLE');
    expect(run.stderr).toContain('A step needed a model and none is configured.');
    expect(run.stderr).toContain('set OPENAI_API_KEY, ANTHROPIC_API_KEY or E2E_OPENAI_COMPATIBLE_URL (E2E_MODEL picks the model)');
  }, scaledTimeout(120_000));
});

/**
 * When the app breaks, through the real `e2e` binary on TodoMVC (the `todomvc` package's
 * vanillajs, copied so a test can break it; the corpus's screen-reading executor stands in for
 * the model): a model-free replay of a step whose recorded outcome no longer appears is a
 * regression (exit 1, a JUnit `<failure>`, the screen of that moment attached), a renamed control
 * is drift (`REPLAY_STALE`, exit 2); `e2e record` on the broken app — also with `--retries` and
 * with `--propose` — leaves the committed cache byte-identical (real git: `git status` is empty);
 * editing a step's instruction supersedes its entry: `cache diff` shows one re-keyed pair, `cache
 * ls` one generation, and `cache prune` in a fresh clone (no ledger) removes the old entry.
 *
 * The steps build on each other, in order, but for the runs on a broken app: they leave the cache
 * as it was, so they go side by side (most of their time is a replay waiting out its end-state
 * wait), each in its own lane of the fixture (`.e2e/` of its own) and on its own copy of the app,
 * which one server picks by the header the lane's runs send (one origin, so the recorded keys).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore, initHashing } from '../../cache-format/index.js';
import type { ReportStep } from '../../runner/report.js';
import { ensureBuilt } from '../runner/support/build.js';
import { runE2E, type E2ERun } from '../runner/support/e2e-process.js';
import { fixtureLane, type FixtureLane } from '../support/fixture-lane.js';
import { folderRoute, serveStatic, type StaticServer } from '../support/static-server.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/regressions', import.meta.url));
const VANILLA = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples', 'vanillajs');
const ADD_STEP = 'add todos "Buy milk" and "Walk the dog"';
const EDITED_STEP = 'add todos "Buy oat milk" and "Walk the dog"';

/** Planted changes to the app: each swaps one piece of source for another; a run names its copy in E2E_FIXTURE_APP. */
const PLANTED: Readonly<Record<string, { file: string; from: string; to: string }>> = {
  // A regression: Enter in the new-todo field no longer adds anything.
  'add does nothing': { file: 'js/controller.js', from: 'Controller.prototype.addItem = function (title) {', to: 'Controller.prototype.addItem = function (title) { return;' },
  // A regression of the second step: the toggle no longer completes a todo.
  'toggle does nothing': {
    file: 'js/controller.js',
    from: 'Controller.prototype.toggleComplete = function (id, completed, silent) {',
    to: 'Controller.prototype.toggleComplete = function (id, completed, silent) { return;',
  },
  // Drift, not a regression: the new-todo field is labelled differently.
  'renamed field': { file: 'index.html', from: 'placeholder="What needs to be done?"', to: 'placeholder="New task"' },
};

let server: StaticServer;
/** The app's copy with each planted change, by name. */
const broken = new Map<string, string>();
const lanes: FixtureLane[] = [];
let work: string;
/** A git repository holding the committed cache. */
let repository: string;
let cacheDir: string;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { E2E_FIXTURE_APP_URL: server.url, E2E_FIXTURE_CACHE_DIR: cacheDir, ...extra };
}

/** A copy of vanillajs with `name` planted. */
function plant(name: string): string {
  const { file, from, to } = PLANTED[name]!;
  const folder = mkdtempSync(join(work, 'app-'));
  cpSync(VANILLA, folder, { recursive: true });
  const path = join(folder, file);
  const source = readFileSync(path, 'utf8');
  if (!source.includes(from)) throw new Error(`the planted change "${name}" does not apply to ${file}`);
  writeFileSync(path, source.replace(from, to));
  return folder;
}

/** `e2e <args>` on the app with `planted`, in a lane of its own (`lane`: its name), with the fixture's cache. */
function runOnBroken(planted: string, lane: string, args: string[], extra: Record<string, string> = {}): Promise<E2ERun> {
  const made = fixtureLane(FIXTURE, lane);
  lanes.push(made);
  return runE2E(args, { cwd: made.folder, env: env({ E2E_FIXTURE_APP: planted, ...extra }) });
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' }).trim();
}

function commit(message: string): string {
  git(repository, 'add', '-A');
  git(repository, 'commit', '-q', '-m', message);
  return git(repository, 'rev-parse', 'HEAD');
}

function output(run: E2ERun): string {
  return `${run.stdout}\n${run.stderr}`;
}

function steps(run: E2ERun): ReportStep[] {
  const test = run.report?.tests.find((candidate) => candidate.titlePath.at(-1) === 'adds and completes todos');
  if (test === undefined) throw new Error(`no test in the report:\n${output(run)}`);
  return test.attempts.at(-1)?.steps ?? [];
}

function summaryLine(run: E2ERun): string {
  return output(run).split('\n').find((line) => line.startsWith('   Cache  ')) ?? '';
}

let recordedKeys: string[];
let firstCommit: string;

beforeAll(async () => {
  ensureBuilt();
  await initHashing();
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  work = mkdtempSync(join(tmpdir(), 'e2e-regressions-'));
  repository = join(work, 'repository');
  cacheDir = join(repository, 'cache');
  execFileSync('git', ['init', '-q', repository]);
  for (const name of Object.keys(PLANTED)) broken.set(name, plant(name));
  server = await serveStatic(undefined);
  // A run with no E2E_FIXTURE_APP sends no header: the working app.
  server.route(folderRoute((request) => broken.get(String(request.headers['x-fixture-app'] ?? '')) ?? VANILLA));
}, scaledTimeout(120_000));

afterAll(async () => {
  await server?.close();
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  rmSync(join(FIXTURE, 'test-results'), { recursive: true, force: true });
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
  for (const lane of lanes) lane.remove();
});

describe('when the app breaks, through the e2e binary on TodoMVC', () => {
  it('records both steps on the working app', async () => {
    // That they replay with no model: the later step's regression replays the first step, and the last test's replay the second.
    const record = await runE2E(['record'], { cwd: FIXTURE, env: env() });
    expect(record.exitCode, output(record)).toBe(0);
    expect(steps(record).map((step) => step.cache?.write)).toEqual(['saved', 'saved']);
    recordedKeys = (await new FileCacheStore(cacheDir, { readOnly: true }).list()).map((ref) => ref.key).sort();
    expect(recordedKeys).toHaveLength(2);
    firstCommit = commit('recorded on vanillajs');
  }, scaledTimeout(180_000));

  it.concurrent('fails a regressed step like a failed expectation: exit 1, regression wording, a JUnit <failure>, the screen attached', async ({ expect }) => {
    const junitFile = join(work, 'junit.xml');
    const jsonFile = join(work, 'playwright.json');
    const run = await runOnBroken('add does nothing', 'replay', ['replay', '--reporter', 'junit,json'], { PLAYWRIGHT_JUNIT_OUTPUT_NAME: junitFile, PLAYWRIGHT_JSON_OUTPUT_NAME: jsonFile });
    expect(run.exitCode, output(run)).toBe(1);
    const [add] = steps(run);
    expect(add).toMatchObject({ status: 'failed', errorCode: 'ASSERTION_FAILED', modelCalls: 0, cache: { mode: 'missed', reason: 'end-mismatch', classification: 'regression' } });
    expect(add?.summary).toContain(`agent.act ${JSON.stringify(ADD_STEP)}): regression: after its last action (press Enter in textbox "What needs to be done?"), listitem "Buy milk" did not appear.`);
    expect(add?.summary).toContain('The app no longer does what this step recorded; the recorded entry is kept. If the change is intended, record the step again with `e2e record`.');
    expect(summaryLine(run)).toBe('   Cache  0 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified · 1 regressed · 0 stale');
    const junit = readFileSync(junitFile, 'utf8');
    expect(junit).toMatch(/<failure message="[^"]*failed \(ASSERTION_FAILED\)[^"]*regression/);
    expect(junit).not.toContain('<error');
    // The screen of that moment, as the HTML report shows it.
    const attachments = JSON.stringify(JSON.parse(readFileSync(jsonFile, 'utf8')));
    expect(attachments).toContain(JSON.stringify({ name: `after agent.act '${ADD_STEP}'`, contentType: 'image/png' }).slice(1, -1));
    expect(git(repository, 'status', '--porcelain')).toBe('');
  }, scaledTimeout(180_000));

  it.concurrent('keeps the recorded entry byte-identical when `e2e record` runs on the regressed app, with and without retries', async ({ expect }) => {
    // One run: its first attempt is a plain `e2e record`'s (the step sees only the attempt's retry number, 0 there, never how
    // many retries the run allows), its second the retry.
    const retried = await runOnBroken('add does nothing', 'record-retries', ['record', '--retries', '1']);
    expect(retried.exitCode, output(retried)).toBe(1);
    const [first, second] = retried.report?.tests[0]?.attempts ?? [];
    expect(first?.retry).toBe(0);
    const add = first?.steps[0];
    // The agent took over (an intended change could be re-recorded), claimed success, and the test's expect failed.
    expect(add?.cache).toMatchObject({ mode: 'agent-concluded', classification: 'regression', write: 'kept', writeDetail: 'the test failed after the step, nothing replaced the recorded entry' });

    expect(second?.retry).toBe(1);
    const retry = second?.steps[0];
    expect(retry?.cache).toMatchObject({ mode: 'missed', reason: 'retry', write: 'kept' });
    // Neither run (with or without retries) changed the committed cache.
    expect(git(repository, 'status', '--porcelain')).toBe('');
  }, scaledTimeout(240_000));

  it.concurrent('proposes nothing from the regressed app in CI, and leaves the cache as it was', async ({ expect }) => {
    const proposals = join(work, 'proposals');
    const run = await runOnBroken('add does nothing', 'propose', ['run', '--propose', proposals], { CI: 'true' });
    expect(run.exitCode, output(run)).toBe(1);
    expect(steps(run)[0]?.cache).toMatchObject({ mode: 'agent-concluded', classification: 'regression' });
    expect(existsSync(proposals) ? await new FileCacheStore(proposals, { readOnly: true }).list() : []).toEqual([]);
    expect(git(repository, 'status', '--porcelain')).toBe('');
  }, scaledTimeout(180_000));

  it.concurrent('names a regression of a later step after the steps before it replayed', async ({ expect }) => {
    const run = await runOnBroken('toggle does nothing', 'later-step', ['replay']);
    expect(run.exitCode, output(run)).toBe(1);
    const [add, complete] = steps(run);
    // The first step, as recorded on the working app, replays with no model.
    expect(add).toMatchObject({ status: 'passed', modelCalls: 0, cache: { mode: 'self-finalized' } });
    expect(complete).toMatchObject({ status: 'failed', errorCode: 'ASSERTION_FAILED', cache: { classification: 'regression' } });
    expect(complete?.summary).toContain('regression: after its last action (check unnamed checkbox in listitem "Walk the dog"), ');
    expect(summaryLine(run)).toBe('   Cache  1 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified · 1 regressed · 0 stale');
  }, scaledTimeout(180_000));

  it.concurrent('keeps a renamed control as drift: REPLAY_STALE, exit 2, a JUnit <error>, counted stale', async ({ expect }) => {
    const junitFile = join(work, 'junit-stale.xml');
    const run = await runOnBroken('renamed field', 'drift', ['replay', '--reporter', 'junit'], { PLAYWRIGHT_JUNIT_OUTPUT_NAME: junitFile });
    expect(run.exitCode, output(run)).toBe(2);
    expect(steps(run)[0]).toMatchObject({ status: 'blocked', errorCode: 'REPLAY_STALE', cache: { reason: 'target-not-found', classification: 'drift' } });
    expect(summaryLine(run)).toBe('   Cache  0 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified · 0 regressed · 1 stale');
    const junit = readFileSync(junitFile, 'utf8');
    expect(junit).toMatch(/<error message="[^"]*REPLAY_STALE/);
    expect(junit).not.toContain('<failure');
    expect(git(repository, 'status', '--porcelain')).toBe('');
  }, scaledTimeout(180_000));

  it('supersedes the entry of an edited step: one re-keyed pair in cache diff, one generation in cache ls, and prune removes the old entry in a fresh clone', async () => {
    const edited = { E2E_FIXTURE_FIRST_TODO: 'Buy oat milk' };
    const record = await runE2E(['record'], { cwd: FIXTURE, env: env(edited) });
    expect(record.exitCode, output(record)).toBe(0);
    const [add, complete] = steps(record);
    expect(add?.cache).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'saved' });
    expect(complete?.cache).toMatchObject({ mode: 'self-finalized' });
    const newKey = add!.cache!.entry!;
    const read = await new FileCacheStore(cacheDir, { readOnly: true }).read(newKey);
    const oldKey = recordedKeys.find((key) => key !== complete!.cache!.entry)!;
    expect(read).toMatchObject({ kind: 'hit', entry: { position: 0, supersedes: oldKey } });
    const secondCommit = commit('edited the first step');

    const diff = await runE2E(['cache', 'diff', firstCommit, secondCommit, '--cache-dir', cacheDir], { cwd: repository });
    expect(diff.exitCode, output(diff)).toBe(0);
    expect(diff.stdout).toContain(': 0 changed, 1 re-keyed, 0 added, 0 removed, 1 unchanged');
    expect(diff.stdout).toContain(`(key ${oldKey} → ${newKey}, supersedes it)`);
    expect(diff.stdout).toContain(`instruction: ${JSON.stringify(ADD_STEP)} → ${JSON.stringify(EDITED_STEP)}`);

    const list = await runE2E(['cache', 'ls', '--json', '--cache-dir', cacheDir], { cwd: FIXTURE, env: env(edited) });
    expect(list.exitCode, output(list)).toBe(0);
    const listed = JSON.parse(list.stdout) as { entries: Array<{ instruction: string }>; superseded: string[] };
    expect(listed.entries.map((entry) => entry.instruction).sort()).toEqual(['complete "Walk the dog"', EDITED_STEP].sort());
    expect(listed.superseded).toEqual([oldKey]);

    // A fresh clone: no hit ledger, no run ledger; prune needs neither.
    const clone = join(work, 'clone');
    git(work, 'clone', '-q', repository, clone);
    rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
    const cloneEnv = { ...edited, E2E_FIXTURE_APP_URL: server.url, E2E_FIXTURE_CACHE_DIR: join(clone, 'cache') };
    const prune = await runE2E(['cache', 'prune'], { cwd: FIXTURE, env: cloneEnv });
    expect(prune.exitCode, output(prune)).toBe(0);
    expect(prune.stdout).toMatch(new RegExp(`superseded +${oldKey} `));
    expect((await new FileCacheStore(join(clone, 'cache'), { readOnly: true }).list()).map((ref) => ref.key).sort()).toEqual([newKey, complete!.cache!.entry!].sort());
    expect(git(clone, 'status', '--porcelain')).toContain(`D cache/refs/${oldKey.slice(0, 2)}/${oldKey}.ref`);
    // What stays still replays the edited test with no model: the re-recorded first step and the second as first recorded.
    const replay = await runE2E(['replay'], { cwd: FIXTURE, env: cloneEnv });
    expect(replay.exitCode, output(replay)).toBe(0);
    expect(summaryLine(replay)).toBe('   Cache  2 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified');
    expect(steps(replay).map((step) => [step.cache?.entry, step.modelCalls])).toEqual([
      [newKey, 0],
      [complete!.cache!.entry, 0],
    ]);
    expect(recordedKeys).toContain(complete!.cache!.entry);
  }, scaledTimeout(300_000));
});

/**
 * The replay cache for users, through the real `e2e` binary on a fixture project (a todo
 * app served by its own server process, a scripted agent whose every step also asks a
 * counting model): `e2e record` saves verified steps; `e2e replay` replays them with no model
 * call; after the app changes, replay fails `REPLAY_STALE` naming the step and the reason; a
 * CI run with `--propose` heals into a proposal folder and leaves the cache untouched, and
 * `cache diff` / `cache accept` take it from there; recording again and `cache diff` between
 * two git commits show exactly the changed step; SIGINT leaves the cache as it was. Workers
 * recording one step at once: `parallel-record.process.test.ts`.
 *
 * The model-free replay checked under `--debug` is the one of the accepted cache (one step healed
 * and accepted, one as recorded): no run of its own right after the recording.
 *
 * The steps build on each other, in order.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore, initHashing } from '../../cache-format/index.js';
import type { ReportStep, ReportTest } from '../../runner/report.js';
import { contentsOf } from '../support/directory-snapshot.js';
import { ensureBuilt } from '../runner/support/build.js';
import { runE2E, startE2E, type E2ERun } from '../runner/support/e2e-process.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { startApp, type AppServer } from './support/fixture-app.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/replay-cache', import.meta.url));

let app: AppServer;
let work: string;
/** A git repository holding the cache, so `cache diff` can compare commits. */
let repository: string;
let cacheDir: string;
let proposals: string;
let modelLog: string;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { E2E_FIXTURE_APP_URL: app.url, E2E_FIXTURE_CACHE_DIR: cacheDir, E2E_FIXTURE_MODEL_LOG: modelLog, ...extra };
}

/** Swap the running app for one whose add button reads `label` (same port, so the same app identity). */
async function relabel(label: string): Promise<void> {
  const port = app.port;
  await app.stop();
  app = await startApp(label, port);
}

function modelCalls(): number {
  return existsSync(modelLog) ? readFileSync(modelLog, 'utf8').split('\n').filter((line) => line !== '').length : 0;
}

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: repository, encoding: 'utf8' }).trim();
}

function commit(message: string): string {
  git('add', '-A');
  git('commit', '-q', '-m', message);
  return git('rev-parse', 'HEAD');
}

function testNamed(run: E2ERun, title: string): ReportTest {
  const found = run.report?.tests.find((test) => test.titlePath.at(-1) === title);
  if (found === undefined) throw new Error(`no test "${title}" in the report:\n${run.stdout}\n${run.stderr}`);
  return found;
}

function stepsOf(run: E2ERun, title: string): ReportStep[] {
  return testNamed(run, title).attempts.at(-1)?.steps ?? [];
}

function output(run: E2ERun): string {
  return `${run.stdout}\n${run.stderr}`;
}

/** Start `e2e <args>` and send SIGINT `delayMs` after the first output line containing `marker`. */
async function interrupted(args: string[], marker: string, extraEnv: Record<string, string> = {}, delayMs = 0): Promise<E2ERun & { signalled: boolean }> {
  let signalled = false;
  const { done } = startE2E(args, {
    cwd: FIXTURE,
    env: env(extraEnv),
    onOutput: (text, child) => {
      if (signalled || !text.includes(marker)) return;
      signalled = true;
      setTimeout(() => child.kill('SIGINT'), delayMs);
    },
  });
  return { ...(await done), signalled };
}

let c1: string;
let c2: string;
/** The replay of the accepted cache, with the cache before and after it and the model calls counted after it. */
let acceptedReplay: { run: E2ERun; before: unknown; after: unknown; modelCallsAfter: number } | undefined;

beforeAll(async () => {
  ensureBuilt();
  await initHashing();
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  work = mkdtempSync(join(tmpdir(), 'e2e-replay-cache-'));
  repository = join(work, 'repository');
  cacheDir = join(repository, 'cache');
  proposals = join(work, 'proposals');
  modelLog = join(work, 'model-calls.log');
  execFileSync('git', ['init', '-q', repository]);
  app = await startApp('Add');
}, scaledTimeout(120_000));

afterAll(async () => {
  await app?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the replay cache through the e2e binary', () => {
  it('records every verified step with the agent and notes the run in the run ledger', async () => {
    const run = await runE2E(['record', 'todos.e2e.ts'], { cwd: FIXTURE, env: env() });
    expect(run.exitCode, output(run)).toBe(0);
    expect(stepsOf(run, 'adds a todo')[0]?.cache).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'saved' });
    expect(stepsOf(run, 'completes a todo')[0]?.cache).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'saved' });
    expect(modelCalls()).toBe(2);
    const refs = await new FileCacheStore(cacheDir, { readOnly: true }).list();
    expect(refs).toHaveLength(2);
    expect(readdirSync(join(FIXTURE, '.e2e', 'hits', 'runs'))).toHaveLength(1);
    c1 = commit('recorded with "Add"');
  }, scaledTimeout(60_000));

  it('keys each test as `cache prune` lists it, so prune finds nothing unreachable', async () => {
    // The cache folder comes from the config (E2E_FIXTURE_CACHE_DIR), as for a cache command not given --cache-dir.
    const run = await runE2E(['cache', 'prune', '--dry-run'], { cwd: FIXTURE, env: env() });
    expect(run.exitCode, output(run)).toBe(0);
    expect(run.stdout).toMatch(/^Would remove 0 items, 0 B to free; 2 entries kept\./);
  }, scaledTimeout(60_000));

  it('fails a step whose entry no longer replays with REPLAY_STALE, naming the step and the reason, with no model call', async () => {
    await relabel('Create');
    const before = contentsOf(cacheDir);
    const run = await runE2E(['replay', 'todos.e2e.ts'], { cwd: FIXTURE, env: env() });
    expect(run.exitCode, output(run)).toBe(2);
    expect(testNamed(run, 'adds a todo').attempts.at(-1)?.errorCode).toBe('REPLAY_STALE');
    const [stale] = stepsOf(run, 'adds a todo');
    expect(stale).toMatchObject({ status: 'blocked', errorCode: 'REPLAY_STALE', modelCalls: 0, cache: { mode: 'missed', reason: 'target-not-found' } });
    expect(stale?.summary).toContain('agent.act "add a todo \\"Buy milk\\""');
    expect(stale?.summary).toContain('target-not-found: at action 2 of 2, tap button "Add": not found within 5 s');
    expect(output(run)).toContain('REPLAY_STALE');
    expect(output(run)).toContain('tap button "Add": not found');
    expect(testNamed(run, 'completes a todo').outcome).toBe('expected');
    expect(modelCalls()).toBe(2);
    expect(contentsOf(cacheDir)).toEqual(before);
  }, scaledTimeout(60_000));

  it('stops cleanly on SIGINT while a replay waits for a control: exit 130, report written, cache unchanged', async () => {
    const before = contentsOf(cacheDir);
    // A read-write run would repair (and rewrite) the entry once the replay gives up; the interrupt comes first.
    const run = await interrupted(['run', 'todos.e2e.ts', '-g', 'adds a todo'], 'ACT STARTS', { E2E_FIXTURE_ANNOUNCE: '1' }, 1000);
    expect(run.signalled, output(run)).toBe(true);
    expect(run.exitCode).toBe(130);
    expect(run.report).toMatchObject({ status: 'interrupted', exitCode: 130 });
    expect(modelCalls()).toBe(2);
    expect(contentsOf(cacheDir)).toEqual(before);
  }, scaledTimeout(60_000));

  it('heals into a proposal folder in CI, leaving the cache byte-identical; cache diff shows it and cache accept merges it', async () => {
    const before = contentsOf(cacheDir);
    const run = await runE2E(['run', 'todos.e2e.ts', '--propose', proposals], { cwd: FIXTURE, env: env({ CI: 'true' }) });
    expect(run.exitCode, output(run)).toBe(0);
    expect(stepsOf(run, 'adds a todo')[0]?.cache).toMatchObject({ mode: 'agent-concluded', reason: 'target-not-found', write: 'saved' });
    expect(stepsOf(run, 'completes a todo')[0]?.cache).toMatchObject({ mode: 'self-finalized', write: 'no-change' });
    expect(modelCalls()).toBe(3);
    expect(contentsOf(cacheDir)).toEqual(before);
    expect(await new FileCacheStore(proposals, { readOnly: true }).list()).toHaveLength(1);

    const diff = await runE2E(['cache', 'diff', cacheDir, proposals, '--cache-dir', cacheDir], { cwd: FIXTURE, env: env() });
    expect(diff.exitCode, output(diff)).toBe(0);
    // The proposal laid over the cache, as accept applies it: the entry it lacks is not removed.
    expect(diff.stdout).toContain('as `e2e cache accept` would apply it: 0 added, 1 replaced, 1 unchanged');
    expect(diff.stdout).toContain('- tap button "Add"\n      + tap button "Create"');

    const accept = await runE2E(['cache', 'accept', proposals, '--cache-dir', cacheDir], { cwd: FIXTURE, env: env() });
    expect(accept.exitCode, output(accept)).toBe(0);
    // The replay of the accepted cache: the next test reads it.
    const accepted = contentsOf(cacheDir);
    const replay = await runE2E(['replay', 'todos.e2e.ts', '--debug'], { cwd: FIXTURE, env: env() });
    acceptedReplay = { run: replay, before: accepted, after: contentsOf(cacheDir), modelCallsAfter: modelCalls() };
    expect(replay.exitCode, output(replay)).toBe(0);
    expect(replay.report?.summary).toMatchObject({ modelCalls: 0, cache: { replayed: 2 } });
    expect(modelCalls()).toBe(3);
    c2 = commit('accepted the healed "Create" step');
    expect(c2).not.toBe(c1);
  }, scaledTimeout(120_000));

  it('replays the suite with no model: exit 0, zero model calls, everything replayed', () => {
    // The accepted cache's replay above (one step healed and accepted, the other as recorded), under --debug.
    const { run, before, after, modelCallsAfter } = acceptedReplay!;
    expect(run.exitCode, output(run)).toBe(0);
    expect(modelCallsAfter).toBe(3);
    expect(run.report?.summary).toMatchObject({ modelCalls: 0, cache: { replayed: 2, handedOff: 0, missed: 0 } });
    expect(run.stdout).toContain('      AI  0 tokens · 0 model calls\n   Cache  2 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified\n');
    expect(run.stdout).toMatch(/\n {2}Report {2}\.e2e\/html-report\/index\.html\n/);
    // --debug: the per-step table, from the report.
    expect(run.stdout).toContain('Steps (--debug): where the time went');
    expect(run.stdout).toMatch(/todos › adds a todo #0 act "add a todo \\"Buy milk\\"".* self-finalized/);
    const timing = stepsOf(run, 'adds a todo')[0]?.timing;
    expect(timing?.modelMs).toBe(0);
    expect(timing!.actionMs).toBeGreaterThan(0);
    expect(after).toEqual(before);
  });

  it('records again after the app changed, and cache diff between the two commits shows exactly the changed step', async () => {
    await relabel('Save');
    const run = await runE2E(['record', 'todos.e2e.ts'], { cwd: FIXTURE, env: env() });
    expect(run.exitCode, output(run)).toBe(0);
    expect(stepsOf(run, 'adds a todo')[0]?.cache).toMatchObject({ mode: 'agent-concluded', write: 'saved' });
    expect(stepsOf(run, 'completes a todo')[0]?.cache).toMatchObject({ mode: 'self-finalized' });
    const c3 = commit('recorded with "Save"');
    const diff = await runE2E(['cache', 'diff', c2, c3, '--cache-dir', cacheDir], { cwd: repository });
    expect(diff.exitCode, output(diff)).toBe(0);
    const tree = git('ls-tree', '-r', '--name-only', c3);
    expect(diff.stdout.split('\n')[0], `${output(diff)}\n${tree}`).toBe(`Cache diff ${c2} → ${c3}: 1 changed, 0 re-keyed, 0 added, 0 removed, 1 unchanged`);
    expect(diff.stdout).toContain('changed   act "add a todo \\"Buy milk\\""');
    expect(diff.stdout).toContain('- tap button "Create"\n      + tap button "Save"');
    expect(diff.stdout).not.toContain('Walk the dog');
  }, scaledTimeout(90_000));

  it('leaves the cache as it was when a recording is interrupted', async () => {
    const before = contentsOf(cacheDir);
    const run = await interrupted(['record', 'interrupt.e2e.ts'], 'WAITING FOR INTERRUPT');
    expect(run.signalled, output(run)).toBe(true);
    expect(run.exitCode).toBe(130);
    expect(run.report).toMatchObject({ status: 'interrupted', exitCode: 130 });
    // The first step passed and was verified; it would have been saved had the attempt finished.
    expect(run.report?.tests[0]?.attempts[0]?.steps[0]).toMatchObject({ status: 'passed', cache: { mode: 'missed', write: 'no-change' } });
    expect(contentsOf(cacheDir)).toEqual(before);
  }, scaledTimeout(60_000));
});

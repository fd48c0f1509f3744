/**
 * The replay corpus: a TodoMVC flow recorded on one implementation from the `todomvc`
 * package, replayed on other implementations of the same spec and on planted regressions
 * (copies of the recorded app with one behaviour broken). Each app is served at the same
 * origin, so the entries' keys, routes and origins fit every app. A step counts as
 * *replayed* when it self-finalized with no executor call, *handed off* otherwise, and as a
 * *false pass* when it self-finalized but the test's own `expect` after it then failed: the
 * replay accepted an outcome the user's verification rejects. Every step that did not replay is
 * classified by the replay (DESIGN §6): *regression* (every action ran, the recorded outcome did
 * not appear) or *drift* (the screen diverged first). On a planted regression, the step it
 * breaks must read as a regression on its own replay, never pass (even where the browser's default
 * lets the test's later `expect` pass). The table is printed.
 *
 * The flows of the replays run a few at a time (most of a planted regression's time is the replay
 * waiting for an outcome that never comes), each in its own browser context; a cookie tells the
 * one server which app that context gets, so every app keeps the same origin. The planted
 * regressions (copies of the light vanilla app) all run at once; the other implementations, whose
 * pages take longer to load, a few at a time.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../cache-format/index.js';
import { surfaceOf } from '../../engines/web/index.js';
import { testWeb } from '../support/test-browser.js';
import type { Engine } from '../../contract/engine.js';
import { startAttempt } from '../support/attempt-harness.js';
import type { LiveScreen } from '../support/live-screen.js';
import { cookieOf, folderRoute, serveStatic, type StaticServer } from '../support/static-server.js';
import { inParallel } from '../support/in-parallel.js';
import { corpusTable, emptyTally, playCorpusStep, regressionWaits, tallyStep, type CorpusTally } from './support/corpus-step.js';
import { TODO_STEPS, todoExecutor } from './support/todo-steps.js';
import { scaledTimeout } from '../support/load-scaled.js';

const EXAMPLES = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples');
const RECORDED_ON = 'vanillajs';
/** Implementations that load offline (no CDN, no build step) and follow the spec's markup closely enough to drive. */
const IMPLEMENTATIONS = ['react', 'backbone', 'angularjs', 'knockoutjs', 'emberjs', 'vue', 'mithril', 'canjs', 'dojo', 'typescript-angular'];

/**
 * Planted regressions: the recorded app with one behaviour broken. The last three break a
 * handler while the browser's default still happens (the commonest real regression): a native
 * checkbox still ticks, a typed title still shows.
 */
/** Where a regression is planted (`from` → `to` in `js/<file>`) and the first step it breaks. */
interface Regression {
  file: string;
  from: string;
  to: string;
  breaks: string;
}

const COMPLETE = 'complete "Buy milk"';
const ADD = 'add todos "Buy milk" and "Walk the dog"';

const REGRESSIONS: Readonly<Record<string, Regression>> = {
  'toggle does nothing': {
    file: 'controller.js',
    from: 'Controller.prototype.toggleComplete = function (id, completed, silent) {',
    to: 'Controller.prototype.toggleComplete = function (id, completed, silent) { return;',
    breaks: COMPLETE,
  },
  'add drops the text': { file: 'controller.js', from: 'that.model.create(title, function () {', to: "that.model.create('-', function () {", breaks: ADD },
  'clear completed removes all': {
    file: 'controller.js',
    from: 'Controller.prototype.removeCompletedItems = function () {\n\t\tvar that = this;\n\t\tthat.model.read({ completed: true }, function (data) {',
    to: 'Controller.prototype.removeCompletedItems = function () {\n\t\tvar that = this;\n\t\tthat.model.read(function (data) {',
    breaks: 'clear completed todos',
  },
  'filter shows all': { file: 'controller.js', from: 'that.model.read({ completed: false }, function (data) {', to: 'that.model.read(function (data) {', breaks: 'show only active todos' },
  // The click never reaches the app's listener; the checkbox ticks by itself.
  'toggle handler never runs': { file: 'view.js', from: "$live('#todo-list .toggle', 'click', function () {", to: "$live('#todo-list .toggle-unbound', 'click', function () {", breaks: COMPLETE },
  // The toggle is saved and the box ticks, but the counter still counts every todo.
  'counter not updated': { file: 'controller.js', from: "that.view.render('updateElementCount', todos.active);", to: "that.view.render('updateElementCount', todos.total);", breaks: COMPLETE },
  // The toggle is saved and the box ticks, but "Clear completed" never shows.
  'clear completed never shows': { file: 'controller.js', from: 'visible: todos.completed > 0', to: 'visible: false', breaks: COMPLETE },
  // The typed title shows in the field, but Enter adds nothing.
  'Enter does nothing': { file: 'view.js', from: "$on(that.$newTodo, 'change', function () {", to: "$on(that.$newTodo, 'change-unbound', function () {", breaks: ADD },
};

interface AppRun extends CorpusTally {
  app: string;
  /** The regressed step replayed as passed by the cache itself (`self-finalized`), whatever the later `expect` said. */
  cacheFalsePasses: number;
  /** Steps that did not replay, by the replay's classification. */
  regressed: number;
  drifted: number;
  /** How the step a planted regression breaks (its `breaks`) was reported by its own replay. */
  broken?: 'regression' | 'drift' | 'passed';
}

/** Flows of other implementations replayed at once. */
const FLOWS_AT_ONCE = 4;
/** Flows of planted regressions replayed at once (all of them): they mostly wait. */
const REGRESSIONS_AT_ONCE = 8;
/** The cookie naming the app of a flow's browser context (a key of `roots`). */
const APP_COOKIE = 'corpus-app';

let server: StaticServer;
/** The app folder of each flow, by its cookie. */
const roots = new Map<string, string>();
const folders: string[] = [];
const cacheFolder = mkdtempSync(join(tmpdir(), 'e2e-corpus-'));
folders.push(cacheFolder);

beforeAll(async () => {
  server = await serveStatic(undefined);
  // A request with no app cookie gets 404s: every flow sets its own.
  server.route(folderRoute((request) => roots.get(cookieOf(request, APP_COOKIE) ?? '') ?? join(cacheFolder, 'no-app')));
});
afterAll(async () => {
  await server.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function plantRegression(name: string): string {
  const { file, from, to } = REGRESSIONS[name]!;
  const folder = mkdtempSync(join(tmpdir(), 'e2e-regression-'));
  folders.push(folder);
  cpSync(join(EXAMPLES, RECORDED_ON), folder, { recursive: true });
  const script = join(folder, 'js', file);
  const source = readFileSync(script, 'utf8');
  if (!source.includes(from)) throw new Error(`the regression "${name}" does not apply to ${RECORDED_ON}'s ${file}`);
  writeFileSync(script, source.replace(from, to));
  return folder;
}

/** Run the whole flow on the app in `folder`: recording (read-write) or replaying (read-only). */
async function runFlow(app: string, folder: string, mode: 'read-write' | 'read-only', broken?: string): Promise<AppRun> {
  const cookie = String(roots.size);
  roots.set(cookie, folder);
  const engine: Engine = testWeb();
  const instance = await engine.start({ baseUrl: server.url });
  const live: LiveScreen = { server, engine, instance, open: () => instance.observe(), close: () => instance.close() };
  const run: AppRun = { ...emptyTally(), app, cacheFalsePasses: 0, regressed: 0, drifted: 0 };
  try {
    await surfaceOf(engine).context().addCookies([{ name: APP_COOKIE, value: cookie, url: server.url }]);
    await instance.session.open(server.url);
    const page = surfaceOf(engine).page();
    // Some implementations render their markup from templates after load.
    await page.waitForSelector('#new-todo, .new-todo', { timeout: scaledTimeout(20_000) });
    const executor = todoExecutor();
    const store = new FileCacheStore(cacheFolder, { readOnly: mode === 'read-only' });
    // On a planted regression the waits run out: at most as long as a user's replay waits.
    const waits = broken === undefined ? { waitForTargetMs: scaledTimeout(1_500) } : regressionWaits(1_500);
    const attempt = startAttempt(live, { cache: { store, mode, ...waits }, executor });
    let allPassed = true;
    for (const step of TODO_STEPS) {
      const played = await playCorpusStep(attempt, executor, step, page);
      const { cache } = played;
      if (cache?.classification === 'regression') run.regressed++;
      if (cache?.classification === 'drift') run.drifted++;
      if (step.instruction === broken) run.broken = played.replayed ? 'passed' : (cache?.classification ?? 'drift');
      if (step.instruction === broken && cache?.mode === 'self-finalized') run.cacheFalsePasses++;
      allPassed &&= played.verified;
      tallyStep(run, step.instruction, played);
    }
    await attempt.finish(allPassed);
  } finally {
    await instance.close();
    await engine.dispose?.();
  }
  return run;
}

function table(runs: readonly AppRun[]): string {
  const rows = [
    ['app', 'replayed', 'handed off', 'false passes', 'regressed step self-finalized', 'failed expects', 'regression', 'drift', 'broken step'],
    ...runs.map((run) => [run.app, run.replayed, run.handedOff, run.falsePasses, run.cacheFalsePasses, run.failedExpects, run.regressed, run.drifted, run.broken ?? '-'].map(String)),
  ];
  return corpusTable(rows);
}

describe('the TodoMVC replay corpus', () => {
  const runs: AppRun[] = [];

  it(`records the flow on ${RECORDED_ON} with every step verified`, async () => {
    const run = await runFlow(`${RECORDED_ON} (recording)`, join(EXAMPLES, RECORDED_ON), 'read-write');
    expect(run.failedExpects, run.details.join('\n')).toBe(0);
    await expect(new FileCacheStore(cacheFolder, { readOnly: true }).list()).resolves.toHaveLength(TODO_STEPS.length);
    runs.push(run);
    // The recorded app itself replays every step.
    runs.push(await runFlow(RECORDED_ON, join(EXAMPLES, RECORDED_ON), 'read-only'));
    expect(runs[1]!.replayed, runs[1]!.details.join('\n')).toBe(TODO_STEPS.length);
  }, scaledTimeout(120_000));

  it('replays on other implementations without a false pass', async () => {
    const replays = await inParallel(IMPLEMENTATIONS, FLOWS_AT_ONCE, (app) => runFlow(app, join(EXAMPLES, app), 'read-only'));
    runs.push(...replays);
    for (const run of replays) expect(run.falsePasses, `${run.app}: ${run.details.join('; ')}`).toBe(0);
    // Most implementations of the same spec replay every step with no executor call.
    expect(replays.filter((run) => run.replayed === TODO_STEPS.length).length).toBeGreaterThanOrEqual(IMPLEMENTATIONS.length - 2);
  }, scaledTimeout(600_000));

  it('never passes a planted regression', async () => {
    const replays = await inParallel(Object.entries(REGRESSIONS), REGRESSIONS_AT_ONCE, ([name, regression]) => runFlow(`regression: ${name}`, plantRegression(name), 'read-only', regression.breaks));
    runs.push(...replays);
    for (const run of replays) {
      // The regression is real: the user's own verification catches it on some step.
      expect(run.failedExpects, run.app).toBeGreaterThan(0);
      expect(run.falsePasses, `${run.app}: ${run.details.join('; ')}`).toBe(0);
      // Counted on the cache's own outcome of the step the regression breaks, not on the later expect.
      expect(run.cacheFalsePasses, `${run.app}: ${run.details.join('; ')}`).toBe(0);
      // And the replay says so: the broken step reads as a regression, not as a stale cache.
      expect(run.broken, `${run.app}: ${run.details.join('; ')}`).toBe('regression');
    }
  }, scaledTimeout(600_000));

  afterAll(() => {
    console.log(`\nTodoMVC corpus (recorded on ${RECORDED_ON}, ${TODO_STEPS.length} steps per app)\n${table(runs)}\n`);
    for (const run of runs) for (const detail of run.details) console.log(`  ${run.app}: ${detail}`);
  });
});

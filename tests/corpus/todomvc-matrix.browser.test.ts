/**
 * A slice of the TodoMVC matrix (`npm run matrix` runs all of it through the binary), in the
 * browser: `add todo "Buy milk" and complete it` recorded plainly (no audit) on Vue and on
 * Backbone, then replayed read-only with no executor on each one's planted regressions (the
 * tick's handler does nothing while the box still ticks, the counter ignores the state, the tick
 * deletes the todo) and on other implementations of the same spec. Counted on the step's own
 * cache outcome: a planted regression is never passed by the cache (whatever the test's later
 * `expect` would say), another implementation replays, and its `expect` then holds.
 *
 * Once a recording is in, its six replays run side by side (most of a planted regression's time
 * is the replay waiting for an outcome that never comes), each in its own browser context; a
 * cookie tells the one server which app that context gets, so every app keeps the same origin.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect as expectPage } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../cache-format/index.js';
import type { CacheOutcome } from '../../contract/cache-outcome.js';
import type { Engine } from '../../contract/engine.js';
import { surfaceOf } from '../../engines/web/index.js';
import { startAttempt } from '../support/attempt-harness.js';
import type { LiveScreen } from '../support/live-screen.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { cookieOf, folderRoute, serveStatic, type StaticServer } from '../support/static-server.js';
import { testWeb } from '../support/test-browser.js';
import { regressionWaits } from './support/corpus-step.js';
import { MATRIX_STEP } from './support/todo-matrix.js';
import { MUTANT_KINDS, plantMutant, TODOMVC_EXAMPLES, type MutatedImplementation } from './support/todo-mutants.js';
import { todoExecutor, todoItems } from './support/todo-steps.js';

const RECORDED_ON: readonly MutatedImplementation[] = ['vue', 'backbone'];
/** Other markup for the same spec: React's toggle-all has no label, Dojo says "0 item left", vanilla names the toggle-all. */
const OTHERS = ['react', 'dojo', 'vanillajs'] as const;

/** The cookie naming the app of a play's browser context (a key of `roots`). */
const APP_COOKIE = 'matrix-app';

let server: StaticServer;
/** The app folder of each play, by its cookie. */
const roots = new Map<string, string>();
const folders: string[] = [];
const caches = new Map<MutatedImplementation, string>();

interface Played {
  cache: CacheOutcome | undefined;
  /** Passed by the cache with no executor call. */
  passedByCache: boolean;
  /** The test's own check after the step: the todo is done and the counter says none is left. */
  expectHeld: boolean;
}

/** Play the step on the app in `folder`, in a browser context of its own: recording (read-write) or replaying (read-only); `planted`: the app is a planted regression. */
async function play(folder: string, cacheFolder: string, mode: 'read-write' | 'read-only', planted = false): Promise<Played> {
  const cookie = String(roots.size);
  roots.set(cookie, folder);
  const engine: Engine = testWeb();
  const instance = await engine.start({ baseUrl: server.url });
  const live: LiveScreen = { server, engine, instance, open: () => instance.observe(), close: () => instance.close() };
  try {
    await surfaceOf(engine).context().addCookies([{ name: APP_COOKIE, value: cookie, url: server.url }]);
    await instance.session.open(server.url);
    const page = surfaceOf(engine).page();
    await page.waitForSelector('#new-todo, .new-todo', { timeout: scaledTimeout(20_000) });
    const executor = todoExecutor();
    const store = new FileCacheStore(cacheFolder, { readOnly: mode === 'read-only' });
    // On a planted regression the waits run out: at most as long as a user's replay waits.
    const waits = planted ? regressionWaits(1_500) : { waitForTargetMs: scaledTimeout(1_500) };
    const attempt = startAttempt(live, { cache: { store, mode, ...waits }, executor });
    const outcome = await attempt.act(MATRIX_STEP);
    let expectHeld = false;
    if (outcome.verdict.status === 'passed') {
      try {
        const done = todoItems(page).filter({ has: page.getByRole('checkbox', { checked: true }) });
        await expectPage(done).toHaveCount(1, { timeout: 2_000 });
        await expectPage(page.locator('#todo-count, .todo-count')).toHaveText(/^\s*0\s+items?\s+left\s*$/, { timeout: 2_000 });
        await attempt.verifyLocator(done);
        expectHeld = true;
      } catch {
        expectHeld = false;
      }
    }
    await attempt.finish(expectHeld);
    const cache = outcome.cache as CacheOutcome | undefined;
    return { cache, passedByCache: cache?.mode === 'self-finalized' && executor.calls === 0, expectHeld };
  } finally {
    await instance.close();
    await engine.dispose?.();
  }
}

beforeAll(async () => {
  server = await serveStatic(undefined);
  // A request with no app cookie gets 404s: every play sets its own.
  server.route(folderRoute((request) => roots.get(cookieOf(request, APP_COOKIE) ?? '') ?? join(TODOMVC_EXAMPLES, 'no-app')));
});

afterAll(async () => {
  await server.close();
  for (const folder of [...folders, ...caches.values()]) rmSync(folder, { recursive: true, force: true });
});

describe.each(RECORDED_ON.map((app) => [app]))('a plain recording on %s', (app) => {
  it('records the step with what it produced required', async () => {
    const cacheFolder = mkdtempSync(join(tmpdir(), `e2e-matrix-${app}-`));
    caches.set(app, cacheFolder);
    const recorded = await play(join(TODOMVC_EXAMPLES, app), cacheFolder, 'read-write');
    expect(recorded.expectHeld).toBe(true);
    const store = new FileCacheStore(cacheFolder, { readOnly: true });
    const [ref] = await store.list();
    const read = await store.read(ref!.key);
    if (read.kind !== 'hit' || read.entry.kind !== 'act') throw new Error(`the entry does not read: ${read.kind}`);
    const { appeared } = read.entry;
    // The counter and "Clear completed" changed right after the tick (action 3): required, whatever their basis.
    const producedBy = (label: string) => appeared.find((control) => (control.text ?? control.name) === label)?.producedBy;
    expect(producedBy('0 items left')).toEqual([2]);
    expect(producedBy('Clear completed (1)')).toEqual([2]);
  }, scaledTimeout(120_000));

  // The six replays of the recording run at once (consecutive concurrent tests share one group).
  it.concurrent.for(MUTANT_KINDS)('never passes the planted regression "%s"', { timeout: scaledTimeout(120_000) }, async (kind, { expect }) => {
    const folder = plantMutant(app, kind);
    folders.push(folder);
    const played = await play(folder, caches.get(app)!, 'read-only', true);
    expect(played.passedByCache, played.cache?.detail).toBe(false);
    expect(['regression', 'drift']).toContain(played.cache?.classification);
  });

  it.concurrent.for(OTHERS)('replays on %s with no executor call, and the expect after it holds', { timeout: scaledTimeout(120_000) }, async (other, { expect }) => {
    const played = await play(join(TODOMVC_EXAMPLES, other), caches.get(app)!, 'read-only');
    expect(played.passedByCache, played.cache?.detail).toBe(true);
    expect(played.expectHeld).toBe(true);
  });
});

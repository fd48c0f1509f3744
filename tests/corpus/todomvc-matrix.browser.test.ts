/**
 * A slice of the TodoMVC matrix (`npm run matrix` runs all of it through the binary), in the
 * browser: `add todo "Buy milk" and complete it` recorded plainly (no audit) on Vue and on
 * Backbone, then replayed read-only with no executor on each one's planted regressions (the
 * tick's handler does nothing while the box still ticks, the counter ignores the state, the tick
 * deletes the todo) and on other implementations of the same spec. Counted on the step's own
 * cache outcome: a planted regression is never passed by the cache (whatever the test's later
 * `expect` would say), another implementation replays, and its `expect` then holds.
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
import { folderRoute, serveStatic, type StaticServer } from '../support/static-server.js';
import { testWeb } from '../support/test-browser.js';
import { MATRIX_STEP } from './support/todo-matrix.js';
import { MUTANT_KINDS, plantMutant, TODOMVC_EXAMPLES, type MutatedImplementation } from './support/todo-mutants.js';
import { todoExecutor, todoItems } from './support/todo-steps.js';

const RECORDED_ON: readonly MutatedImplementation[] = ['vue', 'backbone'];
/** Other markup for the same spec: React's toggle-all has no label, Dojo says "0 item left", vanilla names the toggle-all. */
const OTHERS = ['react', 'dojo', 'vanillajs'] as const;

let server: StaticServer;
let engine: Engine;
let root = TODOMVC_EXAMPLES;
const folders: string[] = [];
const caches = new Map<MutatedImplementation, string>();

interface Played {
  cache: CacheOutcome | undefined;
  /** Passed by the cache with no executor call. */
  passedByCache: boolean;
  /** The test's own check after the step: the todo is done and the counter says none is left. */
  expectHeld: boolean;
}

async function play(folder: string, cacheFolder: string, mode: 'read-write' | 'read-only'): Promise<Played> {
  root = folder;
  const instance = await engine.start({ baseUrl: server.url });
  const live: LiveScreen = { server, engine, instance, open: () => instance.observe(), close: () => instance.close() };
  try {
    await instance.session.open(server.url);
    const page = surfaceOf(engine).page();
    await page.waitForSelector('#new-todo, .new-todo', { timeout: scaledTimeout(20_000) });
    const executor = todoExecutor();
    const store = new FileCacheStore(cacheFolder, { readOnly: mode === 'read-only' });
    const attempt = startAttempt(live, { cache: { store, mode, waitForTargetMs: scaledTimeout(1_500) }, executor });
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
  }
}

beforeAll(async () => {
  server = await serveStatic(undefined);
  server.route(folderRoute(() => root));
  engine = testWeb();
});

afterAll(async () => {
  await engine.dispose?.();
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

  it.each(MUTANT_KINDS.map((kind) => [kind]))('never passes the planted regression "%s"', async (kind) => {
    const folder = plantMutant(app, kind);
    folders.push(folder);
    const played = await play(folder, caches.get(app)!, 'read-only');
    expect(played.passedByCache, played.cache?.detail).toBe(false);
    expect(['regression', 'drift']).toContain(played.cache?.classification);
  }, scaledTimeout(120_000));

  it.each(OTHERS.map((other) => [other]))('replays on %s with no executor call, and the expect after it holds', async (other) => {
    const played = await play(join(TODOMVC_EXAMPLES, other), caches.get(app)!, 'read-only');
    expect(played.passedByCache, played.cache?.detail).toBe(true);
    expect(played.expectHeld).toBe(true);
  }, scaledTimeout(120_000));
});

/**
 * A recorded target whose words more rows hold than the web engine reads (issue 34): on a page
 * of 20,000 list items in Chromium (the 200,000-item log viewer of huge.html, shorter: this needs
 * only more matching rows than the engine reads), 11,111 items hold "item 1" ("Item 1",
 * "Item 10", …, "Item 19,999"), far past the 1,500 the engine reads of one run. The rows it
 * leaves out still say, on their placeholders, that they hold the words; a replay then cannot
 * tell the target apart from a twin it never read and stops as ambiguous instead of taking the
 * one it read.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../cache-format/index.js';
import { surfaceOf } from '../../engines/web/index.js';
import { OMITTED_ROLE, type Engine, type ScreenNode } from '../../contract/engine.js';
import type { StepContext, StepExecutor } from '../../contract/step-contract.js';
import { startAttempt, startPoliced } from '../support/attempt-harness.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { serveStatic, type StaticServer } from '../support/static-server.js';
import { tempFolders } from '../support/temp-folders.js';
import { testWeb } from '../support/test-browser.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'engines', 'web', 'fixtures');
const INSTRUCTION = 'select item 1 of the log';
const tempFolder = tempFolders('e2e-unread-lookalikes-');

let site: StaticServer;
let engine: Engine;

beforeAll(async () => {
  site = await serveStatic(FIXTURES);
  engine = testWeb();
});

afterAll(async () => {
  await engine.dispose?.();
  await site.close();
});

/** A fresh attempt on the page of 20,000 items (no list markers, as a log viewer: their layout is most of a load), loaded. */
async function longPage(): Promise<Awaited<ReturnType<typeof startPoliced>>> {
  const started = await startPoliced(engine, site.url);
  await surfaceOf(engine).page().goto(`${site.origin}/huge.html?count=20000&bullets=none`, { waitUntil: 'domcontentloaded', timeout: scaledTimeout(30_000) });
  return started;
}

/** The recording's stand-in for the model: finds "Item 1" (the first node holding the words) and taps it. */
const selecting: StepExecutor = {
  name: 'selecting',
  async runStep(context: StepContext) {
    const found = await context.observe({ find: 'Item 1' });
    expect(found.found?.partial).toBe(true);
    await context.actions.tap({ id: found.found!.ids[0]! });
    return { status: 'passed', summary: 'Selected item 1.' };
  },
};

/** The placeholders of a tree. */
function placeholdersOf(root: ScreenNode): ScreenNode[] {
  const found: ScreenNode[] = [];
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.role === OMITTED_ROLE) found.push(node);
    for (const child of node.children) stack.push(child);
  }
  return found;
}

describe('a recorded target whose words more rows hold than the engine reads, on a page of 20,000 items', () => {
  it('says on the placeholders which asked words the rows left out hold, and only those', { timeout: scaledTimeout(60_000) }, async () => {
    const { instance } = await longPage();
    try {
      const screen = await instance.observe({ bounds: { maxRun: 1_500 }, include: { text: ['Item 1', 'item 15,000'] } });
      expect(screen.includePartial).toBe(true);
      const placeholders = placeholdersOf(screen.root);
      const holding = placeholders.filter((node) => node.omitted?.holding !== undefined);
      expect(holding.length).toBeGreaterThan(0);
      for (const node of holding) expect(node.omitted?.holding).toEqual(['item 1']);
      // Each text gets its own 1,500: the one item holding "item 15,000" is read, past 1,500 of the 11,111 holding "item 1".
      const text = JSON.stringify(screen.root);
      expect(text).toContain('"Item 15,000"');
      expect(text).toContain('"Item 1"');
      expect(holding.reduce((total, node) => total + (node.omitted?.count ?? 0), 0)).toBeGreaterThan(9_000);
      // Asked only for words fewer rows hold than the engine reads: no placeholder claims any.
      const within = await instance.observe({ bounds: { maxRun: 1_500 }, include: { text: ['item 15,000'] } });
      expect(within.includePartial).toBeUndefined();
      expect(placeholdersOf(within.root).length).toBeGreaterThan(0);
      expect(placeholdersOf(within.root).every((node) => node.omitted?.holding === undefined)).toBe(true);
    } finally {
      await instance.close();
    }
  });

  it('stops the replay as ambiguous when a twin "Item 1" sits among the rows left out, and taps nothing', { timeout: scaledTimeout(90_000) }, async () => {
    const store = new FileCacheStore(join(tempFolder(), 'cache'));
    const recording = await longPage();
    const recorder = recording.police(startAttempt({ instance: recording.instance, engine, origin: site.origin }, { executor: selecting, cache: { store } }));
    const picked = await recorder.act(INSTRUCTION);
    expect(picked.verdict).toEqual({ status: 'passed', summary: 'Selected item 1.' });
    recorder.verify();
    const writes = await recorder.finish();
    expect(writes.map((write) => write.outcome.write)).toEqual(['saved']);
    await recording.instance.close();

    const replaying = await longPage();
    const page = surfaceOf(engine).page();
    // Item 15,001 becomes a second "Item 1": past the first 1,500 rows holding "item 1", so the engine leaves it out.
    await page.evaluate(() => {
      document.getElementById('log')!.children[15_000]!.textContent = 'Item 1';
    });
    const replayer = replaying.police(startAttempt({ instance: replaying.instance, engine, origin: site.origin }, { cache: { store, waitForTargetMs: 10_000 } }));
    const again = await replayer.act(INSTRUCTION);
    await replayer.finish();
    expect(again.cache).toMatchObject({ mode: 'missed', reason: 'target-ambiguous' });
    expect(again.cache?.detail).toMatch(/cannot be told apart: more nodes hold "item 1" than a screen reads/);
    // Nothing was tapped: the status still says so.
    expect(await page.evaluate(() => document.getElementById('status')!.textContent)).toBe('Nothing selected');
    await replaying.instance.close();
  });
});

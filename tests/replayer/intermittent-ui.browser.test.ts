/**
 * Intermittent UI through the real step runner, the attempt cache and a real store on
 * Chromium: a grocery page whose consent dialog shows or not (`#banner=1`), with a sale
 * banner that can lie over the form (`#promo=1`) and a planted regression (`#broken=1`).
 * A scripted executor stands in for the model.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore, type ActEntry } from '../../cache-format/index.js';
import { entryChanges } from '../../review/entry-changes.js';
import { entryLines } from '../../review/entry-text.js';
import type { CacheOutcome } from '../../contract/cache-outcome.js';
import type { ScreenNode } from '../../contract/engine.js';
import type { ReplayedPrefix, StepContext, StepExecutor, StepVerdict } from '../../contract/step-contract.js';
import type { DismissingAction } from '../../semantics/dismissal.js';
import { startAttempt } from '../support/attempt-harness.js';
import { startLiveScreen, type LiveScreen } from '../support/live-screen.js';
import { allNodes, nodeNamed } from '../support/screen-tree.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));
const ADD = 'add {title} to the list';

let live: LiveScreen;
const folders: string[] = [];
beforeAll(async () => {
  live = await startLiveScreen(FIXTURES);
});
afterAll(async () => {
  await live.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function newStore(): FileCacheStore {
  const folder = mkdtempSync(join(tmpdir(), 'e2e-intermittent-'));
  folders.push(folder);
  return new FileCacheStore(join(folder, 'cache'));
}

type Scripted = StepExecutor & { calls: number; prefixes: (ReplayedPrefix | undefined)[]; sawConsent: boolean[] };

async function tree(context: StepContext): Promise<ScreenNode> {
  return (await context.observe({ tree: true })).tree!;
}

function hasConsent(root: ScreenNode): boolean {
  return allNodes(root).some((node) => node.role === 'dialog' && node.name === 'Cookie consent');
}

/**
 * Stands in for the model. `accept`: accept the cookies when asked, then add the item;
 * `choices`: turn analytics off and save, then add; `accept-only`: accept the cookies and
 * stop; `notice`: look, and report the step failed (a model that sees the app is broken).
 */
function groceryExecutor(mode: 'accept' | 'choices' | 'accept-only' | 'notice' = 'accept'): Scripted {
  const executor: Scripted = {
    name: 'scripted',
    version: '1.0.0',
    calls: 0,
    prefixes: [],
    sawConsent: [],
    async runStep(context): Promise<StepVerdict> {
      executor.calls++;
      executor.prefixes.push(context.replayedPrefix);
      const title = context.step.params.title ?? '';
      const screen = await tree(context);
      executor.sawConsent.push(hasConsent(screen));
      if (mode === 'notice') return { status: 'failed', summary: 'The step cannot be done as asked.' };
      if (mode === 'choices') {
        await context.actions.check({ id: nodeNamed(screen, 'checkbox', 'Analytics').id }, false);
        await context.actions.tap({ id: nodeNamed(await tree(context), 'button', 'Save choices').id });
      } else if (hasConsent(screen)) {
        await context.actions.tap({ id: nodeNamed(screen, 'button', 'Accept cookies').id });
      }
      if (mode === 'accept-only') return { status: 'passed', summary: 'Accepted the cookies.' };
      await context.actions.type({ id: nodeNamed(await tree(context), 'textbox', 'New item').id }, title, { replace: true });
      await context.actions.tap({ id: nodeNamed(await tree(context), 'button', 'Add').id });
      return { status: 'passed', summary: `Added ${title}.` };
    },
  };
  return executor;
}

interface Run {
  verdict: StepVerdict;
  modelCalls: number;
  cache: CacheOutcome | undefined;
  write: CacheOutcome | undefined;
  executor: Scripted;
}

interface RunOptions {
  executor?: Scripted;
  instruction?: string;
  strict?: boolean;
  /** The step's time; a short one makes the engine's actionability wait give up soon. */
  timeoutMs?: number;
}

/** One attempt with one verified `act` step on `page`. */
async function runOnce(page: string, store: FileCacheStore, options: RunOptions = {}): Promise<Run> {
  const { executor = groceryExecutor(), instruction = ADD, strict = false, timeoutMs } = options;
  await live.open(page);
  const attempt = startAttempt(live, { cache: { store, strict }, executor });
  const outcome = await attempt.runner.runStep('act', instruction, { params: { title: 'Oat milk' }, ...(timeoutMs === undefined ? {} : { timeout: scaledTimeout(timeoutMs) }) });
  const passed = outcome.verdict.status === 'passed';
  if (passed) attempt.verify();
  const reports = await attempt.finish(passed);
  return { verdict: outcome.verdict, modelCalls: outcome.modelCalls, cache: outcome.cache as CacheOutcome | undefined, write: reports[0]?.outcome, executor };
}

async function recordOn(page: string, store: FileCacheStore, options: RunOptions = {}): Promise<ActEntry> {
  const run = await runOnce(page, store, options);
  expect(run.write).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'saved' });
  const read = await store.read(run.write!.entry!);
  if (read.kind !== 'hit' || read.entry.kind !== 'act') throw new Error(`the entry did not read back: ${read.kind}`);
  return read.entry;
}

async function listItems(): Promise<string[]> {
  const { root } = await live.instance.observe();
  return allNodes(root).filter((node) => node.role === 'listitem').map((node) => node.name);
}

const ACCEPT = 'tap button "Accept cookies" in dialog "Cookie consent"';
const SKIPPED = `skipped: action 1 of 3, ${ACCEPT}: its dialog was absent`;

describe('a consent dialog recorded, absent or present at replay', () => {
  let store: FileCacheStore;
  let entry: ActEntry;
  beforeAll(async () => {
    store = newStore();
    entry = await recordOn('consent.html#banner=1', store);
  });

  it('marks the accept tap as dismissing the dialog, and cache show says so', () => {
    expect(entry.actions[0]).toMatchObject({ verb: 'tap', target: { role: 'button', name: 'Accept cookies' }, dismisses: { role: 'dialog', name: 'Cookie consent' } });
    expect(entry.actions.slice(1).every((action) => !('dismisses' in action))).toBe(true);
    const lines = entryLines(entry, { blob: 'b', storedVersion: 1 });
    expect(lines).toContain(`  1. ${ACCEPT} (dismisses dialog "Cookie consent")`);
    expect(lines).toContain('  dismissal: action 1 closes dialog "Cookie consent"; skipped when it is absent');
    // cache diff: a re-recording that gained the mark shows it among the end checks.
    const { dismisses: _mark, ...unmarked } = entry.actions[0] as DismissingAction;
    const before: ActEntry = { ...entry, actions: [unmarked, ...entry.actions.slice(1)] };
    expect(entryChanges(before, entry).endChecks).toContainEqual({ change: 'added', text: 'dismissal: action 1 closes dialog "Cookie consent"; skipped when it is absent' });
  });

  it('replays with no model call when the dialog is absent, and the outcome names the skip', async () => {
    const replay = await runOnce('consent.html', store);
    expect(replay.executor.calls).toBe(0);
    expect(replay.modelCalls).toBe(0);
    expect(replay.verdict.status).toBe('passed');
    expect(replay.cache).toEqual({ mode: 'self-finalized', entry: entry.key, detail: SKIPPED });
    expect(await listItems()).toEqual(['Oat milk']);
  });

  it('replays the dismissal as recorded when the dialog shows, with nothing skipped', async () => {
    const replay = await runOnce('consent.html#banner=1', store);
    expect(replay.executor.calls).toBe(0);
    expect(replay.cache).toEqual({ mode: 'self-finalized', entry: entry.key });
    const { root } = await live.instance.observe();
    expect(hasConsent(root)).toBe(false);
  });

  it('waits a moment for a dialog that renders late, and dismisses it', async () => {
    const replay = await runOnce('consent.html#banner=late', store);
    expect(replay.executor.calls).toBe(0);
    expect(replay.cache).toEqual({ mode: 'self-finalized', entry: entry.key });
  });

  it('still fails a planted regression while the dialog is absent: Add does nothing, the replay hands off', async () => {
    // Strict: every action ran and only the outcome is missing: a regression, failed like an expectation.
    const strict = await runOnce('consent.html#broken=1', store, { strict: true });
    expect(strict.verdict).toMatchObject({ status: 'failed', errorCode: 'ASSERTION_FAILED' });
    expect(strict.verdict.summary).toContain('regression: after its last action');
    expect(strict.verdict.summary).toContain('status with text "Added Oat milk" did not appear');
    expect(strict.cache).toMatchObject({ classification: 'regression' });
    const noticing = groceryExecutor('notice');
    const replay = await runOnce('consent.html#broken=1', store, { executor: noticing });
    expect(replay.cache).toMatchObject({ mode: 'agent-concluded', reason: 'end-mismatch', entry: entry.key, classification: 'regression' });
    expect(replay.cache?.detail).toMatch(/^after all 3 actions, /);
    expect(noticing.calls).toBe(1);
    expect(replay.verdict.status).toBe('failed');
  });
});

describe('a dialog only the replay has', () => {
  it('hands off with what is in the way, and leaves the dialog for the agent', async () => {
    const store = newStore();
    const entry = await recordOn('consent.html', store);
    expect(entry.actions).toHaveLength(2);
    const agent = groceryExecutor('notice');
    const replay = await runOnce('consent.html#banner=1', store, { executor: agent });
    expect(replay.cache).toEqual({
      mode: 'agent-concluded',
      reason: 'action-failed',
      detail: 'at action 2 of 2, tap button "Add": dialog "Cookie consent" is in the way',
      entry: entry.key,
      classification: 'drift',
    });
    expect(agent.prefixes[0]).toMatchObject({ actions: ['type "Oat milk" into textbox "New item"'], lastMayHaveCommitted: false });
    expect(agent.sawConsent).toEqual([true]);
  });
});

describe('a container gone for a reason the step depended on', () => {
  it('does not mark a tap whose dialog an earlier action of the step worked in', async () => {
    const entry = await recordOn('consent.html#banner=1', newStore(), { executor: groceryExecutor('choices'), instruction: 'turn analytics off and add {title}' });
    expect(entry.actions.map((action) => action.verb)).toEqual(['check', 'tap', 'type', 'tap']);
    expect(entry.actions.some((action) => 'dismisses' in action)).toBe(false);
  });

  it('does not mark a tap whose dialog going away is all the step proves', async () => {
    const entry = await recordOn('consent.html#banner=1', newStore(), { executor: groceryExecutor('accept-only'), instruction: 'accept the cookies' });
    expect(entry.actions).toHaveLength(1);
    expect(entry.actions[0]).not.toHaveProperty('dismisses');
  });
});

describe('replays that must not pass', () => {
  it('refuses to pass a replay whose every action was skipped', async () => {
    const store = newStore();
    const entry = await recordOn('consent.html#banner=1', store);
    await store.write({ ...entry, actions: [entry.actions[0]!] }, { overwrite: true });
    const agent = groceryExecutor('notice');
    const replay = await runOnce('consent.html', store, { executor: agent });
    expect(replay.cache).toEqual({
      mode: 'agent-concluded',
      reason: 'end-mismatch',
      detail: `every action was skipped (action 1 of 1, ${ACCEPT}: its dialog was absent), so nothing the replay did proves the step`,
      entry: entry.key,
      // Nothing was performed, so the missing outcome blames the screen, not the app.
      classification: 'drift',
    });
    expect(agent.calls).toBe(1);
  });

  it('names a banner the engine says takes the pointer, found on the screen', async () => {
    const store = newStore();
    const entry = await recordOn('consent.html', store);
    const agent = groceryExecutor('notice');
    const replay = await runOnce('consent.html#promo=1', store, { executor: agent, timeoutMs: 4_000 });
    expect(replay.cache).toEqual({ mode: 'agent-concluded', reason: 'action-failed', detail: 'at action 2 of 2, tap button "Add": region "Spring sale" is in the way', entry: entry.key, classification: 'drift' });
    // The engine gave up before sending any input.
    expect(agent.prefixes[0]).toMatchObject({ actions: ['type "Oat milk" into textbox "New item"'], lastMayHaveCommitted: false });
  });

  it('names a modal dialog whose box is elsewhere, once the engine says it takes the pointer', async () => {
    const store = newStore();
    await recordOn('consent.html', store);
    const replay = await runOnce('consent.html#news=1', store, { executor: groceryExecutor('notice'), timeoutMs: 4_000 });
    expect(replay.cache).toMatchObject({ mode: 'agent-concluded', reason: 'action-failed', detail: 'at action 2 of 2, tap button "Add": dialog "What\'s new" is in the way' });
  });
});

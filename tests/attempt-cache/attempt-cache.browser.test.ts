/**
 * The cache plug end to end: the real step runner on real Chromium, a scripted executor
 * standing in for the model, the attempt cache on the runner's two seams, and a real file
 * store. Every replay reason comes from a real change of the fixture page.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobPath, FileCacheStore } from '../../cache-format/index.js';
import type { CacheOutcome } from '../../contract/cache-outcome.js';
import type { ScreenNode } from '../../contract/engine.js';
import { secret, unique } from '../../secrets/vault.js';
import type { ReplayedPrefix, StepContext, StepExecutor, StepVerdict } from '../../contract/step-contract.js';
import { describeAction } from '../../semantics/describe-action.js';
import { startAttempt, type AttemptHarness, type AttemptOptions, type HarnessCache } from '../support/attempt-harness.js';
import { snapshotTree } from '../support/directory-snapshot.js';
import { find } from '../support/hand-built-tree.js';
import { liveScreenPerFile, type LiveScreen } from '../support/live-screen.js';
import { allNodes } from '../support/screen-tree.js';
import { tempFolders } from '../support/temp-folders.js';

const ADD = 'add a todo {title} and complete it';

let live: LiveScreen;
// The todo page without Delete buttons or times of day: a step that adds and completes a todo.
liveScreenPerFile((started) => (live = started), { '/todos.html': { page: 'todos.html', knobs: 'delete=0&stamp=0' } });
const tempFolder = tempFolders('e2e-attempt-cache-');

/** A cache folder with a hit ledger beside it. */
function newCache(): { dir: string; hits: string; store: FileCacheStore } {
  const root = tempFolder();
  const dir = join(root, 'cache');
  const hits = join(root, 'hits');
  return { dir, hits, store: new FileCacheStore(dir, { hitsDirectory: hits }) };
}

type Scripted = StepExecutor & { calls: number; prefixes: (ReplayedPrefix | undefined)[] };

async function tree(context: StepContext): Promise<ScreenNode> {
  return (await context.observe({ tree: true })).tree!;
}

/**
 * Stands in for the model on the todo page: type the title (a param, or the code read off
 * the screen), tap Add (or its renamed self), tick the new item. After a hand-off it goes on
 * from where the replayed prefix stopped, as an agent reading `ctx.replayedPrefix` would.
 */
function todoExecutor(): Scripted {
  const executor: Scripted = {
    name: 'scripted',
    version: '1.0.0',
    calls: 0,
    prefixes: [],
    async runStep(context) {
      executor.calls++;
      executor.prefixes.push(context.replayedPrefix);
      const screen = await context.observe();
      const title = context.step.params.title ?? /Today's code: ([A-Z]{6})/.exec(screen.text)?.[1] ?? '';
      const steps = [
        async () => context.actions.type({ id: find(await tree(context), 'textbox', 'New todo').id }, title, { replace: true }),
        async () => {
          const button = allNodes(await tree(context)).find((node) => node.role === 'button' && (node.name === 'Add' || node.name === 'Create'))!;
          return context.actions.tap({ id: button.id });
        },
        async () => {
          const item = find(await tree(context), 'listitem', title);
          return context.actions.check({ id: item.children.find((child) => child.role === 'checkbox')!.id }, true);
        },
      ];
      for (const step of steps.slice(context.replayedPrefix?.actions.length ?? 0)) await step();
      return { status: 'passed', summary: `Added and completed ${title}.` };
    },
  };
  return executor;
}

/** An executor that looks at the screen and reports the step failed (a model noticing a regression). */
function noticingExecutor(): Scripted {
  const executor: Scripted = {
    name: 'scripted',
    calls: 0,
    prefixes: [],
    runStep(context): Promise<StepVerdict> {
      executor.calls++;
      executor.prefixes.push(context.replayedPrefix);
      return Promise.resolve({ status: 'failed', summary: 'Add did nothing: no new todo appeared.' });
    },
  };
  return executor;
}

interface Run {
  outcome: Awaited<ReturnType<AttemptHarness['act']>>;
  cache: CacheOutcome | undefined;
  write: CacheOutcome | undefined;
  executor: Scripted;
}

/** One attempt with one `act` step on `page`, verified when it passed; returns the step's outcomes. */
async function runOnce(
  page: string,
  options: HarnessCache &
    Pick<AttemptOptions, 'retry' | 'secrets' | 'context'> & { executor?: Scripted; params?: Record<string, string | ReturnType<typeof unique> | ReturnType<typeof secret>>; instruction?: string; verified?: boolean },
): Promise<Run> {
  await live.open(page);
  const executor = options.executor ?? todoExecutor();
  const { store, mode, strict, proposalStore, hitsEnabled, waitForTargetMs, retry, secrets, context } = options;
  const attempt = startAttempt(live, { cache: { store, mode, strict, proposalStore, hitsEnabled, waitForTargetMs }, executor, retry, secrets, context });
  const outcome = await attempt.act(options.instruction ?? ADD, options.params ?? { title: 'Buy milk' });
  const passed = outcome.verdict.status === 'passed';
  if (passed && options.verified !== false) attempt.verify();
  const reports = await attempt.finish(passed);
  return { outcome, cache: outcome.cache as CacheOutcome | undefined, write: reports[0]?.outcome, executor };
}

/** Record the todo step into `store` and return its key. */
async function record(store: FileCacheStore, options: Partial<Parameters<typeof runOnce>[1]> = {}): Promise<string> {
  const run = await runOnce('todos.html', { store, ...options });
  expect(run.write).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'saved' });
  return run.write!.entry!;
}

async function checkedItems(): Promise<string[]> {
  const { root } = await live.instance.observe();
  return allNodes(root)
    .filter((node) => node.role === 'listitem' && node.children.some((child) => child.role === 'checkbox' && child.states.includes('checked')))
    .map((node) => node.name);
}

describe('record and replay through the attempt cache', () => {
  it('records a verified step, then replays it with no executor call', async () => {
    const { store } = newCache();
    const key = await record(store);
    const replay = await runOnce('todos.html', { store });
    expect(replay.executor.calls).toBe(0);
    expect(replay.outcome.verdict).toEqual({ status: 'passed', summary: 'Added and completed Buy milk.' });
    expect(replay.outcome.modelCalls).toBe(0);
    expect(replay.outcome.actions).toEqual(['type "Buy milk" into textbox "New todo"', 'tap button "Add"', 'check checkbox "Toggle"']);
    expect(replay.cache).toEqual({ mode: 'self-finalized', entry: key });
    expect(replay.write).toEqual({ mode: 'self-finalized', entry: key, write: 'no-change' });
    expect(await checkedItems()).toEqual(['Buy milk']);
  });

  it('saves nothing for a step no verification followed', async () => {
    const { store, dir } = newCache();
    const run = await runOnce('todos.html', { store, verified: false });
    expect(run.write).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'unconfirmed' });
    expect(snapshotTree(dir)).toEqual({});
  });

  it('saves nothing when the attempt fails after the step', async () => {
    const { store, dir } = newCache();
    await live.open('todos.html');
    const attempt = startAttempt(live, { cache: { store }, executor: todoExecutor() });
    await attempt.act(ADD, { title: 'Buy milk' });
    attempt.verify();
    const reports = await attempt.finish(false);
    expect(reports[0]?.outcome.write).toBe('unconfirmed');
    expect(snapshotTree(dir)).toEqual({});
  });

  it('notes a replay in the hit ledger, outside the cache folder', async () => {
    const { store, dir } = newCache();
    const key = await record(store);
    const before = snapshotTree(dir);
    await runOnce('todos.html', { store, hitsEnabled: true });
    expect([...(await store.readHits()).keys()]).toEqual([key]);
    expect(snapshotTree(dir)).toEqual(before);
  });

  it('leaves the blob and ref files untouched when a re-recording has the same flow', async () => {
    const { store, dir } = newCache();
    await record(store);
    const before = snapshotTree(dir);
    const bytesBefore = Object.keys(before).map((path) => readFileSync(join(dir, path)));
    const retry = await runOnce('todos.html', { store, retry: 1 });
    expect(retry.executor.calls).toBe(1);
    expect(retry.write).toMatchObject({ mode: 'missed', reason: 'retry', write: 'kept' });
    expect(snapshotTree(dir)).toEqual(before);
    expect(Object.keys(before).map((path) => readFileSync(join(dir, path)))).toEqual(bytesBefore);
  });

  it('replays unique() values with this run’s value', async () => {
    const { store } = newCache();
    const key = await record(store, { params: { title: unique('Milk run one') } });
    const replay = await runOnce('todos.html', { store, params: { title: unique('Milk run two') } });
    expect(replay.executor.calls).toBe(0);
    expect(replay.cache).toEqual({ mode: 'self-finalized', entry: key });
    expect(replay.outcome.verdict.summary).toBe('Added and completed Milk run two.');
    expect(await checkedItems()).toEqual(['Milk run two']);
  });

  it('types a secret on replay while no cache byte holds its value', async () => {
    const password = 'correct horse battery';
    const digest = createHash('sha256').update(password).digest('hex');
    const { store, dir } = newCache();
    const signIn = (): Scripted => {
      const executor: Scripted = {
        name: 'scripted',
        calls: 0,
        prefixes: [],
        async runStep(context) {
          executor.calls++;
          await context.actions.type({ id: find(await tree(context), 'textbox', 'User name').id }, 'admin');
          await context.actions.typeSecret({ id: find(await tree(context), 'textbox', 'Password').id }, 'adminPassword');
          await context.actions.tap({ id: find(await tree(context), 'button', 'Sign in').id });
          return { status: 'passed', summary: 'Signed in as admin.' };
        },
      };
      return executor;
    };
    const options = { store, secrets: { adminPassword: password }, instruction: 'sign in as admin with {password}', params: { password: secret('adminPassword') } };
    const recorded = await runOnce(`login.html#digest=${digest}`, { ...options, executor: signIn() });
    expect(recorded.write).toMatchObject({ write: 'saved' });
    const replay = await runOnce(`login.html#digest=${digest}`, { ...options, executor: signIn() });
    expect(replay.executor.calls).toBe(0);
    expect(replay.cache).toMatchObject({ mode: 'self-finalized' });
    expect(replay.outcome.actions).toContain('type <secret:adminPassword> into textbox "Password"');
    // The report (live sentences) and `cache show` (recorded ones) spell every action alike.
    const stored = await store.read(replay.cache?.entry ?? '');
    if (stored.kind !== 'hit' || stored.entry.kind !== 'act') throw new Error(`no act entry: ${stored.kind}`);
    expect(replay.outcome.actions).toEqual(stored.entry.actions.map(describeAction));
    const { root } = await live.instance.observe();
    expect(allNodes(root).some((node) => node.role === 'status' && node.text === 'Signed in as admin')).toBe(true);
    const forms = [password, Buffer.from(password).toString('base64'), encodeURIComponent(password)];
    const files = Object.keys(snapshotTree(dir));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const bytes = readFileSync(join(dir, file));
      for (const form of forms) expect(bytes.includes(Buffer.from(form)), `${file} holds the secret`).toBe(false);
    }
  });
});

describe('each replay reason, from a real page change', () => {
  it('misses with no-entry (wrong-context when only the agent context changed) and names the changed key part of the nearest entry', async () => {
    const { store } = newCache();
    await record(store);
    const changed = await runOnce('todos.html', { store, instruction: 'add a todo {title} and tick it' });
    expect(changed.executor.calls).toBe(1);
    expect(changed.cache).toMatchObject({ mode: 'missed', reason: 'no-entry', detail: 'no entry; nearest entry of this test differs in the instruction' });
    const context = await runOnce('todos.html', { store, context: 'A todo app for groceries.' });
    expect(context.cache).toMatchObject({ mode: 'missed', reason: 'wrong-context', detail: "no entry; nearest entry of this test differs in the agent's context" });
  });

  it('runs the agent from the start on a retry when the cache is read-write', async () => {
    const { store } = newCache();
    await record(store);
    const retry = await runOnce('todos.html', { store, retry: 1 });
    expect(retry.cache).toMatchObject({ mode: 'missed', reason: 'retry' });
    expect(retry.executor.calls).toBe(1);
    expect(retry.executor.prefixes).toEqual([undefined]);
  });

  it('replays again on a retry when the cache is read-only, also when strict', async () => {
    const { store, dir } = newCache();
    const key = await record(store);
    const readOnly = new FileCacheStore(dir, { readOnly: true });
    const retry = await runOnce('todos.html', { store: readOnly, mode: 'read-only', retry: 1 });
    expect(retry.cache).toEqual({ mode: 'self-finalized', entry: key });
    expect(retry.executor.calls).toBe(0);
    const strict = await runOnce('todos.html', { store: readOnly, mode: 'read-only', strict: true, retry: 2 });
    expect(strict.cache).toEqual({ mode: 'self-finalized', entry: key });
    expect(strict.executor.calls).toBe(0);
  });

  it('misses with invalid-entry on a damaged blob and saves the new recording over it', async () => {
    const { store, dir } = newCache();
    const key = await record(store);
    const blob = readFileSync(join(dir, 'refs', key.slice(0, 2), `${key}.ref`), 'utf8').trim();
    const path = blobPath(dir, blob);
    const bytes = readFileSync(path);
    bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0x20;
    writeFileSync(path, bytes);
    const run = await runOnce('todos.html', { store });
    expect(run.executor.calls).toBe(1);
    expect(run.cache).toMatchObject({ mode: 'missed', reason: 'invalid-entry' });
    expect(run.cache?.detail).toContain('does not match its content address');
    expect(run.write?.write).toBe('saved');
    expect((await store.read(key)).kind).toBe('hit');
  });

  it('hands off on wrong-context when the start route differs', async () => {
    const { store } = newCache();
    await record(store);
    const run = await runOnce('todos.html?view=active', { store });
    expect(run.cache).toMatchObject({
      mode: 'agent-concluded',
      reason: 'wrong-context',
      detail: `start route query differs: expected ${live.server.origin}/todos.html, found ${live.server.origin}/todos.html?view=active`,
    });
    expect(run.executor.prefixes[0]).toMatchObject({ actions: [], total: 3, reason: 'wrong-context' });
    expect(run.outcome.verdict.status).toBe('passed');
  });

  it('hands off on target-not-found with the prefix that ran; the agent finishes and the healed entry replays next time', async () => {
    const { store } = newCache();
    const key = await record(store);
    const healed = await runOnce('todos.html#add=Create', { store });
    const detail = 'at action 2 of 3, tap button "Add": not found within 400 ms (no button "Add" on the screen)';
    expect(healed.cache).toEqual({ mode: 'agent-concluded', reason: 'target-not-found', detail, entry: key, classification: 'drift' });
    expect(healed.executor.prefixes).toEqual([
      { actions: ['type "Buy milk" into textbox "New todo"'], total: 3, reason: 'target-not-found', detail, lastMayHaveCommitted: false },
    ]);
    // The agent went on from the current screen: the title was typed once, by the replay.
    expect(healed.outcome.actions).toEqual(['type "Buy milk" into textbox "New todo"', 'tap button "Create"', 'check checkbox "Toggle"']);
    expect(healed.outcome.verdict.status).toBe('passed');
    expect(await checkedItems()).toEqual(['Buy milk']);
    expect(healed.write?.write).toBe('saved');

    const next = await runOnce('todos.html#add=Create', { store });
    expect(next.executor.calls).toBe(0);
    expect(next.cache).toEqual({ mode: 'self-finalized', entry: key });
  });

  it('hands off on target-ambiguous when the control has a twin', async () => {
    const { store } = newCache();
    await record(store);
    const run = await runOnce('todos.html#twins=1', { store });
    expect(run.cache).toMatchObject({ mode: 'agent-concluded', reason: 'target-ambiguous' });
    expect(run.cache?.detail).toMatch(/^at action 2 of 3, tap button "Add": 2 controls match/);
    expect(run.executor.prefixes[0]?.actions).toEqual(['type "Buy milk" into textbox "New todo"']);
    expect(run.outcome.verdict.status).toBe('passed');
  });

  it('hands off on gap where the recording typed a value read off the screen', async () => {
    const { store } = newCache();
    const first = await runOnce('todos.html#code=1', { store, instruction: "add today's code as a todo and complete it", params: {} });
    expect(first.write).toMatchObject({ mode: 'missed', write: 'saved' });
    const run = await runOnce('todos.html#code=1', { store, instruction: "add today's code as a todo and complete it", params: {} });
    expect(run.cache).toMatchObject({
      mode: 'agent-concluded',
      reason: 'gap',
      detail: 'at action 1 of 3, gap: value read off the screen: cannot be repeated; the agent takes over here',
    });
    expect(run.executor.calls).toBe(1);
    expect(run.outcome.verdict.status).toBe('passed');
  });

  it('hands off on action-failed when the button stays disabled', async () => {
    const { store } = newCache();
    await record(store);
    const run = await runOnce('todos.html#disabled=2500', { store });
    expect(run.cache).toMatchObject({
      mode: 'agent-concluded',
      reason: 'action-failed',
      detail: 'at action 2 of 3, tap button "Add": stayed disabled for 400 ms',
    });
    expect(run.executor.prefixes[0]).toMatchObject({ actions: ['type "Buy milk" into textbox "New todo"'], lastMayHaveCommitted: false });
    expect(run.outcome.verdict.status).toBe('passed');
  });

  it('hands off on end-mismatch when the outcome reads differently, and saves the healed flow', async () => {
    const { store } = newCache();
    await record(store);
    const run = await runOnce('todos.html#completed=Finished', { store });
    expect(run.cache).toMatchObject({ mode: 'agent-concluded', reason: 'end-mismatch' });
    expect(run.cache?.detail).toContain('after all 3 actions, status with text "Completed Buy milk" did not appear');
    expect(run.executor.prefixes[0]?.actions).toHaveLength(3);
    expect(run.write?.write).toBe('saved');
  });

  it('never passes a planted regression by replay: the outcome already on screen proves nothing', async () => {
    const { store } = newCache();
    const key = await record(store);
    const run = await runOnce('todos.html#seed=Buy%20milk&done=1&status=Completed%20Buy%20milk&noop=1', { store, executor: noticingExecutor() });
    expect(run.cache).toMatchObject({ mode: 'agent-concluded', reason: 'end-mismatch' });
    expect(run.cache?.detail).toContain('no recorded change happened during the replay');
    expect(run.executor.calls).toBe(1);
    expect(run.outcome.verdict.status).toBe('failed');
    // A failing step never deletes the last known-good entry.
    expect(run.write).toMatchObject({ classification: 'regression', write: 'kept', writeDetail: 'the step failed, nothing replaced the recorded entry' });
    expect((await store.read(key)).kind).toBe('hit');
  });
});

describe('entries a failure leaves alone', () => {
  it('keeps the entry when the replay stopped and no model answered the hand-off', async () => {
    const { store, dir } = newCache();
    const key = await record(store);
    const before = snapshotTree(dir);
    const providerDown: Scripted = {
      name: 'scripted',
      calls: 0,
      prefixes: [],
      runStep(context) {
        providerDown.calls++;
        providerDown.prefixes.push(context.replayedPrefix);
        return Promise.resolve({ status: 'blocked', errorCode: 'MODEL_PROVIDER_FAILED', summary: 'The provider answered 503 three times.' });
      },
    };
    const run = await runOnce('todos.html#add=Create', { store, executor: providerDown });
    expect(run.cache).toMatchObject({ mode: 'agent-concluded', reason: 'target-not-found' });
    expect(run.outcome.verdict.errorCode).toBe('MODEL_PROVIDER_FAILED');
    expect(run.write).toMatchObject({ entry: key, write: 'no-change' });
    expect(snapshotTree(dir)).toEqual(before);
  });

  it('keeps the entry of a failed hand-off when the run was interrupted', async () => {
    const { store, dir } = newCache();
    const key = await record(store);
    const before = snapshotTree(dir);
    await live.open('todos.html#add=Create');
    const attempt = startAttempt(live, { cache: { store }, executor: noticingExecutor() });
    const outcome = await attempt.act(ADD, { title: 'Buy milk' });
    expect(outcome.cache).toMatchObject({ mode: 'agent-concluded' });
    const reports = await attempt.cache.finishAttempt({ passed: false, interrupted: true, steps: attempt.runner.records });
    expect(reports).toEqual([{ stepIndex: 0, outcome: expect.objectContaining({ entry: key, write: 'no-change' }) as unknown }]);
    expect(snapshotTree(dir)).toEqual(before);
  });
});

describe('modes', () => {
  it('strict fails a stale entry with REPLAY_STALE without calling the executor, and keeps the entry', async () => {
    const { store, dir } = newCache();
    const key = await record(store);
    const before = snapshotTree(dir);
    const run = await runOnce('todos.html#add=Create', { store, strict: true });
    expect(run.executor.calls).toBe(0);
    expect(run.outcome.verdict.status).toBe('blocked');
    expect(run.outcome.verdict.errorCode).toBe('REPLAY_STALE');
    expect(run.outcome.verdict.summary).toBe(
      'Step 0 (agent.act "add a todo Buy milk and complete it"): its cache entry no longer replays (target-not-found: at action 2 of 3, tap button "Add": not found within 400 ms (no button "Add" on the screen)); strict mode makes no model call. Fix: record it again with `e2e record`.',
    );
    expect(run.write).toEqual({ mode: 'missed', reason: 'target-not-found', detail: expect.any(String) as string, entry: key, classification: 'drift', write: 'no-change' });
    expect(snapshotTree(dir)).toEqual(before);
  });

  it('without a model, a stale entry fails REPLAY_STALE and a missing one names the nearest entry', async () => {
    const { store } = newCache();
    await record(store);
    await live.open('todos.html#add=Create');
    const stale = startAttempt(live, { cache: { store } });
    const outcome = await stale.act(ADD, { title: 'Buy milk' });
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'REPLAY_STALE' });
    expect(outcome.verdict.summary).toContain('agents.default has no model or executor to repair it');
    await stale.finish(false);

    await live.open('todos.html');
    const missing = startAttempt(live, { cache: { store, strict: true } });
    const miss = await missing.act('add a todo {title} and tick it', { title: 'Buy milk' });
    expect(miss.verdict).toMatchObject({ status: 'blocked', errorCode: 'REPLAY_STALE' });
    expect(miss.verdict.summary).toContain('no entry; nearest entry of this test differs in the instruction');
    await missing.finish(false);
  });

  it('read-only replays and records but leaves the cache folder byte-identical', async () => {
    const { store, dir } = newCache();
    await record(store);
    const before = snapshotTree(dir);
    const readOnly = new FileCacheStore(dir, { readOnly: true });
    const replay = await runOnce('todos.html', { store: readOnly, mode: 'read-only', hitsEnabled: true });
    expect(replay.cache).toMatchObject({ mode: 'self-finalized' });
    const healed = await runOnce('todos.html#add=Create', { store: readOnly, mode: 'read-only' });
    expect(healed.write).toMatchObject({ mode: 'agent-concluded', write: 'no-change' });
    const fresh = await runOnce('todos.html', { store: readOnly, mode: 'read-only', params: { title: 'Walk the dog' } });
    expect(fresh.write).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'no-change' });
    expect(snapshotTree(dir)).toEqual(before);
    expect(await store.readHits()).toEqual(new Map());
  });

  it('read-only with a proposal folder writes healed and new recordings there instead', async () => {
    const { store, dir } = newCache();
    const key = await record(store);
    const before = snapshotTree(dir);
    const proposals = new FileCacheStore(join(tempFolder(), 'proposals'));
    const readOnly = new FileCacheStore(dir, { readOnly: true });
    const healed = await runOnce('todos.html#add=Create', { store: readOnly, mode: 'read-only', proposalStore: proposals });
    expect(healed.write).toMatchObject({ mode: 'agent-concluded', reason: 'target-not-found', write: 'saved', entry: key });
    expect(snapshotTree(dir)).toEqual(before);
    const proposed = await proposals.read(key);
    expect(proposed.kind === 'hit' && proposed.entry.kind === 'act' && proposed.entry.actions[1]).toMatchObject({ verb: 'tap', target: { name: 'Create' } });
  });

  it('off bypasses the cache: no outcome, nothing read or written', async () => {
    const { store, dir } = newCache();
    await record(store);
    const before = snapshotTree(dir);
    const run = await runOnce('todos.html', { store, mode: 'off' });
    expect(run.executor.calls).toBe(1);
    expect(run.cache).toBeUndefined();
    expect(run.write).toBeUndefined();
    expect(snapshotTree(dir)).toEqual(before);
  });

  it('an executor with cache: off is never replayed or recorded', async () => {
    const { store, dir } = newCache();
    const executor = Object.assign(todoExecutor(), { cache: 'off' as const });
    const run = await runOnce('todos.html', { store, executor });
    expect(run.cache).toBeUndefined();
    expect(snapshotTree(dir)).toEqual({});
  });
});

describe('keys', () => {
  it('keys two calls of one instruction with different unique() values as occurrences 0 and 1', async () => {
    const { store } = newCache();
    await live.open('todos.html');
    const attempt = startAttempt(live, { cache: { store }, executor: todoExecutor() });
    await attempt.act(ADD, { title: unique('First one') });
    await attempt.act(ADD, { title: unique('Second one') });
    attempt.verify();
    const reports = await attempt.finish();
    expect(reports.map((report) => report.outcome.write)).toEqual(['saved', 'saved']);
    const parts = await Promise.all(
      reports.map(async (report) => {
        const read = await store.read(report.outcome.entry!);
        return read.kind === 'hit' ? read.entry.keyParts : undefined;
      }),
    );
    expect(parts.map((part) => [part?.occurrence, part?.params])).toEqual([
      [0, { title: '<unique:title>' }],
      [1, { title: '<unique:title>' }],
    ]);
    expect(statSync(join(store.directory, 'refs')).isDirectory()).toBe(true);
  });
});

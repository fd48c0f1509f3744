/**
 * Record and replay through the real step runner on a real page: a scripted executor acts
 * through `ctx.actions`, the recorder listens on `onAction`, the entry goes through the
 * cache-format codec, and the replayer runs in the `stepInterceptor` with the same policed
 * actions.
 */
import type { Page } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeKey, encodeEntry, readEntryBytes, type ActEntry, type KeyParts } from '../../cache-format/index.js';
import type { ScreenNode } from '../../contract/engine.js';
import { unique } from '../../secrets/vault.js';
import type { ReplayedPrefix, StepContext, StepExecutor } from '../../contract/step-contract.js';
import type { StepOutcome } from '../../step/step-runner.js';
import { startAttempt } from '../support/attempt-harness.js';
import type { InterceptResult, StepInterceptor } from '../../contract/step-seams.js';
import { describeAction } from '../../semantics/describe-action.js';
import { StepRecorder, buildActEntry } from '../../recorder/record-step.js';
import { find } from '../support/hand-built-tree.js';
import { startLiveScreen, type LiveScreen } from '../support/live-screen.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { replayStep, type ReplayOutcome } from '../../replayer/replay-step.js';

let live: LiveScreen;
beforeAll(async () => {
  live = await startLiveScreen();
});
afterAll(async () => {
  await live.close();
});

const INSTRUCTION = 'add a todo {title} and complete it';

function allNodes(root: ScreenNode): ScreenNode[] {
  return [root, ...root.children.flatMap(allNodes)];
}

/** A scripted executor: type the title, tap Add (or its renamed self, Create), tick the new item. */
function scriptedExecutor(): StepExecutor & { calls: number; prefixes: (ReplayedPrefix | undefined)[] } {
  const executor = {
    name: 'scripted',
    calls: 0,
    prefixes: [] as (ReplayedPrefix | undefined)[],
    async runStep(context: StepContext) {
      executor.calls++;
      executor.prefixes.push(context.replayedPrefix);
      const title = context.step.params.title ?? '';
      const tree = async (): Promise<ScreenNode> => (await context.observe({ tree: true })).tree!;
      await context.actions.type({ id: find(await tree(), 'textbox', 'New todo').id }, title, { replace: true });
      const screen = await tree();
      const add = allNodes(screen).find((node) => node.role === 'button' && (node.name === 'Add' || node.name === 'Create'))!;
      await context.actions.tap({ id: add.id });
      const item = find(await tree(), 'listitem', title);
      await context.actions.check({ id: item.children.find((child) => child.role === 'checkbox')!.id }, true);
      return { status: 'passed' as const, summary: `Added and completed ${title}.` };
    },
  };
  return executor;
}

interface Harness {
  run(title: string | ReturnType<typeof unique>): Promise<StepOutcome>;
  recorder(): StepRecorder;
  replays: ReplayOutcome[];
  /** What each wait for a still screen answered (the step's `holdsStill`). */
  stills: (boolean | undefined)[];
}

/** Options of {@link attempt}. */
interface AttemptOptions {
  secrets?: Record<string, string>;
  waitForTargetMs?: number;
  /** Called with every screen the replay looks at, before the replay sees it. */
  onLook?: (screen: ScreenNode) => Promise<void>;
  /** An audit's replay: waits end once the screen held still this long (`stopWhenStillMs`, the step's `holdsStill`). */
  stillMs?: number;
  /** Called before each wait for a still screen. */
  beforeStillWait?: () => Promise<void>;
}

/** One attempt: a runner wired to a recorder (onAction) and, given an entry, a replayer (stepInterceptor). */
function attempt(executor: StepExecutor, entry?: ActEntry, { secrets = {}, waitForTargetMs = 400, onLook, stillMs, beforeStillWait }: AttemptOptions = {}): Harness {
  let recorder: StepRecorder | undefined;
  const replays: ReplayOutcome[] = [];
  const stills: (boolean | undefined)[] = [];
  const stepInterceptor: StepInterceptor = async (step, services): Promise<InterceptResult> => {
    const uniqueValues: Record<string, string> = {};
    const literalParams: Record<string, string> = {};
    for (const [name, source] of Object.entries(step.paramSources)) {
      if (source.kind === 'unique') uniqueValues[name] = source.value;
      if (source.kind === 'literal') literalParams[name] = source.value;
    }
    recorder = new StepRecorder({ instruction: step.info.instruction, uniqueValues, literalParams });
    if (entry === undefined) return {};
    const outcome = await replayStep({
      entry,
      actions: services.actions,
      observe: async () => {
        const screen = await services.observe({ tree: true });
        if (screen.tree !== undefined) await onLook?.(screen.tree);
        return screen;
      },
      uniqueValues,
      secretsAvailable: step.info.secrets,
      waitForTargetMs,
      pollIntervalMs: 50,
      signal: services.signal,
      ...(stillMs === undefined
        ? {}
        : {
            stopWhenStillMs: stillMs,
            holdsStill: async (quietMs: number, maxMs: number) => {
              await beforeStillWait?.();
              const held = await services.holdsStill?.(quietMs, maxMs);
              stills.push(held);
              return held;
            },
          }),
    });
    replays.push(outcome);
    if (outcome.kind === 'finished') return { handled: { verdict: { status: 'passed', summary: entry.summary }, cache: { mode: 'self-finalized' } } };
    return { continueWith: outcome.prefix, cache: { mode: 'agent-concluded', reason: outcome.reason, detail: outcome.detail } };
  };
  const { runner } = startAttempt(live, { executor, secrets, onAction: (event) => recorder?.recordEvent(event), stepInterceptor });
  return {
    run: (title) => runner.runStep('act', INSTRUCTION, { params: { title } }),
    recorder: () => {
      if (recorder === undefined) throw new Error('no step ran');
      return recorder;
    },
    replays,
    stills,
  };
}

async function recordEntry(title: string | ReturnType<typeof unique>): Promise<ActEntry> {
  const uniqueValues: Record<string, string> = typeof title === 'string' ? {} : { title: title.value };
  await live.open('todos.html');
  const recording = attempt(scriptedExecutor());
  const outcome = await recording.run(title);
  expect(outcome.verdict.status).toBe('passed');
  const finished = recording.recorder().finish();
  if (finished.kind !== 'recorded') throw new Error(finished.reason);
  const keyParts: KeyParts = {
    projectId: 'recorder-tests',
    testId: 'todos > adds and completes',
    target: 'web',
    engine: live.engine.name,
    engineContract: live.engine.contractVersion,
    kind: 'act',
    instruction: INSTRUCTION,
    params: { title: typeof title === 'string' ? title : '<unique>' },
    occurrence: 0,
    appIdentity: live.server.origin,
    agent: 'default',
    contextDigest: 'none',
    replayPolicy: 1,
  };
  const key = await computeKey(keyParts);
  const built = buildActEntry(finished.recording, {
    key,
    keyParts,
    summary: outcome.verdict.summary,
    uniqueValues,
    provenance: { verifiedBy: 'expect', executor: 'scripted', toolVersion: '0.1.0', recordedAt: new Date().toISOString() },
  });
  if (built.kind !== 'entry') throw new Error(built.reason);
  // Through the real bytes: encode, then read back through the one reading pipeline.
  const encoded = await encodeEntry(built.entry);
  const read = await readEntryBytes(encoded.bytes, { blob: encoded.blob, key });
  if (read.kind !== 'hit' || read.entry.kind !== 'act') throw new Error(`entry did not read back: ${read.kind}`);
  return read.entry;
}

async function checkedItems(): Promise<string[]> {
  const { root } = await live.instance.observe();
  const items: string[] = [];
  const visit = (node: ScreenNode): void => {
    if (node.role === 'listitem' && node.children.some((child) => child.role === 'checkbox' && child.states.includes('checked'))) items.push(node.name);
    node.children.forEach(visit);
  };
  visit(root);
  return items;
}

/** `entry` cut to its first action, proven only by the heading that is on the page from the start. */
function alreadyDoneEntry(entry: ActEntry): ActEntry {
  const { acted: _acted, ...withoutActed } = entry;
  return { ...withoutActed, actions: [entry.actions[0]!], appeared: [{ role: 'heading', name: 'todos', states: [] }], gone: [] };
}

describe('record and replay through the step runner', () => {
  let entry: ActEntry;
  beforeAll(async () => {
    entry = await recordEntry('Buy milk');
  });

  it('records three actions with semantic targets and a checkable outcome', () => {
    expect(entry.actions.map(describeAction)).toEqual([
      'type "Buy milk" into textbox "New todo"',
      'tap button "Add"',
      'check checkbox "Toggle" in listitem "Buy milk"',
    ]);
    expect(entry.actions[1]).toMatchObject({ target: { testId: 'add-todo' } });
    expect(entry.startRoute).toEqual({ origin: live.server.origin, path: '/todos.html', query: '' });
    // The ticked toggle is the browser's own effect of the check; the status is what the app produced after it.
    expect(entry.appeared).toContainEqual({ role: 'checkbox', name: 'Toggle', states: ['checked'], container: { role: 'listitem', name: 'Buy milk' }, basis: 'acted' });
    expect(entry.appeared[0]).toEqual({ role: 'status', name: '', text: 'Completed Buy milk', states: [], basis: 'announced', producedBy: [2] });
    // The controls the step acted on, as it left them: the field still there, the toggle checked.
    expect(entry.acted).toContainEqual({ target: expect.objectContaining({ role: 'checkbox', name: 'Toggle' }), present: true, states: ['checked'] });
    expect(entry.origins).toEqual([live.server.origin]);
  });

  it('replays on a fresh page with no executor call', async () => {
    await live.open('todos.html');
    const executor = scriptedExecutor();
    const replay = attempt(executor, entry);
    const outcome = await replay.run('Buy milk');
    expect(replay.replays[0]).toEqual({ kind: 'finished', actions: entry.actions.map(describeAction) });
    expect(executor.calls).toBe(0);
    expect(outcome.verdict.status).toBe('passed');
    expect(outcome.cache).toEqual({ mode: 'self-finalized' });
    expect(await checkedItems()).toEqual(['Buy milk']);
  });

  it('stops at a renamed button with target-not-found and hands the agent the prefix that ran', async () => {
    await live.open('todos.html#add=Create');
    const executor = scriptedExecutor();
    const replay = attempt(executor, entry);
    const outcome = await replay.run('Buy milk');
    const detail = 'at action 2 of 3, tap button "Add": not found within 400 ms (no button "Add" on the screen)';
    expect(replay.replays[0]).toEqual({
      kind: 'stopped',
      reason: 'target-not-found',
      // The screen diverged before the actions could run: drift, not a regression.
      classification: 'drift',
      detail,
      prefix: { actions: ['type "Buy milk" into textbox "New todo"'], total: 3, reason: 'target-not-found', detail, lastMayHaveCommitted: false },
    });
    expect(executor.calls).toBe(1);
    expect(executor.prefixes[0]?.actions).toEqual(['type "Buy milk" into textbox "New todo"']);
    expect(outcome.verdict.status).toBe('passed');
    expect(await checkedItems()).toEqual(['Buy milk']);
  });

  it('waits for a control that shows up late', async () => {
    // Add stays hidden until the replay, having typed the title, looks for it and finds none; then it shows.
    await live.open('todos.html#late=600000');
    const page = (live.instance as unknown as { page: Page }).page;
    let missedAdd = 0;
    let sawAdd = false;
    const onLook = async (screen: ScreenNode): Promise<void> => {
      const typed = allNodes(screen).some((node) => node.role === 'textbox' && node.value === 'Buy milk');
      const add = allNodes(screen).some((node) => node.role === 'button' && node.name === 'Add');
      if (add) sawAdd = true;
      else if (typed) {
        missedAdd++;
        await page.evaluate(() => {
          document.getElementById('add')!.hidden = false;
        });
      }
    };
    const executor = scriptedExecutor();
    const replay = attempt(executor, entry, { waitForTargetMs: scaledTimeout(4_000), onLook });
    await replay.run('Buy milk');
    expect(missedAdd).toBeGreaterThan(0);
    expect(sawAdd).toBe(true);
    expect(replay.replays[0]?.kind).toBe('finished');
    expect(executor.calls).toBe(0);
  });

  it('stops with action-failed when the engine refuses an action, naming the action', async () => {
    await live.open('todos.html');
    const first = entry.actions[0]!;
    if (first.verb !== 'type') throw new Error('expected a type action');
    const broken: ActEntry = { ...entry, actions: [first, { verb: 'select', target: first.target, value: { kind: 'literal', value: 'Large' } }, ...entry.actions.slice(1)] };
    const replay = attempt(scriptedExecutor(), broken);
    await replay.run('Buy milk');
    const outcome = replay.replays[0];
    // The runner's error does not say whether the app saw the action, so the hand-off assumes it may have.
    expect(outcome).toMatchObject({
      kind: 'stopped',
      reason: 'action-failed',
      prefix: { actions: ['type "Buy milk" into textbox "New todo"'], total: 4, lastMayHaveCommitted: true },
    });
    expect(outcome?.kind === 'stopped' && outcome.detail).toBe(
      'at action 2 of 4, select "Large" in textbox "New todo": select works on a <select> element; tap a custom dropdown and then tap its option instead.',
    );
  });

  it('refuses to start on another route', async () => {
    await live.open('todos.html?view=active');
    const replay = attempt(scriptedExecutor(), entry);
    await replay.run('Buy milk');
    expect(replay.replays[0]).toMatchObject({
      kind: 'stopped',
      reason: 'wrong-context',
      detail: `start route query differs: expected ${live.server.origin}/todos.html, found ${live.server.origin}/todos.html?view=active`,
      prefix: { actions: [], total: 3 },
    });
  });

  it('stops at a gap and keeps what ran before it', async () => {
    await live.open('todos.html');
    const gapped: ActEntry = { ...entry, actions: [entry.actions[0]!, { verb: 'gap', rule: 'value read off the screen' }, entry.actions[2]!] };
    const replay = attempt(scriptedExecutor(), gapped);
    await replay.run('Buy milk');
    expect(replay.replays[0]).toMatchObject({
      kind: 'stopped',
      reason: 'gap',
      detail: 'at action 2 of 3, gap: value read off the screen: cannot be repeated; the agent takes over here',
      prefix: { actions: ['type "Buy milk" into textbox "New todo"'] },
    });
  });

  it('refuses an action on an origin the recording never visited', async () => {
    await live.open('todos.html');
    const elsewhere: ActEntry = { ...entry, origins: ['http://127.0.0.1:1'] };
    const replay = attempt(scriptedExecutor(), elsewhere);
    await replay.run('Buy milk');
    expect(replay.replays[0]).toMatchObject({
      kind: 'stopped',
      reason: 'wrong-context',
      detail: `at action 1 of 3, type "Buy milk" into textbox "New todo": the page is on ${live.server.origin}, which the recording never visited`,
    });
  });

  it('does not count an outcome that was already on the screen', async () => {
    await live.open('todos.html');
    const alreadyDone = alreadyDoneEntry(entry);
    const replay = attempt(scriptedExecutor(), alreadyDone);
    await replay.run('Buy milk');
    expect(replay.replays[0]).toMatchObject({
      kind: 'stopped',
      reason: 'end-mismatch',
      detail: 'after all 1 actions, no recorded change happened during the replay: heading "todos" was already on the screen when the replay started',
    });
  });

  it("ends an audit's end-state wait once the screen held still with no request in flight, and says so", async () => {
    await live.open('todos.html');
    const alreadyDone = alreadyDoneEntry(entry);
    // A wait far longer than the test's own: only the still screen can end it.
    const replay = attempt(scriptedExecutor(), alreadyDone, { waitForTargetMs: 600_000, stillMs: 300 });
    await replay.run('Buy milk');
    expect(replay.replays[0]).toMatchObject({
      kind: 'stopped',
      reason: 'end-mismatch',
      classification: 'regression',
      detail: 'after all 1 actions, no recorded change happened during the replay: heading "todos" was already on the screen when the replay started (the screen then held still for 0.3 s)',
    });
  });

  it("ends an audit's wait for a missing target once the screen held still, and looks again when it changes", async () => {
    await live.open('todos.html#add=Create');
    const stopped = attempt(scriptedExecutor(), entry, { waitForTargetMs: 600_000, stillMs: 300 });
    await stopped.run('Buy milk');
    expect(stopped.replays[0]).toMatchObject({
      kind: 'stopped',
      reason: 'target-not-found',
      detail: 'at action 2 of 3, tap button "Add": not found while the screen held still for 300 ms (no button "Add" on the screen)',
    });
    expect(stopped.stills.at(-1)).toBe(true);
    // Add shows while the replay waits for a still screen: the change ends that wait, and the next look finds it.
    await live.open('todos.html#late=600000');
    const page = (live.instance as unknown as { page: Page }).page;
    const showAdd = async (): Promise<void> => {
      await page.evaluate(() => {
        setTimeout(() => {
          document.getElementById('add')!.hidden = false;
        }, 50);
      });
    };
    const late = attempt(scriptedExecutor(), entry, { waitForTargetMs: 600_000, stillMs: 300, beforeStillWait: showAdd });
    await late.run('Buy milk');
    expect(late.stills[0]).toBe(false);
    expect(late.replays[0]?.kind).toBe('finished');
  });

  it('stops before typing a secret the step may not use', async () => {
    await live.open('todos.html');
    const first = entry.actions[0]!;
    if (first.verb !== 'type') throw new Error('expected a type action');
    const secretEntry: ActEntry = { ...entry, actions: [{ ...first, value: { kind: 'secret', name: 'adminPassword' } }, ...entry.actions.slice(1)] };
    const replay = attempt(scriptedExecutor(), secretEntry, { secrets: { adminPassword: 'correct horse' } });
    await replay.run('Buy milk');
    expect(replay.replays[0]).toMatchObject({
      kind: 'stopped',
      reason: 'action-failed',
      detail: 'at action 1 of 3, type <secret:adminPassword> into textbox "New todo": the secret adminPassword is not available to this step',
      prefix: { actions: [] },
    });
  });
});

describe('unique() values through record and replay', () => {
  it('records the param, and replays with this run’s value', async () => {
    const entry = await recordEntry(unique('Milk run one'));
    expect(entry.actions[0]).toMatchObject({ value: { kind: 'unique', param: 'title' } });
    expect(entry.actions[2]).toMatchObject({ target: { container: { role: 'listitem', name: '{unique:title}' } } });
    expect(JSON.stringify(entry)).not.toContain('Milk run one');

    await live.open('todos.html');
    const executor = scriptedExecutor();
    const replay = attempt(executor, entry);
    const outcome = await replay.run(unique('Milk run two'));
    expect(replay.replays[0]?.kind).toBe('finished');
    expect(executor.calls).toBe(0);
    expect(outcome.verdict.status).toBe('passed');
    expect(await checkedItems()).toEqual(['Milk run two']);
  });
});

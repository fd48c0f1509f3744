import { describe, expect, it } from 'vitest';
import { contentAddress, encodeEntry, readEntryBytes, type ActEntry, type Entry } from '../cache-format/index.js';
import { actEntry, assertEntry, control, stateControl } from '../tests/support/cache-fixtures.js';
import { diffCacheStates, type StepDiff } from './cache-diff.js';
import { renderDiffMarkdown, renderDiffText } from './cache-diff-render.js';
import type { CacheState } from './cache-state-source.js';

/** A state held in memory whose entries are read through the one reading pipeline; `reads` counts what was read. */
async function stateOf(label: string, entries: readonly Entry[], reads: string[] = []): Promise<CacheState> {
  const stored = new Map(await Promise.all(entries.map(async (entry) => [entry.key, await encodeEntry(entry)] as const)));
  return {
    label,
    refs: new Map([...stored].map(([key, { blob }]) => [key, blob])),
    read: async (keys) => {
      reads.push(...keys);
      return new Map(await Promise.all(keys.map(async (key) => [key, await readEntryBytes(stored.get(key)!.bytes, { blob: stored.get(key)!.blob, key })] as const)));
    },
    fingerprints: async (keys) => new Map(await Promise.all(keys.map(async (key) => [key, await contentAddress(stored.get(key)!.bytes)] as const))),
  };
}

const TEST = 'tests/todos.e2e.ts::todos › adds';

function step(instruction: string, options: { target?: string; contextDigest?: string; button?: string; testId?: string; occurrence?: number; recordedAt?: string } = {}): Promise<ActEntry> {
  return actEntry({
    testId: options.testId ?? TEST,
    instruction,
    ...(options.occurrence === undefined ? {} : { occurrence: options.occurrence }),
    ...(options.recordedAt === undefined ? {} : { recordedAt: options.recordedAt }),
    ...(options.target === undefined ? {} : { target: options.target }),
    ...(options.contextDigest === undefined ? {} : { contextDigest: options.contextDigest }),
    actions: [{ verb: 'tap', target: control('button', options.button ?? 'Add') }],
    appeared: [stateControl('listitem', 'Buy milk')],
  });
}

function changes(steps: readonly StepDiff[]): string[] {
  return steps.map((item) => item.change);
}

describe('pairing re-keyed entries', () => {
  it("pairs each target's entry with its own re-keyed twin when the agent's context changed", async () => {
    const base = await stateOf('base', [await step('add a todo', { target: 'web' }), await step('add a todo', { target: 'mobile' })]);
    const head = await stateOf('head', [await step('add a todo', { target: 'web', contextDigest: 'feedfacefeedface' }), await step('add a todo', { target: 'mobile', contextDigest: 'feedfacefeedface' })]);
    const result = await diffCacheStates(base, head);
    const steps = result.tests.flatMap((test) => test.steps);
    expect(changes(steps)).toEqual(['rekeyed', 'rekeyed']);
    for (const item of steps) {
      if (item.change !== 'rekeyed') throw new Error('expected a re-keyed entry');
      expect(item.base.target).toBe(item.head.target);
      expect(item.keyChanges.map((change) => change.part)).toEqual(["the agent's context"]);
      expect(item.content).toBeUndefined();
    }
    expect(renderDiffText(result)).toContain("because the agent's context changed (digest c0ffee00c0ffee00 → digest feedfacefeedface)\n    same recording");
  });

  it('never pairs an unrelated test recorded with the same instruction: one is removed, the other added', async () => {
    const base = await stateOf('base', [await step('add a todo')]);
    const head = await stateOf('head', [await step('add a todo', { testId: 'tests/todos.e2e.ts::todos › unrelated', recordedAt: '2025-03-05T08:00:00.000Z' })]);
    const result = await diffCacheStates(base, head);
    expect(result.counts).toMatchObject({ added: 1, removed: 1, rekeyed: 0 });
    expect(result.risks).toEqual([]);
  });

  it('shows a test whose entries moved to a new title (`cache mv`) as re-keyed: the test id changed, the same recording', async () => {
    const renamed = 'tests/todos.e2e.ts::todos › adds two todos';
    const testOf = async (testId: string) => {
      const first = await step('add a todo', { testId });
      const second = await step('add a todo', { testId, occurrence: 1 });
      return [first, second, await assertEntry(testId, [first.key, second.key])];
    };
    const result = await diffCacheStates(await stateOf('base', await testOf(TEST)), await stateOf('head', await testOf(renamed)));
    expect(result.counts).toMatchObject({ rekeyed: 3, added: 0, removed: 0 });
    const steps = result.tests.flatMap((test) => test.steps);
    expect(result.tests.map((test) => test.testId)).toEqual([renamed]);
    for (const item of steps) {
      if (item.change !== 'rekeyed') throw new Error('expected a re-keyed entry');
      expect(item.retitled).toEqual({ from: TEST, to: renamed });
      expect(item.keyChanges).toEqual([{ part: 'the test', base: TEST, head: renamed }]);
    }
    const text = renderDiffText(result);
    expect(text).toContain('re-keyed  assert "two todos are open" [web]');
    expect(text).toContain('    test id changed: tests/todos.e2e.ts::todos › adds → ::todos › adds two todos\n    same recording');
    expect(renderDiffMarkdown(result)).toContain('- test id changed: `tests/todos.e2e.ts::todos › adds → ::todos › adds two todos`');
  });

  it('pairs a moved judgment only when the acts before it moved with it', async () => {
    const renamed = 'tests/todos.e2e.ts::todos › adds two todos';
    const act = await step('add a todo');
    const moved = await step('add a todo', { testId: renamed });
    const rerecorded = await step('add a todo', { testId: renamed, occurrence: 0, recordedAt: '2025-03-05T08:00:00.000Z', button: 'Create' });
    // The act was recorded again under the new title rather than moved: the judgment after it is keyed after a new recording.
    const base = await stateOf('base', [act, await assertEntry(TEST, [act.key])]);
    const head = await stateOf('head', [rerecorded, await assertEntry(renamed, [moved.key])]);
    const result = await diffCacheStates(base, head);
    const retitled = result.tests.flatMap((test) => test.steps).filter((item) => item.change === 'rekeyed' && item.retitled !== undefined);
    expect(retitled).toEqual([]);
    expect(result.counts).toMatchObject({ added: 2, removed: 2, rekeyed: 0 });
  });

  it('treats equal bytes under the same key as unchanged without decoding them', async () => {
    const entries = [await step('add a todo'), await step('clear the list', { button: 'Clear' })];
    const reads: string[] = [];
    const result = await diffCacheStates(await stateOf('base', entries, reads), await stateOf('head', [...entries].reverse(), reads));
    expect(result.counts).toEqual({ added: 0, removed: 0, rekeyed: 0, changed: 0, unchanged: 2, unreadable: 0 });
    expect(result.tests).toEqual([]);
    expect(reads).toEqual([]);
  });

  it('reads the unchanged base entries only to tell whether an added entry visits a new origin', async () => {
    const kept = await actEntry({ testId: TEST, instruction: 'pay', origins: ['http://127.0.0.1:4173', 'https://pay.example.com'], actions: [{ verb: 'tap', target: control('button', 'Pay') }] });
    const added = await actEntry({ testId: 'tests/refund.e2e.ts::refund', instruction: 'refund', origins: ['https://pay.example.com'], actions: [{ verb: 'tap', target: control('button', 'Refund') }] });
    const reads: string[] = [];
    const result = await diffCacheStates(await stateOf('base', [kept], reads), await stateOf('head', [kept, added], reads));
    expect(result.counts).toMatchObject({ added: 1, unchanged: 1 });
    expect(result.risks.filter((risk) => risk.kind === 'new-origin')).toEqual([]);
    expect(reads.sort()).toEqual([added.key, kept.key].sort());
  });
});

describe('what end checks rest on', () => {
  it('flags a new entry whose end only the route proves, and shows what each check rests on', async () => {
    const routeOnly = await actEntry({ testId: TEST, instruction: 'open the help', actions: [{ verb: 'tap', target: control('button', 'Help') }] });
    const typed = await actEntry({
      testId: TEST,
      instruction: 'add Buy milk',
      actions: [{ verb: 'type', target: control('textbox', 'New todo'), value: { kind: 'literal', value: 'Buy milk' }, replace: true }],
      appeared: [stateControl('listitem', 'Buy milk'), stateControl('checkbox', 'Mark all as complete')],
    });
    const result = await diffCacheStates(await stateOf('base', []), await stateOf('head', [routeOnly, typed]));
    expect(result.risks.filter((risk) => risk.kind === 'weak-end-check')).toEqual([
      { kind: 'weak-end-check', testId: TEST, step: 'act "open the help"', detail: 'its end is proven weakly (only the route): a broken app could replay it' },
    ]);
    const text = renderDiffText(result);
    expect(text).toContain('appeared: listitem "Buy milk" (typed)');
    expect(text).toContain('appeared: checkbox "Mark all as complete" (incidental)');
    expect(text).toContain('end rests on: strong (1 typed, 1 incidental)');
    expect(text).toContain('end rests on: WEAK: only the route');
  });
});

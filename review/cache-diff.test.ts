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

describe('the audit of what a pull request adds', () => {
  const audited = (blob: string, caught: number, total: number, survivors: string[] = []) => ({ auditedAt: '2026-12-04T21:00:00.000Z', blob, caught, total, notRun: 0, survivors });

  it('shows each new or changed entry its own audit, survivors in the step grammar, and the score over them in the markdown', async () => {
    const kept = await step('clear the list', { button: 'Clear' });
    const added = await step('add a todo');
    const changedBase = await step('rename a todo', { button: 'Rename' });
    const changedHead = { ...changedBase, actions: [{ verb: 'tap' as const, target: control('button', 'Rename it') }] };
    const head = await stateOf('head', [kept, added, changedHead]);
    const audits = new Map([
      [added.key, audited(head.refs.get(added.key)!, 2, 2)],
      [changedHead.key, audited(head.refs.get(changedHead.key)!, 1, 2, ['blind to action 1 of 1: tap button "Rename it"'])],
      [kept.key, audited(head.refs.get(kept.key)!, 0, 2)],
    ]);
    const result = await diffCacheStates(await stateOf('base', [kept, changedBase]), head, { audits, minAuditScore: 0.7 });
    // The unchanged entry's poor audit is not the pull request's.
    expect(result.audit).toEqual({ entries: 2, audited: 2, caught: 3, total: 4, score: 0.75, minScore: 0.7, failed: false });
    const markdown = renderDiffMarkdown(result);
    expect(markdown).toContain('Audit of the new and changed entries: score 0.75 · 3 of 4 mutants caught · 2 of 2 entries audited');
    expect(markdown).toContain('- audit: caught 2 of 2 mutants (2026-12-04)');
    expect(markdown).toContain('- audit: caught 1 of 2 mutants (2026-12-04)\n- survived: `blind to action 1 of 1: tap button "Rename it"`');
    expect(markdown).not.toContain('[!CAUTION]');
    expect(renderDiffText(result)).toContain('    audit: caught 1 of 2 mutants (2026-12-04)\n    survived: blind to action 1 of 1: tap button "Rename it"');
  });

  it('fails --min-audit-score when the score is below it, or an entry has no audit of its recording (an audit of other bytes under its key does not count)', async () => {
    const added = await step('add a todo');
    const head = await stateOf('head', [added]);
    const below = await diffCacheStates(await stateOf('base', []), head, { audits: new Map([[added.key, audited(head.refs.get(added.key)!, 1, 2)]]), minAuditScore: 0.9 });
    expect(below.audit).toMatchObject({ score: 0.5, failed: true });
    expect(renderDiffMarkdown(below)).toContain('> [!CAUTION]\n> Audit of the new and changed entries: score 0.50 · 1 of 2 mutants caught · 1 of 1 entry audited\n> below --min-audit-score 0.9');
    const stale = await diffCacheStates(await stateOf('base', []), head, { audits: new Map([[added.key, audited('0123456789abcdef-99', 2, 2)]]), minAuditScore: 0.9 });
    expect(stale.audit).toMatchObject({ entries: 1, audited: 0, score: undefined, failed: true });
    const text = renderDiffText(stale);
    expect(text).toContain('audit: not audited (run `e2e cache audit` or `e2e record --audit`)');
    expect(text).toContain('below --min-audit-score 0.9: every new or changed entry needs an audit of its recording');
    const nothingNew = await diffCacheStates(head, head, { audits: new Map(), minAuditScore: 0.9 });
    expect(nothingNew.audit).toMatchObject({ entries: 0, failed: false });
  });
});

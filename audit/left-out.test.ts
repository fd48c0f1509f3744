import { describe, expect, it } from 'vitest';
import type { PlannedMutant } from '../runner/audit-mutants.js';
import { sampleActEntry, sampleKeyParts } from '../tests/support/sample-entries.js';
import { auditArgumentsOf, leftOutOf, leftOutTotals, mutantsOfShard, renderLeftOut, shardsOfTests } from './left-out.js';

/** A test's control run and `count` mutants of its entry. */
function testWith(title: string, count: number, entry: string): PlannedMutant[] {
  const base = { project: 'web', testId: `tests/a.e2e.ts::${title}`, file: 'tests/a.e2e.ts', titlePath: [title], entry };
  return [{ id: `control-${title.length}`, ...base, mutation: { kind: 'none' } }, ...Array.from({ length: count }, (_, index): PlannedMutant => ({ id: `${entry}-skip-${index + 1}`, ...base, mutation: { kind: 'skip-action', action: index } }))];
}

describe('what an audit leaves out, and why', () => {
  it('takes --shard for itself and names --project as the target\'s audit project, keeping the filters as the user typed them', () => {
    const args = auditArgumentsOf(['--grep=adds a todo$', '--shard=2/3', '--project=web', '--headed', '--retries=1'], ['tests/todos.e2e.ts:12']);
    expect(args.shard).toEqual({ current: 2, total: 3 });
    expect(args.playwright).toEqual(['--grep=adds a todo$', '--project=web · audit', '--headed', '--retries=1']);
    expect(args.filters).toEqual(['tests/todos.e2e.ts:12', "--grep 'adds a todo$'", '--project web']);
    // As given after `--` (verbatim to Playwright): values apart from their flags.
    expect(auditArgumentsOf(['--shard', '1/2', '--project', 'web', '-g', 'adds$', '--last-failed', '--headed'])).toEqual({
      playwright: ['--project=web · audit', '-g', 'adds$', '--last-failed', '--headed'],
      shard: { current: 1, total: 2 },
      filters: ['--project web', "-g 'adds$'", '--last-failed'],
    });
    expect(auditArgumentsOf(['--headed'])).toEqual({ playwright: ['--headed'], shard: undefined, filters: [] });
    // The tests chosen already (`e2e record --audit`: its record run's): no option that selects tests goes on.
    const chosen = auditArgumentsOf(['--grep=adds', '--shard=1/2', '--project=web', '--last-failed', '--grep-invert', 'slow', '--headed'], [], { select: false });
    expect(chosen).toEqual({ playwright: ['--headed'], shard: { current: 1, total: 2 }, filters: [] });
  });

  it('puts a test and all its mutants in one shard, balanced by mutants, the same on every machine', () => {
    const plan = [...testWith('adds', 6, 'aaaaaaaaaaaaaaaa'), ...testWith('lists', 2, 'bbbbbbbbbbbbbbbb'), ...testWith('ticks', 3, 'cccccccccccccccc')];
    const shards = shardsOfTests(plan, 2);
    // The most mutated test alone; the two others together (7 vs 5 runs).
    expect([...shards.entries()].sort()).toEqual([
      ['web\u0000tests/a.e2e.ts::adds', 1],
      ['web\u0000tests/a.e2e.ts::lists', 2],
      ['web\u0000tests/a.e2e.ts::ticks', 2],
    ]);
    expect(shardsOfTests([...plan].reverse(), 2)).toEqual(shards);
    const first = mutantsOfShard(plan, { current: 1, total: 2 });
    const second = mutantsOfShard(plan, { current: 2, total: 2 });
    expect(first.every((mutant) => mutant.titlePath[0] === 'adds')).toBe(true);
    expect([...first, ...second].map((mutant) => mutant.id).sort()).toEqual(plan.map((mutant) => mutant.id).sort());
    expect(mutantsOfShard(plan, undefined)).toEqual(plan);
  });

  it('says each mutant not judged: left out by the filter, in which other shard, or with no such test, with its entries and how to include it', async () => {
    const adds = await sampleActEntry(sampleKeyParts({ testId: 'tests/a.e2e.ts::adds', instruction: 'add "Milk"' }));
    const lists = await sampleActEntry(sampleKeyParts({ testId: 'tests/a.e2e.ts::lists', instruction: 'list the todos' }));
    const ticks = await sampleActEntry(sampleKeyParts({ testId: 'tests/a.e2e.ts::ticks', instruction: 'tick "Milk"' }));
    const plan = [...testWith('adds', 6, adds.key), ...testWith('lists', 2, lists.key), ...testWith('ticks', 3, ticks.key)];
    const ofShard = mutantsOfShard(plan, { current: 2, total: 2 });
    // The user's grep selected "ticks" only: "lists" (this shard) left out by it, "adds" in shard 1.
    const unjudged = ofShard.filter((mutant) => mutant.titlePath[0] === 'lists');
    const leftOut = leftOutOf({ plan, shard: { current: 2, total: 2 }, unjudged, filters: ["--grep 'ticks$'"], entries: [adds, lists, ticks] });
    expect(leftOut).toEqual([
      { reason: 'filter', mutants: 2, entries: [{ key: lists.key, testId: 'tests/a.e2e.ts::lists', kind: 'act', instruction: 'list the todos', mutants: 2 }], include: "run the audit without --grep 'ticks$', or with a filter that selects their tests" },
      { reason: 'shard', shard: '1/2', mutants: 6, entries: [{ key: adds.key, testId: 'tests/a.e2e.ts::adds', kind: 'act', instruction: 'add "Milk"', mutants: 6 }], include: "e2e cache audit --shard 1/2 --grep 'ticks$'" },
    ]);
    expect(leftOutTotals(leftOut)).toEqual({ mutants: 8, entries: 2 });
    expect(renderLeftOut(leftOut)).toEqual([
      "Not audited: 2 mutants of 1 entry, left out by your filter; to audit them: run the audit without --grep 'ticks$', or with a filter that selects their tests",
      `    tests/a.e2e.ts::lists  act "list the todos"  2 mutants  ${lists.key.slice(0, 8)}`,
      "Not audited: 6 mutants of 1 entry, in shard 1/2; to audit them: e2e cache audit --shard 1/2 --grep 'ticks$'",
      `    tests/a.e2e.ts::adds  act "add "Milk""  6 mutants  ${adds.key.slice(0, 8)}`,
    ]);
    // No filter, no shard: a test the run did not have is gone from the suite.
    const absent = leftOutOf({ plan, unjudged: plan.filter((mutant) => mutant.titlePath[0] === 'adds'), filters: [], entries: [adds, lists, ticks] });
    expect(absent).toMatchObject([{ reason: 'absent', mutants: 6, entries: [{ key: adds.key, mutants: 6 }] }]);
    expect(absent[0]!.include).toContain('e2e cache prune');
    expect(leftOutOf({ plan, unjudged: [], filters: [], entries: [adds, lists, ticks] })).toEqual([]);
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditLedger, FileCacheStore, initHashing, nodeFileSystem } from '../cache-format/index.js';
import { auditProjects, copiedTitlePath, copyRunsMutant, copyTestsOf, mutantOfTest, mutantTests, mutantVerdict, type PlannedMutant } from '../runner/audit-mutants.js';
import { sampleActEntry, sampleJudgmentEntry, sampleKeyParts } from '../tests/support/sample-entries.js';
import { formatScore, mutantsOf, noteAudit, planAudit, recordedTests, renderAudit, runAuditPass, type AuditPlan } from './cache-audit.js';
import { parseMinScore } from './min-score.js';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe('the mutants of an entry', () => {
  it('skips and breaks every action of an act entry, in the step grammar, and leaves a dismissal unskipped', async () => {
    const entry = await sampleActEntry();
    const dismissal = { ...entry.actions[0]!, dismisses: { role: 'dialog', name: 'Cookie consent' } } as (typeof entry.actions)[number];
    const mutants = mutantsOf({ ...entry, actions: [dismissal, ...entry.actions.slice(1)] });
    const changes = mutants.map((mutant) => mutant.change);
    expect(changes).not.toContain(expect.stringMatching(/^action 1 of 6:/));
    expect(changes[0]).toMatch(/^a broken handler at action 1 of 6: tap textbox "New todo"/);
    expect(changes).toContain('action 6 of 6: check checkbox "Toggle Todo" (1st of 2) in listitem "Buy milk 0"');
    expect(mutants.filter((mutant) => mutant.mutation.kind === 'skip-action')).toHaveLength(5);
    expect(mutants.filter((mutant) => mutant.mutation.kind === 'break-handlers')).toHaveLength(6);
    expect(new Set(mutants.map((mutant) => mutant.id)).size).toBe(mutants.length);
  });

  it('hides the evidence of a judgment once, and gives an entry resting only on absences none', async () => {
    const judgment = await sampleJudgmentEntry();
    expect(mutantsOf(judgment)).toEqual([{ id: `${judgment.key}-hide`, mutation: { kind: 'hide-evidence' }, change: expect.stringMatching(/^hidden evidence: /) as string }]);
    expect(mutantsOf({ ...judgment, evidence: judgment.evidence.map((check) => ({ ...check, expect: 'absent' as const, count: undefined })) })).toEqual([]);
  });
});

describe('a mutant verdict', () => {
  const entry = 'aaaaaaaaaaaaaaaa';
  const passed = { kind: 'act', instruction: 'add a todo', status: 'passed' as const, summary: 'Added.', cache: { mode: 'self-finalized' as const, entry: 'bbbbbbbbbbbbbbbb' } };

  it("is caught only when the mutated step's own replay stopped", () => {
    const stopped = { ...passed, status: 'blocked' as const, errorCode: 'REPLAY_STALE' as const, summary: 'stale', cache: { mode: 'missed' as const, reason: 'end-mismatch' as const, detail: 'after all 1 actions, text "1 item left" did not appear', entry } };
    expect(mutantVerdict([passed, stopped], entry)).toEqual({ kind: 'caught', detail: 'after all 1 actions, text "1 item left" did not appear' });
    expect(mutantVerdict([passed, { ...passed, cache: { mode: 'self-finalized', entry } }], entry)).toEqual({ kind: 'survived' });
    // Every action ran and the outcome is missing: the replay calls it a regression and fails the step (exit class 1).
    const regressed = { ...stopped, status: 'failed' as const, errorCode: 'ASSERTION_FAILED' as const, cache: { ...stopped.cache, classification: 'regression' as const } };
    expect(mutantVerdict([passed, regressed], entry)).toEqual({ kind: 'caught', detail: 'after all 1 actions, text "1 item left" did not appear' });
  });

  it("is equivalent when the rest of the test, its own checks included, passed too; a real blind spot when the test then failed, naming what failed", () => {
    const mutated = { ...passed, cache: { mode: 'self-finalized' as const, entry } };
    expect(mutantVerdict([passed, mutated], entry, undefined, true)).toEqual({ kind: 'equivalent' });
    expect(mutantVerdict([passed, mutated], entry, 'expect(locator).toHaveText(expected) failed', false)).toEqual({ kind: 'survived', then: 'expect(locator).toHaveText(expected) failed' });
    const later = { ...passed, kind: 'assert', instruction: 'one todo is done', status: 'failed' as const, errorCode: 'ASSERTION_FAILED' as const, summary: 'no todo is done' };
    expect(mutantVerdict([passed, mutated, later], entry, undefined, false)).toEqual({ kind: 'survived', then: 'agent.assert "one todo is done" (ASSERTION_FAILED): no todo is done' });
    // A caught mutant stays caught however the test ended.
    const stopped = { ...passed, status: 'failed' as const, errorCode: 'ASSERTION_FAILED' as const, summary: 'regressed', cache: { mode: 'missed' as const, reason: 'end-mismatch' as const, detail: 'gone', entry, classification: 'regression' as const } };
    expect(mutantVerdict([passed, stopped], entry, undefined, false)).toEqual({ kind: 'caught', detail: 'gone' });
  });

  it('is not run when an earlier step failed, the step was never reached, or it ended for another reason', () => {
    const failed = { ...passed, status: 'failed' as const, errorCode: 'ACTION_FAILED' as const, summary: 'no field' };
    expect(mutantVerdict([failed], entry)).toMatchObject({ kind: 'not-run', reason: expect.stringMatching(/^an earlier step did not pass: agent.act "add a todo" \(ACTION_FAILED\)/) as string });
    expect(mutantVerdict([passed], entry, 'Test timeout of 60000ms exceeded.')).toEqual({ kind: 'not-run', reason: 'the test ended before the mutated step: Test timeout of 60000ms exceeded.' });
    const timedOut = { ...passed, status: 'failed' as const, errorCode: 'TEST_TIMEOUT' as const, summary: 'timed out', cache: { mode: 'missed' as const, reason: 'action-failed' as const, detail: 'the replay was stopped (TEST_TIMEOUT)', entry } };
    // A timeout mid-replay stops the replay too, but it is not the mutant's doing.
    expect(mutantVerdict([timedOut], entry)).toEqual({ kind: 'not-run', reason: 'the mutated step ended for another reason (TEST_TIMEOUT): timed out' });
  });
});

describe('the mutants of the run request in the config', () => {
  it("puts a target's mutants in one project on its target's settings, a test's in the test and its copies, with their files, titles and mutants as a fixture option", () => {
    const test = (file: string, titlePath: string[]) => ({ project: 'web', testId: `${file}::${titlePath.join(' › ')}`, file, titlePath, entry: 'aaaaaaaaaaaaaaaa' });
    const adds = test('tests/a.e2e.ts', ['todos', 'adds (one)']);
    const lists = test('tests/b.e2e.ts', ['lists']);
    const plan: AuditPlan = {
      mutants: [
        { id: 'control-1', ...adds, mutation: { kind: 'none' } },
        { id: 'control-2', ...lists, mutation: { kind: 'none' } },
        { id: 'aaaaaaaaaaaaaaaa-skip-1', ...adds, mutation: { kind: 'skip-action', action: 0 } },
        { id: 'aaaaaaaaaaaaaaaa-break-1', ...adds, mutation: { kind: 'break-handlers', action: 0 } },
        { id: 'bbbbbbbbbbbbbbbb-skip-1', ...lists, mutation: { kind: 'skip-action', action: 0 } },
        { id: 'gone-1', project: 'mobile', testId: 'tests/a.e2e.ts::x', file: 'tests/a.e2e.ts', titlePath: ['x'], entry: 'aaaaaaaaaaaaaaaa', mutation: { kind: 'hide-evidence' } },
      ],
    };
    const projects = auditProjects([{ name: 'web', use: { e2eProject: 'settings' } as Record<string, unknown> }], plan.mutants);
    // One project, so one kind of worker, for five mutants of two tests; the target the config no longer has gets none.
    expect(projects.map((project) => project.name)).toEqual(['web · audit']);
    const [project] = projects;
    expect(project!.use).toEqual({ e2eProject: 'settings', e2eMutants: plan.mutants.slice(0, 5) });
    expect(project!.fullyParallel).toBe(true);
    // The control run first, in the test itself; each next mutant in the next copy.
    const tests = mutantTests(plan.mutants);
    expect(tests.get('control-1')).toEqual({ project: 'web · audit', slot: 1, titlePath: ['todos', 'adds (one)'], testId: 'tests/a.e2e.ts::todos › adds (one)' });
    expect(tests.get('aaaaaaaaaaaaaaaa-break-1')).toEqual({ project: 'web · audit', slot: 3, titlePath: ['todos', 'adds (one) · audit 3'], testId: 'tests/a.e2e.ts::todos › adds (one) · audit 3' });
    expect(tests.get('bbbbbbbbbbbbbbbb-skip-1')?.titlePath).toEqual(['lists · audit 2']);
    expect(project!.testMatch.some((pattern) => pattern.test('/home/me/project/tests/a.e2e.ts'))).toBe(true);
    expect(project!.testMatch.some((pattern) => pattern.test('/home/me/project/tests/b.e2e.ts'))).toBe(true);
    expect(project!.testMatch.some((pattern) => pattern.test('/home/me/project/tests/ba.e2e.ts'))).toBe(false);
    const greps = (title: string): boolean => project!.grep.some((pattern) => pattern.test(title));
    // A copy that runs a mutant in the project is matched by title as its test is (so a user's `--grep 'adds (one)$'`
    // selects it exactly when it selects the test); one that runs none here keeps its own title, which the grep leaves out.
    expect([greps('tests/a.e2e.ts todos adds (one)'), greps('tests/a.e2e.ts todos adds (one) @tag'), greps('tests/b.e2e.ts lists')]).toEqual([true, true, true]);
    expect([greps('tests/a.e2e.ts todos adds (one) more'), greps('tests/b.e2e.ts lists · audit 3'), greps('tests/a.e2e.ts todos adds (one) · audit 4')]).toEqual([false, false, false]);
    const runsMutant = copyRunsMutant(plan.mutants);
    const copy = (projectId: string, file: string, titlePath: string[]): boolean => runsMutant({ projectId, file: `/home/me/project/${file}`, titlePath });
    expect([copy('web · audit', 'tests/a.e2e.ts', ['todos', 'adds (one) · audit 3']), copy('web · audit', 'tests/b.e2e.ts', ['lists · audit 2'])]).toEqual([true, true]);
    // Not a copy with a mutant there: a slot past the test's mutants, another target's project, another file, the test itself.
    expect([
      copy('web · audit', 'tests/b.e2e.ts', ['lists · audit 3']),
      copy('mobile · audit', 'tests/a.e2e.ts', ['todos', 'adds (one) · audit 2']),
      copy('web · audit', 'tests/ba.e2e.ts', ['lists · audit 2']),
      copy('web · audit', 'tests/a.e2e.ts', ['todos', 'adds (one)']),
    ]).toEqual([false, false, false, false]);
    // Each test declares as many copies as its most mutated target needs, by title path and a file ending in the mutant's.
    const copies = copyTestsOf(plan.mutants);
    expect(copies({ file: '/home/me/project/tests/a.e2e.ts', titlePath: ['todos', 'adds (one)'] })).toEqual(['adds (one) · audit 2', 'adds (one) · audit 3']);
    expect(copies({ file: '/home/me/project/tests/b.e2e.ts', titlePath: ['lists'] })).toEqual(['lists · audit 2']);
    expect(copies({ file: '/home/me/project/tests/a.e2e.ts', titlePath: ['x'] })).toEqual([]);
    expect(copies({ file: '/home/me/project/tests/ba.e2e.ts', titlePath: ['lists'] })).toEqual([]);
    expect(copies({ file: '/home/me/project/tests/b.e2e.ts', titlePath: ['todos', 'lists'] })).toEqual([]);
    // The attempt finds its mutant by the exact test id of the test or copy, and replays the test's own entries.
    const mutants = project!.use['e2eMutants'] as PlannedMutant[];
    expect(mutantOfTest(mutants, lists.testId)).toEqual({ mutant: plan.mutants[1], slot: 1 });
    expect(mutantOfTest(mutants, 'tests/a.e2e.ts::todos › adds (one) · audit 3')).toEqual({ mutant: plan.mutants[3], slot: 3 });
    expect(mutantOfTest(mutants, 'tests/b.e2e.ts::lists · audit 3')).toBeUndefined();
    expect(copiedTitlePath(['todos', 'adds (one) · audit 3'], 3)).toEqual(['todos', 'adds (one)']);
    expect(copiedTitlePath(['lists'], 1)).toEqual(['lists']);
  });
});

describe('the plan of an audit', () => {
  it("plans only the entries of the tests a record run ran, when it names them (e2e record --audit)", async () => {
    await initHashing();
    const folder = mkdtempSync(join(tmpdir(), 'e2e-plan-'));
    folders.push(folder);
    const store = new FileCacheStore(folder);
    const adds = await sampleActEntry(sampleKeyParts({ projectId: 'web', testId: 'tests/a.e2e.ts::todos › adds' }));
    const lists = await sampleActEntry(sampleKeyParts({ projectId: 'web', testId: 'tests/a.e2e.ts::lists' }));
    for (const entry of [adds, lists]) await store.write(entry);
    const all = await planAudit(folder);
    expect(new Set(all.plan.mutants.map((mutant) => mutant.testId))).toEqual(new Set([adds.keyParts.testId, lists.keyParts.testId]));
    const recorded = recordedTests([{ project: 'web', file: 'tests/a.e2e.ts', titlePath: ['todos', 'adds'] }]);
    const planned = await planAudit(folder, { tests: recorded });
    expect(planned.entries.map((entry) => entry.key)).toEqual([adds.key]);
    expect(planned.plan.mutants.map((mutant) => mutant.id)).toEqual(['control-1', ...mutantsOf(adds).map((mutant) => mutant.id)]);
    // Another target's test of the same title is another test.
    expect((await planAudit(folder, { tests: recordedTests([{ project: 'mobile', file: 'tests/a.e2e.ts', titlePath: ['todos', 'adds'] }]) })).entries).toEqual([]);
  });

  it('runs nothing in a shard that holds no test, and says which shard holds the mutants; the audit is noted all the same', async () => {
    await initHashing();
    const folder = mkdtempSync(join(tmpdir(), 'e2e-shard-'));
    folders.push(folder);
    const cacheDirectory = join(folder, 'cache');
    const entry = await sampleActEntry(sampleKeyParts({ projectId: 'web', testId: 'tests/a.e2e.ts::adds' }));
    await new FileCacheStore(cacheDirectory).write(entry);
    const setup = { location: { cacheDirectory, hitsDirectory: join(folder, 'hits') }, configDir: folder };
    const options = { filters: [], playwright: ['--shard=2/2'], debug: false, cwd: folder, env: {} };
    const pass = await runAuditPass(options, setup, () => expect.unreachable('no run starts'));
    expect(pass.kind).toBe('judged');
    const { audit } = pass;
    expect(audit).toMatchObject({ outcome: 'passed', entries: [], total: 0, message: expect.stringMatching(/^No test is in shard 2\/2/) });
    expect(audit.notAudited).toEqual([{ reason: 'shard', shard: '1/2', mutants: mutantsOf(entry).length, entries: [{ key: entry.key, testId: 'tests/a.e2e.ts::adds', kind: 'act', instruction: entry.keyParts.instruction, mutants: mutantsOf(entry).length }], include: 'e2e cache audit --shard 1/2' }]);
    expect(renderAudit(audit)).toContain(`Not audited: ${mutantsOf(entry).length} mutants of 1 entry, in shard 1/2; to audit them: e2e cache audit --shard 1/2`);
    await noteAudit(audit, setup);
    expect(JSON.parse(readFileSync(join(folder, '.e2e', 'audit.json'), 'utf8'))).toMatchObject({ notAudited: audit.notAudited });
  });
});

describe('the audit ledger', () => {
  it('keeps the last audit per key outside the cache and leaves out files that are not audits', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'e2e-audit-ledger-'));
    folders.push(folder);
    const ledger = new AuditLedger(nodeFileSystem, folder);
    const record = { auditedAt: '2026-12-01T21:00:00.000Z', caught: 1, total: 2, notRun: 0, survivors: ['blind to action 1 of 1: tap button "Save"'], proofs: [] };
    await expect(ledger.record('0123456789abcdef', record)).resolves.toBe(true);
    await expect(ledger.record('0123456789abcdef', { ...record, caught: 2, survivors: [] })).resolves.toBe(true);
    await expect(ledger.record('not a key', record)).resolves.toBe(false);
    mkdirSync(join(folder, 'audits', 'fe'), { recursive: true });
    writeFileSync(join(folder, 'audits', 'fe', 'fedcba9876543210.json'), '{"caught": "many"}');
    const all = await ledger.readAll();
    expect([...all.keys()]).toEqual(['0123456789abcdef']);
    expect(all.get('0123456789abcdef')).toMatchObject({ caught: 2, total: 2, survivors: [] });
  });
});

describe('the score', () => {
  it('reads --min-score from 0 to 1 and prints the score with two decimals, rounded down', () => {
    expect(parseMinScore('0.9')).toBe(0.9);
    expect(() => parseMinScore('1.5')).toThrow(/from 0 to 1/);
    expect(() => parseMinScore('')).toThrow(/from 0 to 1/);
    expect(formatScore(0.999)).toBe('0.99');
    expect(formatScore(undefined)).toBe('none');
  });
});

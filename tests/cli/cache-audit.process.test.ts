/**
 * `e2e cache audit` through the real binary on a TodoMVC corpus (React from the `todomvc`
 * package, whose handlers React delegates to the document, served on 127.0.0.1): a suite is
 * recorded with a screen-reading scripted agent, then audited model-free and read-only. The
 * recorded "complete" entry catches every mutant (score 1.0), the judgment's hidden evidence
 * is caught, the cache folder is byte-identical afterwards and the agent is never called; an
 * entry made blind on purpose (its end check left resting on the ticked checkbox alone) shows
 * the exact survivor, a broken handler whose browser default still ticks the box, a real blind
 * spot since the test's own expect then fails, and `--min-score 1` exits 1 on it; a broken
 * typing handler React never needs is equivalent (the rest of the test passes with it), listed
 * apart and out of the score; `cache diff --format markdown` then shows each new entry's audit, and
 * `--min-audit-score` gates on it; `cache audit --since <base> --min-score` audits and gates only
 * what the cache adds or changes against a base, and a filter narrows it further: a `--grep`
 * anchored at a title's end selects the test's copies (its mutants) with the test, and the
 * audit says which mutants it left out, by the filter or in which other `--shard` (a test and
 * all its mutants in one shard), and how to audit them.
 *
 * The steps build on each other, in order. One audit run serves each part: the full audit, and,
 * once the entry is made blind, the audit against a base with a filter (an audit's cost is its
 * Playwright processes and its replays: a worker, and its browser, per `--workers`, each running
 * many mutants).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore, initHashing, type ActEntry } from '../../cache-format/index.js';
import { contentsOf } from '../support/directory-snapshot.js';
import { folderRoute, serveStatic, type StaticServer } from '../support/static-server.js';
import { ensureBuilt } from '../runner/support/build.js';
import { fixtureLane } from '../support/fixture-lane.js';
import { runE2E, type E2ERun } from '../runner/support/e2e-process.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/audit', import.meta.url));
const REACT = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples', 'react');

interface AuditJson {
  version: number;
  score: number | null;
  caught: number;
  total: number;
  notRun: number;
  equivalent: number;
  entries: { key: string; testId: string; kind: string; instruction: string; caught: number; total: number; notRun: number; survivors: string[]; survivorFailures: string[]; equivalent: string[]; proofs: string[] }[];
  notAudited: { reason: string; shard?: string; mutants: number; entries: { key: string; testId: string; kind: string; mutants: number }[]; include: string }[];
  message?: string;
}

let server: StaticServer;
let work: string;
let cacheDir: string;
let callLog: string;

function env(): Record<string, string> {
  return { E2E_FIXTURE_APP_URL: server.url, E2E_FIXTURE_CACHE_DIR: cacheDir, E2E_FIXTURE_CALL_LOG: callLog, E2E_FIXTURE_WORKERS: '2' };
}

function agentCalls(): string[] {
  return existsSync(callLog) ? readFileSync(callLog, 'utf8').split('\n').filter((line) => line !== '') : [];
}

function entryOf(audit: AuditJson, kind: string, instruction: string, test: string): AuditJson['entries'][number] {
  const found = audit.entries.find((entry) => entry.kind === kind && entry.instruction === instruction && entry.testId.endsWith(`::${test}`));
  expect(found, `${test}: ${kind} "${instruction}" in ${JSON.stringify(audit.entries, null, 2)}`).toBeDefined();
  return found!;
}

beforeAll(async () => {
  ensureBuilt();
  await initHashing();
  server = await serveStatic(undefined);
  server.route(folderRoute(() => REACT));
  work = mkdtempSync(join(tmpdir(), 'e2e-audit-'));
  cacheDir = join(work, 'cache');
  callLog = join(work, 'calls.log');
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
}, scaledTimeout(300_000));

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
});

describe('e2e cache audit on TodoMVC (React)', () => {
  it('records the suite with the scripted agent', async () => {
    const run = await runE2E(['record'], { cwd: FIXTURE, env: env() });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    // Two adds, one complete, one assert.
    await expect(new FileCacheStore(cacheDir, { readOnly: true }).list()).resolves.toHaveLength(4);
  }, scaledTimeout(300_000));

  it('catches every mutant of the strong entry and the judgment, model-free, leaving the cache byte-identical', async () => {
    const before = contentsOf(cacheDir);
    rmSync(callLog, { force: true });
    const run = await runE2E(['cache', 'audit', '--json'], { cwd: FIXTURE, env: env() });
    expect(run.exitCode, run.stderr.slice(-4000)).toBe(0);
    const audit = JSON.parse(run.stdout) as AuditJson;
    // No agent (and so no model) ran; nothing in the cache changed.
    expect(agentCalls()).toEqual([]);
    expect(contentsOf(cacheDir)).toEqual(before);

    const complete = entryOf(audit, 'act', 'complete "Buy milk"', 'completes a todo');
    // Skip the tick, break its handler: both caught (the counter and "Clear completed" never change).
    expect(complete).toMatchObject({ caught: 2, total: 2, notRun: 0, survivors: [] });
    expect(complete.proofs).toHaveLength(2);
    expect(complete.proofs[1]).toMatch(/^a broken handler at action 1 of 1: check unnamed checkbox in listitem "Buy milk": proven by: /);
    const judgment = entryOf(audit, 'assert', '"Buy milk" is listed', 'lists a todo');
    expect(judgment).toMatchObject({ caught: 1, total: 1, notRun: 0 });

    // React reads the new todo's text off the field on Enter: a silenced input handler changes nothing. The rest of
    // the test, its own expect and assert included, passes with it too: an equivalent mutant, listed apart, out of the score.
    for (const test of ['lists a todo', 'completes a todo']) {
      const add = entryOf(audit, 'act', 'add todos "Buy milk"', test);
      expect(add).toMatchObject({ caught: 3, total: 3, survivors: [], equivalent: ['a broken handler at action 1 of 2: type "Buy milk" into textbox "What needs to be done?"'] });
    }
    expect(audit.equivalent).toBe(2);
    // A plain audit has no causal part (that is `e2e record --audit`'s, causal-record.process.test.ts).
    expect(audit).not.toHaveProperty('causal');
    expect(audit.caught).toBe(audit.entries.reduce((sum, entry) => sum + entry.caught, 0));
    expect(audit.score).toBe(1);
    expect(audit.notAudited).toEqual([]);
    // Every mutant ran in the target's one audit project (so in the run's workers, not one per mutant of a test): a
    // test's control run in the test itself, each of its mutants in a copy of it.
    const ran = JSON.parse(readFileSync(join(FIXTURE, '.e2e', 'audit-run.json'), 'utf8')) as { tests: { project: string; titlePath: string[] }[] };
    expect([...new Set(ran.tests.map((test) => test.project))]).toEqual(['web · audit']);
    const mutantsOf = (test: string): number => audit.entries.filter((entry) => entry.testId.endsWith(`::${test}`)).reduce((sum, entry) => sum + entry.total + entry.notRun + entry.equivalent.length, 0);
    const copies = (test: string): string[] => [test, ...Array.from({ length: mutantsOf(test) }, (_, index) => `${test} · audit ${index + 2}`)];
    expect(ran.tests.map((test) => test.titlePath.join(' › ')).sort()).toEqual([...copies('lists a todo'), ...copies('completes a todo')].sort());

    // The table, the file, the ledger behind `cache ls` / `cache show`.
    const written = auditOf();
    expect(written.entries).toEqual(audit.entries);
    const listed = await runE2E(['cache', 'ls'], { cwd: FIXTURE, env: env() });
    expect(listed.stdout).toMatch(/complete "Buy milk".*2 of 2 caught/);
    const shown = await runE2E(['cache', 'show', complete.key], { cwd: FIXTURE, env: env() });
    expect(shown.stdout).toMatch(/^Last audit: 2 of 2 mutants caught \(/m);
    expect(shown.stdout).toMatch(/^ {2}caught: action 1 of 1: check unnamed checkbox in listitem "Buy milk": proven by: /m);
  }, scaledTimeout(900_000));
});

/** The `--since` audits of the cache with the "complete" entry made blind, run once for every test that reads them. */
interface SinceAudit {
  /**
   * `--since <base> --shard 1/2 --grep 'completes a todo$' --min-score 1`: the base changed the "complete" entry
   * and the judgment; shard 1 holds the "complete" entry's test (3 runs: its control and 2 mutants), shard 2 the judgment's (2).
   */
  run: E2ERun;
  /** The same, `--shard 2/2 --json`, in a lane of its own: the grep leaves out the judgment's test, the only one of shard 2. */
  otherShard: E2ERun;
  /** `--since` the cache itself. */
  same: E2ERun;
  /** `--since` a base that is not there. */
  missing: E2ERun;
  /** The changed entries' keys, by kind. */
  changed: Map<string, string>;
  calls: string[];
  before: Record<string, string>;
}

let since: Promise<SinceAudit> | undefined;

/** The `--since` audits, run once (after the entry was made blind). */
function sinceAudit(): Promise<SinceAudit> {
  since ??= (async () => {
    // The base: this cache with the "complete" entry and the judgment recorded differently, so only they are changed
    // since it; the filter then leaves out the judgment's test.
    const base = mkdtempSync(join(work, 'base-cache-'));
    cpSync(cacheDir, base, { recursive: true });
    const baseStore = new FileCacheStore(base);
    const changed = new Map<string, string>();
    for (const ref of await baseStore.list()) {
      const read = await baseStore.read(ref.key);
      if (read.kind !== 'hit') continue;
      if ((read.entry.kind === 'act' && read.entry.keyParts.instruction === 'complete "Buy milk"') || read.entry.kind === 'assert') {
        changed.set(read.entry.kind, read.entry.key);
        await baseStore.write({ ...read.entry, summary: 'an older recording' }, { overwrite: true });
      }
    }
    expect([...changed.keys()].sort()).toEqual(['act', 'assert']);
    const before = contentsOf(cacheDir);
    rmSync(callLog, { force: true });
    // The runs that run no mutant go alongside (the other shard in a lane: it writes its own .e2e/audit.json).
    const lane = fixtureLane(FIXTURE, 'shard');
    const [run, otherShard, same, missing] = await Promise.all([
      runE2E(['cache', 'audit', '--since', base, '--shard', '1/2', '--grep', 'completes a todo$', '--min-score', '1'], { cwd: FIXTURE, env: env() }),
      runE2E(['cache', 'audit', '--since', base, '--shard', '2/2', '--grep', 'completes a todo$', '--json'], { cwd: lane.folder, env: env() }).finally(() => lane.remove()),
      runE2E(['cache', 'audit', '--since', cacheDir, '--min-score', '1'], { cwd: FIXTURE, env: env() }),
      runE2E(['cache', 'audit', '--since', 'no-such-revision'], { cwd: FIXTURE, env: env() }),
    ]);
    return { run, otherShard, same, missing, changed, calls: agentCalls(), before };
  })();
  return since;
}

/** The audit the last `cache audit` wrote. */
function auditOf(): AuditJson {
  return JSON.parse(readFileSync(join(FIXTURE, '.e2e', 'audit.json'), 'utf8')) as AuditJson;
}

describe('e2e cache audit on TodoMVC (React), the "complete" entry made blind on purpose', () => {
  beforeAll(async () => {
    const store = new FileCacheStore(cacheDir);
    const refs = await store.list();
    let blinded: ActEntry | undefined;
    for (const ref of refs) {
      const read = await store.read(ref.key);
      if (read.kind === 'hit' && read.entry.kind === 'act' && read.entry.keyParts.instruction === 'complete "Buy milk"') {
        // Only the ticked checkbox is left to prove the step: what the app did about it is dropped.
        blinded = { ...read.entry, appeared: [], gone: [], verified: [] };
        await store.write(blinded, { overwrite: true });
      }
    }
    expect(blinded).toBeDefined();
  });

  it('shows the exact survivor of the entry made blind on purpose, model-free, leaving the cache byte-identical, and --min-score 1 exits 1', async () => {
    const { run, calls, before } = await sinceAudit();
    expect(run.exitCode, run.stderr.slice(-4000)).toBe(1);
    expect(run.stdout).toContain('    blind to a broken handler at action 1 of 1: check unnamed checkbox in listitem "Buy milk"');
    expect(run.stdout).toMatch(/complete "Buy milk"\S*\s+1 of 2/);
    expect(run.stdout).toMatch(/below --min-score 1/);
    expect(calls).toEqual([]);
    expect(contentsOf(cacheDir)).toEqual(before);
    const complete = entryOf(auditOf(), 'act', 'complete "Buy milk"', 'completes a todo');
    expect(complete).toMatchObject({ caught: 1, total: 2, survivors: ['blind to a broken handler at action 1 of 1: check unnamed checkbox in listitem "Buy milk"'], equivalent: [] });
    // Not equivalent: the test's own expect of "0 items left" fails after the step passed. The survivor line says so.
    expect(complete.survivorFailures).toEqual([expect.stringContaining('toHaveText')]);
    expect(run.stdout).toContain('"Buy milk": a real blind spot, the test then failed: ');
  }, scaledTimeout(900_000));

  it('audits only what the cache changes against a base, the shard holds and the filter selects, and says what it left out and why; against itself nothing is new, and a base that is not there is refused', async () => {
    const { changed, run, otherShard, same, missing } = await sinceAudit();
    // Only the changed entry of the selected test was audited: no filter named it, the base did; both its mutants ran
    // (caught 1 of 2), each in a copy of the test that `--grep 'completes a todo$'` selected with the test. The other
    // changed entry (the judgment of "lists a todo") is in shard 2, and the audit says so, with how to audit it.
    const audit = auditOf();
    expect(audit.entries.map((entry) => entry.key)).toEqual([changed.get('act')]);
    expect(audit).toMatchObject({ caught: 1, total: 2 });
    const judgment = { key: changed.get('assert'), testId: expect.stringMatching(/::lists a todo$/), kind: 'assert', instruction: '"Buy milk" is listed', mutants: 1 };
    expect(audit.notAudited).toEqual([{ reason: 'shard', shard: '2/2', mutants: 1, entries: [judgment], include: "e2e cache audit --shard 2/2 --grep 'completes a todo$'" }]);
    expect(run.stdout).toContain("Not audited: 1 mutant of 1 entry, in shard 2/2; to audit them: e2e cache audit --shard 2/2 --grep 'completes a todo$'");
    expect(run.stdout).toMatch(/Audit {2}score 0\.50 · 1 of 2 mutants caught · 1 entry · 1 mutant of 1 entry not audited$/m);
    // Shard 2 holds only the judgment's test, which the grep leaves out: nothing ran there, and it says both, never a silent skip.
    expect(otherShard.exitCode, otherShard.stderr.slice(-4000)).toBe(0);
    const other = JSON.parse(otherShard.stdout) as AuditJson;
    expect(other).toMatchObject({ entries: [], total: 0, message: expect.stringMatching(/^No mutant ran/) });
    expect(other.notAudited).toEqual([
      { reason: 'filter', mutants: 1, entries: [judgment], include: "run the audit without --grep 'completes a todo$', or with a filter that selects their tests" },
      { reason: 'shard', shard: '1/2', mutants: 2, entries: [{ key: changed.get('act'), testId: expect.stringMatching(/::completes a todo$/), kind: 'act', instruction: 'complete "Buy milk"', mutants: 2 }], include: "e2e cache audit --shard 1/2 --grep 'completes a todo$'" },
    ]);
    // Against itself nothing is new: the gate passes without running a test.
    expect(same.exitCode, same.stdout + same.stderr).toBe(0);
    expect(same.stdout).toContain(`No entry is new or changed since `);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/INVALID_ARGUMENT: no-such-revision is neither a folder nor a/);
  }, scaledTimeout(900_000));

  it('shows each entry\'s last audit in the review, and the review gates on it', async () => {
    await sinceAudit();
    // Review: every entry is new against an empty cache, each shows its last audit, and the gate reads them.
    const empty = mkdtempSync(join(work, 'empty-cache-'));
    const [gated, passing] = await Promise.all([
      runE2E(['cache', 'diff', empty, cacheDir, '--format', 'markdown', '--min-audit-score', '1'], { cwd: FIXTURE, env: env() }),
      runE2E(['cache', 'diff', empty, cacheDir, '--min-audit-score', '0.5'], { cwd: FIXTURE, env: env() }),
    ]);
    expect(gated.exitCode, gated.stderr).toBe(1);
    expect(gated.stdout).toContain('- audit: caught 1 of 2 mutants (');
    expect(gated.stdout).toContain('- survived: `blind to a broken handler at action 1 of 1: check unnamed checkbox in listitem "Buy milk"`');
    expect(gated.stdout).toMatch(/^> Audit of the new and changed entries: score 0\.\d\d · \d+ of \d+ mutants caught · 4 of 4 entries audited$/m);
    expect(gated.stdout).toContain('> below --min-audit-score 1');
    expect(gated.stdout).toContain('- equivalent (the test\'s own checks pass with it too): `a broken handler at action 1 of 2: type "Buy milk" into textbox "What needs to be done?"`');
    expect(passing.exitCode, passing.stdout + passing.stderr).toBe(0);
    expect(passing.stdout).toContain('    audit: caught 1 of 2 mutants (');
  }, scaledTimeout(900_000));
});

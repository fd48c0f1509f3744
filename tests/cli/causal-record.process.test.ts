/**
 * Causal end checks through the real binary on TodoMVC (Vue from the `todomvc` package, served
 * on 127.0.0.1), recorded with a screen-reading scripted agent: `add todo "Buy milk" and
 * complete it` types, presses Enter and ticks the box. Recorded plainly, the counter and "Clear
 * completed" are weighed incidental, but they changed right after the tick, so the entry requires
 * them (`producedBy`): a broken tick handler, whose native checkbox still ticks, is caught with no
 * audit (6 of 6). `e2e record --audit` then ties each outcome to the actions whose mutants remove
 * it (`causedBy`), requiring nothing new, and the re-audit (a plain audit of the amended entry)
 * still catches every mutant; the config's `cache.audit: 'record'` does the same on `e2e record`,
 * model-free, finds nothing more to tie and leaves the cache byte-identical. The agent (the
 * model's stand-in) is never called by an audit. No good entry is lost: the fixture's second test
 * runs the same step on the same app served at `/changing/`, which stops showing "Clear completed"
 * once the re-audit starts, so in the same `record --audit` run its amended entry no longer replays
 * and is put back exactly as recorded.
 *
 * The steps build on each other, in order. One recording and one `record --audit` run serve both
 * tests of the fixture: an audit's cost is its Playwright processes and its replays (a worker,
 * and its browser, runs many mutants in turn), and the mutants of two tests share them.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore, initHashing, type ActEntry } from '../../cache-format/index.js';
import { contentsOf } from '../support/directory-snapshot.js';
import { folderRoute, serveStatic, type StaticServer } from '../support/static-server.js';
import { ensureBuilt } from '../runner/support/build.js';
import { runE2E, type E2ERun } from '../runner/support/e2e-process.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/causal', import.meta.url));
const VUE = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples', 'vue');
const INSTRUCTION = 'add todo "Buy milk" and complete it';
/** The fixture's two tests: the app at `/`, and the same app at `/changing/`, which changes before the re-audit. */
const STEADY = 'adds a done todo';
const CHANGING = 'adds a done todo on the app that changes';
const CHANGING_PATH = '/changing/';

interface AuditJson {
  score: number | null;
  caught: number;
  total: number;
  entries: { key: string; testId: string; instruction: string; caught: number; total: number; notRun: number; survivors: string[] }[];
  notAudited: unknown[];
  causal?: {
    before: { score: number | null; entries: { key: string; caught: number; total: number; survivors: string[] }[] };
    amended: { key: string; caused: number; newlyRequired: number; links: string[] }[];
    restored: { key: string; reason: string }[];
    unchanged: { key: string; reason: string }[];
  };
}

let server: StaticServer;
let work: string;
let cacheDir: string;
let callLog: string;
/** Where `record --audit` writes its run requests (its TMPDIR, launch/run-request-file.ts): the app that changes reads them. */
let requests: string;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { E2E_FIXTURE_APP_URL: server.url, E2E_FIXTURE_CACHE_DIR: cacheDir, E2E_FIXTURE_CALL_LOG: callLog, E2E_FIXTURE_WORKERS: '2', ...extra };
}

function agentCalls(): string[] {
  return existsSync(callLog) ? readFileSync(callLog, 'utf8').split('\n').filter((line) => line !== '') : [];
}

/** The audit the last audit in the fixture wrote. */
function auditJson(): AuditJson {
  return JSON.parse(readFileSync(join(FIXTURE, '.e2e', 'audit.json'), 'utf8')) as AuditJson;
}

/** The entry of the fixture's test `title` (the cache holds one per test). */
async function entryOf(title: string): Promise<ActEntry> {
  const store = new FileCacheStore(cacheDir, { readOnly: true });
  const refs = await store.list();
  expect(refs).toHaveLength(2);
  for (const ref of refs) {
    const read = await store.read(ref.key);
    if (read.kind !== 'hit' || read.entry.kind !== 'act') throw new Error(`an entry does not read: ${read.kind}`);
    if (read.entry.keyParts.testId.endsWith(`::${title}`)) return read.entry;
  }
  throw new Error(`no entry of "${title}"`);
}

/** A row of the audit table: the test, its step and `caught of total`. */
function row(title: string, caught: string): RegExp {
  return new RegExp(`::${title}\\s+act "add todo "Buy milk" and complete it"\\s+${caught}`);
}

beforeAll(async () => {
  ensureBuilt();
  await initHashing();
  work = mkdtempSync(join(tmpdir(), 'e2e-causal-'));
  cacheDir = join(work, 'cache');
  callLog = join(work, 'calls.log');
  requests = mkdtempSync(join(work, 'requests-'));
  const index = readFileSync(join(VUE, 'index.html'), 'utf8');
  const broken = index.replace('v-show="todos.length > remaining"', 'v-show="false"');
  expect(broken).not.toBe(index);
  server = await serveStatic(undefined);
  // The app that changes: the same app under /changing/. Once a run asks for mutants without end facts (the re-audit of
  // `record --audit`), its page never shows "Clear completed".
  server.route(async (request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (!path.startsWith(CHANGING_PATH)) return false;
    if (path !== CHANGING_PATH) {
      request.url = `/${path.slice(CHANGING_PATH.length)}`;
      return false;
    }
    const asked = await Promise.all(readdirSync(requests).map((folder) => readFile(join(requests, folder, 'request.json'), 'utf8').catch(() => '')));
    const reaudit = asked.some((text) => text.includes('"mutants"') && !text.includes('"facts"'));
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(reaudit ? broken : index);
    return true;
  });
  server.route(folderRoute(() => VUE));
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
}, 300_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
});

/** The one `e2e record --audit` run of the plain recording, with what the cache held before it and the agent calls it made. */
interface AuditedRecord {
  run: E2ERun;
  calls: string[];
  recorded: ActEntry;
  changing: string;
  before: Record<string, string>;
}

let audited: Promise<AuditedRecord> | undefined;

/** Run `e2e record --audit` once, on the plain recording the first test made; every test that reads it shares it. */
function recordAudit(): Promise<AuditedRecord> {
  audited ??= (async () => {
    const recorded = await entryOf(STEADY);
    const { key: changing } = await entryOf(CHANGING);
    const before = contentsOf(cacheDir);
    rmSync(callLog, { force: true });
    const run = await runE2E(['record', '--audit'], { cwd: FIXTURE, env: env({ TMPDIR: requests }) });
    return { run, calls: agentCalls(), recorded, changing, before };
  })();
  return audited;
}

describe('e2e record --audit on TodoMVC (Vue)', () => {
  it('records plainly with no audit and no causes in the entry', async () => {
    const run = await runE2E(['record'], { cwd: FIXTURE, env: env() });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/Audit {2}score/);
    expect(agentCalls()).toEqual([`act ${INSTRUCTION}`, `act ${INSTRUCTION}`]);
    for (const title of [STEADY, CHANGING]) {
      const entry = await entryOf(title);
      expect(JSON.stringify(entry)).not.toContain('causedBy');
      // The counter and "Clear completed" are weighed incidental, but the step produced them right after the tick: required.
      const incidental = entry.appeared.filter((control) => control.basis === 'incidental');
      expect(incidental).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: '0 items left', producedBy: [2] }), expect.objectContaining({ name: 'Clear completed (1)', producedBy: [2] })]),
      );
    }
  }, 300_000);

  it('ties the counter and "Clear completed" to the tick, model-free, catching every mutant before and after; the same key, only the causes added', async () => {
    const { run, calls, recorded, changing } = await recordAudit();
    expect(run.exitCode, run.stdout + run.stderr.slice(-4000)).toBe(0);
    // The record run replayed the entries, and no audit called the agent.
    expect(calls).toEqual([]);

    // As recorded, the broken tick is already caught: what it stops the app producing is required.
    const [asRecorded, after] = run.stdout.split('\nRe-audited:\n') as [string, string];
    expect(asRecorded).toContain('As recorded:');
    expect(asRecorded).not.toContain('blind to');
    expect(asRecorded).toMatch(row(STEADY, '6 of 6'));
    expect(asRecorded).toMatch(row(CHANGING, '6 of 6'));
    expect(asRecorded).toMatch(/^ {4}action 3 of 3: check unnamed checkbox in listitem "Buy milk": proven by: .*button "Clear completed \(1\)" appeared.*text "0 items left" appeared/m);
    // The re-audit is a plain audit of the amended entry: every mutant still caught.
    expect(after).toMatch(row(STEADY, '6 of 6'));
    expect(after).not.toContain('blind to');
    expect(run.stdout).toMatch(/^ {2}Causal {2}score 1\.00 → 1\.00$/m);

    const audit = auditJson();
    expect(audit.entries).toEqual([
      expect.objectContaining({ key: recorded.key, caught: 6, total: 6, notRun: 0, survivors: [] }),
      expect.objectContaining({ key: changing, caught: 6, total: 6, survivors: [] }),
    ]);
    expect(audit.score).toBe(1);
    expect(audit.causal!.before.entries).toEqual([expect.objectContaining({ key: recorded.key, caught: 6, total: 6, survivors: [] }), expect.objectContaining({ key: changing, caught: 6, total: 6, survivors: [] })]);
    // The causes are tied, but nothing is newly required: the step's own recording required it all.
    expect(audit.causal!.amended).toEqual([expect.objectContaining({ key: recorded.key, newlyRequired: 0 })]);

    // The same key, the same flow; only the causes are added.
    const amended = await entryOf(STEADY);
    expect(amended.key).toBe(recorded.key);
    const causedBy = (text: string) => amended.appeared.find((control) => (control.text ?? control.name) === text)?.causedBy;
    expect(causedBy('0 items left')).toEqual([2]);
    expect(causedBy('Clear completed (1)')).toEqual([2]);
    expect(amended.appeared.find((control) => control.name === 'All')?.causedBy).toBeUndefined();
    const strip = (entry: ActEntry) => JSON.parse(JSON.stringify(entry, (key, value: unknown) => (key === 'causedBy' ? undefined : value))) as ActEntry;
    expect(strip(amended)).toEqual(strip(recorded));
  }, 1_200_000);

  it('puts an entry whose app changed before the re-audit back as recorded, byte for byte, keeping its audit as recorded', async () => {
    const { run, recorded, changing, before } = await recordAudit();
    expect(run.exitCode, run.stdout + run.stderr.slice(-4000)).toBe(0);
    // On the app that changed, the amended entry no longer replays: put back, its audit as recorded kept.
    expect(run.stdout).toMatch(new RegExp(`^ {2}${changing.slice(0, 8)} put back as recorded: with its causal end checks the step did not replay unmutated \\(after all 3 actions, button "Clear completed \\(1\\)" did not appear \\(the screen then held still for 1 s\\)\\)$`, 'm'));
    expect(auditJson().causal!.restored).toEqual([expect.objectContaining({ key: changing })]);
    // The put-back entry's recorded blob is named again (the amended one is left for `cache prune`): every file but the amended entry's ref is as it was.
    const now = contentsOf(cacheDir);
    for (const [path, digest] of Object.entries(before)) if (!path.includes(recorded.key)) expect(now[path], path).toBe(digest);
    expect(JSON.stringify(await entryOf(CHANGING))).not.toContain('causedBy');
  }, 1_200_000);

  it('shows the amended entry in cache show: what proves each action, the causes, the end and the last audit', async () => {
    const { recorded } = await recordAudit();
    const shown = await runE2E(['cache', 'show', recorded.key], { cwd: FIXTURE, env: env() });
    expect(shown.stdout).toMatch(/^ {2}3\. check unnamed checkbox in listitem "Buy milk"\n {5}proven by: button "Clear completed \(1\)" appeared; text "0 items left" appeared; /m);
    expect(shown.stdout).toContain('  appeared: text "0 items left" (incidental, caused by action 3)');
    expect(shown.stdout).toMatch(/^End rests on: strong \(.*2 caused.*\)$/m);
    expect(shown.stdout).toMatch(/^Last audit: 6 of 6 mutants caught/m);
  }, 1_200_000);

  it('records causally on plain `e2e record` with cache.audit: record, model-free, agrees, finds nothing more to tie and leaves the cache byte-identical', async () => {
    const { key } = await entryOf(STEADY);
    const before = contentsOf(cacheDir);
    rmSync(callLog, { force: true });
    // Only the steady app's test (the other's app has changed for good), by a grep anchored at its title's end, as a
    // user writes one: the audit takes the tests the record run ran, so every mutant of it runs (in copies of the test).
    const run = await runE2E(['record', '--grep', `${STEADY}$`], { cwd: FIXTURE, env: env({ E2E_FIXTURE_CAUSAL: '1' }) });
    expect(run.exitCode, run.stdout + run.stderr.slice(-4000)).toBe(0);
    expect(agentCalls()).toEqual([]);
    expect(run.stdout).toContain('As recorded:');
    expect(run.stdout).toMatch(row(STEADY, '6 of 6'));
    expect(run.stdout).toMatch(/^ {2}Causal {2}score 1\.00 → 1\.00$/m);
    const audit = auditJson();
    // The audit of the amended entry agrees with the one before it.
    expect(audit.entries).toEqual([expect.objectContaining({ key, instruction: INSTRUCTION, caught: 6, total: 6, survivors: [] })]);
    expect(audit.causal!.unchanged).toContainEqual(expect.objectContaining({ key, reason: 'its end checks already name their causes' }));
    expect(audit.causal!.amended).toEqual([]);
    expect(audit.notAudited).toEqual([]);
    expect(contentsOf(cacheDir)).toEqual(before);
  }, 900_000);
});

/**
 * Causal end checks through the real binary on TodoMVC (Vue from the `todomvc` package, served
 * on 127.0.0.1), recorded with a screen-reading scripted agent: `add todo "Buy milk" and
 * complete it` types, presses Enter and ticks the box. Recorded plainly, the counter and "Clear
 * completed" are weighed incidental, but they changed right after the tick, so the entry requires
 * them (`producedBy`): a broken tick handler, whose native checkbox still ticks, is caught with no
 * audit (6 of 6). `e2e record --audit` then ties each outcome to the actions whose mutants remove
 * it (`causedBy`), requiring nothing new, and the re-audit still catches every mutant; a plain
 * `cache audit` afterwards agrees and leaves the cache byte-identical; the config's
 * `cache.audit: 'record'` does the same on `e2e record`. The agent (the model's stand-in) is
 * never called by an audit. No good entry is lost: when the app stops showing "Clear completed"
 * between the two audits, the amended entry no longer replays and is put back exactly as recorded.
 *
 * The steps of each part build on each other, in order; the two parts (the one app, the app that
 * changes) share nothing (a cache, a server and a lane of the fixture each), so they go side by
 * side: most of an audit's time is replays waiting for a screen to settle.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore, initHashing, type ActEntry } from '../../cache-format/index.js';
import { contentsOf } from '../support/directory-snapshot.js';
import { fixtureLane, type FixtureLane } from '../support/fixture-lane.js';
import { folderRoute, serveStatic, type StaticServer } from '../support/static-server.js';
import { ensureBuilt } from '../runner/support/build.js';
import { runE2E } from '../runner/support/e2e-process.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/causal', import.meta.url));
const VUE = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples', 'vue');
const INSTRUCTION = 'add todo "Buy milk" and complete it';

interface AuditJson {
  score: number | null;
  caught: number;
  total: number;
  entries: { key: string; instruction: string; caught: number; total: number; notRun: number; survivors: string[] }[];
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

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { E2E_FIXTURE_APP_URL: server.url, E2E_FIXTURE_CACHE_DIR: cacheDir, E2E_FIXTURE_CALL_LOG: callLog, E2E_FIXTURE_WORKERS: '2', ...extra };
}

function agentCalls(): string[] {
  return existsSync(callLog) ? readFileSync(callLog, 'utf8').split('\n').filter((line) => line !== '') : [];
}

/** The audit the last audit in `project` (the fixture or a lane of it) wrote. */
function auditJson(project = FIXTURE): AuditJson {
  return JSON.parse(readFileSync(join(project, '.e2e', 'audit.json'), 'utf8')) as AuditJson;
}

/** The one entry in `cache`. */
async function theEntry(cache = cacheDir): Promise<ActEntry> {
  const store = new FileCacheStore(cache, { readOnly: true });
  const refs = await store.list();
  expect(refs).toHaveLength(1);
  const read = await store.read(refs[0]!.key);
  if (read.kind !== 'hit' || read.entry.kind !== 'act') throw new Error(`the entry does not read: ${read.kind}`);
  return read.entry;
}

beforeAll(async () => {
  ensureBuilt();
  await initHashing();
  server = await serveStatic(undefined);
  server.route(folderRoute(() => VUE));
  work = mkdtempSync(join(tmpdir(), 'e2e-causal-'));
  cacheDir = join(work, 'cache');
  callLog = join(work, 'calls.log');
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
}, 300_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
});

describe('e2e record --audit on TodoMVC (Vue)', { concurrent: true }, () => {
  it.sequential('records plainly with no audit and no causes in the entry', async () => {
    const run = await runE2E(['record'], { cwd: FIXTURE, env: env() });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/Audit {2}score/);
    expect(agentCalls()).toEqual([`act ${INSTRUCTION}`]);
    const entry = await theEntry();
    expect(JSON.stringify(entry)).not.toContain('causedBy');
    // The counter and "Clear completed" are weighed incidental, but the step produced them right after the tick: required.
    const incidental = entry.appeared.filter((control) => control.basis === 'incidental');
    expect(incidental).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: '0 items left', producedBy: [2] }), expect.objectContaining({ name: 'Clear completed (1)', producedBy: [2] })]),
    );
  }, 300_000);

  it.sequential('ties the counter and "Clear completed" to the tick; the plain recording already required them, so every mutant is caught before and after', async () => {
    const recorded = await theEntry();
    rmSync(callLog, { force: true });
    const run = await runE2E(['record', '--audit'], { cwd: FIXTURE, env: env() });
    expect(run.exitCode, run.stdout + run.stderr.slice(-4000)).toBe(0);
    // The record run replayed the entry, and no audit called the agent.
    expect(agentCalls()).toEqual([]);

    // As recorded, the broken tick is already caught: what it stops the app producing is required.
    const [before, after] = run.stdout.split('\nRe-audited:\n') as [string, string];
    expect(before).toContain('As recorded:');
    expect(before).not.toContain('blind to');
    expect(before).toMatch(/add todo "Buy milk" and complete it"\s+6 of 6/);
    expect(before).toMatch(/^ {4}action 3 of 3: check unnamed checkbox in listitem "Buy milk": proven by: .*button "Clear completed \(1\)" appeared.*text "0 items left" appeared/m);
    expect(after).toMatch(/add todo "Buy milk" and complete it"\s+6 of 6/);
    expect(after).not.toContain('blind to');
    expect(run.stdout).toMatch(/^ {2}Causal {2}score 1\.00 → 1\.00$/m);

    const audit = auditJson();
    expect(audit.entries).toEqual([expect.objectContaining({ key: recorded.key, caught: 6, total: 6, notRun: 0, survivors: [] })]);
    expect(audit.score).toBe(1);
    expect(audit.causal!.before.entries).toEqual([expect.objectContaining({ caught: 6, total: 6, survivors: [] })]);
    // The causes are tied, but nothing is newly required: the step's own recording required it all.
    expect(audit.causal!.amended).toEqual([expect.objectContaining({ key: recorded.key, newlyRequired: 0 })]);
    expect(audit.causal!.restored).toEqual([]);

    // The same key, the same flow; only the causes are added.
    const amended = await theEntry();
    expect(amended.key).toBe(recorded.key);
    const causedBy = (text: string) => amended.appeared.find((control) => (control.text ?? control.name) === text)?.causedBy;
    expect(causedBy('0 items left')).toEqual([2]);
    expect(causedBy('Clear completed (1)')).toEqual([2]);
    expect(amended.appeared.find((control) => control.name === 'All')?.causedBy).toBeUndefined();
    const strip = (entry: ActEntry) => JSON.parse(JSON.stringify(entry, (key, value: unknown) => (key === 'causedBy' ? undefined : value))) as ActEntry;
    expect(strip(amended)).toEqual(strip(recorded));

    const shown = await runE2E(['cache', 'show', recorded.key], { cwd: FIXTURE, env: env() });
    expect(shown.stdout).toMatch(/^ {2}3\. check unnamed checkbox in listitem "Buy milk"\n {5}proven by: button "Clear completed \(1\)" appeared; text "0 items left" appeared; /m);
    expect(shown.stdout).toContain('  appeared: text "0 items left" (incidental, caused by action 3)');
    expect(shown.stdout).toMatch(/^End rests on: strong \(.*2 caused.*\)$/m);
    expect(shown.stdout).toMatch(/^Last audit: 6 of 6 mutants caught/m);
  }, 1_200_000);

  it.sequential('a plain audit afterwards agrees, model-free, and leaves the cache byte-identical', async () => {
    const before = contentsOf(cacheDir);
    rmSync(callLog, { force: true });
    const run = await runE2E(['cache', 'audit', '--json'], { cwd: FIXTURE, env: env() });
    expect(run.exitCode, run.stderr.slice(-4000)).toBe(0);
    const audit = JSON.parse(run.stdout) as AuditJson;
    expect(audit.entries).toEqual([expect.objectContaining({ instruction: INSTRUCTION, caught: 6, total: 6, survivors: [] })]);
    expect(audit.causal).toBeUndefined();
    expect(agentCalls()).toEqual([]);
    expect(contentsOf(cacheDir)).toEqual(before);
  }, 900_000);

  it.sequential('records causally on plain `e2e record` with cache.audit: record, and finds nothing more to tie', async () => {
    const before = contentsOf(cacheDir);
    const run = await runE2E(['record'], { cwd: FIXTURE, env: env({ E2E_FIXTURE_CAUSAL: '1' }) });
    expect(run.exitCode, run.stdout + run.stderr.slice(-4000)).toBe(0);
    expect(run.stdout).toContain('As recorded:');
    expect(run.stdout).toMatch(/^ {2}Causal {2}score 1\.00 → 1\.00$/m);
    expect(auditJson().causal!.unchanged).toEqual([expect.objectContaining({ reason: 'its end checks already name their causes' })]);
    expect(contentsOf(cacheDir)).toEqual(before);
  }, 900_000);
});

describe('e2e record --audit when the app changes before the re-audit', { concurrent: true }, () => {
  let flaky: StaticServer;
  const index = readFileSync(join(VUE, 'index.html'), 'utf8');
  const broken = index.replace('v-show="todos.length > remaining"', 'v-show="false"');
  let requests: string;
  let lane: FixtureLane;
  let flakyCache: string;

  beforeAll(async () => {
    requests = join(work, 'requests');
    flakyCache = join(work, 'flaky-cache');
    lane = fixtureLane(FIXTURE, 'causal-flaky');
    expect(broken).not.toBe(index);
    flaky = await serveStatic(undefined);
    mkdirSync(requests, { recursive: true });
    // The re-audit's run request asks for mutants without end facts: from then on "Clear completed" never shows.
    // The runs of this test write their requests under its own TMPDIR (launch/run-request-file.ts).
    flaky.route(async (request, response) => {
      if ((request.url ?? '/').split('?')[0] !== '/') return false;
      const asked = await Promise.all(readdirSync(requests).map((folder) => readFile(join(requests, folder, 'request.json'), 'utf8').catch(() => '')));
      const reaudit = asked.some((text) => text.includes('"mutants"') && !text.includes('"facts"'));
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(reaudit ? broken : index);
      return true;
    });
    flaky.route(folderRoute(() => VUE));
  }, 300_000);

  afterAll(async () => {
    await flaky?.close();
    lane?.remove();
  });

  it.sequential('puts the amended entry back as recorded, byte for byte, and keeps the audit as recorded', async () => {
    // Its own cache, call log and lane: the other part runs meanwhile.
    const flakyEnv = { ...env(), E2E_FIXTURE_APP_URL: flaky.url, E2E_FIXTURE_CACHE_DIR: flakyCache, E2E_FIXTURE_CALL_LOG: join(work, 'flaky-calls.log'), TMPDIR: requests };
    const recorded = await runE2E(['record'], { cwd: lane.folder, env: flakyEnv });
    expect(recorded.exitCode, recorded.stdout + recorded.stderr).toBe(0);
    const before = contentsOf(flakyCache);
    const { key } = await theEntry(flakyCache);

    const run = await runE2E(['record', '--audit'], { cwd: lane.folder, env: flakyEnv });
    expect(run.exitCode, run.stdout + run.stderr.slice(-4000)).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^ {2}${key.slice(0, 8)} put back as recorded: with its causal end checks the step did not replay unmutated \\(after all 3 actions, button "Clear completed \\(1\\)" did not appear \\(the screen then held still for 1 s\\)\\)$`, 'm'));
    expect(run.stdout).toMatch(/^ {2}Causal {2}score 1\.00 → 1\.00$/m);
    const audit = auditJson(lane.folder);
    expect(audit.causal!.restored).toEqual([expect.objectContaining({ key })]);
    expect(audit.causal!.amended).toEqual([]);
    expect(audit.entries).toEqual([expect.objectContaining({ key, caught: 6, total: 6, survivors: [] })]);
    // The recorded blob is named again; the amended one is left for `cache prune`.
    const after = contentsOf(flakyCache);
    for (const [path, digest] of Object.entries(before)) expect(after[path], path).toBe(digest);
    expect(JSON.stringify(await theEntry(flakyCache))).not.toContain('causedBy');
  }, 1_200_000);
});

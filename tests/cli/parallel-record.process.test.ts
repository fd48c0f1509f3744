/**
 * Workers of one `e2e record` saving the same step at once, through the real binary on the
 * replay-cache fixture's app and agent: eight workers record `add a todo "Buy milk"`, and each
 * test waits at its end until all eight are there, so the eight attempts end, and write their
 * entry, at the same moment. One writer saves, the others find the entry already there, and the
 * cache holds one valid entry and no temporary file.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore, initHashing } from '../../cache-format/index.js';
import { runE2E } from '../runner/support/e2e-process.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { startApp, type AppServer } from './support/fixture-app.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/parallel-record', import.meta.url));
const WRITERS = 8;

let app: AppServer;
let work: string;

beforeAll(async () => {
  await initHashing();
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  work = mkdtempSync(join(tmpdir(), 'e2e-parallel-record-'));
  app = await startApp('Add');
});

afterAll(async () => {
  await app?.stop();
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  rmSync(join(FIXTURE, 'test-results'), { recursive: true, force: true });
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('e2e record with workers saving one step at once', () => {
  it(`keeps one valid entry when ${WRITERS} workers write the same step at the same moment`, async () => {
    const cacheDir = join(work, 'cache');
    const barrier = join(work, 'barrier');
    mkdirSync(barrier);
    const env = { E2E_FIXTURE_APP_URL: app.url, E2E_FIXTURE_CACHE_DIR: cacheDir, E2E_FIXTURE_MODEL_LOG: join(work, 'model-calls.log'), E2E_FIXTURE_BARRIER: barrier, E2E_FIXTURE_WRITERS: String(WRITERS) };
    const run = await runE2E(['record', '--workers', String(WRITERS), '--', '--repeat-each', String(WRITERS)], { cwd: FIXTURE, env });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.exitCode, output).toBe(0);
    expect(run.report?.errors).toEqual([]);
    expect(run.stderr).not.toContain('[e2e] warning');
    const outcomes = (run.report?.tests ?? []).map((test) => test.outcome);
    expect(outcomes).toEqual(Array.from({ length: WRITERS }, () => 'expected'));
    const writes = (run.report?.tests ?? []).map((test) => (test.attempts[0]?.steps[0]?.cache as { write?: string } | undefined)?.write);
    expect(writes.filter((write) => write === 'saved')).toHaveLength(1);
    const store = new FileCacheStore(cacheDir, { readOnly: true });
    const refs = await store.list();
    expect(refs).toHaveLength(1);
    expect((await store.read(refs[0]!.key)).kind).toBe('hit');
    expect(await store.listTempFiles({ olderThanMs: 0 })).toEqual([]);
  }, scaledTimeout(120_000));
});

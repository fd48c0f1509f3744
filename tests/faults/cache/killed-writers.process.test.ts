import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../../cache-format/index.js';
import { filesUnder } from '../../support/directory-snapshot.js';
import { scaledTimeout } from '../../support/load-scaled.js';
import { compileWorker, type CompiledWorker } from './support/compile-for-children.js';
import { SeededRandom } from './support/seeded-random.js';
import { startWorker } from './support/worker-process.js';

const LANES = 4;
const RUNS_PER_LANE = 25;
const KEYS = 4;

let compiled: CompiledWorker;
const directories: string[] = [];

beforeAll(async () => {
  compiled = await compileWorker();
});

afterAll(async () => {
  compiled.remove();
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

const REF_FILE = /^refs\/[0-9a-f]{2}\/[0-9a-f]{16}\.ref$/;
const BLOB_FILE = /^blobs\/[0-9a-f]{2}\/[0-9a-f]{16}-\d+\.msgpack$/;
const TEMP_FILE = /^(refs|blobs)\/[0-9a-f]{2}\/\..+\.tmp$/;

/** Checks a cache folder after a kill; returns how many temp files it holds. */
async function verifyAfterKill(directory: string): Promise<number> {
  const files = filesUnder(directory).map((path) => path.split('\\').join('/'));
  const unexpected = files.filter((path) => !REF_FILE.test(path) && !BLOB_FILE.test(path) && !TEMP_FILE.test(path));
  expect(unexpected).toEqual([]);
  const store = new FileCacheStore(directory, { readOnly: true });
  const refs = await store.list();
  expect(refs).toHaveLength(files.filter((path) => REF_FILE.test(path)).length);
  for (const ref of refs) {
    const result = await store.read(ref.key);
    expect(result.kind === 'invalid' ? result.message : result.kind).toBe('hit');
  }
  const blobs = await store.listBlobs();
  expect(blobs).toHaveLength(files.filter((path) => BLOB_FILE.test(path)).length);
  for (const blob of blobs) expect((await store.readBlob(blob.name)).kind).toBe('hit');
  return files.filter((path) => TEMP_FILE.test(path)).length;
}

/** Kill writers in one folder: `runs` times, then on (at most `extra` more) until a kill left a temp file. */
async function runLane(lane: number, seed: number, extra = 0): Promise<{ runs: number; tempFilesSeen: number }> {
  const directory = await mkdtemp(join(tmpdir(), `e2e-killed-${lane}-`));
  directories.push(directory);
  const random = new SeededRandom(seed + lane);
  let tempFilesSeen = 0;
  let run = 0;
  for (; run < RUNS_PER_LANE || (tempFilesSeen === 0 && run < RUNS_PER_LANE + extra); run++) {
    const worker = startWorker(compiled.workerPath, ['write-until-killed', directory, String(random.integer(1, 2 ** 30)), String(KEYS)]);
    await worker.ready;
    await sleep(random.integer(1, 40));
    worker.child.kill('SIGKILL');
    const outcome = await worker.done;
    expect(outcome.signal, outcome.stderr).toBe('SIGKILL');
    tempFilesSeen = Math.max(tempFilesSeen, await verifyAfterKill(directory));
  }
  return { runs: run, tempFilesSeen };
}

describe('a writer killed at a random moment', () => {
  it(`leaves only complete entries and temp files, which readers ignore (${LANES * RUNS_PER_LANE} seeded kills)`, async () => {
    const seed = 0x6b111;
    console.log(`killed-writer seed: ${seed}`);
    const lanes = await Promise.all(Array.from({ length: LANES }, (_, lane) => runLane(lane, seed)));
    // Where a kill lands is up to the machine's scheduler; a busy one may need more kills to land one mid-write.
    if (lanes.every((lane) => lane.tempFilesSeen === 0)) lanes.push(await runLane(LANES, seed, 300));
    expect(lanes.reduce((sum, lane) => sum + lane.runs, 0)).toBeGreaterThanOrEqual(100);
    // Some kill landed mid-write (a temp file survived), so the check above saw the interesting case.
    const tempFilesSeen = lanes.reduce((sum, lane) => sum + lane.tempFilesSeen, 0);
    console.log(`most temp files left at once, summed over lanes: ${tempFilesSeen}`);
    expect(tempFilesSeen).toBeGreaterThan(0);
    for (const directory of directories) {
      const store = new FileCacheStore(directory);
      const leftovers = await store.listTempFiles({ olderThanMs: 0 });
      expect(leftovers.every((file) => basename(file.path).startsWith('.'))).toBe(true);
      for (const file of leftovers) await store.removeTempFile(file.path);
      expect(filesUnder(directory).filter((path) => path.endsWith('.tmp'))).toEqual([]);
    }
    // 100 process starts: on a busy machine (load 12 on 2 cores) that alone took over a minute.
  }, scaledTimeout(120_000));
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileCacheStore, type WriteResult } from '../../../cache-format/index.js';
import { filesUnder } from '../../support/directory-snapshot.js';
import { numberedActEntry } from '../../support/sample-entries.js';
import { compileWorker, type CompiledWorker } from './support/compile-for-children.js';
import { startWorker, type WorkerProcess } from './support/worker-process.js';

let compiled: CompiledWorker;
let directory: string;

beforeAll(async () => {
  compiled = await compileWorker();
});

afterAll(() => {
  compiled.remove();
});

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'e2e-parallel-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Starts every worker, waits until all are ready, then releases them at once. */
async function runTogether(argumentLists: string[][]): Promise<unknown[]> {
  const workers = await startAll(argumentLists);
  return finish(workers);
}

async function startAll(argumentLists: string[][]): Promise<WorkerProcess[]> {
  const workers: WorkerProcess[] = argumentLists.map((args) => startWorker(compiled.workerPath, args));
  await Promise.all(workers.map((worker) => worker.ready));
  for (const worker of workers) worker.go();
  return workers;
}

async function finish(workers: WorkerProcess[]): Promise<unknown[]> {
  const outcomes = await Promise.all(workers.map((worker) => worker.done));
  for (const outcome of outcomes) expect(outcome.code, outcome.stderr).toBe(0);
  return outcomes.map((outcome) => outcome.result);
}

function tempFiles(): string[] {
  return filesUnder(directory).filter((path) => path.endsWith('.tmp'));
}

describe('parallel writer processes', () => {
  it('of one key with identical bytes leave one valid entry: one saves, the others keep it', async () => {
    const results = (await runTogether(Array.from({ length: 16 }, () => ['write', directory, '0', '0']))) as WriteResult[];
    expect(results.filter((result) => result.status === 'saved')).toHaveLength(1);
    expect(results.filter((result) => result.status === 'kept')).toHaveLength(15);
    const entry = await numberedActEntry(0, 0);
    expect(await new FileCacheStore(directory).read(entry.key)).toMatchObject({ kind: 'hit', entry });
    expect(tempFiles()).toEqual([]);
    expect(filesUnder(directory)).toHaveLength(2);
  });

  it('of one key with different bytes let exactly one complete writer win and report conflict to the rest', async () => {
    const results = (await runTogether(Array.from({ length: 16 }, (_, variant) => ['write', directory, '0', String(variant)]))) as WriteResult[];
    const winners = results.filter((result) => result.status === 'saved');
    expect(winners).toHaveLength(1);
    expect(results.filter((result) => result.status === 'conflict')).toHaveLength(15);
    for (const loser of results.filter((result) => result.status === 'conflict')) expect(loser.current).toBe(winners[0]!.blob);
    const winningVariant = results.indexOf(winners[0]!);
    const read = await new FileCacheStore(directory).read((await numberedActEntry(0)).key);
    expect(read).toMatchObject({ kind: 'hit', blob: winners[0]!.blob, entry: await numberedActEntry(0, winningVariant) });
    expect(tempFiles()).toEqual([]);
  });

  it('replacing the same stale entry let exactly one replacement win', async () => {
    const stale = await new FileCacheStore(directory).write(await numberedActEntry(0, 99));
    const results = (await runTogether(Array.from({ length: 8 }, (_, variant) => ['replace', directory, '0', String(variant), stale.blob]))) as WriteResult[];
    const winners = results.filter((result) => result.status === 'saved');
    expect(winners).toHaveLength(1);
    expect(results.filter((result) => result.status === 'conflict')).toHaveLength(7);
    expect(await new FileCacheStore(directory).read((await numberedActEntry(0)).key)).toMatchObject({ kind: 'hit', blob: winners[0]!.blob });
    expect(tempFiles()).toEqual([]);
  });

  it('working alongside readers never show a reader a torn, mixed or invalid entry', async () => {
    const keys = 3;
    const variants = 3;
    const operationsPerWriter = 60;
    const writerArguments = Array.from({ length: 3 }, (_, seed) => ['churn', directory, String(seed + 1), String(operationsPerWriter), String(keys)]);
    const readerArguments = Array.from({ length: 3 }, () => ['read', directory, String(keys), String(variants)]);
    const workers = await startAll([...writerArguments, ...readerArguments]);
    const writers = workers.slice(0, writerArguments.length);
    const readers = workers.slice(writerArguments.length);
    const writes = (await finish(writers)) as Array<{ counts: Record<string, number> }>;
    for (const reader of readers) reader.stop();
    const reads = (await finish(readers)) as Array<{ reads: number; absent: number; hits: number; invalid: string[]; unknownBlobs: string[] }>;
    for (const writer of writes) expect(Object.values(writer.counts).reduce((a, b) => a + b, 0)).toBe(operationsPerWriter);
    for (const reader of reads) {
      expect(reader.invalid).toEqual([]);
      expect(reader.unknownBlobs).toEqual([]);
      expect(reader.reads).toBe(reader.absent + reader.hits);
      expect(reader.hits).toBeGreaterThan(0);
    }
    const store = new FileCacheStore(directory);
    for (const ref of await store.list()) expect((await store.read(ref.key)).kind).toBe('hit');
    expect(tempFiles()).toEqual([]);
  });
});

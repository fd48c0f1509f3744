/**
 * Cache bench (DESIGN §10: key lookup under 1 ms with 10,000 entries). Builds a store of
 * 10,000 real entries in a temp folder, then times lookups through the real read path:
 * ref → blob stat and read → content hash → decode → schema → key check → verified hit.
 *
 * Figures (milliseconds):
 * - `cache_lookup_ms_10k`: median lookup (goal < 1);
 * - `cache_lookup_p95_ms_10k`: 95th percentile lookup;
 * - `cache_list_ms_10k`: listing every ref (`e2e cache ls` reads this; goal: a few seconds).
 *
 * Run alone with `node --import tsx bench/cache.ts`; in `npm run bench` it is the section
 * {@link cacheSection} (listed in `bench/run.ts`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { blobPath, encodeEntry, FileCacheStore, initHashing, refPath } from '../cache-format/index.js';
import { numberedActEntry } from '../tests/support/sample-entries.js';
import type { BenchSection } from './run.js';

/** The bench's output: flat figures for bench/results.json. */
export interface CacheBenchResult {
  figures: Record<string, number>;
}

const ENTRY_COUNT = 10_000;
const WARMUP_LOOKUPS = 500;
const TIMED_LOOKUPS = 5_000;

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

const round = (value: number): number => Math.round(value * 1000) / 1000;

/** Builds the store directly (the atomic, fsynced write path is not what is measured), returns its keys. */
async function buildStore(directory: string): Promise<string[]> {
  const keys: string[] = [];
  for (let index = 0; index < ENTRY_COUNT; index++) {
    const entry = await numberedActEntry(index);
    const { bytes, blob } = await encodeEntry(entry);
    const blobFile = blobPath(directory, blob);
    const refFile = refPath(directory, entry.key);
    mkdirSync(dirname(blobFile), { recursive: true });
    mkdirSync(dirname(refFile), { recursive: true });
    writeFileSync(blobFile, bytes);
    writeFileSync(refFile, `${blob}\n`);
    keys.push(entry.key);
  }
  return keys;
}

/** Runs the cache bench and returns its figures; `log` receives progress lines. */
export async function runCacheBench(log: (line: string) => void = () => {}): Promise<CacheBenchResult> {
  await initHashing();
  const directory = mkdtempSync(join(tmpdir(), 'e2e-bench-cache-'));
  try {
    log(`cache: building ${ENTRY_COUNT} entries…`);
    const keys = await buildStore(directory);
    log(`cache: timing ${TIMED_LOOKUPS} lookups…`);
    const store = new FileCacheStore(directory, { readOnly: true });
    const pick = (step: number): string => keys[(step * 7_919) % keys.length]!;
    for (let step = 0; step < WARMUP_LOOKUPS; step++) await store.read(pick(step));
    const durations: number[] = [];
    for (let step = 0; step < TIMED_LOOKUPS; step++) {
      const key = pick(step + WARMUP_LOOKUPS);
      const started = performance.now();
      const result = await store.read(key);
      durations.push(performance.now() - started);
      if (result.kind !== 'hit') throw new Error(`bench lookup of ${key} gave ${result.kind}`);
    }
    durations.sort((a, b) => a - b);
    const listStarted = performance.now();
    const listed = await store.list();
    const listMs = performance.now() - listStarted;
    if (listed.length !== ENTRY_COUNT) throw new Error(`bench list found ${listed.length} refs`);
    return {
      figures: {
        cache_lookup_ms_10k: round(percentile(durations, 0.5)),
        cache_lookup_p95_ms_10k: round(percentile(durations, 0.95)),
        cache_list_ms_10k: round(listMs),
      },
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The cache section of `npm run bench`. */
export const cacheSection: BenchSection = {
  name: 'cache',
  run: async (context) => (await runCacheBench(context.log)).figures,
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${JSON.stringify(await runCacheBench(), null, 2)}\n`);
}

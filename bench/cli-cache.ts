/**
 * Bench section `cli-cache` (DESIGN §10: `cache ls`/`diff`/`prune` over 10,000 entries in a
 * few seconds). Builds a cache of 10,000 real entries in a temp folder, commits it to a git
 * repository, changes 1% of it in the working tree, and times the command functions end to
 * end (every entry read through the one reading pipeline).
 *
 * Figures (milliseconds): `cache_ls_ms_10k`, `cache_stats_ms_10k`, `cache_show_ms_10k`,
 * `cache_diff_folders_ms_10k` (two folders), `cache_diff_ms_10k` (HEAD, read from git's object
 * store, against the working tree), `cache_prune_dry_run_ms_10k` and `cache_prune_ms_10k`
 * (1% unreachable, removed).
 *
 * Run alone with `node --import tsx bench/cli-cache.ts`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { blobPath, encodeEntry, initHashing, refPath, type Entry } from '../cache-format/index.js';
import { diffCache } from '../review/cache-diff.js';
import { listCache } from '../review/cache-ls.js';
import { pruneCache } from '../review/cache-prune.js';
import { showCacheEntry } from '../review/cache-show.js';
import { cacheStats } from '../review/cache-stats.js';
import type { TestInventory } from '../launch/test-inventory.js';
import { numberedActEntry } from '../tests/support/sample-entries.js';
import type { BenchSection } from './run.js';

const ENTRY_COUNT = 10_000;
/** Every hundredth entry is re-recorded in the working tree, and its test is gone from the inventory. */
const CHANGED_EVERY = 100;

const round = (value: number): number => Math.round(value * 10) / 10;

/** Writes entries directly (the atomic, fsynced write path is not what is measured). */
async function writeStore(directory: string, entries: readonly Entry[]): Promise<void> {
  for (const entry of entries) {
    const { bytes, blob } = await encodeEntry(entry);
    mkdirSync(dirname(blobPath(directory, blob)), { recursive: true });
    mkdirSync(dirname(refPath(directory, entry.key)), { recursive: true });
    writeFileSync(blobPath(directory, blob), bytes);
    writeFileSync(refPath(directory, entry.key), `${blob}\n`);
  }
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd, stdio: 'ignore' });
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

/** Runs the section and returns its figures. */
export async function runCliCacheBench(log: (line: string) => void = () => undefined): Promise<Record<string, number>> {
  await initHashing();
  const root = mkdtempSync(join(tmpdir(), 'e2e-bench-cli-cache-'));
  try {
    const repository = join(root, 'repository');
    const cache = join(repository, '.e2e', 'cache');
    const location = { cacheDirectory: cache, hitsDirectory: join(root, 'hits') };
    log(`  building ${ENTRY_COUNT} entries and a git commit…`);
    const base = await Promise.all(Array.from({ length: ENTRY_COUNT }, (_, index) => numberedActEntry(index)));
    mkdirSync(repository, { recursive: true });
    await writeStore(cache, base);
    git(repository, 'init', '-q');
    git(repository, 'add', '-A');
    git(repository, 'commit', '-q', '-m', 'cache');
    const baseFolder = join(root, 'base-folder');
    cpSync(cache, baseFolder, { recursive: true });
    const rerecorded = await Promise.all(base.filter((_, index) => index % CHANGED_EVERY === 0).map((_, step) => numberedActEntry(step * CHANGED_EVERY, 1)));
    await writeStore(cache, rerecorded);

    const ls = await timed(() => listCache(location));
    const stats = await timed(() => cacheStats(location));
    const show = await timed(() => showCacheEntry(location, base[4_321]!.key.slice(0, 8)));
    const diffFolders = await timed(() => diffCache({ cwd: root, cacheDirectory: cache, base: baseFolder, head: cache }));
    const diff = await timed(() => diffCache({ cwd: repository, cacheDirectory: cache }));
    if (ls.value.entries.length !== ENTRY_COUNT || diff.value.counts.changed !== rerecorded.length || show.value.kind !== 'entry') {
      throw new Error('cli-cache bench: the commands did not see the cache they were given');
    }
    const inventory: TestInventory = {
      tests: base.filter((_, index) => index % CHANGED_EVERY !== 0).map((entry) => ({ testId: entry.keyParts.testId, project: entry.keyParts.target, file: '', titlePath: [] })),
    };
    const dryRun = await timed(() => pruneCache({ location, inventory, dryRun: true }));
    const prune = await timed(() => pruneCache({ location, inventory, dryRun: false }));
    if (prune.value.removed.filter((item) => item.reason === 'unreachable').length !== rerecorded.length) throw new Error('cli-cache bench: prune removed an unexpected set');
    return {
      cache_ls_ms_10k: round(ls.ms),
      cache_stats_ms_10k: round(stats.ms),
      cache_show_ms_10k: round(show.ms),
      cache_diff_folders_ms_10k: round(diffFolders.ms),
      cache_diff_ms_10k: round(diff.ms),
      cache_prune_dry_run_ms_10k: round(dryRun.ms),
      cache_prune_ms_10k: round(prune.ms),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The `cli-cache` section of `npm run bench`. */
export const cliCacheSection: BenchSection = {
  name: 'cli-cache',
  run: async (context) => runCliCacheBench(context.log),
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${JSON.stringify(await runCliCacheBench((line) => process.stderr.write(`${line}\n`)), null, 2)}\n`);
}

/**
 * One odd file in a cache folder is that entry's problem, never the whole command's: a folder
 * or a named pipe under a ref's name, a folder under a blob's name. And the store never
 * writes, renames or deletes outside the cache folder through a planted symbolic link. Run
 * through the built `e2e` binary, as a user meets it; the two odd refs share one cache, so each
 * command runs once for both.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blobPath, FileCacheStore, refPath } from '../../../cache-format/index.js';
import { RunLedger } from '../../../cache-format/run-ledger.js';
import { nodeFileSystem } from '../../../cache-format/index.js';
import { actEntry, age, control, temporaryFolder, writeEntries, writeFile } from '../../support/cache-fixtures.js';
import { runCli, type CliRun } from '../../cli-cache/support/run-cli.js';
import { scaledTimeout } from '../../support/load-scaled.js';
import { snapshotTree } from '../../support/directory-snapshot.js';

const REPOSITORY_ROOT = resolve(import.meta.dirname, '..', '..', '..');
const TEST_ID = 'tests/checkout.e2e.ts::checkout › pays';
const DAY = 24 * 3_600_000;

let project: string;
let cache: string;

/** A fresh project whose Playwright config lists the one test the entries belong to (`node_modules` linked to this repository's). */
async function freshProject(prefix: string): Promise<string> {
  const folder = await temporaryFolder(prefix);
  symlinkSync(join(REPOSITORY_ROOT, 'node_modules'), join(folder, 'node_modules'), 'dir');
  writeFile(join(folder, 'playwright.config.mjs'), "export default { testDir: 'tests', testMatch: '**/*.e2e.ts', projects: [{ name: 'web' }] };\n");
  writeFile(join(folder, 'tests', 'checkout.e2e.ts'), "import { test } from '@playwright/test';\ntest.describe('checkout', () => { test('pays', async () => {}); });\n");
  return folder;
}

beforeEach(async () => {
  project = await freshProject('odd-files');
  cache = join(project, '.e2e', 'cache');
});

afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

/** Projects that outlive one test (shared by several). */
const folders: string[] = [];

afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** `e2e cache prune …` with the project's Playwright config, which lists the tests. */
function prune(args: string[]) {
  return runCli(project, [...args, '--config', 'playwright.config.mjs']);
}

function step(instruction: string) {
  return actEntry({ testId: TEST_ID, instruction, actions: [{ verb: 'tap', target: control('button', instruction) }] });
}

const plantFolder = (path: string): void => void mkdirSync(path);
const plantPipe = (path: string): void => void execFileSync('mkfifo', [path]);

/** What the commands made of one cache holding two good entries, a folder under a third entry's ref name and a named pipe under a fourth's. */
interface OddRefRuns {
  good: string[];
  odd: Record<'a folder' | 'a named pipe', string>;
  ls: CliRun;
  stats: CliRun;
  show: CliRun;
  dry: CliRun;
  pruned: CliRun;
  /** The keys the store lists after the prune. */
  listed: string[];
}

let oddRefRuns: Promise<OddRefRuns> | undefined;

/**
 * Both odd refs in one cache, each command run once over it (ls, stats and show, then prune): each odd file is its own
 * entry's problem, so one does not hide the other. Started by the first test that reads it, in a project of its own.
 */
function withOddRefs(): Promise<OddRefRuns> {
  oddRefRuns ??= (async () => {
    const folder = await freshProject('odd-refs');
    folders.push(folder);
    const oddCache = join(folder, '.e2e', 'cache');
    const good = [await step('Pay'), await step('Apply the coupon')];
    await writeEntries(oddCache, good);
    const odd = { 'a folder': await step('Odd folder'), 'a named pipe': await step('Odd pipe') };
    for (const [label, plant] of [['a folder', plantFolder], ['a named pipe', plantPipe]] as const) {
      const path = refPath(oddCache, odd[label].key);
      mkdirSync(dirname(path), { recursive: true });
      plant(path);
    }
    const ls = await runCli(folder, ['cache', 'ls', '--json']);
    const stats = await runCli(folder, ['cache', 'stats']);
    const show = await runCli(folder, ['cache', 'show', good[0]!.key]);
    const dry = await runCli(folder, ['cache', 'prune', '--dry-run', '--config', 'playwright.config.mjs']);
    const pruned = await runCli(folder, ['cache', 'prune', '--config', 'playwright.config.mjs']);
    const listed = (await new FileCacheStore(oddCache).list()).map((ref) => ref.key);
    return { good: good.map((entry) => entry.key), odd: { 'a folder': odd['a folder'].key, 'a named pipe': odd['a named pipe'].key }, ls, stats, show, dry, pruned, listed };
  })();
  return oddRefRuns;
}

describe.each(['a folder', 'a named pipe'] as const)('%s named like a ref', (label) => {
  it('is listed as an invalid entry by ls and stats, and every command still exits 0', async () => {
    const { good, odd, ls, stats, show } = await withOddRefs();
    expect(ls.code, ls.stderr).toBe(0);
    const listing = JSON.parse(ls.stdout) as { entries: Array<{ key: string }>; unreadable: Array<{ key: string }> };
    expect(listing.entries.map((row) => row.key).sort()).toEqual([...good].sort());
    // This one and the other odd ref of the shared cache, each on its own row.
    expect(listing.unreadable.map((row) => row.key).sort()).toEqual(Object.values(odd).sort());
    expect(listing.unreadable.map((row) => row.key)).toContain(odd[label]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toMatch(/unreadable: +2\n/);
    expect(show.code, show.stderr).toBe(0);
  }, scaledTimeout(60_000));

  it('is removed by prune (or named when it cannot be), and the good entries stay', async () => {
    const { good, odd, dry, pruned, listed } = await withOddRefs();
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(odd[label]);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(listed.filter((key) => good.includes(key)).sort()).toEqual([...good].sort());
    if (listed.includes(odd[label])) expect(pruned.stdout).toContain(`could not remove ${odd[label]}`);
  }, scaledTimeout(60_000));
});

/** One cache with a folder under a blob's name and a ref shard linked outside it, pruned once, then cleared. */
interface PlantedPruneRuns {
  pruned: CliRun;
  /** After the prune: whether each unreferenced blob, the kept blob and the file inside the planted folder still exist. */
  unreferencedBlobsLeft: boolean[];
  keptBlobLeft: boolean;
  plantedInsideLeft: boolean;
  planted: string;
  /** The files behind the linked shard: before the prune, after it, and after the clear. */
  behindLink: Record<'before' | 'afterPrune' | 'afterClear', unknown>;
  clear: CliRun;
}

let plantedPruneRuns: Promise<PlantedPruneRuns> | undefined;

/**
 * The planted blob folder and the linked shard share one cache and one `cache prune` (then `cache clear`): each is its own
 * problem, which the other does not hide. Started by the first test that reads it, in a project of its own.
 */
function prunedWithPlants(): Promise<PlantedPruneRuns> {
  plantedPruneRuns ??= (async () => {
    const folder = await freshProject('odd-plants');
    folders.push(folder);
    const plantCache = join(folder, '.e2e', 'cache');
    // A folder named like a blob, beside a kept blob and two unreferenced ones, all old enough to sweep.
    const store = new FileCacheStore(plantCache);
    const keptBlob = (await store.write(await step('Pay'))).blob;
    const first = await step('Removed first');
    const second = await step('Removed second');
    const blobs = [(await store.write(first)).blob, (await store.write(second)).blob];
    await store.delete(first.key);
    await store.delete(second.key);
    // Sorts before every real blob, so the sweep meets it first.
    const planted = '0000000000000000-12';
    mkdirSync(blobPath(plantCache, planted), { recursive: true });
    writeFile(join(blobPath(plantCache, planted), 'inside'), 'x');
    for (const path of Object.keys(snapshotTree(plantCache))) age(join(plantCache, path), 10 * DAY);
    age(blobPath(plantCache, planted), 10 * DAY);
    // A ref-like file outside the cache, reachable only through a linked shard folder.
    const orphan = await actEntry({ testId: 'tests/gone.e2e.ts::gone › was deleted', instruction: 'Old', actions: [{ verb: 'tap', target: control('button', 'Old') }] });
    const scratch = join(folder, 'scratch');
    await writeEntries(scratch, [orphan]);
    const realShard = dirname(refPath(scratch, orphan.key));
    const before = snapshotTree(realShard);
    mkdirSync(join(plantCache, 'refs'), { recursive: true });
    symlinkSync(realShard, dirname(refPath(plantCache, orphan.key)), 'dir');

    const pruned = await runCli(folder, ['cache', 'prune', '--config', 'playwright.config.mjs']);
    const afterPrune = {
      unreferencedBlobsLeft: blobs.map((blob) => existsSync(blobPath(plantCache, blob))),
      keptBlobLeft: existsSync(blobPath(plantCache, keptBlob)),
      plantedInsideLeft: existsSync(join(blobPath(plantCache, planted), 'inside')),
      behindLink: snapshotTree(realShard),
    };
    const clear = await runCli(folder, ['cache', 'clear']);
    return { pruned, ...afterPrune, planted, behindLink: { before, afterPrune: afterPrune.behindLink, afterClear: snapshotTree(realShard) }, clear };
  })();
  return plantedPruneRuns;
}

describe('a folder named like a blob', () => {
  it('does not stop prune half-way: the other unreferenced blobs go, and the folder is named', async () => {
    const { pruned, unreferencedBlobsLeft, keptBlobLeft, plantedInsideLeft, planted } = await prunedWithPlants();
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(unreferencedBlobsLeft).toEqual([false, false]);
    expect(keptBlobLeft).toBe(true);
    expect(pruned.stdout).toContain(`could not remove ${planted}`);
    expect(plantedInsideLeft).toBe(true);
  }, scaledTimeout(60_000));
});

describe('a symbolic link inside the cache folder', () => {
  let outside: string;

  beforeEach(() => {
    outside = join(project, 'outside');
    mkdirSync(outside);
  });

  it('is never written through: a write whose shard folder links outside is CACHE_WRITE_FAILED and nothing lands outside', async () => {
    const entry = await step('Pay');
    const shard = dirname(refPath(cache, entry.key));
    mkdirSync(dirname(shard), { recursive: true });
    symlinkSync(outside, shard, 'dir');
    const error = await new FileCacheStore(cache).write(entry).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'CACHE_WRITE_FAILED' });
    expect((error as Error).message).toContain('symbolic link');
    expect(readdirSync(outside)).toEqual([]);
  });

  it('is never written through when the blobs folder itself links outside', async () => {
    mkdirSync(cache, { recursive: true });
    symlinkSync(outside, join(cache, 'blobs'), 'dir');
    await expect(new FileCacheStore(cache).write(await step('Pay'))).rejects.toMatchObject({ code: 'CACHE_WRITE_FAILED' });
    expect(readdirSync(outside)).toEqual([]);
  });

  it('is never deleted through: prune and clear leave the files behind a linked shard alone', async () => {
    // The linked shard shares its cache, its prune and its clear with the folder named like a blob (above).
    const { pruned, behindLink, clear } = await prunedWithPlants();
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(behindLink.afterPrune).toEqual(behindLink.before);
    expect([0, 3]).toContain(clear.code);
    expect(behindLink.afterClear).toEqual(behindLink.before);
  }, scaledTimeout(60_000));
});

describe('the run ledger', () => {
  it('a run record dated in the future does not make prune --unused-for 1 remove entries that were just hit', async () => {
    const hits = join(project, '.e2e', 'hits');
    const entries = [await step('Pay'), await step('Apply the coupon')];
    await writeEntries(cache, entries);
    const store = new FileCacheStore(cache, { hitsDirectory: hits });
    const ledger = new RunLedger(nodeFileSystem, hits);
    await ledger.record(new Date(Date.now() - 60_000));
    for (const entry of entries) await store.recordHit(entry.key, new Date());
    await ledger.record(new Date(Date.now() + 365 * 24 * 3_600_000));
    const pruned = await prune(['cache', 'prune', '--unused-for', '1']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect((await store.list()).map((ref) => ref.key).sort()).toEqual(entries.map((entry) => entry.key).sort());
    expect(pruned.stdout).toContain('dated in the future');
  });
});

import { readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { blobPath, encodeEntry, ENTRY_SCHEMA_VERSION, FileCacheStore, refPath } from '../../cache-format/index.js';
import { RunLedger } from '../../cache-format/run-ledger.js';
import { nodeFileSystem } from '../../cache-format/index.js';
import { pruneCache, renderPrune, type PruneItem } from '../../review/cache-prune.js';
import type { TestInventory } from '../../launch/test-inventory.js';
import { isE2EError } from '../../errors/index.js';
import { snapshotTree } from '../support/directory-snapshot.js';
import { actEntry, age, bytesWithVersion, control, writeEntries, writeFile, writeRawEntry, temporaryFolder } from '../support/cache-fixtures.js';

const NOW = new Date('2025-06-01T12:00:00.000Z');
const HOUR = 3_600_000;
const TEST_A = 'tests/a.e2e.ts::a › signs in';
const TEST_B = 'tests/b.e2e.ts::b › orders';

const inventory: TestInventory = {
  tests: [
    { testId: TEST_A, project: 'web', file: 'tests/a.e2e.ts', titlePath: ['a', 'signs in'] },
    { testId: TEST_B, project: 'web', file: 'tests/b.e2e.ts', titlePath: ['b', 'orders'] },
  ],
};

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function cacheFolder(): Promise<{ cache: string; hits: string }> {
  const root = await temporaryFolder('cache-prune');
  folders.push(root);
  return { cache: join(root, 'cache'), hits: join(root, 'hits') };
}

function step(testId: string, instruction: string, extra: { target?: string; occurrence?: number } = {}) {
  return actEntry({ testId, instruction, ...extra, actions: [{ verb: 'tap', target: control('button', instruction) }] });
}

/** Every file of the cache with its age set, so only the planted young files count as live writers'. */
function ageEverything(cache: string, ageMs: number): void {
  for (const path of Object.keys(snapshotTree(cache))) age(join(cache, path), ageMs, NOW);
}

function summary(items: readonly PruneItem[]): string[] {
  return items.map((item) => `${item.reason} ${item.name}`).sort();
}

describe('e2e cache prune', () => {
  it('lists on a dry run, then removes exactly the orphaned, old-schema, invalid, unreferenced and leftover files', async () => {
    const { cache, hits } = await cacheFolder();
    const reachable = [await step(TEST_A, 'Sign in'), await step(TEST_B, 'Order'), await step(TEST_B, 'Order', { occurrence: 1 })];
    const orphan = await step('tests/gone.e2e.ts::gone › was deleted', 'Old');
    const otherTarget = await step(TEST_A, 'Sign in', { target: 'mobile' });
    await writeEntries(cache, [...reachable, orphan, otherTarget]);
    const oldSchema = await step(TEST_A, 'Legacy step');
    const oldBlob = await writeRawEntry(cache, oldSchema.key, bytesWithVersion(oldSchema, 0));
    const newer = await step(TEST_A, 'From the future');
    await writeRawEntry(cache, newer.key, bytesWithVersion(newer, ENTRY_SCHEMA_VERSION + 1));
    const damaged = await step(TEST_A, 'Damaged');
    const damagedBlob = (await encodeEntry(damaged)).blob;
    writeFile(blobPath(cache, damagedBlob), new Uint8Array(Number(damagedBlob.split('-')[1])).fill(1));
    writeFile(refPath(cache, damaged.key), `${damagedBlob}\n`);
    writeFile(refPath(cache, 'ab00000000000001'), 'not a blob name\n');
    writeFile(refPath(cache, 'ab00000000000002'), '0123456789abcdef-42\n');
    const stray = await encodeEntry(await step(TEST_A, 'Never referenced'));
    writeFile(blobPath(cache, stray.blob), stray.bytes);
    const oldTemp = join(cache, 'refs', 'ab', '.ab00000000000003.ref.999.deadbeef.tmp');
    writeFile(oldTemp, 'half a ref');
    ageEverything(cache, 2 * HOUR);
    const young = await encodeEntry(await step(TEST_A, 'Being written right now'));
    writeFile(blobPath(cache, young.blob), young.bytes);
    const youngTemp = join(cache, 'blobs', '00', '.00000000000000aa-3.msgpack.999.cafe.tmp');
    writeFile(youngTemp, 'abc');
    age(blobPath(cache, young.blob), 60_000, NOW);
    age(youngTemp, 60_000, NOW);

    const expected = [
      `unreachable ${orphan.key}`,
      `unreachable ${otherTarget.key}`,
      `old-schema ${oldSchema.key}`,
      `invalid ${damaged.key}`,
      'invalid ab00000000000001',
      'invalid ab00000000000002',
      `unreferenced-blob ${(await encodeEntry(orphan)).blob}`,
      `unreferenced-blob ${(await encodeEntry(otherTarget)).blob}`,
      `unreferenced-blob ${oldBlob}`,
      `unreferenced-blob ${damagedBlob}`,
      `unreferenced-blob ${stray.blob}`,
      'temp-file refs/ab/.ab00000000000003.ref.999.deadbeef.tmp',
    ].sort();
    const before = snapshotTree(cache);
    const location = { cacheDirectory: cache, hitsDirectory: hits };

    const dryRun = await pruneCache({ location, inventory, dryRun: true, now: NOW });
    expect(summary(dryRun.removed)).toEqual(expected);
    expect(snapshotTree(cache)).toEqual(before);
    expect(dryRun.notes).toEqual([`kept ${newer.key}: written by a newer e2e`]);
    expect(renderPrune(dryRun)).toContain('Would remove 12 items');
    expect(renderPrune(dryRun)).toContain('Nothing was removed (--dry-run).');

    const pruned = await pruneCache({ location, inventory, dryRun: false, now: NOW });
    expect(summary(pruned.removed)).toEqual(expected);
    expect(pruned.bytesFreed).toBe(pruned.removed.reduce((sum, item) => sum + item.bytes, 0));
    expect(pruned.bytesFreed).toBeGreaterThan(stray.bytes.length);
    expect(pruned.keptEntries).toBe(4);
    const store = new FileCacheStore(cache, { readOnly: true });
    for (const entry of reachable) expect((await store.read(entry.key)).kind).toBe('hit');
    expect((await store.read(newer.key)).kind).toBe('invalid');
    expect((await store.list()).map((ref) => ref.key).sort()).toEqual([...reachable.map((entry) => entry.key), newer.key].sort());
    expect((await store.listBlobs()).map((blob) => blob.name)).toContain(young.blob);
    expect(readdirSync(join(cache, 'blobs', '00'))).toContain('.00000000000000aa-3.msgpack.999.cafe.tmp');
    expect(renderPrune(pruned)).toMatch(/^Removed 12 items, [\d.]+ (B|KiB) freed; 4 entries kept\./);

    const again = await pruneCache({ location, inventory, dryRun: false, now: NOW });
    expect(again.removed).toEqual([]);
  });

  it('with --unused-for N removes entries neither replayed nor recorded during the last N runs', async () => {
    const { cache, hits } = await cacheFolder();
    const [recent, stale, neverHit] = [await step(TEST_A, 'Recent'), await step(TEST_A, 'Stale'), await step(TEST_B, 'Never hit')];
    await writeEntries(cache, [recent, stale, neverHit]);
    ageEverything(cache, 10 * HOUR);
    const runs = new RunLedger(nodeFileSystem, hits);
    for (const hoursAgo of [5, 4, 3, 2, 1]) await runs.record(new Date(NOW.getTime() - hoursAgo * HOUR));
    const ledger = new FileCacheStore(cache, { hitsDirectory: hits });
    await ledger.recordHit(recent.key, new Date(NOW.getTime() - 0.5 * HOUR));
    await ledger.recordHit(stale.key, new Date(NOW.getTime() - 4.5 * HOUR));
    const location = { cacheDirectory: cache, hitsDirectory: hits };

    const result = await pruneCache({ location, inventory, dryRun: false, now: NOW, unusedForRuns: 3 });
    expect(summary(result.removed.filter((item) => item.reason === 'unused'))).toEqual([`unused ${stale.key}`, `unused ${neverHit.key}`].sort());
    expect((await ledger.list()).map((ref) => ref.key)).toEqual([recent.key]);

    const tooFew = await pruneCache({ location, inventory, dryRun: true, now: NOW, unusedForRuns: 10 });
    expect(tooFew.removed).toEqual([]);
    expect(tooFew.notes).toEqual([`only 5 runs recorded in ${hits}; --unused-for 10 removed nothing`]);
  });

  it('removes an entry a newer recording of the same step supersedes, with no ledger, and keeps the newest generation', async () => {
    const { cache, hits } = await cacheFolder();
    const first = { ...(await step(TEST_A, 'Add "Buy milk"')), position: 0 };
    const second = { ...(await step(TEST_A, 'Add "Buy oat milk"')), position: 0, supersedes: first.key };
    const third = { ...(await step(TEST_A, 'Add "Buy soy milk"')), position: 0, supersedes: second.key };
    const other = { ...(await step(TEST_B, 'Order')), position: 0 };
    // Naming a key no entry has, or another test's entry, supersedes nothing.
    const stray = { ...(await step(TEST_B, 'Pay')), position: 1, supersedes: 'ab00000000000009' };
    const foreign = { ...(await step(TEST_A, 'Sign in')), position: 1, supersedes: other.key };
    await writeEntries(cache, [first, second, third, other, stray, foreign]);

    const result = await pruneCache({ location: { cacheDirectory: cache, hitsDirectory: hits }, inventory, dryRun: false, now: NOW });
    // Their blobs go with them (no remaining ref names them).
    expect(summary(result.removed.filter((item) => item.reason !== 'unreferenced-blob'))).toEqual([`superseded ${first.key}`, `superseded ${second.key}`].sort());
    expect(result.removed.find((item) => item.name === second.key)?.detail).toMatch(new RegExp(`^${TEST_A}: act .*Buy oat milk.* \\[web\\] \\(superseded by ${third.key}\\)$`));
    const left = (await new FileCacheStore(cache, { readOnly: true }).list()).map((ref) => ref.key).sort();
    expect(left).toEqual([third.key, other.key, stray.key, foreign.key].sort());
    expect(renderPrune(result)).toMatch(new RegExp(`superseded +${second.key} `));
  });

  it('refuses an empty test list instead of removing every entry', async () => {
    const { cache, hits } = await cacheFolder();
    await writeEntries(cache, [await step(TEST_A, 'Sign in')]);
    const error = await pruneCache({ location: { cacheDirectory: cache, hitsDirectory: hits }, inventory: { tests: [] }, dryRun: false }).catch((caught: unknown) => caught);
    expect(isE2EError(error) && error.code).toBe('INVALID_ARGUMENT');
    expect((error as Error).message).toContain('`e2e cache clear`');
    expect(Object.keys(snapshotTree(cache))).toHaveLength(2);
  });
});

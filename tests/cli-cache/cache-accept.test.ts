import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { blobPath, encodeEntry, FileCacheStore, PROPOSAL_MARKER_FILE } from '../../cache-format/index.js';
import { acceptProposals, renderAccept } from '../../review/cache-accept.js';
import { diffCache } from '../../review/cache-diff.js';
import { renderDiffText } from '../../review/cache-diff-render.js';
import { isE2EError } from '../../errors/index.js';
import { snapshotTree } from '../support/directory-snapshot.js';
import { actEntry, control, stateControl, temporaryFolder, writeEntries, writeFile } from '../support/cache-fixtures.js';

const TEST = 'tests/checkout.e2e.ts::checkout › pays';

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function workspace(): Promise<{ root: string; cache: string; location: { cacheDirectory: string; hitsDirectory: string } }> {
  const root = await temporaryFolder('cache-accept');
  folders.push(root);
  const cache = join(root, 'cache');
  return { root, cache, location: { cacheDirectory: cache, hitsDirectory: join(root, 'hits') } };
}

function recording(instruction: string, button: string) {
  return actEntry({ testId: TEST, instruction, actions: [{ verb: 'tap', target: control('button', button) }], appeared: [stateControl('status', `${button} done`)] });
}

function proposal(root: string, name: string): { directory: string; label: string } {
  return { directory: join(root, name), label: name };
}

describe('e2e cache accept', () => {
  it('merges proposals into the cache: new keys added, stale ones replaced, identical ones kept', async () => {
    const { root, cache, location } = await workspace();
    const stale = await recording('apply the coupon', 'Apply');
    const unchanged = await recording('open the cart', 'Cart');
    await writeEntries(cache, [stale, unchanged]);
    const healed = await recording('apply the coupon', 'Redeem');
    const fresh = await recording('pay', 'Pay');
    await writeEntries(join(root, 'first'), [healed, unchanged]);
    await writeEntries(join(root, 'second'), [fresh, healed]);

    const result = await acceptProposals(location, [proposal(root, 'first'), proposal(root, 'second')]);
    expect(result.applied).toBe(true);
    expect(result.merged.map((entry) => [entry.key, entry.status, entry.from])).toEqual(
      [
        [healed.key, 'replaced', ['first', 'second']],
        [unchanged.key, 'kept', ['first']],
        [fresh.key, 'added', ['second']],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const store = new FileCacheStore(cache, { readOnly: true });
    const read = await store.read(healed.key);
    expect(read.kind === 'hit' ? read.entry : undefined).toEqual(healed);
    expect((await store.read(fresh.key)).kind).toBe('hit');
    expect(renderAccept(result)).toContain('Accepted 3 entries');
  });

  it('reports two proposals that wrote one key differently as a conflict and merges nothing', async () => {
    const { root, cache, location } = await workspace();
    const original = await recording('apply the coupon', 'Apply');
    await writeEntries(cache, [original]);
    const fromFirst = await recording('apply the coupon', 'Redeem');
    const fromSecond = await recording('apply the coupon', 'Use code');
    await writeEntries(join(root, 'first'), [fromFirst, await recording('pay', 'Pay')]);
    await writeEntries(join(root, 'second'), [fromSecond]);
    const before = snapshotTree(cache);

    const result = await acceptProposals(location, [proposal(root, 'first'), proposal(root, 'second')]);
    expect(result.applied).toBe(false);
    expect(result.conflicts).toEqual([
      {
        key: original.key,
        step: `${TEST}: act "apply the coupon"`,
        proposals: [
          { from: 'first', blob: (await encodeEntry(fromFirst)).blob },
          { from: 'second', blob: (await encodeEntry(fromSecond)).blob },
        ],
      },
    ]);
    expect(snapshotTree(cache)).toEqual(before);
    expect(renderAccept(result)).toContain(`conflict ${original.key}`);
  });

  it('refuses a proposal whose blob does not verify and merges nothing', async () => {
    const { root, cache, location } = await workspace();
    const good = await recording('pay', 'Pay');
    const damaged = await recording('apply the coupon', 'Apply');
    await writeEntries(join(root, 'proposal'), [good, damaged]);
    const { blob, bytes } = await encodeEntry(damaged);
    const flipped = Uint8Array.from(bytes);
    flipped[flipped.length - 2] = flipped[flipped.length - 2]! ^ 0xff;
    writeFile(blobPath(join(root, 'proposal'), blob), flipped);

    const result = await acceptProposals(location, [proposal(root, 'proposal')]);
    expect(result.applied).toBe(false);
    expect(result.refused).toEqual([{ key: damaged.key, from: 'proposal', reason: 'hash-mismatch', message: expect.stringContaining('does not match its content address') as unknown as string }]);
    expect(snapshotTree(cache)).toEqual({});
  });

  it('shows a proposal in cache diff and in accept --dry-run exactly as accept applies it: nothing the proposal lacks reads as removed', async () => {
    const { root, cache, location } = await workspace();
    const stale = await recording('apply the coupon', 'Apply');
    const untouched = await Promise.all(['open the cart', 'pick a size', 'sign in'].map((instruction, index) => recording(instruction, `Button ${index}`)));
    await writeEntries(cache, [stale, ...untouched]);
    const healed = await recording('apply the coupon', 'Redeem');
    const fresh = await recording('pay', 'Pay');
    // Written the way `e2e run --propose` writes it: the first write leaves the marker.
    const proposed = new FileCacheStore(join(root, 'proposal'), { proposal: true });
    for (const entry of [healed, fresh]) await proposed.write(entry, { overwrite: true });
    expect(snapshotTree(join(root, 'proposal'))).toHaveProperty(PROPOSAL_MARKER_FILE);
    const before = snapshotTree(cache);

    const planned = await acceptProposals(location, [proposal(root, 'proposal')], { dryRun: true });
    expect(planned).toMatchObject({ applied: true, dryRun: true });
    expect(planned.merged.map((entry) => [entry.key, entry.status]).sort()).toEqual([[healed.key, 'replaced'], [fresh.key, 'added']].sort());
    expect(renderAccept(planned)).toMatch(/^Would accept 2 entries into .*: 1 added, 1 replaced, 0 already there\.\n[\s\S]*Nothing was written \(--dry-run\)\.$/);
    expect(snapshotTree(cache)).toEqual(before);

    const diff = await diffCache({ cwd: root, cacheDirectory: cache, base: cache, head: join(root, 'proposal') });
    expect(diff.proposal).toBe(true);
    expect(diff.counts).toMatchObject({ added: 1, changed: 1, removed: 0, rekeyed: 0, unchanged: 3 });
    const text = renderDiffText(diff);
    expect(text.split('\n')[0]).toMatch(/as `e2e cache accept` would apply it: 1 added, 1 replaced, 3 unchanged$/);
    expect(text).toContain(`  replaced  act "apply the coupon" [web] (key ${healed.key})`);
    expect(text).not.toContain('removed');

    // The same folders without the marker are two cache states: what one lacks reads as removed.
    await writeEntries(join(root, 'plain'), [healed, fresh]);
    const plain = await diffCache({ cwd: root, cacheDirectory: cache, base: cache, head: join(root, 'plain') });
    expect(plain.proposal).toBeUndefined();
    expect(plain.counts.removed).toBeGreaterThan(0);
  });

  it('names the fix when a proposal folder is missing or is not a cache folder', async () => {
    const { root, location } = await workspace();
    const missing = await acceptProposals(location, [proposal(root, 'nowhere')]).catch((caught: unknown) => caught);
    expect(isE2EError(missing) && missing.message).toBe('proposal folder nowhere does not exist; pass the folder given to `e2e run --propose`.');
    writeFile(join(root, 'plain', 'notes.txt'), 'hello');
    const plain = await acceptProposals(location, [proposal(root, 'plain')]).catch((caught: unknown) => caught);
    expect(isE2EError(plain) && plain.code).toBe('INVALID_ARGUMENT');
  });
});

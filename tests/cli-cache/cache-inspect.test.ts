import { readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobPath, encodeEntry, FileCacheStore, refPath, type ActEntry } from '../../cache-format/index.js';
import { clearCache, renderClear } from '../../review/cache-clear.js';
import { listCache, renderCacheList, renderCacheListJson } from '../../review/cache-ls.js';
import { renderCacheShow, showCacheEntry } from '../../review/cache-show.js';
import { cacheStats, renderCacheStats } from '../../review/cache-stats.js';
import { isE2EError } from '../../errors/index.js';
import { snapshotTree } from '../support/directory-snapshot.js';
import { actEntry, control, stateControl, temporaryFolder, writeEntries, writeFile } from '../support/cache-fixtures.js';

const NOW = new Date('2025-03-06T05:06:07.000Z');
const SIGN_IN = 'tests/account.e2e.ts::account › signs in';
const ORDER = 'tests/shop.e2e.ts::shop › orders shoes';

let root: string;
let cache: string;
let hits: string;
let entries: ActEntry[];
const location = () => ({ cacheDirectory: cache, hitsDirectory: hits });

beforeAll(async () => {
  root = await temporaryFolder('cache-inspect');
  cache = join(root, 'cache');
  hits = join(root, 'hits');
  entries = [
    await actEntry({
      testId: SIGN_IN,
      instruction: 'sign in as {user}',
      params: { user: '<secret:user>' },
      actions: [
        { verb: 'type', target: control('textbox', 'Email'), value: { kind: 'literal', value: 'ada@example.com' }, replace: true },
        { verb: 'type', target: control('textbox', 'Password'), value: { kind: 'secret', name: 'password' }, replace: true },
        { verb: 'tap', target: control('button', 'Sign in') },
      ],
      appeared: [stateControl('status', 'Welcome back'), stateControl('checkbox', 'Remember me', ['checked'])],
      gone: [stateControl('button', 'Sign in')],
      path: '/login',
    }),
    await actEntry({ testId: ORDER, instruction: 'add shoes to the cart', actions: [{ verb: 'tap', target: control('button', 'Add to cart', { twinIndex: 1, twinCount: 3 }) }] }),
    await actEntry({ testId: ORDER, instruction: 'add shoes to the cart', occurrence: 1, actions: [{ verb: 'tap', target: control('button', 'Add to cart') }] }),
  ];
  await writeEntries(cache, entries);
  await new FileCacheStore(cache, { hitsDirectory: hits }).recordHit(entries[0]!.key, new Date(NOW.getTime() - 2 * 3_600_000));
  // One damaged entry: its blob's bytes no longer match the name.
  const damaged = await actEntry({ testId: ORDER, instruction: 'pay', actions: [{ verb: 'tap', target: control('button', 'Pay') }] });
  const { blob } = await encodeEntry(damaged);
  writeFile(blobPath(cache, blob), new Uint8Array(Number(blob.split('-')[1])).fill(9));
  writeFile(refPath(cache, damaged.key), `${blob}\n`);
  // One blob no ref names.
  const stray = await encodeEntry(await actEntry({ testId: ORDER, instruction: 'stray', actions: [{ verb: 'back' }] }));
  writeFile(blobPath(cache, stray.blob), stray.bytes);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('e2e cache ls', () => {
  it('lists one row per entry grouped by test, with age, actions and last hit, and the unreadable apart', async () => {
    const result = await listCache(location());
    expect(result.entries.map((entry) => [entry.testId, entry.instruction, entry.occurrence, entry.actions])).toEqual([
      [SIGN_IN, 'sign in as {user}', 0, 3],
      [ORDER, 'add shoes to the cart', 0, 1],
      [ORDER, 'add shoes to the cart', 1, 1],
    ]);
    expect(result.unreadable).toHaveLength(1);
    expect(result.unreadable[0]?.reason).toBe('hash-mismatch');
    const text = renderCacheList(result, NOW).split('\n');
    expect(text[0]).toMatch(/^\s+key\s+target\s+step\s+instruction\s+age\s+actions\s+last hit$/);
    expect(text[1]).toBe(SIGN_IN);
    expect(text[2]).toMatch(new RegExp(`^  ${entries[0]!.key.slice(0, 8)}\\s+web\\s+act\\s+sign in as \\{user\\} with user=<secret:user>\\s+2 d\\s+3\\s+2 h ago$`));
    expect(text[3]).toBe(ORDER);
    expect(text[5]).toMatch(/add shoes to the cart \(occurrence 2\)\s+2 d\s+1\s+never$/);
    expect(text.join('\n')).toContain('3 entries in 2 tests');
    expect(text.join('\n')).toContain('Unreadable (1;');
  });

  it('prints JSON with absolute times', async () => {
    const parsed = JSON.parse(renderCacheListJson(await listCache(location()))) as { entries: Array<{ key: string; lastHitAt?: string }> };
    expect(parsed.entries[0]).toMatchObject({ key: entries[0]!.key, lastHitAt: new Date(NOW.getTime() - 2 * 3_600_000).toISOString() });
  });
});

describe('e2e cache stats', () => {
  it('counts entries, unreadable entries, blobs, bytes and unreferenced blobs', async () => {
    const stats = await cacheStats(location());
    expect(stats).toMatchObject({ entries: 4, readable: 3, unreadable: 1, byKind: { act: 3 }, tests: 2, blobs: 5, unreferencedBlobs: 1, tempFiles: 0 });
    expect(stats.bytes).toBe(Object.entries(snapshotTree(join(cache, 'blobs'))).reduce((sum, [, value]) => sum + Number(value.split('@')[0]), 0));
    expect(renderCacheStats(stats)).toMatch(/^cache:\s/);
  });
});

describe('e2e cache show', () => {
  it('shows an entry by a unique key prefix as readable sentences', async () => {
    const result = await showCacheEntry(location(), entries[0]!.key.slice(0, 10));
    const text = renderCacheShow(result);
    expect(text).toContain(`Cache entry ${entries[0]!.key}`);
    expect(text).toContain('  test:           tests/account.e2e.ts::account › signs in');
    expect(text).toContain('  params:         user=<secret:user>');
    expect(text).toContain('Starts at http://127.0.0.1:4173/login');
    expect(text).toContain('  1. type "ada@example.com" into textbox "Email"');
    expect(text).toContain('  2. type <secret:password> into textbox "Password"');
    expect(text).toContain('  appeared: checkbox "Remember me" [checked]');
    expect(text).toContain('  gone: button "Sign in"');
    expect(text).toContain('Origins: http://127.0.0.1:4173');
    expect(text).toContain('Provenance: recorded 2025-03-04T05:06:07.000Z, verified by expect, executor e2e/agent, e2e 0.1.0');
  });

  it('shows an entry by its blob name', async () => {
    const { blob } = await encodeEntry(entries[1]!);
    const result = await showCacheEntry(location(), blob);
    expect(result.kind === 'entry' && result.key).toBe(entries[1]!.key);
  });

  it('shows why a damaged entry does not read', async () => {
    const listed = await listCache(location());
    const result = await showCacheEntry(location(), listed.unreadable[0]!.key);
    expect(renderCacheShow(result)).toMatch(/does not read \(hash-mismatch\)/);
  });

  it('refuses an ambiguous prefix with a usage error listing the candidates', async () => {
    const error = await showCacheEntry(location(), '').catch((caught: unknown) => caught);
    expect(isE2EError(error) && error.code).toBe('INVALID_ARGUMENT');
    const many = await temporaryFolder('cache-show-many');
    try {
      const numbered = await Promise.all(Array.from({ length: 20 }, (_, index) => actEntry({ testId: ORDER, instruction: `step ${index}`, actions: [{ verb: 'back' }] })));
      await writeEntries(many, numbered);
      const first = numbered.map((entry) => entry.key[0]!).find((digit, index, all) => all.indexOf(digit) !== index)!;
      const sharing = numbered.filter((entry) => entry.key.startsWith(first));
      const ambiguous = await showCacheEntry({ cacheDirectory: many, hitsDirectory: hits }, first).catch((caught: unknown) => caught);
      expect(isE2EError(ambiguous) && ambiguous.code).toBe('INVALID_ARGUMENT');
      const message = (ambiguous as Error).message;
      expect(message).toContain(`\`${first}\` matches ${sharing.length} entries`);
      for (const entry of sharing.slice(0, 8)) expect(message).toContain(entry.key);
      expect(message.split('\n')).toHaveLength(1);
    } finally {
      await rm(many, { recursive: true, force: true });
    }
  });

  it('refuses text that is no key with a usage error naming the fix', async () => {
    const error = await showCacheEntry(location(), 'not-a-key').catch((caught: unknown) => caught);
    expect(isE2EError(error) && error.message).toBe('`not-a-key` is not a cache key, key prefix or blob name; run `e2e cache ls` to see the keys.');
  });
});

describe('e2e cache clear', () => {
  it('deletes every ref, blob and temp file it wrote and nothing else', async () => {
    const folder = await temporaryFolder('cache-clear');
    try {
      await writeEntries(folder, entries);
      writeFile(join(folder, 'README.md'), 'our notes');
      writeFile(join(folder, 'refs', 'aa', '.aa00000000000000.ref.1.ff.tmp'), 'x');
      writeFile(join(folder, 'blobs', 'notes.txt'), 'kept');
      const result = await clearCache({ cacheDirectory: folder, hitsDirectory: hits });
      expect(result).toMatchObject({ entries: 3, blobs: 3, tempFiles: 1 });
      expect(Object.keys(snapshotTree(folder)).sort()).toEqual(['README.md', join('blobs', 'notes.txt')]);
      expect(readdirSync(folder).sort()).toEqual(['README.md', 'blobs']);
      expect(renderClear(result)).toContain('3 entries, 3 blobs, 1 temp file removed');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

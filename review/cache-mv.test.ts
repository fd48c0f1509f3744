import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { computeKey, FileCacheStore, type CacheLocation, type Entry, type JudgmentEntry } from '../cache-format/index.js';
import { isE2EError } from '../errors/index.js';
import { contentsOf } from '../tests/support/directory-snapshot.js';
import { FaultyFileSystem } from '../tests/support/faulty-file-system.js';
import { actEntry, assertEntry, control, keyPartsOf, stateControl, temporaryFolder, writeEntries, writeRawEntry } from '../tests/support/cache-fixtures.js';
import { moveTest, renderMove, resolveTargetId } from './cache-mv.js';

const OLD = 'tests/todos.e2e.ts::todos › adds';
const NEW = 'tests/todos.e2e.ts::todos › adds two todos';
const OTHER = 'tests/todos.e2e.ts::todos › clears';

let folder: string;
let location: CacheLocation;

beforeEach(async () => {
  folder = await temporaryFolder('cache-mv');
  location = { cacheDirectory: join(folder, 'cache'), hitsDirectory: join(folder, 'hits') };
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

function addStep(testId: string, instruction: string, occurrence = 0): Promise<Entry> {
  return actEntry({ testId, instruction, occurrence, actions: [{ verb: 'tap', target: control('button', 'Add') }], appeared: [stateControl('listitem', 'Buy milk')] });
}

/** A test with two acts and an assert after them, plus another test of the same file. */
async function recordedTest(testId = OLD): Promise<{ first: Entry; second: Entry; judgment: JudgmentEntry; other: Entry }> {
  const first = await addStep(testId, 'add a todo');
  const second = await addStep(testId, 'add a todo', 1);
  const judgment = await assertEntry(testId, [first.key, second.key]);
  const other = await addStep(OTHER, 'add a todo');
  await writeEntries(location.cacheDirectory, [first, second, judgment, other]);
  return { first, second, judgment, other };
}

async function entriesOf(testId: string): Promise<Entry[]> {
  const store = new FileCacheStore(location.cacheDirectory, { readOnly: true });
  const entries: Entry[] = [];
  for (const ref of await store.list()) {
    const result = await store.read(ref.key);
    if (result.kind === 'hit' && result.entry.keyParts.testId === testId) entries.push(result.entry);
  }
  return entries;
}

async function refusalOf(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await work;
  } catch (error) {
    if (isE2EError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected the move to be refused');
}

describe('moving a renamed test', () => {
  it('re-keys every entry exactly as a fresh recording under the new title would key it', async () => {
    const { first, second, judgment, other } = await recordedTest();
    const result = await moveTest(location, { from: OLD, to: NEW });
    expect(result.moved.map((entry) => [entry.kind, entry.status])).toEqual([
      ['act', 'moved'],
      ['act', 'moved'],
      ['assert', 'moved'],
    ]);
    const freshFirst = await addStep(NEW, 'add a todo');
    const freshSecond = await addStep(NEW, 'add a todo', 1);
    const freshJudgment = await assertEntry(NEW, [freshFirst.key, freshSecond.key]);
    const moved = await entriesOf(NEW);
    expect(moved.map((entry) => entry.key).sort()).toEqual([freshFirst.key, freshSecond.key, freshJudgment.key].sort());
    // Apart from the key, the moved entries are the recordings as they were.
    const movedJudgment = moved.find((entry) => entry.kind === 'assert')!;
    expect(movedJudgment).toEqual({ ...judgment, key: freshJudgment.key, keyParts: freshJudgment.keyParts });
    expect(moved.find((entry) => entry.key === freshFirst.key)).toEqual({ ...first, key: freshFirst.key, keyParts: freshFirst.keyParts });
    expect(await entriesOf(OLD)).toEqual([]);
    expect(await entriesOf(OTHER)).toEqual([other]);
    expect(second.key).not.toBe(freshSecond.key);
  });

  it('takes a bare title path (or ::title) as a new title in the same file', async () => {
    expect(resolveTargetId(OLD, 'todos › adds two todos')).toBe(NEW);
    expect(resolveTargetId(OLD, '::todos › adds two todos')).toBe(NEW);
    expect(resolveTargetId(OLD, 'tests/other.e2e.ts::adds')).toBe('tests/other.e2e.ts::adds');
    await recordedTest();
    const result = await moveTest(location, { from: OLD, to: 'todos › adds two todos' });
    expect(result.to).toBe(NEW);
    expect(await entriesOf(NEW)).toHaveLength(3);
  });

  it('lists what would move on a dry run and changes nothing', async () => {
    await recordedTest();
    const before = contentsOf(folder);
    const result = await moveTest(location, { from: OLD, to: NEW, dryRun: true });
    expect(contentsOf(folder)).toEqual(before);
    const text = renderMove(result);
    expect(text.split('\n')[0]).toBe(`Would move 3 entries of ${OLD} to ${NEW} (dry run, nothing changed):`);
    expect(text).toContain('would move  act "add a todo" (occurrence 2)');
    expect(text).toContain('would move  assert "two todos are open"');
  });

  it('carries the last hits over to the new keys', async () => {
    const { first } = await recordedTest();
    const store = new FileCacheStore(location.cacheDirectory, { hitsDirectory: location.hitsDirectory });
    const at = new Date('2025-06-01T10:00:00.000Z');
    await store.recordHit(first.key, at);
    await moveTest(location, { from: OLD, to: NEW });
    const newKey = (await addStep(NEW, 'add a todo')).key;
    expect((await store.readHits()).get(newKey)?.toISOString()).toBe(at.toISOString());
  });

  it('completes an interrupted move when run again: what was written counts as moved, nothing is lost', async () => {
    const { first, second, judgment } = await recordedTest();
    // A crash after the new refs were written and the old judgment removed, before the old acts went.
    const movedFirst = await addStep(NEW, 'add a todo');
    const movedSecond = await addStep(NEW, 'add a todo', 1);
    const movedJudgment = await assertEntry(NEW, [movedFirst.key, movedSecond.key]);
    await writeEntries(location.cacheDirectory, [movedFirst, movedSecond, movedJudgment]);
    await new FileCacheStore(location.cacheDirectory).delete(judgment.key);
    const result = await moveTest(location, { from: OLD, to: NEW });
    expect(result.moved.map((entry) => [entry.fromKey, entry.status])).toEqual(
      [
        [first.key, 'already-moved'],
        [second.key, 'already-moved'],
      ].sort(([a], [b]) => (a! < b! ? -1 : 1)),
    );
    expect(await entriesOf(OLD)).toEqual([]);
    expect((await entriesOf(NEW)).map((entry) => entry.key).sort()).toEqual([movedFirst.key, movedSecond.key, movedJudgment.key].sort());
  });
});

describe('a move the file system fails half-way', () => {
  it('removes the new refs it wrote and leaves every old entry: nothing moved, CACHE_WRITE_FAILED', async () => {
    const { first, second, judgment, other } = await recordedTest();
    const refsBefore = contentsOf(join(location.cacheDirectory, 'refs'));
    // The third new ref cannot be linked into place (the disk is full).
    const fileSystem = new FaultyFileSystem().fail({ operation: 'link', code: 'ENOSPC', skip: 2 });
    const outcome = await refusalOf(moveTest(location, { from: OLD, to: NEW, fileSystem }));
    expect(outcome.code).toBe('CACHE_WRITE_FAILED');
    expect(outcome.message).toMatch(/^cache mv stopped, nothing was moved: Could not save cache entry [0-9a-f]{16}: ENOSPC/);
    expect(fileSystem.callsOf('link')).toHaveLength(3);
    expect(contentsOf(join(location.cacheDirectory, 'refs'))).toEqual(refsBefore);
    expect((await entriesOf(OLD)).map((entry) => entry.key).sort()).toEqual([first.key, second.key, judgment.key].sort());
    expect(await entriesOf(NEW)).toEqual([]);
    expect(await entriesOf(OTHER)).toEqual([other]);
    // Once the disk has room again, the same move goes through.
    expect((await moveTest(location, { from: OLD, to: NEW })).moved).toHaveLength(3);
  });
});

describe('refusing a move: exit 2, a stable code, nothing changed', () => {
  async function refused(options: Parameters<typeof moveTest>[1]): Promise<{ code: string; message: string }> {
    const before = contentsOf(folder);
    const outcome = await refusalOf(moveTest(location, options));
    expect(contentsOf(folder)).toEqual(before);
    return outcome;
  }

  it('when from and to are the same test', async () => {
    await recordedTest();
    expect(await refused({ from: OLD, to: 'todos › adds' })).toEqual({
      code: 'INVALID_ARGUMENT',
      message: `cache mv refused, nothing was changed: from and to are the same test id \`${OLD}\`; name the test's new title as \`to\`.`,
    });
  });

  it('when the old test has no entries, naming the nearest test that has some', async () => {
    await recordedTest();
    const outcome = await refused({ from: 'tests/todos.e2e.ts::todos › add', to: NEW });
    expect(outcome.code).toBe('INVALID_ARGUMENT');
    expect(outcome.message).toContain(`has no entries in ${location.cacheDirectory} (did you mean \`${OLD}\`?)`);
  });

  it('when from is not a test id, naming the test ids with that title', async () => {
    await recordedTest();
    const outcome = await refused({ from: 'todos › adds', to: NEW });
    expect(outcome).toEqual({
      code: 'INVALID_ARGUMENT',
      message: `from \`todos › adds\` is not a test id; write it as the cache does, \`<file>::<title path>\` (see \`e2e cache ls\`) (did you mean \`${OLD}\`?).`,
    });
  });

  it('when a new key is taken by another entry, unless --force replaces it', async () => {
    await recordedTest();
    const fresh = await actEntry({ testId: NEW, instruction: 'add a todo', actions: [{ verb: 'tap', target: control('button', 'Create') }] });
    await writeEntries(location.cacheDirectory, [fresh]);
    const outcome = await refused({ from: OLD, to: NEW });
    expect(outcome.code).toBe('INVALID_STATE');
    expect(outcome.message).toContain(`\`${NEW}\` already has an entry under the new key of act "add a todo" (key ${fresh.key}); pass --force`);
    const forced = await moveTest(location, { from: OLD, to: NEW, force: true });
    expect(forced.moved.find((entry) => entry.toKey === fresh.key)?.status).toBe('replaced');
    const replaced = (await entriesOf(NEW)).find((entry) => entry.key === fresh.key);
    expect(replaced?.kind === 'act' ? replaced.actions : []).toEqual([{ verb: 'tap', target: control('button', 'Add') }]);
  });

  it('when an entry of the cache does not read (it may be one of the test)', async () => {
    await recordedTest();
    await writeRawEntry(location.cacheDirectory, 'abcdefabcdefabcd', new Uint8Array([1, 2, 3]));
    const outcome = await refused({ from: OLD, to: NEW });
    expect(outcome.code).toBe('INVALID_STATE');
    expect(outcome.message).toContain('entry abcdefabcdefabcd does not read (');
    expect(outcome.message).toContain('`e2e cache prune` removes entries that can never be served');
  });

  it('when a judgment follows an act of the test that has no entry (its new key cannot be computed)', async () => {
    const recorded = await addStep(OLD, 'add a todo');
    const unrecorded = await computeKey({ ...keyPartsOf({ testId: OLD, instruction: 'open the menu' }) });
    await writeEntries(location.cacheDirectory, [recorded, await assertEntry(OLD, [unrecorded, recorded.key])]);
    const outcome = await refused({ from: OLD, to: NEW });
    expect(outcome).toEqual({
      code: 'INVALID_STATE',
      message:
        'cache mv refused, nothing was changed: assert "two todos are open" comes after 1 act step of the test that has no entry, so its key under the new title cannot be computed; record the test again under its new title instead.',
    });
  });
});

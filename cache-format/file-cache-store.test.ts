import { existsSync } from 'node:fs';
import { mkdir, rm, utimes, writeFile, copyFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isE2EError } from '../errors/index.js';
import { rejectionOf } from '../tests/support/caught.js';
import { filesUnder, snapshotTree } from '../tests/support/directory-snapshot.js';
import { tempFolders } from '../tests/support/temp-folders.js';
import { numberedActEntry, sampleActEntry, sampleJudgmentEntry } from '../tests/support/sample-entries.js';
import { FileCacheStore } from './file-cache-store.js';
import { blobPath, refPath } from './layout.js';

const tempFolder = tempFolders('e2e-store-');
let directory: string;
beforeEach(() => {
  directory = tempFolder();
});

describe('FileCacheStore', () => {
  it('reads back what it wrote', async () => {
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry();
    const written = await store.write(entry);
    expect(written.status).toBe('saved');
    expect(await store.read(entry.key)).toMatchObject({ kind: 'hit', entry, blob: written.blob });
  });

  it('lays refs and blobs out by the first two characters of their names', async () => {
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry();
    const { blob } = await store.write(entry);
    expect(filesUnder(directory)).toEqual([
      join('blobs', blob.slice(0, 2), `${blob}.msgpack`),
      join('refs', entry.key.slice(0, 2), `${entry.key}.ref`),
    ]);
  });

  it('reports an unknown key as absent', async () => {
    const entry = await sampleActEntry();
    expect(await new FileCacheStore(directory).read(entry.key)).toEqual({ kind: 'absent' });
  });

  it('keeps an identical re-write without touching any file', async () => {
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry();
    await store.write(entry);
    const past = new Date(Date.now() - 60_000);
    for (const path of filesUnder(directory)) await utimes(join(directory, path), past, past);
    const before = snapshotTree(directory);
    expect((await store.write(await sampleActEntry())).status).toBe('kept');
    expect(snapshotTree(directory)).toEqual(before);
  });

  it('stores identical content once', async () => {
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry();
    const first = await store.write(entry);
    await store.delete(entry.key);
    const second = await store.write(entry);
    expect(second).toEqual({ status: 'saved', blob: first.blob });
    expect(await store.listBlobs()).toHaveLength(1);
  });

  it('lets the first writer of a key win: different bytes for a taken key are a conflict and change nothing', async () => {
    const store = new FileCacheStore(directory);
    const first = await store.write(await sampleActEntry(undefined, 0));
    const second = await store.write(await sampleActEntry(undefined, 1));
    expect(second.status).toBe('conflict');
    expect(second.current).toBe(first.blob);
    expect(await store.read((await sampleActEntry()).key)).toMatchObject({ kind: 'hit', blob: first.blob });
  });

  it('replaces an entry when the caller names the blob it saw there', async () => {
    const store = new FileCacheStore(directory);
    const stale = await store.write(await sampleActEntry(undefined, 0));
    const fresh = await store.write(await sampleActEntry(undefined, 1), { replacing: stale.blob });
    expect(fresh.status).toBe('saved');
    expect(await store.read((await sampleActEntry()).key)).toMatchObject({ kind: 'hit', blob: fresh.blob });
  });

  it('does not replace an entry that changed since the caller saw it', async () => {
    const store = new FileCacheStore(directory);
    const seen = await store.write(await sampleActEntry(undefined, 0));
    const newer = await store.write(await sampleActEntry(undefined, 1), { replacing: seen.blob });
    const late = await store.write(await sampleActEntry(undefined, 2), { replacing: seen.blob });
    expect(late).toMatchObject({ status: 'conflict', current: newer.blob });
  });

  it('overwrites whatever the key holds when asked to', async () => {
    const store = new FileCacheStore(directory);
    await store.write(await sampleActEntry(undefined, 0));
    const forced = await store.write(await sampleActEntry(undefined, 1), { overwrite: true });
    expect(forced.status).toBe('saved');
    expect(await store.read((await sampleActEntry()).key)).toMatchObject({ kind: 'hit', blob: forced.blob });
  });

  it('replaces a malformed ref on a plain write, since it can never be served', async () => {
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry();
    await mkdir(dirname(refPath(directory, entry.key)), { recursive: true });
    await writeFile(refPath(directory, entry.key), 'not a blob name\n');
    expect(await store.read(entry.key)).toMatchObject({ kind: 'invalid', reason: 'schema' });
    expect(await store.list()).toMatchObject([{ key: entry.key, blob: undefined, size: 0 }]);
    expect((await store.write(entry)).status).toBe('saved');
    expect((await store.read(entry.key)).kind).toBe('hit');
  });

  it('reads a ref whose newline a Windows checkout turned into CRLF', async () => {
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry();
    const { blob } = await store.write(entry);
    await writeFile(refPath(directory, entry.key), `${blob}\r\n`);
    expect(await store.read(entry.key)).toMatchObject({ kind: 'hit', blob });
  });

  it('reports a ref whose blob is missing as invalid, naming the blob so a write can replace it', async () => {
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry(undefined, 0);
    const { blob } = await store.write(entry);
    await rm(blobPath(directory, blob));
    expect(await store.read(entry.key)).toMatchObject({ kind: 'invalid', reason: 'unreadable', blob });
    expect((await store.write(await sampleActEntry(undefined, 1), { replacing: blob })).status).toBe('saved');
  });

  it('never serves a blob copied under another entry’s name', async () => {
    const store = new FileCacheStore(directory);
    const act = await store.write(await sampleActEntry());
    const judgment = await sampleJudgmentEntry();
    const judged = await store.write(judgment);
    await copyFile(blobPath(directory, act.blob), blobPath(directory, judged.blob));
    expect(await store.read(judgment.key)).toMatchObject({ kind: 'invalid', reason: 'hash-mismatch' });
  });

  it('never serves another key’s valid entry through a ref pointed at it', async () => {
    const store = new FileCacheStore(directory);
    const act = await store.write(await sampleActEntry());
    const judgment = await sampleJudgmentEntry();
    await store.write(judgment);
    await writeFile(refPath(directory, judgment.key), `${act.blob}\n`);
    expect(await store.read(judgment.key)).toMatchObject({ kind: 'invalid', reason: 'key-mismatch' });
  });

  it('deletes a ref, and only the expected one when a blob is named', async () => {
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry(undefined, 0);
    const first = await store.write(entry);
    const second = await store.write(await sampleActEntry(undefined, 1), { replacing: first.blob });
    expect(await store.delete(entry.key, { onlyBlob: first.blob })).toBe(false);
    expect((await store.read(entry.key)).kind).toBe('hit');
    expect(await store.delete(entry.key, { onlyBlob: second.blob })).toBe(true);
    expect(await store.read(entry.key)).toEqual({ kind: 'absent' });
    expect(await store.delete(entry.key)).toBe(false);
  });

  it('lists refs and blobs sorted, with sizes, and skips temp files', async () => {
    const store = new FileCacheStore(directory);
    const written = [];
    for (let index = 0; index < 5; index++) written.push({ entry: await numberedActEntry(index), result: await store.write(await numberedActEntry(index)) });
    const firstRef = refPath(directory, written[0]!.entry.key);
    await writeFile(join(dirname(firstRef), '.stray.ref.1.abc.tmp'), 'x');
    const refs = await store.list();
    expect(refs.map((ref) => ref.key)).toEqual(written.map(({ entry }) => entry.key).sort());
    for (const ref of refs) {
      const match = written.find(({ entry }) => entry.key === ref.key)!;
      expect(ref.blob).toBe(match.result.blob);
      expect(ref.size).toBe(Number(match.result.blob.split('-')[1]));
      expect(ref.modifiedAt).toBeInstanceOf(Date);
    }
    expect((await store.listBlobs()).map((blob) => blob.name)).toEqual(written.map(({ result }) => result.blob).sort());
  });

  it('lists leftover temp files older than a given age and removes them one by one', async () => {
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry();
    const { blob } = await store.write(entry);
    const oldTemp = join(dirname(blobPath(directory, blob)), `.${blob}.msgpack.123.abcdef.tmp`);
    const newTemp = join(dirname(refPath(directory, entry.key)), `.${entry.key}.ref.123.fedcba.tmp`);
    await writeFile(oldTemp, 'partial');
    await writeFile(newTemp, 'partial');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(oldTemp, anHourAgo, anHourAgo);
    const stale = await store.listTempFiles({ olderThanMs: 60_000 });
    expect(stale.map((file) => file.path)).toEqual([oldTemp]);
    expect(await store.removeTempFile(oldTemp)).toBe(true);
    expect(existsSync(oldTemp)).toBe(false);
    expect((await store.listTempFiles({ olderThanMs: 0 })).map((file) => file.path)).toEqual([newTemp]);
  });

  it('refuses to remove a file that is not one of its temp files', async () => {
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry();
    await store.write(entry);
    const error = await rejectionOf(store.removeTempFile(refPath(directory, entry.key)));
    expect(isE2EError(error) && error.code).toBe('INVALID_ARGUMENT');
    expect((await store.read(entry.key)).kind).toBe('hit');
  });

  it('refuses a malformed key as a programmer error', async () => {
    const error = await rejectionOf(new FileCacheStore(directory).read('../../etc/passwd'));
    expect(isE2EError(error) && error.code).toBe('INVALID_ARGUMENT');
  });

  it('records the last hit of a key in a ledger outside the cache folder', async () => {
    const hitsDirectory = join(directory, 'hits');
    const store = new FileCacheStore(join(directory, 'cache'), { hitsDirectory });
    const entry = await sampleActEntry();
    await store.write(entry);
    const first = new Date('2025-01-01T00:00:00Z');
    const later = new Date('2025-02-01T00:00:00Z');
    expect(await store.recordHit(entry.key, first)).toBe(true);
    expect((await store.readHits()).get(entry.key)).toEqual(first);
    await store.recordHit(entry.key, later);
    expect(await store.readHits()).toEqual(new Map([[entry.key, later]]));
    expect(filesUnder(join(directory, 'cache')).some((path) => path.includes('hits'))).toBe(false);
  });

  describe('in read-only mode', () => {
    it('reads entries and writes nothing, not even a hit or a folder', async () => {
      const entry = await sampleActEntry();
      await new FileCacheStore(directory).write(entry);
      const hitsDirectory = join(directory, 'hits');
      const store = new FileCacheStore(directory, { readOnly: true, hitsDirectory });
      const before = snapshotTree(directory);
      expect((await store.read(entry.key)).kind).toBe('hit');
      expect(await store.read((await sampleJudgmentEntry()).key)).toEqual({ kind: 'absent' });
      expect(await store.list()).toHaveLength(1);
      expect(await store.recordHit(entry.key)).toBe(false);
      expect(snapshotTree(directory)).toEqual(before);
      expect(existsSync(hitsDirectory)).toBe(false);
    });

    it('does not create a missing cache folder when reading', async () => {
      const missing = join(directory, 'not-yet');
      const store = new FileCacheStore(missing, { readOnly: true });
      expect(await store.read((await sampleActEntry()).key)).toEqual({ kind: 'absent' });
      expect(await store.list()).toEqual([]);
      expect(existsSync(missing)).toBe(false);
    });

    it.each([
      ['write', async (store: FileCacheStore) => store.write(await sampleActEntry())],
      ['delete', async (store: FileCacheStore) => store.delete((await sampleActEntry()).key)],
      ['deleteBlob', async (store: FileCacheStore) => store.deleteBlob('0123456789abcdef-10')],
    ])('refuses %s as a programmer error', async (_operation, operation) => {
      const error = await rejectionOf(operation(new FileCacheStore(directory, { readOnly: true })));
      expect(isE2EError(error) && error.code).toBe('INVALID_STATE');
      expect(filesUnder(directory)).toEqual([]);
    });
  });
});

import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { FileCacheStore, type ActEntry } from '../../../cache-format/index.js';
import { isE2EError, type E2EError } from '../../../errors/index.js';
import { filesUnder } from '../../support/directory-snapshot.js';
import { FaultyFileSystem, type PlannedFault } from '../../support/faulty-file-system.js';
import { sampleActEntry } from '../../support/sample-entries.js';
import { tempFolders } from '../../support/temp-folders.js';

const CANARY = 'CANARY-write-5a1c';

const tempFolder = tempFolders('e2e-write-faults-');
let directory: string;
beforeEach(() => {
  directory = tempFolder();
});

/** The sample entry with a canary in its summary and typed value (`variant` changes the bytes). */
async function canaryEntry(variant: number): Promise<ActEntry> {
  const entry = await sampleActEntry(undefined, variant);
  return { ...entry, summary: `${CANARY} summary` };
}

async function failureOf(promise: Promise<unknown>): Promise<E2EError> {
  try {
    await promise;
  } catch (error) {
    if (isE2EError(error)) return error;
    throw error;
  }
  throw new Error('expected the write to fail');
}

const isBlobPath = (path: string): boolean => path.includes(`${join('', 'blobs', '')}`);
const isRefPath = (path: string): boolean => path.includes(`${join('', 'refs', '')}`);

const FAULTS: Array<[string, PlannedFault]> = [
  ['the disk fills up while the blob is written', { operation: 'writeNewFile', code: 'ENOSPC', matches: isBlobPath, partialWrite: true }],
  ['the blob cannot be renamed into place', { operation: 'rename', code: 'EPERM', matches: isBlobPath }],
  ['the ref temp file cannot be created', { operation: 'writeNewFile', code: 'EACCES', matches: isRefPath }],
  ['the disk fills up while the ref is written', { operation: 'writeNewFile', code: 'ENOSPC', matches: isRefPath, partialWrite: true }],
  ['the ref cannot be linked into place', { operation: 'link', code: 'EPERM' }],
  ['a folder cannot be created', { operation: 'mkdir', code: 'EACCES' }],
];

describe('a failed cache write', () => {
  it.each(FAULTS)('when %s, throws CACHE_WRITE_FAILED naming the entry, removes its temp files and leaves the key empty', async (_label, fault) => {
    const entry = await canaryEntry(0);
    const store = new FileCacheStore(directory, { fileSystem: new FaultyFileSystem().fail(fault) });
    const error = await failureOf(store.write(entry));
    expect(error.code).toBe('CACHE_WRITE_FAILED');
    expect(error.message).toContain(entry.key);
    expect(error.message).toContain(fault.code);
    expect(error.message).not.toContain(CANARY);
    expect(filesUnder(directory).filter((path) => path.endsWith('.tmp'))).toEqual([]);
    expect(await new FileCacheStore(directory).read(entry.key)).toEqual({ kind: 'absent' });
  });

  it.each(FAULTS)('when %s while replacing an entry, leaves the previous entry intact', async (_label, fault) => {
    const healthy = new FileCacheStore(directory);
    const previous = await healthy.write(await canaryEntry(0));
    const store = new FileCacheStore(directory, { fileSystem: new FaultyFileSystem().fail(fault) });
    const replacement = await canaryEntry(1);
    const error = await failureOf(store.write(replacement, { replacing: previous.blob }));
    expect(error.code).toBe('CACHE_WRITE_FAILED');
    expect(filesUnder(directory).filter((path) => path.endsWith('.tmp'))).toEqual([]);
    expect(await healthy.read(replacement.key)).toMatchObject({ kind: 'hit', blob: previous.blob });
  });

  it('leaves the previous entry intact when linking the new ref fails after the old one was claimed', async () => {
    const healthy = new FileCacheStore(directory);
    const previous = await healthy.write(await canaryEntry(0));
    // The first link (create-if-absent) finds the key taken; the second (after the claim) fails.
    const fileSystem = new FaultyFileSystem().fail({ operation: 'link', code: 'EIO', skip: 1, times: 1 });
    const replacement = await canaryEntry(1);
    const error = await failureOf(new FileCacheStore(directory, { fileSystem }).write(replacement, { replacing: previous.blob }));
    expect(error.code).toBe('CACHE_WRITE_FAILED');
    expect(await healthy.read(replacement.key)).toMatchObject({ kind: 'hit', blob: previous.blob });
    expect(filesUnder(directory).filter((path) => path.endsWith('.tmp'))).toEqual([]);
  });

  it('succeeds on a retry once the file system recovers', async () => {
    const entry = await canaryEntry(0);
    const fileSystem = new FaultyFileSystem().fail({ operation: 'rename', code: 'ENOSPC', times: 1 });
    const store = new FileCacheStore(directory, { fileSystem });
    await failureOf(store.write(entry));
    expect((await store.write(entry)).status).toBe('saved');
    expect((await store.read(entry.key)).kind).toBe('hit');
  });

  it('reports an unreadable ref as an invalid entry instead of throwing', async () => {
    const entry = await canaryEntry(0);
    await new FileCacheStore(directory).write(entry);
    const fileSystem = new FaultyFileSystem().fail({ operation: 'readFile', code: 'EACCES', matches: isRefPath });
    const result = await new FileCacheStore(directory, { fileSystem }).read(entry.key);
    expect(result).toMatchObject({ kind: 'invalid', reason: 'unreadable' });
    expect(result.kind === 'invalid' && result.message).toContain('EACCES');
  });
});

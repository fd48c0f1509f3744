import { execFileSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { blobPath, FileCacheStore, refPath } from '../../../cache-format/index.js';
import { sampleActEntry } from '../../support/sample-entries.js';
import { tempFolders } from '../../support/temp-folders.js';

const tempFolder = tempFolders('e2e-planted-');
let directory: string;
beforeEach(() => {
  directory = tempFolder();
});

/** Replaces `path` with a named pipe (a read of it would block forever). */
async function plantPipe(path: string): Promise<void> {
  await rm(path, { force: true });
  await mkdir(dirname(path), { recursive: true });
  execFileSync('mkfifo', [path]);
}

describe('files planted in a cache folder', () => {
  it('a named pipe in place of a ref is refused at once instead of hanging the reader', async () => {
    const entry = await sampleActEntry();
    await plantPipe(refPath(directory, entry.key));
    expect(await new FileCacheStore(directory).read(entry.key)).toMatchObject({ kind: 'invalid', reason: 'unreadable' });
  });

  it('a named pipe in place of a blob is refused at once instead of hanging the reader', async () => {
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry();
    const { blob } = await store.write(entry);
    await plantPipe(blobPath(directory, blob));
    expect(await store.read(entry.key)).toMatchObject({ kind: 'invalid', reason: 'unreadable', blob });
  });

  it('a folder in place of a ref is refused, and a write reports the failure as CACHE_WRITE_FAILED', async () => {
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry();
    await mkdir(refPath(directory, entry.key), { recursive: true });
    expect(await store.read(entry.key)).toMatchObject({ kind: 'invalid', reason: 'unreadable' });
    await expect(store.write(entry)).rejects.toMatchObject({ code: 'CACHE_WRITE_FAILED' });
  });
});

import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleActEntry } from '../tests/support/sample-entries.js';
import { FileCacheStore } from './file-cache-store.js';
import { blobPath, refPath } from './layout.js';

describe('a cache store after git touched it', () => {
  it('names a ref with merge conflict markers as a merge conflict, with both fixes', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'e2e-ref-problem-'));
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry();
    const { blob } = await store.write(entry);
    const other = blob.replace(/^./, (digit) => (digit === '0' ? '1' : '0'));
    await writeFile(refPath(directory, entry.key), `<<<<<<< HEAD\n${blob}\n=======\n${other}\n>>>>>>> feature/a-rather-long-branch-name-that-makes-the-ref-longer-than-a-ref\n`);
    const result = await store.read(entry.key);
    expect(result).toMatchObject({ kind: 'invalid', reason: 'merge-conflict' });
    expect(result.kind === 'invalid' ? result.message : '').toContain('merge conflict in the cache: its ref file holds git conflict markers; run `e2e record` or pick one side');
    await writeFile(refPath(directory, entry.key), 'nonsense\n');
    expect(await store.read(entry.key)).toMatchObject({ kind: 'invalid', reason: 'schema', message: expect.stringContaining('does not name a blob') });
  });

  it('says git rewrote line endings and names the .gitattributes fix, for a blob whose LF bytes became CRLF', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'e2e-ref-problem-'));
    const store = new FileCacheStore(directory);
    const entry = await sampleActEntry({ ...(await sampleActEntry()).keyParts, instruction: 'add a todo\nand complete it' });
    const { blob } = await store.write(entry);
    const bytes = await readFile(blobPath(directory, blob));
    expect(bytes.includes(0x0a)).toBe(true);
    await writeFile(blobPath(directory, blob), Buffer.from(bytes.toString('latin1').replaceAll('\n', '\r\n'), 'latin1'));
    const result = await store.read(entry.key);
    expect(result).toMatchObject({ kind: 'invalid', reason: 'hash-mismatch' });
    expect(result.kind === 'invalid' ? result.message : '').toContain('git rewrote its line endings (LF to CRLF)');
    expect(result.kind === 'invalid' ? result.message : '').toContain('.e2e/cache/**/*.msgpack -text diff=e2e-cache');
  });
});

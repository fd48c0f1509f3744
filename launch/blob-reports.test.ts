import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findBlobReports, stageBlobReports } from './blob-reports.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Two machines' downloaded artifacts: each shard's blob-report folder, both without --shard (`report.zip`). */
function artifacts(): string {
  const root = mkdtempSync(join(tmpdir(), 'e2e-blobs-'));
  folders.push(root);
  for (const machine of ['machine-1', 'machine-2']) {
    mkdirSync(join(root, machine, 'blob-report'), { recursive: true });
    writeFileSync(join(root, machine, 'blob-report', 'report.zip'), machine);
  }
  writeFileSync(join(root, 'machine-1', 'blob-report', 'notes.txt'), 'not a blob');
  mkdirSync(join(root, 'empty'));
  return root;
}

describe('findBlobReports', () => {
  it('finds the zip files of each folder and the zip files given, each once, in argument order', async () => {
    const root = artifacts();
    symlinkSync(join(root, 'machine-1', 'blob-report'), join(root, 'again'));
    const found = await findBlobReports(['machine-2/blob-report', join(root, 'machine-1', 'blob-report', 'report.zip'), 'again'], root);
    expect(found).toEqual({ kind: 'found', files: [join(root, 'machine-2', 'blob-report', 'report.zip'), join(root, 'machine-1', 'blob-report', 'report.zip')] });
  });

  it('refuses a missing path, a folder without blobs, a file that is no zip and no argument at all, naming the fix', async () => {
    const root = artifacts();
    for (const [paths, words] of [
      [['gone'], 'gone does not exist'],
      [['empty'], 'the folder empty holds no blob report (*.zip)'],
      [['machine-1/blob-report/notes.txt'], 'machine-1/blob-report/notes.txt is not a blob report (*.zip)'],
      [[], 'name the blob report folders to merge'],
    ] as const) {
      const found = await findBlobReports(paths, root);
      expect(found.kind, words).toBe('invalid');
      if (found.kind !== 'invalid') continue;
      expect(found.error.code).toBe('INVALID_ARGUMENT');
      expect(found.error.message).toContain(words);
      if (paths[0] !== 'gone') expect(found.error.message).toContain('--reporter blob');
    }
  });
});

describe('stageBlobReports', () => {
  it('copies blobs that share a name under names that never collide, keeping their bytes', async () => {
    const root = artifacts();
    const staging = join(root, 'staging');
    mkdirSync(staging);
    const found = await findBlobReports(['machine-1/blob-report', 'machine-2/blob-report'], root);
    if (found.kind !== 'found') throw new Error('expected blobs');
    const staged = await stageBlobReports(found.files, staging);
    expect(readdirSync(staging).sort()).toEqual(['1-report.zip', '2-report.zip']);
    expect(staged.map((file) => readFileSync(file, 'utf8'))).toEqual(['machine-1', 'machine-2']);
  });
});

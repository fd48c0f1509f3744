/**
 * The blob reports of a sharded run, as `e2e merge-reports` is given them: folders (each
 * shard's `blob-report/`, downloaded CI artifacts) or the `.zip` files themselves. Each shard
 * ran on its own machine, so two shards may name their blob alike (`report.zip` without
 * `--shard`); {@link stageBlobReports} copies them into one folder under names that never
 * collide, which is the one folder Playwright's `merge-reports` reads.
 */
import { copyFile, readdir, realpath, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { E2EError } from '../errors/index.js';

/** The blob files found, or why the arguments name none. */
export type BlobReportsResult = { kind: 'found'; files: string[] } | { kind: 'invalid'; error: E2EError };

const RUN_WITH_BLOB = 'run each shard with `--reporter blob` (e.g. `e2e replay --shard 1/2 --reporter blob,list`), which writes blob-report/report-1.zip';

/** The `.zip` blob files that `paths` (folders or files, relative to `cwd`) name, each once, in argument order. */
export async function findBlobReports(paths: readonly string[], cwd: string): Promise<BlobReportsResult> {
  if (paths.length === 0) return { kind: 'invalid', error: new E2EError('INVALID_ARGUMENT', `name the blob report folders to merge; ${RUN_WITH_BLOB}.`) };
  const files: string[] = [];
  const seen = new Set<string>();
  for (const given of paths) {
    const path = resolve(cwd, given);
    const stats = await stat(path).catch(() => undefined);
    if (stats === undefined) return { kind: 'invalid', error: new E2EError('INVALID_ARGUMENT', `${given} does not exist; pass the folders the shards' blob reports are in.`) };
    const found = stats.isDirectory()
      ? (await readdir(path)).filter((name) => name.endsWith('.zip')).sort().map((name) => join(path, name))
      : path.endsWith('.zip')
        ? [path]
        : [];
    if (found.length === 0) {
      const what = stats.isDirectory() ? `the folder ${given} holds no blob report (*.zip)` : `${given} is not a blob report (*.zip)`;
      return { kind: 'invalid', error: new E2EError('INVALID_ARGUMENT', `${what}; ${RUN_WITH_BLOB}.`) };
    }
    for (const file of found) {
      const real = await realpath(file);
      if (seen.has(real)) continue;
      seen.add(real);
      files.push(file);
    }
  }
  return { kind: 'found', files };
}

/** Copies `files` into `folder` as `<n>-<name>`, so blobs of different machines that share a name are all merged. */
export async function stageBlobReports(files: readonly string[], folder: string): Promise<string[]> {
  const width = String(files.length).length;
  const staged: string[] = [];
  for (const [index, file] of files.entries()) {
    const target = join(folder, `${String(index + 1).padStart(width, '0')}-${basename(file)}`);
    await copyFile(file, target);
    staged.push(target);
  }
  return staged;
}

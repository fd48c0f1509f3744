/**
 * Reads a cache folder as it was at a git revision, straight from the object store (no
 * checkout): `git ls-tree -r -l -z <commit> -- <folder>` lists the files with their sizes,
 * `git cat-file --batch` streams their bytes. The bytes are untrusted and go through the one
 * reading pipeline (`readEntryBytes`) afterwards.
 */
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { E2EError } from '../errors/index.js';

/** The outcome of one git invocation. */
export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Runs git with `args` in `cwd`, feeding `input` to its stdin. Throws `ENVIRONMENT_UNAVAILABLE` when git cannot start. */
export async function runGit(cwd: string, args: readonly string[], input?: string): Promise<GitResult> {
  return new Promise((resolveResult, reject) => {
    const child = spawn('git', args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => reject(new E2EError('ENVIRONMENT_UNAVAILABLE', `git could not be started (${error.message}); install git or compare two folders instead.`)));
    child.on('close', (code) => resolveResult({ code: code ?? 1, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString('utf8') }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

/** The top folder of the work tree that holds `cwd`, or undefined outside a git work tree. */
export async function gitTopLevel(cwd: string): Promise<string | undefined> {
  const result = await runGit(cwd, ['rev-parse', '--show-toplevel']);
  return result.code === 0 ? result.stdout.toString('utf8').trim() : undefined;
}

/** The commit `revision` names in the repository at `top`, or undefined when it names none. */
export async function resolveCommit(top: string, revision: string): Promise<string | undefined> {
  if (revision.startsWith('-')) return undefined;
  const result = await runGit(top, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`]);
  return result.code === 0 ? result.stdout.toString('utf8').trim() : undefined;
}

/** `path` resolved through symbolic links as far as it exists, so it compares with git's top folder. */
function realPathOfExisting(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realPathOfExisting(parent), basename(path));
  }
}

/** `folder` relative to the work tree's top, with `/` separators; undefined when it lies outside. */
export function pathInRepository(top: string, folder: string): string | undefined {
  const inside = relative(realPathOfExisting(top), realPathOfExisting(folder));
  if (inside.startsWith('..') || inside.includes(`..${sep}`)) return undefined;
  return inside.split(sep).join('/');
}

/** One file of a tree. */
export interface GitTreeFile {
  /** Path relative to the listed folder, with `/` separators. */
  path: string;
  objectId: string;
  size: number;
}

const TREE_LINE = /^\d+ blob ([0-9a-f]+) +(\d+)\t([\s\S]*)$/;

/** Regular files under `folder` (relative to the top, `/` separators; `''` for the whole tree) at `commit`. */
export async function listTreeFiles(top: string, commit: string, folder: string): Promise<GitTreeFile[]> {
  const args = ['ls-tree', '-r', '-l', '-z', '--full-tree', commit];
  if (folder !== '') args.push('--', folder);
  const result = await runGit(top, args);
  if (result.code !== 0) throw new E2EError('ENVIRONMENT_UNAVAILABLE', `git ls-tree failed at ${commit}: ${firstLine(result.stderr)}`);
  const prefix = folder === '' ? '' : `${folder}/`;
  const files: GitTreeFile[] = [];
  for (const record of result.stdout.toString('utf8').split('\0')) {
    const match = TREE_LINE.exec(record);
    if (match === null || !match[3]!.startsWith(prefix)) continue;
    files.push({ objectId: match[1]!, size: Number(match[2]), path: match[3]!.slice(prefix.length) });
  }
  return files;
}

/** The bytes of each object in `objectIds` (missing ones are left out), read with one `git cat-file --batch`. */
export async function readObjects(top: string, objectIds: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(objectIds)];
  const objects = new Map<string, Buffer>();
  if (unique.length === 0) return objects;
  const result = await runGit(top, ['cat-file', '--batch'], unique.join('\n') + '\n');
  if (result.code !== 0) throw new E2EError('ENVIRONMENT_UNAVAILABLE', `git cat-file failed: ${firstLine(result.stderr)}`);
  const output = result.stdout;
  let offset = 0;
  while (offset < output.length) {
    const lineEnd = output.indexOf(0x0a, offset);
    if (lineEnd === -1) break;
    const header = output.subarray(offset, lineEnd).toString('utf8').split(' ');
    offset = lineEnd + 1;
    if (header.length !== 3) continue;
    const size = Number(header[2]);
    objects.set(header[0]!, output.subarray(offset, offset + size));
    offset += size + 1;
  }
  return objects;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

/** Runs the test-only cache binary (`cache-cli.ts`) as a real process. */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const REPOSITORY_ROOT = resolve(import.meta.dirname, '..', '..', '..');
/** tsx's loader by absolute URL, so the binary runs from any folder. */
const TSX_LOADER = pathToFileURL(join(REPOSITORY_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
/** The command line that runs the test-only binary (for git's textconv too). */
export const CACHE_CLI = [process.execPath, '--import', TSX_LOADER, join(REPOSITORY_ROOT, 'tests', 'cli-cache', 'support', 'cache-cli.ts')] as const;

/** How a run ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `e2e <args>` in `cwd`. */
export function runCli(cwd: string, args: readonly string[]): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(CACHE_CLI[0], [...CACHE_CLI.slice(1), ...args], { cwd, env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

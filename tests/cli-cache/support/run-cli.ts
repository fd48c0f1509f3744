/** Runs the built `e2e` binary (`dist/cli/main.js`, built once by the process tier's global setup) as a real process. */
import { spawn } from 'node:child_process';
import { E2E_BIN } from '../../runner/support/e2e-process.js';

/** The command line that runs the binary (for git's textconv too). */
export const CACHE_CLI = [process.execPath, E2E_BIN] as const;

/** How a run ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `e2e <args>` in `cwd`, with `env` on top of this process's environment (NODE_OPTIONS empty unless `env` sets it). */
export function runCli(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(CACHE_CLI[0], [...CACHE_CLI.slice(1), ...args], { cwd, env: { ...process.env, NODE_OPTIONS: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

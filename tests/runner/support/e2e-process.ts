/**
 * Runs the real `e2e` binary (`dist/cli/main.js`) in a fixture project, the way a user
 * starts it, and collects its exit code, output and `.e2e/report.json`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Report } from '../../../runner/report.js';
import { sharedChromiumEndpoint } from '../../support/shared-chromium-endpoint.js';
import { ROOT } from './build.js';

/** The binary. */
export const E2E_BIN = join(ROOT, 'dist', 'cli', 'main.js');

/** One finished run. */
export interface E2ERun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  report: Report | undefined;
}

/** Options of {@link startE2E}. */
export interface E2ERunOptions {
  cwd: string;
  env?: Record<string, string>;
  /** Called with every stdout chunk (to react to progress). */
  onOutput?: (text: string, child: ChildProcess) => void;
}

/** The variable naming the process tier's shared Chromium to a fixture project (`fixtures/shared/fixture-web.ts`). */
const BROWSER_SERVER_VARIABLE = 'E2E_FIXTURE_BROWSER_SERVER';

/**
 * The environment every fixture run gets: no CI switch, Chromium from the system, and this
 * worker's shared Chromium (`shared-chromium.ts`), which projects made with `fixtureWeb()`
 * connect to instead of launching one per run. A run told which browser to launch
 * (`E2E_CHROMIUM_PATH`) is about that launch, so it gets none.
 */
function baseEnvironment(extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('E2E_') && key !== 'CI') env[key] = value;
  const endpoint = extra?.['E2E_CHROMIUM_PATH'] === undefined ? sharedChromiumEndpoint() : undefined;
  return { ...env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', FORCE_COLOR: '0', ...(endpoint === undefined ? {} : { [BROWSER_SERVER_VARIABLE]: endpoint }), ...extra };
}

/** Start `e2e <args>` in `options.cwd`; the promise settles when the process exits. */
export function startE2E(args: string[], options: E2ERunOptions): { child: ChildProcess; done: Promise<E2ERun> } {
  const started = Date.now();
  const child = spawn(process.execPath, [E2E_BIN, ...args], { cwd: options.cwd, env: baseEnvironment(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    stdout += text;
    options.onOutput?.(text, child);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const done = new Promise<E2ERun>((resolve) => {
    child.on('close', (code) => {
      const reportPath = join(options.cwd, '.e2e', 'report.json');
      // The last run's report stays in place; only one this run wrote counts.
      const written = existsSync(reportPath) && statSync(reportPath).mtimeMs >= started;
      const report = written ? (JSON.parse(readFileSync(reportPath, 'utf8')) as Report) : undefined;
      resolve({ exitCode: code, stdout, stderr, report });
    });
  });
  return { child, done };
}

/** Run `e2e <args>` to the end. */
export function runE2E(args: string[], options: E2ERunOptions): Promise<E2ERun> {
  return startE2E(args, options).done;
}

/** Each test's outcome in the run's report, by the test's own title. */
export function outcomesByTitle(run: E2ERun): Record<string, string> {
  return Object.fromEntries((run.report?.tests ?? []).map((test) => [test.titlePath.at(-1), test.outcome]));
}

/**
 * `e2e merge-reports <folder…>`: the shards of a run, each on its own machine and in its own
 * folder, become one HTML report, one `.e2e/report.json` and one summary. Playwright's own
 * `merge-reports` refuses blobs recorded in different folders: each blob's config carries its
 * machine's absolute `rootDir` (the test folder), and only a merge config overrides it. So the
 * merge always runs with the project's config (its `testDir` places the tests here, its
 * reporters write the HTML report and e2e's report), on a copy of every blob in one folder.
 * e2e's reporter rebuilds `report.json` from the step records each shard's blob carries (the
 * same records each shard's own report.json was built from), so its counts are the shards'
 * sums; the exit code is the merged run's (DESIGN §3).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_REPORT_PATH } from '../runner/project-paths.js';
import { PLAIN_RUN_REQUEST } from '../runner/run-request.js';
import { findBlobReports, stageBlobReports } from './blob-reports.js';
import { loadableConfig } from './plain-config.js';
import { CONFIG_FILE_NAMES, findConfigFile, playwrightCli, secondPlaywrightProblem } from './project-config.js';
import { writeRunRequest } from './run-request-file.js';
import { conclude, reportStamp, withE2EReporters, type RunCommandResult } from './run-command.js';

/** Options of `e2e merge-reports`. */
export interface MergeReportsOptions {
  /** Folders holding blob reports (`blob-report/` of each shard), or blob `.zip` files, relative to `cwd`. */
  folders: string[];
  /** Config file; default `e2e.config.{ts,mts,js,mjs}` in `cwd`. */
  config?: string | undefined;
  /** `--reporter`: Playwright reporters for the merged report, comma-separated; default the config's (HTML report included). */
  reporter?: string | undefined;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** The `playwright merge-reports` command line for a folder of staged blobs. */
export function mergeArguments(configPath: string, blobFolder: string, reporter: string | undefined): string[] {
  return ['merge-reports', '-c', configPath, ...(reporter === undefined ? [] : ['--reporter', withE2EReporters(reporter)]), blobFolder];
}

/** Merge the blob reports in `options.folders` into one HTML report, one report.json and one summary. */
export async function mergeReports(options: MergeReportsOptions): Promise<RunCommandResult> {
  const configPath = findConfigFile(options.cwd, options.config);
  if (configPath === undefined) {
    const wanted = options.config ?? CONFIG_FILE_NAMES.join(', ');
    return {
      outcome: 'configuration',
      message: `INVALID_CONFIG: no config found (${wanted}) in ${options.cwd}; merge in the project's folder (its testDir places the tests) or pass --config.`,
    };
  }
  const twoCopies = secondPlaywrightProblem(configPath);
  if (twoCopies !== undefined) return { outcome: 'configuration', message: `INVALID_CONFIG: ${twoCopies}` };
  const blobs = await findBlobReports(options.folders, options.cwd);
  if (blobs.kind === 'invalid') return { outcome: 'configuration', message: `${blobs.error.code}: ${blobs.error.message}` };

  const configDir = dirname(configPath);
  const reportPath = resolve(configDir, DEFAULT_REPORT_PATH);
  const previousReport = await reportStamp(reportPath);
  // A merge asks nothing of the modes; its request says so, and where a config failure goes.
  const written = await writeRunRequest(PLAIN_RUN_REQUEST);
  const staging = await mkdtemp(join(tmpdir(), 'e2e-merge-'));
  const loadable = await loadableConfig(configPath);
  try {
    await stageBlobReports(blobs.files, staging);
    const env: Record<string, string | undefined> = { ...options.env, ...written.variables };
    const exit = await new Promise<{ code: number | null; interrupted: boolean }>((resolveExit) => {
      const child = spawn(process.execPath, [playwrightCli(configPath), ...mergeArguments(loadable.path, staging, options.reporter)], { cwd: options.cwd, env, stdio: 'inherit' });
      child.on('error', () => resolveExit({ code: 1, interrupted: false }));
      child.on('exit', (code, signal) => resolveExit({ code, interrupted: signal === 'SIGINT' }));
    });
    return await conclude(reportPath, written.failurePath, exit, previousReport);
  } finally {
    await loadable.dispose();
    await rm(staging, { recursive: true, force: true });
    await written.dispose();
  }
}

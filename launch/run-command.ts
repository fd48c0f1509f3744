/**
 * `e2e run`, `e2e record` and `e2e replay`: run Playwright Test on the e2e config in a child
 * process, hand it what the command asks in one run request (`runner/run-request.ts`), and
 * read `.e2e/report.json` to decide the outcome. `record` forces the cache read-write; `replay`
 * makes the run model-free (read-only, strict, no model, judge or executor); `run` keeps the
 * configured mode. The first interrupt is forwarded so Playwright finishes cleanly and writes
 * the report; a second one stops the child at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitClassOf, isE2EError, isErrorCode } from '../errors/index.js';
import type { PlannedMutant } from '../runner/audit-mutants.js';
import { parseReport, type Report, type ReportReadResult } from '../runner/report.js';
import { DEFAULT_REPORT_PATH } from '../runner/project-paths.js';
import { outcomeOfExitClass, type CommandOutcome } from './command-outcome.js';
import { CONFIG_FILE_NAMES, findConfigFile, playwrightCli, secondPlaywrightProblem } from './project-config.js';
import { loadableConfig } from './plain-config.js';
import { MODEL_VARIABLES_TEXT, missingProviderPackages, missingProviderProblem } from './provider-packages.js';
import { environmentHints } from '../runner/environment-hints.js';
import { requestFromVariables, RUN_REQUEST_VERSION, type RunRequest } from '../runner/run-request.js';
import { writeRunRequest } from './run-request-file.js';

/** Which command runs the tests. */
export type RunKind = 'run' | 'record' | 'replay';

/** Options of `e2e run`, `e2e record` and `e2e replay`. */
export interface RunCommandOptions {
  /** Default `run`. */
  kind?: RunKind | undefined;
  /** Test file filters (Playwright positional arguments). */
  filters: string[];
  /** Config file; default `e2e.config.{ts,mts,js,mjs}` in `cwd`. */
  config?: string | undefined;
  /** `--reporter`: Playwright reporters, comma-separated; e2e's reporter is added (not under `--list`). */
  reporter?: string | undefined;
  /** Playwright Test options as `playwright test` arguments (`--headed`, `--retries=1`), see `playwright-options.ts`. */
  playwright?: string[] | undefined;
  /** False for `--no-cache`. */
  cache: boolean;
  /** `--strict-cache`: a step whose entry no longer replays fails `REPLAY_STALE` instead of calling the model. */
  strictCache?: boolean | undefined;
  /** `--propose <dir>` (relative to `cwd`): the cache stays read-only; new and healed recordings go to this folder. */
  propose?: string | undefined;
  debug: boolean;
  /** Arguments after `--`, passed to Playwright Test verbatim. */
  extra?: string[] | undefined;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Where Playwright's stdout goes: ours (default), or our stderr so stdout holds only a command's JSON (`cache audit --json`). */
  childStdout?: 'stdout' | 'stderr' | undefined;
  /** The report file, relative to the config's folder (default `.e2e/report.json`); the audit's mutant run writes its own. */
  reportFile?: string | undefined;
  /** `e2e cache audit`: the mutants the run replays (the config puts them in one project per target, a copy of a test per mutant). */
  mutants?: PlannedMutant[] | undefined;
  /** Where the run's reporter writes the config probe (absolute): `e2e record` learns `cache.audit` this way. */
  configProbe?: string | undefined;
}

/** How a run ended. */
export interface RunCommandResult {
  outcome: CommandOutcome;
  /** The report, when Playwright wrote one. */
  report?: Report | undefined;
  /** A line for the user when the run ended without a report. */
  message?: string | undefined;
}

/** A started run. */
export interface RunHandle {
  result: Promise<RunCommandResult>;
  /** Forward an interrupt: the first finishes cleanly, the second stops at once. */
  interrupt(): void;
}

/**
 * What the command asks of the run, or a usage problem. `record`: read-write. `replay`:
 * read-only, strict and model-free. `run`: the configured mode (with the variables of its
 * environment that plain `npx playwright test` reads, `requestFromVariables`), `off` with
 * `--no-cache`, read-only with `--propose`. `--strict-cache` makes any of them strict.
 */
export function runRequestOf(options: RunCommandOptions, report?: string): { request: RunRequest } | { problem: string } {
  const kind = options.kind ?? 'run';
  if (options.propose !== undefined) {
    if (!options.cache) return { problem: '--propose writes recordings aside from the cache; it cannot be combined with --no-cache.' };
    if (kind === 'record') return { problem: '`e2e record` writes the cache itself; use `e2e run --propose <dir>` to write recordings aside.' };
  }
  let request: RunRequest;
  if (kind === 'record') request = { version: RUN_REQUEST_VERSION, cache: { mode: 'read-write', strict: false }, modelFree: false, debug: false };
  else if (kind === 'replay') request = { version: RUN_REQUEST_VERSION, cache: { mode: 'read-only', strict: true }, modelFree: true, debug: false };
  else {
    try {
      request = requestFromVariables(options.env);
    } catch (error) {
      if (isE2EError(error)) return { problem: error.message };
      throw error;
    }
    if (!options.cache) request.cache.mode = 'off';
    else if (options.propose !== undefined) request.cache.mode = 'read-only';
  }
  if (options.propose !== undefined) request.cache.proposals = resolve(options.cwd, options.propose);
  if (options.strictCache === true) request.cache.strict = true;
  request.debug = options.debug;
  if (report !== undefined) request.report = report;
  if (options.configProbe !== undefined) request.configProbe = options.configProbe;
  if (options.mutants !== undefined) request.mutants = options.mutants;
  return { request };
}

const OUR_REPORTER = fileURLToPath(new URL('../runner/reporter.js', import.meta.url));
/** First on the list: cleans every result of secrets before the other reporters see it. */
const REDACTING_REPORTER = fileURLToPath(new URL('../runner/redacting-reporter.js', import.meta.url));

/** A `--reporter` value with the redacting reporter first and e2e's reporter last, as every run (and merge) has them. */
export function withE2EReporters(reporter: string): string {
  return `${REDACTING_REPORTER},${reporter},${OUR_REPORTER}`;
}

/** True when the run only lists the tests (`--list`, also after `--`). */
export function listsOnly(options: RunCommandOptions): boolean {
  return [...(options.playwright ?? []), ...(options.extra ?? [])].includes('--list');
}

/**
 * The Playwright Test command line for `options`. A listing gets the list reporter (or the
 * given ones) without e2e's or the HTML reporter, so `.e2e/` stays as the last run left it.
 */
export function playwrightArguments(options: RunCommandOptions, configPath: string): string[] {
  const args = ['test', '-c', configPath, ...options.filters, ...(options.playwright ?? [])];
  if (listsOnly(options)) args.push('--reporter', options.reporter ?? 'list');
  else if (options.reporter !== undefined) args.push('--reporter', withE2EReporters(options.reporter));
  args.push(...(options.extra ?? []));
  return args;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

async function readFailure(path: string): Promise<{ code: string; message: string } | undefined> {
  try {
    const data = JSON.parse(await readFile(path, 'utf8')) as { code?: unknown; message?: unknown };
    return typeof data.code === 'string' && typeof data.message === 'string' ? { code: data.code, message: data.message } : undefined;
  } catch {
    return undefined;
  }
}

/** What identifies one write of the report (it is replaced by a rename, so a new write is a new inode or time). */
export async function reportStamp(path: string): Promise<string | undefined> {
  try {
    const stats = await stat(path);
    return `${stats.ino}:${stats.mtimeMs}:${stats.size}`;
  } catch {
    return undefined;
  }
}

/** Said after a run where a step needed a model and none was configured. */
export const NO_MODEL_HINT = `A step needed a model and none is configured. The config \`e2e init\` writes picks one by environment variable: set ${MODEL_VARIABLES_TEXT}, with the provider's package installed; or set \`model\` on the agent entry yourself.`;

/** This run's report: undefined when none was written since `previousReport` (the last run's stays in place and decides nothing). */
async function readRunReport(reportPath: string, previousReport: string | undefined): Promise<ReportReadResult | undefined> {
  const stamp = await reportStamp(reportPath);
  if (stamp === undefined || stamp === previousReport) return undefined;
  try {
    return parseReport(await readFile(reportPath, 'utf8'));
  } catch {
    return undefined;
  }
}

/** How a run (or a merge of runs) ended: from the report it wrote, else the config failure it reported, else Playwright's exit. */
export async function conclude(
  reportPath: string,
  failurePath: string,
  exit: { code: number | null; interrupted: boolean },
  previousReport: string | undefined,
): Promise<RunCommandResult> {
  const read = await readRunReport(reportPath, previousReport);
  if (read?.kind === 'unsupported-version') {
    return { outcome: 'configuration', message: `The report has version ${read.version}, newer than this e2e; update e2e.` };
  }
  const report: Report | undefined = read?.kind === 'report' ? read.report : undefined;
  if (exit.interrupted) return { outcome: 'interrupted', report };
  if (report !== undefined) {
    const modelless = report.tests.some((test) => test.attempts.some((attempt) => attempt.errorCode === 'MODEL_UNAVAILABLE'));
    return modelless ? { outcome: outcomeOfExitClass(report.exitCode), report, message: NO_MODEL_HINT } : { outcome: outcomeOfExitClass(report.exitCode), report };
  }
  const failure = await readFailure(failurePath);
  if (failure !== undefined && isErrorCode(failure.code)) {
    return { outcome: outcomeOfExitClass(exitClassOf(failure.code)), message: `${failure.code}: ${failure.message}` };
  }
  if (exit.code === 0) return { outcome: 'passed' };
  return {
    outcome: 'configuration',
    message: `Playwright Test stopped (exit ${exit.code ?? 'by signal'}) before writing ${reportPath}; see its output above.`,
  };
}

/** A listing writes no report: Playwright's exit status decides (a test file that does not load is a configuration problem). */
async function concludeListing(failurePath: string, exit: { code: number | null; interrupted: boolean }): Promise<RunCommandResult> {
  if (exit.interrupted) return { outcome: 'interrupted' };
  const failure = await readFailure(failurePath);
  if (failure !== undefined && isErrorCode(failure.code)) {
    return { outcome: outcomeOfExitClass(exitClassOf(failure.code)), message: `${failure.code}: ${failure.message}` };
  }
  return { outcome: exit.code === 0 ? 'passed' : 'configuration' };
}

/** A run that did not pass also names near-miss variable names (`OPENAI_APIKEY`): a typo there reads as no model. */
function withEnvironmentHints(result: RunCommandResult, env: Readonly<Record<string, string | undefined>>): RunCommandResult {
  if (result.outcome === 'passed' || result.outcome === 'interrupted') return result;
  const hints = environmentHints(env);
  if (hints.length === 0) return result;
  return { ...result, message: [result.message, ...hints.map((hint) => `hint: ${hint}`)].filter((line) => line !== undefined).join('\n') };
}

/** Start `e2e run` (or `record`, `replay`). The caller forwards interrupts with {@link RunHandle.interrupt}. */
export function startRun(options: RunCommandOptions): RunHandle {
  const configPath = findConfigFile(options.cwd, options.config);
  if (configPath === undefined) {
    const wanted = options.config ?? CONFIG_FILE_NAMES.join(', ');
    return {
      result: Promise.resolve({ outcome: 'configuration', message: `INVALID_CONFIG: no config found (${wanted}) in ${options.cwd}; create e2e.config.ts or pass --config.` }),
      interrupt: () => undefined,
    };
  }
  const twoCopies = secondPlaywrightProblem(configPath);
  if (twoCopies !== undefined) return { result: Promise.resolve({ outcome: 'configuration', message: `INVALID_CONFIG: ${twoCopies}` }), interrupt: () => undefined };
  const missingProviders = missingProviderPackages(configPath);
  if (missingProviders.length > 0) {
    const problem = missingProviderProblem(missingProviders, (file) => relative(options.cwd, file) || file);
    return { result: Promise.resolve({ outcome: 'configuration', message: `MODEL_UNAVAILABLE: ${problem}` }), interrupt: () => undefined };
  }
  const configDir = dirname(configPath);
  const reportPath = resolve(configDir, options.reportFile ?? DEFAULT_REPORT_PATH);
  const asked = runRequestOf(options, options.reportFile === undefined ? undefined : reportPath);
  if ('problem' in asked) return { result: Promise.resolve({ outcome: 'configuration', message: `error: ${asked.problem}` }), interrupt: () => undefined };
  let child: ChildProcess | undefined;
  let interrupts = 0;
  let forceStop: (() => void) | undefined;

  const result = (async (): Promise<RunCommandResult> => {
    const previousReport = await reportStamp(reportPath);
    // fd 3 is a pipe only the CLI holds open: when the CLI dies (even by SIGKILL), the run sees it close and stops.
    const written = await writeRunRequest({ ...asked.request, parentPipe: 3 });
    try {
      const env: Record<string, string | undefined> = { ...options.env, ...written.variables };
      const loadable = await loadableConfig(configPath);
      const started = spawn(process.execPath, [playwrightCli(configPath), ...playwrightArguments(options, loadable.path)], {
        cwd: options.cwd,
        env,
        stdio: ['inherit', options.childStdout === 'stderr' ? process.stderr : 'inherit', 'inherit', 'pipe'],
        // Own process group: a terminal's Ctrl-C reaches us once and we forward it once.
        detached: true,
      });
      child = started;
      const exit = await new Promise<{ code: number | null; interrupted: boolean }>((resolveExit) => {
        forceStop = () => resolveExit({ code: null, interrupted: true });
        started.on('error', () => resolveExit({ code: 1, interrupted: interrupts > 0 }));
        started.on('exit', (code) => resolveExit({ code, interrupted: interrupts > 0 }));
      });
      await loadable.dispose();
      if (listsOnly(options)) return await concludeListing(written.failurePath, exit);
      return withEnvironmentHints(await conclude(reportPath, written.failurePath, exit, previousReport), options.env);
    } finally {
      await written.dispose();
    }
  })();

  return {
    result,
    interrupt: () => {
      interrupts += 1;
      if (child === undefined) return;
      if (interrupts === 1) signalGroup(child, 'SIGINT');
      else {
        signalGroup(child, 'SIGKILL');
        forceStop?.();
      }
    },
  };
}

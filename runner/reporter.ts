/**
 * The e2e reporter (a Playwright Test reporter, main process): collects each attempt's step
 * records from the worker attachments, writes `.e2e/report.json` atomically, prints the
 * summary lines of DESIGN §7 (after the per-step table under `--debug` and the steps nothing
 * verified, by their line in the test) and where the HTML
 * report is, and decides the exit code of DESIGN §3. It redacts nothing itself: the attempts'
 * records passed their attempt's outbound boundary in the worker (`secrets/outbound.ts`), and
 * Playwright's results and run errors were cleaned in place by the redacting reporter, which runs
 * first. A run that may write the cache is noted in the run ledger (for `e2e cache prune --unused-for N`).
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { nodeFileSystem } from '../cache-format/index.js';
import { isErrorCode, type ErrorCode } from '../errors/index.js';
import { RunLedger } from '../cache-format/run-ledger.js';
import { writeConfigProbe } from './config-probe-reporter.js';
import { debugTableLines } from './debug-table.js';
import { printLines, reportConfigFailure, runRequest, stopWithParent } from './environment.js';
import { explainKnownMistake } from './known-mistakes.js';
import { isListingRun, missingInternalError, probePlaywrightInternals } from './playwright-internals.js';
import { DEFAULT_HITS_DIR, DEFAULT_REPORT_PATH } from './project-paths.js';
import {
  ATTEMPT_ATTACHMENT,
  REPORT_VERSION,
  exitCodeOf,
  parseAttemptPayload,
  summarize,
  summaryLines,
  unsavedStepErrors,
  toReportStep,
  unverifiedStepLines,
  handedOffStepLines,
  type Report,
  type ReportAttempt,
  type ReportTest,
  type RunError,
} from './report.js';
import { PROJECT_OPTION, type ProjectSettings } from './settings.js';

/** Options of the reporter entry in `reporter: [[path, options]]`. */
export interface E2EReporterOptions {
  /** Where to write the report; default `<config folder>/.e2e/report.json`. */
  outputFile?: string;
  /** Print the summary lines (default true). */
  printSummary?: boolean;
  /** Set by Playwright: `list` for `--list`, where nothing runs and nothing is written. */
  _mode?: string;
}

/** Playwright reporters that print for people or write files; with any other, stdout may carry a report (JSON, JUnit), so the summary goes to stderr. */
const TEXT_OR_FILE_REPORTERS = new Set(['list', 'line', 'dot', 'failures', 'github', 'html', 'blob', 'null', 'perfetto', 'coverage']);

/** Where the summary goes: stdout unless another reporter may write a report there. */
export function summaryStream(reporters: readonly (readonly [string, unknown?])[], ownPath: string | readonly string[]): 'stdout' | 'stderr' {
  const own = typeof ownPath === 'string' ? [ownPath] : ownPath;
  return reporters.every(([name]) => own.includes(name) || TEXT_OR_FILE_REPORTERS.has(name)) ? 'stdout' : 'stderr';
}

export { DEFAULT_REPORT_PATH };

const OWN_PATH = fileURLToPath(import.meta.url);
/** The redacting reporter e2e puts first: ours too, it prints nothing. */
const REDACTING_PATH = fileURLToPath(new URL('./redacting-reporter.js', import.meta.url));

function firstLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  // Strip terminal colors Playwright adds to messages.
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
  return plain.split('\n').find((line) => line.trim() !== '')?.trim();
}

/**
 * The code an error names at its head (`E2EError: ENVIRONMENT_UNAVAILABLE: …`): failures before
 * the attempt starts, such as the worker's browser, leave no step records to carry one.
 */
function leadingCodeOf(errors: readonly TestError[]): ErrorCode | undefined {
  for (const error of errors) {
    const code = /^(?:\w*Error: )?([A-Z][A-Z_]+): /.exec(firstLine(error.message) ?? '')?.[1];
    if (isErrorCode(code)) return code;
  }
  return undefined;
}

function runErrorOf(error: TestError): RunError {
  const message = firstLine(error.message) ?? 'An error occurred outside any test.';
  const coded = leadingCodeOf([error]);
  if (coded !== undefined) return { code: coded, message };
  return /webServer|web server/i.test(error.message ?? '')
    ? { code: 'APP_UNREACHABLE', message }
    : { code: 'TEST_SETUP_FAILED', message };
}

/** Playwright Test reporter writing `.e2e/report.json`. */
export default class E2EReporter implements Reporter {
  readonly #options: E2EReporterOptions;
  #config: FullConfig | undefined;
  #suite: Suite | undefined;
  readonly #errors: RunError[] = [];
  /** Messages of run errors the summary repeats. */
  readonly #explained: string[] = [];
  /** When the run started, if it may write the cache (noted in the run ledger at the end). */
  #cacheRunStart: Date | undefined;

  constructor(options: E2EReporterOptions = {}) {
    this.#options = options;
    stopWithParent();
    const missing = probePlaywrightInternals({ reporterOptions: options });
    if (missing.length > 0) {
      const error = missingInternalError(missing);
      this.#errors.push({ code: error.code, message: error.message });
      this.#explained.push(error.message);
      reportConfigFailure({ code: error.code, message: error.message });
    }
  }

  /** Never claims the terminal; Playwright's list reporter prints progress. */
  printsToStdio(): boolean {
    return false;
  }

  /** Remember the suite and build the redaction vault from every project's secrets. */
  onBegin(config: FullConfig, suite: Suite): void {
    this.#config = config;
    this.#suite = suite;
    // `e2e record` asks for the config's settings (does `cache.audit` say `record`?) this way.
    writeConfigProbe(config);
    const writes = config.projects.some((project) => ((project.use as Record<string, unknown>)[PROJECT_OPTION] as ProjectSettings | undefined)?.cache.mode === 'read-write');
    if (writes) this.#cacheRunStart = new Date();
  }

  /** Collect errors outside tests (web server, config, worker crashes). */
  onError(error: TestError): void {
    const runError = runErrorOf(error);
    if (explainKnownMistake(error.message ?? '') !== undefined) this.#explained.push(runError.message);
    this.#errors.push(runError);
  }

  /** Write the report, print the summary, keep Playwright's status. A listing (`--list`) leaves `.e2e/` as it was. */
  async onEnd(result: FullResult): Promise<void> {
    if (isListingRun(this.#options)) return;
    const report = this.#build(result);
    const path = this.#reportPath();
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(report, null, 2)}\n`);
    await rename(temporary, path);
    await this.#noteRun(report);
    if (this.#options.printSummary === false) return;
    const debug = runRequest().debug ? debugTableLines(report) : [];
    // Errors e2e explains (a lost recording, a known mistake, a missing Playwright internal) are repeated by the summary.
    const unsaved = report.errors
      .filter((error) => error.code === 'CACHE_WRITE_FAILED' || this.#explained.includes(error.message))
      .map((error) => `   Error  ${error.message.startsWith(`${error.code}: `) ? error.message : `${error.code}: ${error.message}`}`);
    const stream = summaryStream(this.#config?.reporter ?? [], [OWN_PATH, REDACTING_PATH]);
    printLines(['', ...debug, ...handedOffStepLines(report), ...unverifiedStepLines(report), ...summaryLines(report.summary), ...unsaved, ...this.#htmlReportLines()], stream);
  }

  /** A run that ran tests with a writable cache goes into the run ledger (a listing or an empty run does not). */
  async #noteRun(report: Report): Promise<void> {
    const started = this.#cacheRunStart;
    if (started === undefined || !report.tests.some((test) => test.attempts.length > 0)) return;
    await new RunLedger(nodeFileSystem, resolve(this.#configDir(), DEFAULT_HITS_DIR)).record(started);
  }

  /** `  Report  .e2e/html-report/index.html`, when Playwright's HTML reporter is on. */
  #htmlReportLines(): string[] {
    const html = this.#config?.reporter.find(([name]) => name === 'html');
    if (html === undefined) return [];
    const options = (html[1] ?? {}) as { outputFolder?: unknown };
    const folder = typeof options.outputFolder === 'string' ? resolve(this.#configDir(), options.outputFolder) : resolve(this.#configDir(), 'playwright-report');
    const shown = relative(process.cwd(), join(folder, 'index.html'));
    return [`  Report  ${shown.startsWith('..') ? join(folder, 'index.html') : shown}`];
  }

  #configDir(): string {
    return this.#config?.configFile === undefined ? (this.#config?.rootDir ?? process.cwd()) : dirname(this.#config.configFile);
  }

  #reportPath(): string {
    const configured = this.#options.outputFile ?? runRequest().report;
    return resolve(this.#configDir(), configured ?? DEFAULT_REPORT_PATH);
  }

  #build(result: FullResult): Report {
    const configDir = this.#configDir();
    const tests = (this.#suite?.allTests() ?? []).map((test) => this.#testOf(test, configDir));
    const errors = [...this.#errors, ...unsavedStepErrors(tests)];
    const partial = { version: REPORT_VERSION, status: result.status, tests, errors } as const;
    return { ...partial, summary: summarize(tests), exitCode: exitCodeOf(partial) };
  }

  #testOf(test: TestCase, configDir: string): ReportTest {
    const projectName = test.parent.project()?.name ?? '';
    return {
      id: test.id,
      file: relative(configDir, test.location.file),
      titlePath: test.titlePath().slice(3),
      project: projectName,
      outcome: test.outcome(),
      attempts: test.results.map((attempt) => this.#attemptOf(attempt)),
    };
  }

  #attemptOf(result: TestResult): ReportAttempt {
    const attachment = result.attachments.find((item) => item.name === ATTEMPT_ATTACHMENT);
    const payload = parseAttemptPayload(attachment?.body?.toString('utf8'));
    const attempt: ReportAttempt = {
      retry: result.retry,
      status: result.status,
      steps: (payload?.steps ?? []).map(toReportStep),
      verifications: payload?.verifications ?? [],
    };
    const errorCode = payload?.errorCode ?? leadingCodeOf(result.errors) ?? (result.status === 'timedOut' ? 'TEST_TIMEOUT' : undefined);
    if (errorCode !== undefined && result.status !== 'passed') attempt.errorCode = errorCode;
    const error = firstLine(result.errors[0]?.message ?? result.error?.message);
    if (error !== undefined && result.status !== 'passed') attempt.error = error;
    return attempt;
  }
}

/**
 * The TodoMVC matrix through the real binary, on the default path a user takes: a plain
 * `e2e record` of `add todo "Buy milk" and complete it` on each implementation that has planted
 * regressions (one test per implementation, `tests/cli/fixtures/matrix`), then model-free
 * `e2e replay` of every recording on every planted regression (it must never pass) and on every
 * implementation of the same spec (it should replay, and never pass a step whose `expect` then
 * fails). Every app is served at one origin, pointed at one implementation or mutant per run.
 * A step is counted on its own cache outcome (`result.cache` in `.e2e/report.json`), never on
 * the test's later `expect`.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CacheOutcome } from '../../../contract/cache-outcome.js';
import { runE2E, type E2ERun } from '../../runner/support/e2e-process.js';
import { folderRoute, serveStatic, type StaticServer } from '../../support/static-server.js';
import { TODOMVC_EXAMPLES, type MutatedImplementation } from './todo-mutants.js';

/** The fixture project the matrix runs in. */
export const MATRIX_FIXTURE = fileURLToPath(new URL('../../cli/fixtures/matrix', import.meta.url));
/** The step every test of the fixture records. */
export const MATRIX_STEP = 'add todo "Buy milk" and complete it';

/** How one replayed step went, read off the report. */
export interface MatrixCell {
  /** The step's own cache outcome. */
  cache: CacheOutcome | undefined;
  /** The step was passed by the cache itself: replayed, no model. */
  passedByCache: boolean;
  /** The test's own checks (its `expect`s) passed. */
  testPassed: boolean;
}

/** What one run gave, by the implementation each test was recorded on. */
export type MatrixRun = { run: E2ERun; cells: Partial<Record<MutatedImplementation, MatrixCell>> };

/** The step of each test in a run's report, by the implementation the test was recorded on. */
export function cellsOf(run: E2ERun): Partial<Record<MutatedImplementation, MatrixCell>> {
  const cells: Partial<Record<MutatedImplementation, MatrixCell>> = {};
  for (const test of run.report?.tests ?? []) {
    const recordedOn = /^recorded on (.+)$/.exec(test.titlePath.at(-1) ?? '')?.[1] as MutatedImplementation | undefined;
    const attempt = test.attempts.at(-1);
    const step = attempt?.steps.find((candidate) => candidate.instruction === MATRIX_STEP);
    if (recordedOn === undefined || step === undefined) continue;
    const cache = step.cache ?? undefined;
    cells[recordedOn] = { cache, passedByCache: cache?.mode === 'self-finalized' && step.status === 'passed', testPassed: test.outcome === 'expected' };
  }
  return cells;
}

/** A cell in a few words: `replayed`, `regression`, `drift`, `PASSED BY CACHE`, and whether the test's own check then failed. */
export function describeCell(cell: MatrixCell | undefined): string {
  if (cell === undefined) return 'not run';
  const verdict = cell.passedByCache ? (cell.testPassed ? 'replayed' : 'replayed, expect FAILED') : (cell.cache?.classification ?? cell.cache?.mode ?? 'no cache');
  return verdict;
}

/** The matrix's server and cache, and the two commands it runs. */
export class TodoMatrix {
  readonly #cacheDir: string;
  readonly #workers: number;
  #server: StaticServer | undefined;
  #root = TODOMVC_EXAMPLES;

  /** `cacheDir`: where the recordings go (removed first); `workers`: Playwright workers per run. */
  constructor(cacheDir: string, workers = 2) {
    this.#cacheDir = cacheDir;
    this.#workers = workers;
  }

  async start(): Promise<void> {
    rmSync(this.#cacheDir, { recursive: true, force: true });
    rmSync(join(MATRIX_FIXTURE, '.e2e'), { recursive: true, force: true });
    this.#server = await serveStatic(undefined);
    this.#server.route(folderRoute(() => this.#root));
  }

  async stop(): Promise<void> {
    await this.#server?.close();
    rmSync(join(MATRIX_FIXTURE, '.e2e'), { recursive: true, force: true });
  }

  #env(): Record<string, string> {
    if (this.#server === undefined) throw new Error('the matrix is not started');
    return { E2E_FIXTURE_APP_URL: this.#server.url, E2E_FIXTURE_CACHE_DIR: this.#cacheDir, E2E_FIXTURE_WORKERS: String(this.#workers) };
  }

  /** A plain `e2e record` of the test recorded on `app`, with `app` served. */
  async record(app: MutatedImplementation): Promise<MatrixRun> {
    this.#root = join(TODOMVC_EXAMPLES, app);
    const run = await runE2E(['record', '--grep', `recorded on ${app}$`], { cwd: MATRIX_FIXTURE, env: this.#env() });
    return { run, cells: cellsOf(run) };
  }

  /** A model-free `e2e replay` of every recording (or those `grep` selects) with the app in `folder` served. */
  async replay(folder: string, grep?: string): Promise<MatrixRun> {
    this.#root = folder;
    const run = await runE2E(['replay', ...(grep === undefined ? [] : ['--grep', grep])], { cwd: MATRIX_FIXTURE, env: this.#env() });
    return { run, cells: cellsOf(run) };
  }
}

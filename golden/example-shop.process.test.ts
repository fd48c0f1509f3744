/**
 * Golden case: the example shop suite replayed model-free through the real `e2e` binary from
 * its committed cache. Pins the run summary, the report (normalized: no ids, timings or
 * fresh values) and one entry as `cache show` prints it. Rewritten only with UPDATE_GOLDEN=1,
 * never in CI. It runs on the desktop `chromium` (the rest of the suite on the headless shell,
 * `engines/web/README.md`, "Browser"). The replay also shows what a model-free run loads: no process of it (the CLI,
 * Playwright Test, its worker) loads the AI SDK (`executor/built-in.ts` loads it on demand).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../engines/web/browser-discovery.js';
import { compareGolden } from '../tests/support/golden-file.js';
import { moduleLogEnvironment, modulesByProcess, type LoadedModules } from '../tests/support/module-log.js';
import { ensureBuilt } from '../tests/runner/support/build.js';
import { scaledTimeout } from '../tests/support/load-scaled.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = join(ROOT, 'examples', 'shop');
const BINARY = join(ROOT, 'dist', 'cli', 'main.js');
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';

interface ReportStep {
  kind: string;
  instruction: string;
  status: string;
  errorCode: string | null;
  modelCalls: number;
  actions: string[];
  cache: { mode?: string; reason?: string; write?: string } | null;
}
interface Report {
  tests: Array<{ file: string; titlePath: string[]; attempts: Array<{ status: string; steps: ReportStep[] }> }>;
  summary: unknown;
  exitCode: number;
}

async function expectGolden(path: string, actual: string): Promise<void> {
  const result = await compareGolden(path, actual, { update: UPDATE });
  if (result.kind === 'missing') throw new Error(`golden/${path} is missing; run with UPDATE_GOLDEN=1 once and review it`);
  if (result.kind === 'differs') expect(actual.endsWith('\n') ? actual : actual + '\n').toBe(result.expected);
}

/** Fresh values of a run (unique() emails) read as placeholders. */
function normalize(text: string): string {
  return text.replace(/buyer-\d+@example\.test/g, 'buyer-<unique>@example.test');
}

let run: { status: number | null; stdout: string; stderr: string };
/** What each process of the replay loaded. */
let moduleLog: string;

beforeAll(() => {
  ensureBuilt();
  moduleLog = mkdtempSync(join(tmpdir(), 'e2e-module-log-'));
  // On the desktop `chromium` (what discovery falls back to without a headless shell), so that build
  // keeps running on every `npm test`; the rest of the suite runs headless on the headless shell.
  const desktop = findChromium({ env: { PATH: process.env['PATH'] ?? '' }, headless: false }).executablePath;
  const environment: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1', E2E_CHROMIUM_PATH: desktop, ...moduleLogEnvironment(moduleLog) };
  for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'E2E_OPENAI_COMPATIBLE_URL', 'E2E_EXAMPLE_STAND_IN']) delete environment[name];
  run = spawnSync(process.execPath, [BINARY, 'replay'], { cwd: EXAMPLE, env: environment, encoding: 'utf8', timeout: scaledTimeout(240_000) });
}, scaledTimeout(300_000));

afterAll(() => {
  if (moduleLog !== undefined) rmSync(moduleLog, { recursive: true, force: true });
});

/** The processes that loaded `file` (a path ending). */
function loading(processes: readonly LoadedModules[], file: string): LoadedModules[] {
  return processes.filter((each) => each.modules.some((module) => module.endsWith(file)));
}

describe('golden: the example shop replayed with no model', () => {
  it('exits 0 and prints the summary rows', async () => {
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const summary = run.stdout
      .split('\n')
      .filter((line) => /^\s+(AI|Cache)\s\s/.test(line))
      .join('\n');
    await expectGolden('example-shop/summary.txt', summary);
  });

  it('writes the report the golden pins', async () => {
    const report = JSON.parse(readFileSync(join(EXAMPLE, '.e2e', 'report.json'), 'utf8')) as Report;
    const pinned = {
      exitCode: report.exitCode,
      summary: report.summary,
      tests: report.tests
        .map((test) => ({
          file: test.file,
          title: test.titlePath.join(' › '),
          attempts: test.attempts.map((attempt) => ({
            status: attempt.status,
            steps: attempt.steps.map((step) => ({
              kind: step.kind,
              instruction: step.instruction,
              status: step.status,
              errorCode: step.errorCode,
              modelCalls: step.modelCalls,
              actions: step.actions,
              cache: step.cache === null ? null : { mode: step.cache.mode, reason: step.cache.reason, write: step.cache.write },
            })),
          })),
        }))
        .sort((left, right) => left.file.localeCompare(right.file)),
    };
    await expectGolden('example-shop/report.json', normalize(JSON.stringify(pinned, null, 2)));
  });

  it('shows the sign-in entry as sentences, with the secret by name only', async () => {
    const show = spawnSync(process.execPath, [BINARY, 'cache', 'show', '5e1aae0f'], { cwd: EXAMPLE, encoding: 'utf8' });
    expect(show.status, show.stderr).toBe(0);
    expect(show.stdout).not.toContain('correct-horse-battery');
    await expectGolden('example-shop/show-sign-in.txt', show.stdout.replace(/recorded \S+Z/, 'recorded <time>'));
  });

  it('loads no AI SDK module in any of its processes: the CLI, Playwright Test and its worker', () => {
    const processes = modulesByProcess(moduleLog);
    expect(loading(processes, '/dist/cli/main.js')).toHaveLength(1);
    // Playwright's main process loads the config (and so e2e), and so does each worker.
    expect(loading(processes, '/dist/api/index.js').length).toBeGreaterThanOrEqual(2);
    expect(loading(processes, '/dist/runner/fixtures.js').length).toBeGreaterThanOrEqual(2);
    const aiSdk = processes.flatMap((each) => each.modules.filter((module) => module.includes('/node_modules/ai/') || /\/dist\/executor\/(create-agent|model-call|judgments)\.js$/.test(module)));
    expect(aiSdk).toEqual([]);
  });

  it('starts the CLI with only the command it runs: the replay loads neither the cache review tools nor the audit nor the cache decoder', () => {
    const [cli] = loading(modulesByProcess(moduleLog), '/dist/cli/main.js');
    const otherCommands = (cli?.modules ?? []).filter((module) => /\/node_modules\/(msgpackr|xxhash-wasm|diff)\//.test(module) || /\/dist\/(review|audit)\/index\.js$/.test(module));
    expect(cli?.modules.some((module) => module.endsWith('/dist/launch/run-command.js'))).toBe(true);
    expect(otherCommands).toEqual([]);
  });

  it("keeps the step machinery out of Playwright's main process, which lists the tests and runs none: the worker loads it for its first attempt", () => {
    const processes = modulesByProcess(moduleLog);
    const stepMachinery = (each: LoadedModules): string[] => each.modules.filter((module) => /\/dist\/(runner\/wire-attempt|step-cache\/|replayer\/|recorder\/)/.test(module));
    const main = processes.filter((each) => /playwright\/test\/cli\.js test /.test(each.argv));
    const workers = processes.filter((each) => each.argv.includes('workerProcessEntry'));
    expect(main).toHaveLength(1);
    expect(main.flatMap(stepMachinery)).toEqual([]);
    expect(workers.length).toBeGreaterThanOrEqual(1);
    for (const worker of workers) expect(stepMachinery(worker).some((module) => module.endsWith('/dist/runner/wire-attempt.js'))).toBe(true);
  });
});

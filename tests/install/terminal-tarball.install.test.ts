/**
 * A terminal target from the packed tarball in a fresh "type": "module" project (a copy of the
 * project the install tier installed once), as a user sets it up: `e2e/terminal`'s `terminal()`
 * on a program of the project's own (the coffee order and the test of examples/terminal), the built-in agent
 * on a real provider package (`@ai-sdk/openai-compatible`, installed into the project) against a
 * loopback model server. `npx e2e record`, then `e2e replay` with the server stopped: no model
 * call, no browser among the processes the run started, and none of them loads the AI SDK (the
 * built-in agent is loaded when a step calls the model). A planted regression exits 1, a
 * renamed menu item exits 2, and `cache diff` says the recorded steps in sentences.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../runner/support/build.js';
import { coffeeModel } from '../support/coffee-model.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { chatResponder, type ExchangeRequest } from '../support/model-exchange.js';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.js';
import { moduleLogEnvironment, modulesByProcess } from '../support/module-log.js';
import { watchDescendants } from '../support/process-watch.js';
import { command, copyOfTemplate, NPM, reportOf, userEnvironment, type Finished } from './support/packed-project.js';

const CONFIG = `import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { defineConfig } from 'e2e';
import { terminal } from 'e2e/terminal';

export default defineConfig({
  testDir: 'tests',
  workers: 1,
  targets: [{ name: 'cli', engine: terminal(), app: { command: process.execPath, args: ['app/coffee.mjs'], cols: 80, rows: 24, identity: 'coffee' } }],
  agents: {
    default: {
      model: createOpenAICompatible({ name: 'local', baseURL: process.env.MODEL_URL ?? 'http://127.0.0.1:9/v1' }).chatModel('local-model'),
      context: 'A coffee order at a terminal.',
    },
  },
});
`;

let project: string;
let model: OpenAIServer;
const requests: ExchangeRequest[] = [];

/** The installed binary in the project, with the command lines of every process it started. */
function e2e(args: string[], extra: Record<string, string> = {}): Promise<Finished & { started: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(project, 'node_modules', '.bin', 'e2e'), args, { cwd: project, env: userEnvironment({ MODEL_URL: model.url, ...extra }), stdio: ['ignore', 'pipe', 'pipe'] });
    const watch = watchDescendants(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, started: watch.stop() }));
  });
}

const browsersAmong = (started: string[]): string[] => started.filter((line) => /chrom|headless_shell|firefox|webkit/i.test(line));

beforeAll(async () => {
  model = await startOpenAIServer(chatResponder(coffeeModel, requests));
  project = copyOfTemplate('packed-terminal', 'module');
  const provider = await command(project, NPM, ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', '@ai-sdk/openai-compatible']);
  if (provider.code !== 0) throw new Error(`npm install @ai-sdk/openai-compatible failed:\n${provider.stderr}`);
  mkdirSync(join(project, 'app'));
  mkdirSync(join(project, 'tests'));
  copyFileSync(join(ROOT, 'examples', 'terminal', 'app', 'coffee.mjs'), join(project, 'app', 'coffee.mjs'));
  writeFileSync(join(project, 'e2e.config.ts'), CONFIG);
  // The example's own test, as a user copies it.
  copyFileSync(join(ROOT, 'examples', 'terminal', 'tests', 'order.e2e.ts'), join(project, 'tests', 'order.e2e.ts'));
}, scaledTimeout(180_000));

afterAll(async () => {
  await model?.close();
});

describe('a terminal target from the packed tarball in a fresh project', () => {
  it('records through the provider package, then replays model-free with no browser; a regression exits 1, drift exits 2', async () => {
    const recorded = await e2e(['record']);
    expect(recorded.code, recorded.stdout + recorded.stderr).toBe(0);
    expect(requests.length).toBeGreaterThan(0);
    expect(reportOf(project).tests[0]?.attempts[0]?.steps.map((step) => step.cache?.write)).toEqual(['saved', 'saved', 'saved', 'saved', 'saved']);
    expect(browsersAmong(recorded.started)).toEqual([]);

    await model.close();
    const made = requests.length;
    const moduleLog = mkdtempSync(join(tmpdir(), 'e2e-module-log-'));
    const replayed = await e2e(['replay'], moduleLogEnvironment(moduleLog, undefined));
    expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain('Cache  5 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified');
    expect(reportOf(project).summary.modelCalls).toBe(0);
    expect(requests.length).toBe(made);
    expect(replayed.started.some((line) => line.includes('coffee.mjs'))).toBe(true);
    expect(browsersAmong(replayed.started)).toEqual([]);
    // The CLI, Playwright Test and its worker: the config (with its provider package) loads, the AI SDK does not.
    const loaded = modulesByProcess(moduleLog);
    rmSync(moduleLog, { recursive: true, force: true });
    expect(loaded.filter((each) => each.modules.some((module) => module.includes('/node_modules/e2e/dist/api/index.js'))).length).toBeGreaterThanOrEqual(2);
    expect(loaded.filter((each) => each.modules.some((module) => module.includes('/node_modules/@ai-sdk/openai-compatible/'))).length).toBeGreaterThanOrEqual(2);
    expect(loaded.flatMap((each) => each.modules.filter((module) => module.includes('/node_modules/ai/')))).toEqual([]);

    const regression = await e2e(['replay'], { COFFEE_FAULT: 'forget-extras' });
    expect(regression.code, regression.stdout + regression.stderr).toBe(1);
    expect(reportOf(project).tests[0]?.attempts[0]?.steps[3]).toMatchObject({ errorCode: 'ASSERTION_FAILED', cache: { classification: 'regression' } });

    const drift = await e2e(['replay'], { COFFEE_FAULT: 'rename' });
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    expect(reportOf(project).tests[0]?.attempts[0]?.steps[0]).toMatchObject({ errorCode: 'REPLAY_STALE', cache: { classification: 'drift' } });

    const empty = join(project, 'empty-cache');
    mkdirSync(empty);
    const diff = await e2e(['cache', 'diff', empty, '.e2e/cache']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('1. tap menuitem "Latte" in menu "Pick a drink"');
    expect(diff.stdout).toContain('1. type "Ada" into textbox "Name for the cup"');
  }, scaledTimeout(600_000));
});

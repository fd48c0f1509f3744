/**
 * Mistakes new users make, through the real `e2e` binary on the mistakes fixture: each ends
 * with a coded error that names the fix instead of Playwright's or Node's bare message.
 */
import { createServer } from 'node:net';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StaticServer } from '../support/static-server.js';
import { ensureBuilt } from './support/build.js';
import { runE2E } from './support/e2e-process.js';
import { serveApp } from './support/fixture-servers.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/mistakes/', import.meta.url));

let app: StaticServer;
let work: string;

/** A loopback URL nothing listens on: a port taken and given back. */
async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  ensureBuilt();
  app = await serveApp();
  work = mkdtempSync(join(tmpdir(), 'e2e-mistakes-'));
}, scaledTimeout(120_000));

afterAll(async () => {
  await app?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('a mistake', () => {
  it('of a forgotten await names the un-awaited step and its line', async () => {
    const run = await runE2E(['record', 'unawaited'], { cwd: FIXTURE, env: { E2E_FIXTURE_APP_URL: app.origin } });
    expect(run.report?.tests[0]?.outcome, run.stdout + run.stderr).toBe('unexpected');
    expect(run.stdout).toContain('agent.act blocked (CANCELLED): The test ended while agent.act "wait for the list" (tests/unawaited.e2e.ts:5) was still running: `await` it (`await agent.act(…)`)');
  }, scaledTimeout(120_000));

  it("of taking test from '@playwright/test' says to import it from 'e2e'", async () => {
    const run = await runE2E(['record', 'playwright-test'], { cwd: FIXTURE, env: { E2E_FIXTURE_APP_URL: app.origin } });
    expect(run.exitCode, run.stdout + run.stderr).toBe(2);
    expect(run.stdout + run.stderr).toContain("Error  TEST_SETUP_FAILED: The test takes the e2e fixture \"app\", but its `test` is Playwright's: import { test } from 'e2e'");
    expect(run.report?.errors).toEqual([expect.objectContaining({ code: 'TEST_SETUP_FAILED' })]);
  }, scaledTimeout(120_000));

  it('of an app that is not running is APP_UNREACHABLE naming targets[].app.url and webServer, with a hint for a misspelt variable', async () => {
    const url = await closedUrl();
    const run = await runE2E(['record', 'unreachable'], { cwd: FIXTURE, env: { E2E_FIXTURE_APP_URL: url, OPENAI_APIKEY: 'sk-not-read' } });
    expect(run.exitCode, run.stdout + run.stderr).toBe(3);
    expect(run.report?.tests[0]?.attempts[0]?.errorCode).toBe('APP_UNREACHABLE');
    expect(run.stdout).toContain(`Is the app running? Start the app, or have each run start it with \`webServer: { command, url }\` in the config, or set \`targets[].app.url\` (now ${url}) to where it runs.`);
    expect(run.stderr).toContain('hint: OPENAI_APIKEY is set, but e2e reads OPENAI_API_KEY: did you mean it?');
    expect(run.stdout + run.stderr).not.toContain('sk-not-read');
  }, scaledTimeout(120_000));

  it('of a provider package that is not installed stops before the run, naming npm install -D', async () => {
    const project = join(work, 'provider');
    cpSync(FIXTURE, project, { recursive: true, filter: (source) => !source.includes('.e2e') });
    writeFileSync(join(project, 'e2e.config.ts'), `import { ollama } from '@ai-sdk/ollama-missing';\n${'export default { targets: [] };'}\n`);
    const run = await runE2E(['record'], { cwd: project });
    expect(run.exitCode, run.stdout + run.stderr).toBe(2);
    expect(run.stderr.trim()).toBe('MODEL_UNAVAILABLE: e2e.config.ts imports the model provider package @ai-sdk/ollama-missing, which is not installed: run `npm install -D @ai-sdk/ollama-missing`.');
  }, scaledTimeout(120_000));
});

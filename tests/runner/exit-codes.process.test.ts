/**
 * The exit code of `e2e run` per class (DESIGN §3), each from a real run of the binary:
 * 0 and 1 come from behaviour.process.test.ts and secrets.process.test.ts; here 2 (a bad config, and a
 * test failing POLICY_DENIED), 3 (the app does not answer; highest wins over a 2), and 130
 * (SIGINT while a step runs, with the report still written).
 *
 * The runs share nothing but the fixture's files, so they go side by side, each in a lane of the
 * fixture (`.e2e/report.json` of its own); most of their time is process start-up and waits.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './support/build.js';
import { runE2E, startE2E } from './support/e2e-process.js';
import { startFixtureServers, type FixtureServers } from './support/fixture-servers.js';
import { fixtureLane, type FixtureLane } from '../support/fixture-lane.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/exit-codes', import.meta.url));

let servers: FixtureServers;
let closedUrl: string;
const lanes: FixtureLane[] = [];

/** A lane of the fixture for one test's run (its folder: the run's cwd). */
function lane(name: string): string {
  const made = fixtureLane(FIXTURE, name);
  lanes.push(made);
  return made.folder;
}

/** A URL on a port nothing listens on. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  ensureBuilt();
  servers = await startFixtureServers();
  closedUrl = await closedPortUrl();
});

afterAll(async () => {
  await servers.close();
  for (const made of lanes) made.remove();
});

describe('e2e run exit codes', { concurrent: true }, () => {
  it('exits 2 with one INVALID_CONFIG error naming the nearest key for an unknown config key', async ({ expect }) => {
    const run = await runE2E(['run', '-c', 'invalid.config.ts'], { cwd: lane('invalid') });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('INVALID_CONFIG: Invalid e2e config: unknown key `workerz` (did you mean `workers`?).');
    expect(run.report).toBeUndefined();
  }, scaledTimeout(60_000));

  it('exits 2 when a test fails with a configuration-class code', async ({ expect }) => {
    const run = await runE2E(['run', '-c', 'unreachable.config.ts', '--grep', 'POLICY_DENIED'], { cwd: lane('policy'), env: { E2E_FIXTURE_CLOSED_URL: closedUrl } });
    expect(run.exitCode).toBe(2);
    expect(run.report?.tests.map((test) => test.attempts.at(-1)?.errorCode)).toEqual(['POLICY_DENIED']);
    expect(run.report?.exitCode).toBe(2);
  }, scaledTimeout(60_000));

  it('exits 3 when the app does not answer, the highest class of the run', async ({ expect }) => {
    const run = await runE2E(['run', '-c', 'unreachable.config.ts'], { cwd: lane('unreachable'), env: { E2E_FIXTURE_CLOSED_URL: closedUrl } });
    expect(run.exitCode).toBe(3);
    const codes = Object.fromEntries((run.report?.tests ?? []).map((test) => [test.titlePath.at(-1), test.attempts.at(-1)?.errorCode]));
    expect(codes).toEqual({
      'opening an app that does not answer fails APP_UNREACHABLE': 'APP_UNREACHABLE',
      'a step refused by the origin policy fails POLICY_DENIED': 'POLICY_DENIED',
    });
    expect(run.stdout).toContain('Is the app running?');
  }, scaledTimeout(60_000));

  it('exits 3 with CACHE_WRITE_FAILED when a record run could not save a verified step (the cache path is a file)', async ({ expect }) => {
    const blocker = join(await mkdtemp(join(tmpdir(), 'e2e-unsaved-')), 'cache-is-a-file');
    writeFileSync(blocker, 'not a folder\n');
    try {
      const run = await runE2E(['record', '-c', 'unsaved.config.ts'], { cwd: lane('unsaved'), env: { ...servers.env, E2E_FIXTURE_CACHE_DIR: blocker } });
      expect(run.exitCode, run.stdout + run.stderr).toBe(3);
      expect(run.report?.tests.map((test) => test.outcome)).toEqual(['expected']);
      expect(run.report?.errors).toEqual([expect.objectContaining({ code: 'CACHE_WRITE_FAILED' })]);
      expect(run.report?.errors[0]?.message).toContain('1 verified step could not be saved');
      expect(run.stdout).toContain('Error  CACHE_WRITE_FAILED');
      expect(readFileSync(blocker, 'utf8')).toBe('not a folder\n');
    } finally {
      await rm(dirname(blocker), { recursive: true, force: true });
    }
  }, scaledTimeout(90_000));

  it('refuses a run request a newer e2e wrote, by name, and hands INVALID_CONFIG back beside the request', async ({ expect }) => {
    const folder = await mkdtemp(join(tmpdir(), 'e2e-request-'));
    const request = join(folder, 'request.json');
    writeFileSync(request, JSON.stringify({ version: 2, cache: { strict: false, shape: 'of a later e2e' }, modelFree: false, debug: false }));
    try {
      const env: Record<string, string> = { E2E_RUN_REQUEST: request, FORCE_COLOR: '0' };
      for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('E2E_') && key !== 'CI') env[key] ??= value;
      // Playwright's own CLI, as a run the e2e CLI started would run it: the config loads in its main process.
      const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
      const run = spawnSync(process.execPath, [playwright, 'test', '--list', '-c', 'unreachable.config.ts'], { cwd: lane('request'), env, encoding: 'utf8' });
      expect(run.status, run.stdout + run.stderr).not.toBe(0);
      expect(run.stdout + run.stderr).toContain(`The run request ${request} has version 2, newer than this e2e reads (1)`);
      expect(JSON.parse(readFileSync(join(folder, 'failure.json'), 'utf8'))).toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining('has version 2') as string });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }, scaledTimeout(60_000));

  it('stops the whole run when the CLI is killed with SIGKILL mid-step: no orphaned Playwright process goes on', async ({ expect }) => {
    let killed: { worker: number; runner: number } | undefined;
    const { done } = startE2E(['run', '-c', 'interrupt.config.ts'], {
      cwd: lane('sigkill'),
      env: servers.env,
      onOutput: (text, child) => {
        const worker = /WAITING FOR INTERRUPT in worker (\d+)/.exec(text)?.[1];
        if (killed !== undefined || worker === undefined) return;
        // The worker's parent is Playwright's runner process, which the CLI started.
        const runner = Number(readFileSync(`/proc/${worker}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
        killed = { worker: Number(worker), runner };
        child.kill('SIGKILL');
      },
    });
    // The step would wait 60 s; the run must stop within the 10 s grace of its clean stop, well before that.
    while (killed === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    const gone = async (pid: number): Promise<boolean> => {
      for (let waited = 0; waited < 20_000; waited += 200) {
        try {
          process.kill(pid, 0);
        } catch {
          return true;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return false;
    };
    expect(await gone(killed!.runner), 'the Playwright runner process').toBe(true);
    expect(await gone(killed!.worker), 'the worker').toBe(true);
    await done;
  }, scaledTimeout(90_000));

  it('exits 130 on SIGINT during a step and still writes the report', async ({ expect }) => {
    let interrupted = false;
    const { done } = startE2E(['run', '-c', 'interrupt.config.ts'], {
      cwd: lane('sigint'),
      env: servers.env,
      onOutput: (text, child) => {
        if (!interrupted && text.includes('WAITING FOR INTERRUPT')) {
          interrupted = true;
          child.kill('SIGINT');
        }
      },
    });
    const run = await done;
    expect(interrupted).toBe(true);
    expect(run.exitCode).toBe(130);
    expect(run.report).toMatchObject({ status: 'interrupted', exitCode: 130 });
    expect(run.report?.tests[0]?.attempts[0]?.status).toBe('interrupted');
  }, scaledTimeout(90_000));

  it('stops at once on a second SIGINT, cutting a slow clean-up short, and still exits 130', async ({ expect }) => {
    let interrupted = false;
    const folder = await mkdtemp(join(tmpdir(), 'e2e-teardown-'));
    const mark = join(folder, 'teardown-finished');
    const { done } = startE2E(['run', '-c', 'interrupt.config.ts'], {
      cwd: lane('second-sigint'),
      env: { ...servers.env, E2E_FIXTURE_SLOW_TEARDOWN: '1', E2E_FIXTURE_TEARDOWN_MARK: mark },
      onOutput: (text, child) => {
        if (!interrupted && text.includes('WAITING FOR INTERRUPT')) {
          interrupted = true;
          child.kill('SIGINT');
          setTimeout(() => child.kill('SIGINT'), 500);
        }
      },
    });
    const run = await done;
    const finished = existsSync(mark);
    await rm(folder, { recursive: true, force: true });
    expect(interrupted).toBe(true);
    expect(run.exitCode).toBe(130);
    // The run ended before its 20 s clean-up did: the clean-up never got to write its mark.
    expect(finished).toBe(false);
  }, scaledTimeout(90_000));
});

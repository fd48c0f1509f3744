/**
 * The exit code of `e2e run` per class (DESIGN §3), each from a real run of the binary:
 * 0 and 1 come from behaviour.test.ts and secrets.test.ts; here 2 (a bad config, and a
 * test failing POLICY_DENIED), 3 (the app does not answer; highest wins over a 2), and 130
 * (SIGINT while a step runs, with the report still written).
 */
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './support/build.js';
import { runE2E, startE2E } from './support/e2e-process.js';
import { startFixtureServers, type FixtureServers } from './support/fixture-servers.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/exit-codes', import.meta.url));

let servers: FixtureServers;
let closedUrl: string;

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
});

describe('e2e run exit codes', () => {
  it('exits 2 with one INVALID_CONFIG error naming the nearest key for an unknown config key', async () => {
    const run = await runE2E(['run', '-c', 'invalid.config.ts'], { cwd: FIXTURE });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('INVALID_CONFIG: Invalid e2e config: unknown key `workerz` (did you mean `workers`?).');
    expect(run.report).toBeUndefined();
  }, 60_000);

  it('exits 2 when a test fails with a configuration-class code', async () => {
    const run = await runE2E(['run', '-c', 'unreachable.config.ts', '--grep', 'POLICY_DENIED'], { cwd: FIXTURE, env: { E2E_FIXTURE_CLOSED_URL: closedUrl } });
    expect(run.exitCode).toBe(2);
    expect(run.report?.tests.map((test) => test.attempts.at(-1)?.errorCode)).toEqual(['POLICY_DENIED']);
    expect(run.report?.exitCode).toBe(2);
  }, 60_000);

  it('exits 3 when the app does not answer, the highest class of the run', async () => {
    const run = await runE2E(['run', '-c', 'unreachable.config.ts'], { cwd: FIXTURE, env: { E2E_FIXTURE_CLOSED_URL: closedUrl } });
    expect(run.exitCode).toBe(3);
    const codes = Object.fromEntries((run.report?.tests ?? []).map((test) => [test.titlePath.at(-1), test.attempts.at(-1)?.errorCode]));
    expect(codes).toEqual({
      'opening an app that does not answer fails APP_UNREACHABLE': 'APP_UNREACHABLE',
      'a step refused by the origin policy fails POLICY_DENIED': 'POLICY_DENIED',
    });
    expect(run.stdout).toContain('Is the app running?');
  }, 60_000);

  it('exits 130 on SIGINT during a step and still writes the report', async () => {
    let interrupted = false;
    const { done } = startE2E(['run', '-c', 'interrupt.config.ts'], {
      cwd: FIXTURE,
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
  }, 90_000);

  it('stops at once on a second SIGINT, cutting a slow clean-up short, and still exits 130', async () => {
    let interrupted = false;
    let signalled = 0;
    const { done } = startE2E(['run', '-c', 'interrupt.config.ts'], {
      cwd: FIXTURE,
      env: { ...servers.env, E2E_FIXTURE_SLOW_TEARDOWN: '1' },
      onOutput: (text, child) => {
        if (!interrupted && text.includes('WAITING FOR INTERRUPT')) {
          interrupted = true;
          child.kill('SIGINT');
          signalled = Date.now();
          setTimeout(() => child.kill('SIGINT'), 500);
        }
      },
    });
    const run = await done;
    expect(interrupted).toBe(true);
    expect(run.exitCode).toBe(130);
    // The clean-up alone would take 20 s.
    expect(Date.now() - signalled).toBeLessThan(10_000);
  }, 90_000);
});

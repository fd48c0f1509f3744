/**
 * A secret canary through a real `e2e run --debug`: the field really receives the value, and
 * the value appears nowhere the run wrote: report.json, the HTML report (its embedded data
 * archive opened), test results, transcripts, stdout and stderr, in raw, URL-encoded,
 * base64 or escaped form, in any letter case. The run also has a failing test, so it exits 1.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './support/build.js';
import { outcomesByTitle, runE2E, type E2ERun } from './support/e2e-process.js';
import { startFixtureServers, type FixtureServers } from './support/fixture-servers.js';
import { countScanned, findLeaks } from './support/secret-scan.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/secrets', import.meta.url));
const CANARY = 'Kx9 canary/Vault+81';

let servers: FixtureServers;
let run: E2ERun;

beforeAll(async () => {
  ensureBuilt();
  servers = await startFixtureServers();
  run = await runE2E(['run', '--debug'], { cwd: FIXTURE, env: { ...servers.env, E2E_SECRET_CANARY: CANARY } });
}, scaledTimeout(120_000));

afterAll(async () => {
  await servers.close();
});

describe('a configured secret', () => {
  it('written into an instruction, is read as <secret:name> with a warning that names it and the fix, never the value', () => {
    expect(run.stdout + run.stderr).toContain('warning: agent.act: the instruction holds the value of the secret `canary`; the step reads it as <secret:canary>, and it grants no typing.');
  });

  it('reaches the field it was typed into', () => {
    expect(servers.logins.map((body) => JSON.parse(body) as unknown)).toEqual([{ user: 'admin', password: CANARY, note: '' }]);
  });

  it('passes the policy checks inside the run, and the crashing test fails the run with exit 1', () => {
    expect(outcomesByTitle(run)).toEqual({
      'a declared secret is typed by name and pixels stop after the fill': 'expected',
      'a secret in a text field reads <secret:name> on the screen': 'expected',
      'typing a secret needs a declaration, an editable field and an allowed origin': 'expected',
      'a secret value written into an instruction reads <secret:name> in the step and grants nothing': 'expected',
      "a secret's name as a word of the instruction is no grant to type it": 'expected',
      'an error carrying the secret reaches the report redacted': 'unexpected',
    });
    expect(run.exitCode).toBe(1);
    expect(run.report?.exitCode).toBe(1);
  });

  it('shows as <secret:name> in the report', () => {
    const crashed = run.report?.tests.find((test) => test.outcome === 'unexpected')?.attempts.at(-1);
    expect(crashed).toMatchObject({ errorCode: 'STEP_NO_CONCLUSION' });
    expect(crashed?.error).toContain('crashed while holding <secret:canary>');
    const signIn = run.report?.tests[0]?.attempts.at(-1)?.steps[1];
    expect(signIn).toMatchObject({ instruction: 'sign in as admin with password <secret:canary>', summary: 'Signed in with <secret:canary>.' });
    expect(run.stdout).toContain('crashed while holding <secret:canary>');
  });

  it('appears in no file the run wrote and in no output, in any encoding or case', () => {
    const written = join(FIXTURE, '.e2e');
    expect(countScanned([written])).toBeGreaterThan(5);
    expect(findLeaks(CANARY, [written], { stdout: run.stdout, stderr: run.stderr })).toEqual([]);
  });

  it('is redacted, not dropped, in the transcript and turns the executor attached under --debug', () => {
    const written = join(FIXTURE, '.e2e');
    expect(findLeaks('model said: the password is <secret:canary>', [written])).not.toEqual([]);
    expect(findLeaks('typed <secret:canary>', [written])).not.toEqual([]);
  });
});

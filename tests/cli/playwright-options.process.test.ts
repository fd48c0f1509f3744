/**
 * `e2e record`, `replay` and `run` take Playwright Test's options as Playwright spells them,
 * checked against the installed `playwright test --help` so the list cannot drift, and usage
 * errors exit 2 with commander's message (a typo is not a failing suite).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { OWN_OPTIONS } from '../../cli/playwright-options.js';
import { ensureBuilt, ROOT } from '../runner/support/build.js';
import { E2E_BIN } from '../runner/support/e2e-process.js';
import { scaledTimeout } from '../support/load-scaled.js';

const PLAYWRIGHT_CLI = createRequire(import.meta.url).resolve('@playwright/test/cli');

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The flags column of a commander help text: `-u, --update-snapshots [mode]`, one per option. */
function helpFlags(help: string): string[] {
  return help
    .split('\n')
    .map((line) => /^ {2}(-[^ ].*?)(?: {2,}|$)/.exec(line)?.[1])
    .filter((flags): flags is string => flags !== undefined);
}

function longName(flags: string): string {
  return /--[\w-]+/.exec(flags)?.[0] ?? flags.split(/[ ,]/)[0]!;
}

let playwrightFlags: string[];

beforeAll(() => {
  ensureBuilt();
  const help = run([PLAYWRIGHT_CLI, 'test', '--help']);
  expect(help.status).toBe(0);
  playwrightFlags = helpFlags(help.stdout);
}, scaledTimeout(300_000));

describe('Playwright Test options on record, replay and run', () => {
  it.each(['record', 'replay', 'run'])('`e2e %s` takes every option of the installed `playwright test`, spelled the same', (command) => {
    expect(playwrightFlags.length).toBeGreaterThan(30);
    const ours = helpFlags(run([E2E_BIN, command, '--help']).stdout);
    const passedOn = playwrightFlags.filter((flags) => !(longName(flags) in OWN_OPTIONS));
    expect(ours).toEqual(expect.arrayContaining(passedOn));
    // The options e2e defines itself exist under the same names.
    for (const own of Object.keys(OWN_OPTIONS)) expect(ours.map(longName)).toContain(own);
    // Nothing is offered that this Playwright does not have, besides e2e's own run options.
    const extra = ours.filter((flags) => !playwrightFlags.includes(flags) && !(longName(flags) in OWN_OPTIONS));
    expect(extra.map(longName).every((name) => ['--no-cache', '--strict-cache', '--propose', '--audit'].includes(name))).toBe(true);
  });

  it('exits 2 with commander\'s message for an unknown option, an unknown command and a missing value', () => {
    const option = run([E2E_BIN, 'run', '--bogus']);
    expect(option.status).toBe(2);
    expect(option.stderr).toContain("error: unknown option '--bogus'");
    const command = run([E2E_BIN, 'rnu']);
    expect(command.status).toBe(2);
    expect(command.stderr).toContain("error: unknown command 'rnu'");
    expect(command.stderr).toContain('(Did you mean run?)');
    const value = run([E2E_BIN, 'replay', '--retries']);
    expect(value.status).toBe(2);
    expect(value.stderr).toContain("error: option '--retries <retries>' argument missing");
  });

  it("prints e2e's version from its package.json with --version or -V, exit 0", () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const result = run([E2E_BIN, flag]);
      expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  it('exits 2 before running anything when a numeric option is not a number', () => {
    const cases: Array<[string[], string]> = [
      [['run', '--retries', 'garbage'], "error: option '--retries <retries>' argument 'garbage' is invalid. Expected a whole number, 0 or more."],
      [['record', '--timeout=1.5'], "error: option '--timeout <timeout>' argument '1.5' is invalid. Expected milliseconds"],
      [['replay', '-j', '0'], "error: option '-j, --workers <workers>' argument '0' is invalid. Expected a number of workers"],
      [['run', '--shard', '5/4'], "error: option '--shard <shard>' argument '5/4' is invalid. Expected current/all"],
      [['run', '--repeat-each', '-1'], "error: option '--repeat-each <N>' argument '-1' is invalid."],
      [['run', '--ui-port', '70000'], "error: option '--ui-port <port>' argument '70000' is invalid. Expected a port"],
    ];
    for (const [args, message] of cases) {
      const result = run([E2E_BIN, ...args]);
      expect({ args, status: result.status, stderr: result.stderr }).toEqual({ args, status: 2, stderr: expect.stringContaining(message) as string });
      expect(result.stdout).toBe('');
    }
    // Good values pass the same check (here up to the help, which exits 0 without running).
    for (const args of [['--retries', '2'], ['--workers=50%'], ['--shard', '2/4'], ['--global-timeout', '0'], ['--max-failures=1']]) {
      expect(run([E2E_BIN, 'run', ...args, '--help']).status).toBe(0);
    }
  });

  it('exits 0 for --help', () => {
    const help = run([E2E_BIN, 'replay', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: e2e replay [options] [filter...]');
  });
});

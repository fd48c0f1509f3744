/**
 * `e2e run` without a browser: the arguments it hands Playwright Test, config discovery, and
 * the exit-code table. Real runs of the binary live in tests/runner.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeOfExitClass } from '../launch/command-outcome.js';
import { EXIT_CODES } from './exit-codes.js';
import { playwrightArgumentsOf, playwrightOptions } from './playwright-options.js';
import { findConfigFile } from '../launch/project-config.js';
import { playwrightArguments, runRequestOf, startRun, type RunCommandOptions } from '../launch/run-command.js';
import { CACHE_MODE_VARIABLE, parseRunRequest, requestFromVariables } from '../runner/run-request.js';

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'e2e-cli-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const options: RunCommandOptions = { filters: [], cache: true, debug: false, cwd: '/project', env: {} };

describe('e2e run', () => {
  it('passes filters and Playwright options through, keeping the e2e reporter', () => {
    const args = playwrightArguments(
      { ...options, filters: ['todos'], playwright: ['--grep=adds', '--project=web', '--project=admin', '--retries=1'], reporter: 'dot', extra: ['--headed'] },
      '/project/e2e.config.ts',
    );
    expect(args.slice(0, 4)).toEqual(['test', '-c', '/project/e2e.config.ts', 'todos']);
    expect(args).toEqual(expect.arrayContaining(['--grep=adds', '--project=web', '--project=admin', '--retries=1', '--headed']));
    expect(args[args.indexOf('--reporter') + 1]).toMatch(/^[^,]*runner\/redacting-reporter\.js,dot,.*runner\/reporter\.js$/);
  });

  it("lists with the list reporter, or the given ones, and without e2e's reporter", () => {
    const listing = playwrightArguments({ ...options, playwright: ['--list'] }, '/project/e2e.config.ts');
    expect(listing.slice(-2)).toEqual(['--reporter', 'list']);
    const json = playwrightArguments({ ...options, reporter: 'json', extra: ['--list'] }, '/project/e2e.config.ts');
    expect(json).toEqual(['test', '-c', '/project/e2e.config.ts', '--reporter', 'json', '--list']);
  });

  it('turns parsed Playwright options back into arguments, values after `=` so a variadic option swallows nothing', () => {
    const all = playwrightOptions();
    const parsed = new Command('record').exitOverride();
    for (const option of all) parsed.addOption(option);
    parsed.argument('[filter...]').action(() => undefined);
    parsed.parse(['-x', '--headed', '--project', 'web', 'admin', '--no-deps', '--only-changed', '-u', '--trace', 'on', '-G', 'slow', '--repeat-each', '2'], { from: 'user' });
    expect(playwrightArgumentsOf(all, parsed.opts())).toEqual([
      '--grep-invert=slow',
      '--headed',
      '--no-deps',
      '--only-changed',
      '--project=web',
      '--project=admin',
      '--repeat-each=2',
      '--trace=on',
      '--update-snapshots',
      '-x',
    ]);
  });

  it('finds e2e.config.ts in the folder, and reports a missing config as a configuration outcome', async () => {
    expect(findConfigFile(folder, undefined)).toBeUndefined();
    const result = await startRun({ ...options, cwd: folder }).result;
    expect(result).toMatchObject({ outcome: 'configuration', message: expect.stringContaining('INVALID_CONFIG: no config found') as string });
    await writeFile(join(folder, 'e2e.config.ts'), 'export default {};');
    expect(findConfigFile(folder, undefined)).toBe(join(folder, 'e2e.config.ts'));
  });

  it("asks the runner for each command's cache modes in one request: record read-write, replay model-free, run as configured", () => {
    const request = (over: Partial<RunCommandOptions>) => {
      const asked = runRequestOf({ ...options, ...over });
      if ('problem' in asked) throw new Error(asked.problem);
      return asked.request;
    };
    expect(request({ kind: 'record' })).toEqual({ version: 1, cache: { mode: 'read-write', strict: false }, modelFree: false, debug: false });
    expect(request({ kind: 'replay' })).toEqual({ version: 1, cache: { mode: 'read-only', strict: true }, modelFree: true, debug: false });
    expect(request({ kind: 'run' })).toEqual({ version: 1, cache: { strict: false }, modelFree: false, debug: false });
    expect(request({ cache: false }).cache).toEqual({ mode: 'off', strict: false });
    expect(request({ strictCache: true, debug: true })).toMatchObject({ cache: { strict: true }, debug: true });
    expect(request({ propose: 'proposals' }).cache).toEqual({ mode: 'read-only', strict: false, proposals: '/project/proposals' });
    expect(request({ kind: 'replay', propose: 'proposals' }).cache).toEqual({ mode: 'read-only', strict: true, proposals: '/project/proposals' });
    expect(runRequestOf({ ...options, propose: 'proposals', cache: false })).toMatchObject({ problem: expect.stringContaining('--no-cache') as string });
    expect(runRequestOf({ ...options, kind: 'record', propose: 'proposals' })).toMatchObject({ problem: expect.stringContaining('e2e run --propose') as string });
  });

  it("is the same request as plain Playwright's E2E_REPLAY=1 for `e2e replay`, and every request it writes reads back", () => {
    const replay = runRequestOf({ ...options, kind: 'replay' });
    expect(replay).toEqual({ request: requestFromVariables({ E2E_REPLAY: '1' }) });
    // `e2e run` reads the documented variables as plain Playwright does; record and replay say what they want.
    expect(runRequestOf({ ...options, env: { [CACHE_MODE_VARIABLE]: 'off' } })).toMatchObject({ request: { cache: { mode: 'off' } } });
    expect(runRequestOf({ ...options, kind: 'record', env: { E2E_REPLAY: '1' } })).toMatchObject({ request: { modelFree: false, cache: { mode: 'read-write' } } });
    expect(runRequestOf({ ...options, env: { [CACHE_MODE_VARIABLE]: 'sometimes' } })).toMatchObject({ problem: expect.stringContaining('read-write, read-only or off') as string });
    for (const kind of ['run', 'record', 'replay'] as const) {
      const asked = runRequestOf({ ...options, kind, propose: kind === 'record' ? undefined : 'proposals', debug: true }, '/project/.e2e/audit-run.json');
      if ('problem' in asked) throw new Error(asked.problem);
      expect(parseRunRequest(JSON.stringify(asked.request))).toEqual({ kind: 'request', request: asked.request });
    }
  });

  it('maps every outcome to the exit code of DESIGN §3', () => {
    expect(EXIT_CODES).toEqual({ passed: 0, 'test-failure': 1, configuration: 2, infrastructure: 3, interrupted: 130 });
    expect([0, 1, 2, 3, 130].map((exitClass) => EXIT_CODES[outcomeOfExitClass(exitClass as 0 | 1 | 2 | 3 | 130)])).toEqual([0, 1, 2, 3, 130]);
  });
});

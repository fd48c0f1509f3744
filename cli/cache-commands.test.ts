import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actEntry, control, temporaryFolder, writeEntries } from '../tests/support/cache-fixtures.js';
import { registerCacheCommands, registerInitCommand } from './cache-commands.js';

let folder: string;

beforeAll(async () => {
  folder = await temporaryFolder('cache-commands');
  await writeEntries(join(folder, '.e2e', 'cache'), [await actEntry({ testId: 'tests/a.e2e.ts::a', instruction: 'go', actions: [{ verb: 'tap', target: control('button', 'Go') }] })]);
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Runs `e2e <args>` in-process on a fresh program; returns what it printed and the exit code. */
async function run(args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number | undefined }> {
  let stdout = '';
  let stderr = '';
  let exitCode: number | undefined;
  const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, cwd: folder, env: {}, exit: (code: number) => (exitCode = code) };
  const program = new Command('e2e');
  registerCacheCommands(program, io);
  registerInitCommand(program, io);
  await program.parseAsync(['node', 'e2e', ...args]).catch(() => undefined);
  return { stdout, stderr, exitCode };
}

describe('the cache commands on a commander program', () => {
  it('run a command and exit 0 with its output', async () => {
    const result = await run(['cache', 'stats', '--json']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ entries: 1, readable: 1, unreadable: 0 });
  });

  it('exit 2 with one line naming the fix when an argument is missing', async () => {
    expect(await run(['cache', 'show'])).toEqual({ stdout: '', stderr: 'error: name an entry: `e2e cache show <key or key prefix>` (see `e2e cache ls`).\n', exitCode: 2 });
    expect(await run(['cache', 'prune', '--unused-for', 'soon'])).toEqual({
      stdout: '',
      stderr: "error: option '--unused-for <runs>' argument 'soon' is invalid. Expected a whole number of runs, 1 or more. (see `e2e cache prune --help`)\n",
      exitCode: 2,
    });
  });

  it('exit 2 with one line when cache mv refuses, 0 with the plan on a dry run', async () => {
    expect(await run(['cache', 'mv', 'tests/a.e2e.ts::a', 'a'])).toEqual({
      stdout: '',
      stderr: "error: cache mv refused, nothing was changed: from and to are the same test id `tests/a.e2e.ts::a`; name the test's new title as `to`.\n",
      exitCode: 2,
    });
    const planned = await run(['cache', 'mv', 'tests/a.e2e.ts::a', 'b', '--dry-run', '--json']);
    expect(planned.exitCode).toBe(0);
    expect(JSON.parse(planned.stdout)).toMatchObject({ from: 'tests/a.e2e.ts::a', to: 'tests/a.e2e.ts::b', dryRun: true, moved: [{ kind: 'act', status: 'moved' }] });
  });

  it('exit 2 when prune finds no config to list the tests with', async () => {
    const result = await run(['cache', 'prune']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(`error: no config e2e.config.ts found in ${folder} to list the tests; pass --config <file>.\n`);
  });

  it('registers init', async () => {
    // e2e.config.ts, playwright.config.ts (for `npx playwright test`), the example test, .gitignore, .gitattributes.
    const result = await run(['init', '--json']);
    expect(result.exitCode).toBe(0);
    expect((JSON.parse(result.stdout) as { files: unknown[] }).files).toHaveLength(5);
  });
});

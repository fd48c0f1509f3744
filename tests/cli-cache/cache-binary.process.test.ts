import { symlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../cache-format/index.js';
import { actEntry, commitAll, control, git, temporaryFolder, writeEntries, writeFile } from '../support/cache-fixtures.js';
import { baseEntries, headEntries } from './support/diff-scenario.js';
import { runCli } from './support/run-cli.js';
import { moduleLogEnvironment, modulesByProcess } from '../support/module-log.js';

const REPOSITORY_ROOT = resolve(import.meta.dirname, '..', '..');

let project: string;
let cache: string;

/** A git project with a Playwright config listing one test, the base cache committed and the head cache in the working tree. */
beforeAll(async () => {
  project = await temporaryFolder('cache-binary');
  cache = join(project, '.e2e', 'cache');
  symlinkSync(join(REPOSITORY_ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
  writeFile(join(project, '.gitignore'), 'node_modules\n');
  writeFile(join(project, 'playwright.config.mjs'), "export default { testDir: 'tests', testMatch: '**/*.e2e.ts', projects: [{ name: 'web' }] };\n");
  writeFile(join(project, 'tests', 'checkout.e2e.ts'), "import { test } from '@playwright/test';\ntest.describe('checkout', () => { test('applies a coupon and pays', async () => {}); });\n");
  git(project, 'init', '-q');
  await writeEntries(cache, await baseEntries());
  commitAll(project, 'base');
  await rm(cache, { recursive: true });
  await writeEntries(cache, await headEntries());
});

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('the cache commands as a real binary', () => {
  it('prints a markdown diff of HEAD against the working tree', async () => {
    const run = await runCli(project, ['cache', 'diff', '--format', 'markdown']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('### e2e cache diff: `HEAD` → `working tree`');
    expect(run.stdout).toContain('- tap button "Apply"\n+ tap button "Redeem"');
  });

  it('lists the cache as JSON', async () => {
    const run = await runCli(project, ['cache', 'ls', '--json']);
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { entries: unknown[] }).entries).toHaveLength(7);
  });

  it('exits 2 with one line naming the fix for a usage error', async () => {
    const badFormat = await runCli(project, ['cache', 'diff', '--format', 'html']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toBe("error: option '--format <format>' argument 'html' is invalid. Allowed choices are text, markdown, json. (see `e2e cache diff --help`)\n");
    const unknownEntry = await runCli(project, ['cache', 'show', 'ffffffffffffffff']);
    expect(unknownEntry.code).toBe(2);
    expect(unknownEntry.stderr.trimEnd().split('\n')).toEqual([`error: no cache entry matches \`ffffffffffffffff\` in ${cache}; run \`e2e cache ls\` to see the keys.`]);
  });

  it('prunes, on a dry run, exactly the entries of tests Playwright no longer lists, loading the config in one Playwright listing', async () => {
    const before = (await new FileCacheStore(cache, { readOnly: true }).list()).length;
    const moduleLog = await temporaryFolder('cache-binary-modules');
    const run = await runCli(project, ['cache', 'prune', '--dry-run', '--config', 'playwright.config.mjs'], moduleLogEnvironment(moduleLog, ''));
    expect(run.code, run.stderr).toBe(0);
    // The listing that gives the inventory also says where the cache is: no second Playwright process probes the config.
    const playwrightProcesses = modulesByProcess(moduleLog).filter((each) => /playwright(\/test)?\/cli\.js /.test(each.argv));
    expect(playwrightProcesses.map((each) => each.argv.replace(/^.*\/cli\.js /, ''))).toEqual([expect.stringMatching(/^test --list --reporter=json,\S+config-probe-reporter\.js -c /)]);
    await rm(moduleLog, { recursive: true, force: true });
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^Would remove 10 items, [\d.]+ KiB to free; 2 entries kept\.$/);
    expect(lines.filter((line) => line.trimStart().startsWith('unreachable'))).toHaveLength(5);
    expect(lines.filter((line) => line.trimStart().startsWith('blob'))).toHaveLength(5);
    expect((await new FileCacheStore(cache, { readOnly: true }).list()).length).toBe(before);
  });

  it('exits 2 when proposals conflict', async () => {
    const step = (button: string) => actEntry({ testId: 'tests/x.e2e.ts::x', instruction: 'go', actions: [{ verb: 'tap', target: control('button', button) }] });
    await writeEntries(join(project, 'proposal-a'), [await step('A')]);
    await writeEntries(join(project, 'proposal-b'), [await step('B')]);
    const run = await runCli(project, ['cache', 'accept', 'proposal-a', 'proposal-b']);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('Nothing was accepted: 1 conflict, 0 invalid entries.');
  });
});

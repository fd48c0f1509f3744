/**
 * Sharded CI as a user runs it from the packed tarball: one project (git, `npx e2e init`, two
 * test files) copied into two folders that stand in for two CI machines. Each shard records
 * into a proposal folder (`e2e run --propose proposal --shard i/2 --reporter blob,list` with
 * `CI` set), the project's own folder merges both blob reports with `e2e merge-reports` (one
 * HTML report that shows every test, checked in headless Chromium; one summary; one
 * report.json whose counts are the shards' sums), accepts both proposals in one `cache
 * accept` and reviews them in one `cache diff`; then both shards replay the accepted cache and
 * merge again, through the plain-shell steps of `examples/ci/ci.sh`. The plain path too: `npx playwright test` runs the e2e config through the
 * `playwright.config.ts` init wrote, and `E2E_REPLAY=1` there is read-only, strict and model-free.
 *
 * As on CI, the two machines run at once, and the plain path runs on a third machine beside them:
 * their commands mostly wait (on Playwright, Chromium, the app), so side by side they take about
 * the time of one.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLaunchOptions } from '../../engines/web/browser-discovery.js';
import { parseReport, type Report, type ReportSummary } from '../../runner/report.js';
import { contentsOf, filesUnder } from '../support/directory-snapshot.js';
import type { StaticServer } from '../support/static-server.js';
import { ROOT } from '../runner/support/build.js';
import { serveApp } from '../runner/support/fixture-servers.js';
import { copyOfTemplate, TYPIST_CONFIG, command as run, reportOf, type Finished } from './support/packed-project.js';
import { scaledTimeout } from '../support/load-scaled.js';

/** The plain-shell CI steps the README points to. */
const CI_SCRIPT = join(ROOT, 'examples', 'ci', 'ci.sh');

let work: string;
let app: StaticServer;
/** The project as committed: the merge job's checkout. */
let project: string;
/** Two more copies of it, one per CI machine. */
let shards: [string, string];
/** A third machine with the committed tests and no cache, for the plain Playwright path. */
let plainMachine: string;

/** Run a command as the user would, with the app's address the fixture config reads. */
function command(cwd: string, file: string, args: string[], extra: Record<string, string> = {}): Promise<Finished> {
  return run(cwd, file, args, { E2E_INSTALL_APP_URL: app.origin, ...extra });
}

function e2e(folder: string, args: string[], extra: Record<string, string> = {}): Promise<Finished> {
  return command(folder, join(folder, 'node_modules', '.bin', 'e2e'), args, extra);
}

/** Plain Playwright, as `npx playwright test` and the VS Code extension run it. */
function playwright(folder: string, args: string[], extra: Record<string, string> = {}): Promise<Finished> {
  return command(folder, join(folder, 'node_modules', '.bin', 'playwright'), args, extra);
}

function git(folder: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=ci@example.invalid', '-c', 'user.name=CI', ...args], { cwd: folder, encoding: 'utf8' });
}

/** The summary counts of several reports added up. */
function sumOf(summaries: readonly ReportSummary[]): ReportSummary {
  const total: ReportSummary = {
    tests: { passed: 0, failed: 0, flaky: 0, skipped: 0 },
    modelCalls: 0,
    tokens: { input: 0, output: 0, cached: 0 },
    cache: { replayed: 0, handedOff: 0, recorded: 0, missed: 0, unverified: 0, regressed: 0, stale: 0 },
  };
  for (const summary of summaries) {
    for (const key of Object.keys(total.tests) as (keyof ReportSummary['tests'])[]) total.tests[key] += summary.tests[key];
    for (const key of Object.keys(total.tokens) as (keyof ReportSummary['tokens'])[]) total.tokens[key] += summary.tokens[key];
    for (const key of Object.keys(total.cache) as (keyof ReportSummary['cache'])[]) total.cache[key] += summary.cache[key];
    total.modelCalls += summary.modelCalls;
  }
  return total;
}

function titlesOf(report: Report): string[] {
  return report.tests.map((test) => `${test.file} › ${test.titlePath.join(' › ')}`).sort();
}

/** A cache folder's entry refs (what a `cache accept` or a commit carries). */
function refsOf(folder: string): string[] {
  return filesUnder(join(folder, '.e2e', 'cache')).filter((path) => path.startsWith('refs'));
}

/** The HTML report as a browser shows it: the text of its test list, once every test title is on screen. */
async function htmlReportText(folder: string, titles: readonly string[]): Promise<string> {
  const launch = resolveLaunchOptions({ env: process.env });
  const browser = await chromium.launch({ executablePath: launch.executablePath, args: launch.args, headless: true });
  try {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(join(folder, '.e2e', 'html-report', 'index.html')).href);
    for (const title of titles) await page.getByText(title, { exact: true }).first().waitFor({ state: 'visible', timeout: scaledTimeout(60_000) });
    return await page.locator('body').innerText();
  } finally {
    await browser.close();
  }
}

/** Two tests per file; Playwright's `--shard 1/2` and `2/2` then take one file each. */
function testFile(name: string): string {
  return `import { test, expect } from 'e2e';

for (const todo of ['${name} one', '${name} two']) {
  test(\`adds \${todo}\`, async ({ app, agent, screen }) => {
    await app.open('/todo.html');
    await agent.act(\`add the todo "\${todo}"\`);
    await expect(screen.getByRole('listitem')).toHaveText(todo);
    await expect(screen.getByRole('status')).toHaveText(\`Added \${todo}\`);
  });
}
`;
}

const ALL_TESTS = ['tests/alpha.e2e.ts › adds alpha one', 'tests/alpha.e2e.ts › adds alpha two', 'tests/beta.e2e.ts › adds beta one', 'tests/beta.e2e.ts › adds beta two'];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'e2e-shards-'));
  app = await serveApp();
  // The tarball installed with @playwright/test in a fresh ESM project (a copy of the tier's template).
  project = copyOfTemplate('sharded', 'module');
  writeFileSync(join(project, '.gitignore'), 'node_modules/\n');
  const init = await e2e(project, ['init']);
  if (init.code !== 0) throw new Error(`e2e init failed:\n${init.stderr}`);
  writeFileSync(join(project, 'e2e.config.ts'), TYPIST_CONFIG);
  rmSync(join(project, 'tests', 'example.e2e.ts'));
  writeFileSync(join(project, 'tests', 'alpha.e2e.ts'), testFile('alpha'));
  writeFileSync(join(project, 'tests', 'beta.e2e.ts'), testFile('beta'));
  git(project, 'init', '-q');
  git(project, 'add', '-A');
  git(project, 'commit', '-q', '-m', 'tests, no cache yet');
  // Two CI machines check out the same commit, each into its own folder.
  shards = [join(work, 'machine-1', 'project'), join(work, 'machine-2', 'project')];
  plainMachine = join(work, 'machine-3', 'project');
  for (const machine of [...shards, plainMachine]) cpSync(project, machine, { recursive: true, verbatimSymlinks: true });
}, scaledTimeout(400_000));

// Four installed projects to remove: minutes on a busy machine.
afterAll(async () => {
  await app?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
}, scaledTimeout(300_000));

// This describe and the next run side by side (each in folders of its own); inside this one, in order.
describe.concurrent('sharded CI from the packed tarball', () => {
  it('records on two machines, merges one HTML report, summary and report.json, accepts both proposals in one command and reviews them in one diff, then replays', async ({ expect }) => {
    // e2e init wrote a .gitignore that keeps what the shards leave out of git.
    const ignore = readFileSync(join(project, '.gitignore'), 'utf8');
    for (const line of ['/blob-report/', '/proposal/', '/playwright-report/']) expect(ignore).toContain(`\n${line}\n`);

    // Each machine heals into a proposal folder (the cache stays read-only) and writes a blob report; the two at once.
    const recordings = await Promise.all(shards.map((shard, index) => e2e(shard, ['run', '--propose', 'proposal', `--shard=${index + 1}/2`, '--reporter', 'blob,list'], { CI: '1' })));
    const recorded: Report[] = [];
    for (const [index, shard] of shards.entries()) {
      const run = recordings[index]!;
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain('Cache  0 replayed · 0 handed off · 2 recorded · 0 missed · 0 unverified');
      expect(readdirSync(join(shard, 'blob-report'))).toEqual([`report-${index + 1}.zip`]);
      expect(refsOf(shard)).toEqual([]);
      recorded.push(reportOf(shard));
    }
    expect(titlesOf(recorded[0]!)).not.toEqual(titlesOf(recorded[1]!));

    // The merge job: one HTML report, one summary, one report.json, whose counts are the sums.
    // A relative folder and an absolute one: blobs are found wherever the artifacts were downloaded.
    const merged = await e2e(project, ['merge-reports', relative(project, join(shards[0], 'blob-report')), join(shards[1], 'blob-report')]);
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);
    expect(merged.stdout.match(/ {3}Cache {2}/g)).toHaveLength(1);
    expect(merged.stdout).toContain('Cache  0 replayed · 0 handed off · 4 recorded · 0 missed · 0 unverified');
    expect(merged.stdout).toContain('Report  .e2e/html-report/index.html');
    const mergedReport = reportOf(project);
    expect(titlesOf(mergedReport)).toEqual(ALL_TESTS);
    expect(mergedReport.summary).toEqual(sumOf(recorded.map((report) => report.summary)));
    expect(mergedReport.summary.tests.passed).toBe(4);
    expect(mergedReport.exitCode).toBe(0);
    const html = await htmlReportText(project, ALL_TESTS.map((title) => title.split(' › ')[1]!));
    for (const file of ['alpha.e2e.ts', 'beta.e2e.ts']) expect(html).toContain(file);

    // One accept for the proposals of both machines, one review of the merged change.
    const accepted = await e2e(project, ['cache', 'accept', join(shards[0], 'proposal'), join(shards[1], 'proposal')]);
    expect(accepted.code, accepted.stdout + accepted.stderr).toBe(0);
    expect(accepted.stdout).toContain('Accepted 4 entries');
    const diff = await e2e(project, ['cache', 'diff', '--format', 'markdown']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('0 changed, 0 re-keyed, 4 added, 0 removed, 0 unchanged');
    for (const title of ALL_TESTS) expect(diff.stdout).toContain(`\`${title.replace(' › ', '::')}\``);
    git(project, 'add', '.e2e/cache');
    git(project, 'commit', '-q', '-m', 'accept the proposals of both shards');

    // Both machines check out the accepted cache and replay model-free through examples/ci/ci.sh;
    // its merge step adds them up again and writes the review of the accepted commit.
    const replays = await Promise.all(
      shards.map((shard, index) => {
        for (const folder of [join('.e2e', 'cache'), 'proposal']) rmSync(join(shard, folder), { recursive: true, force: true });
        cpSync(join(project, '.e2e', 'cache'), join(shard, '.e2e', 'cache'), { recursive: true });
        return command(shard, 'bash', [CI_SCRIPT, 'shard'], { CI: '1', SHARD: `${index + 1}/2` });
      }),
    );
    const replayed: Report[] = [];
    for (const [index, shard] of shards.entries()) {
      const run = replays[index]!;
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain('Cache  2 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified');
      replayed.push(reportOf(shard));
    }
    const again = await command(project, 'bash', [CI_SCRIPT, 'merge', ...shards], { CI: '1', BASE: 'HEAD~1' });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('Cache  4 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified');
    expect(reportOf(project).summary).toEqual(sumOf(replayed.map((report) => report.summary)));
    expect(titlesOf(reportOf(project))).toEqual(ALL_TESTS);
    const review = readFileSync(join(project, '.e2e', 'cache-diff.md'), 'utf8');
    expect(review).toContain('0 changed, 0 re-keyed, 4 added, 0 removed, 0 unchanged');
  }, scaledTimeout(600_000));

  // After the test above: it reads the merged report.json that test leaves.
  it.sequential('refuses a folder with no blob report, naming the fix, and merges nothing', async ({ expect }) => {
    const empty = join(work, 'empty');
    mkdirSync(empty, { recursive: true });
    const before = existsSync(join(project, '.e2e', 'report.json')) ? readFileSync(join(project, '.e2e', 'report.json'), 'utf8') : undefined;
    const refused = await e2e(project, ['merge-reports', empty]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('INVALID_ARGUMENT: the folder');
    expect(refused.stderr).toContain('--reporter blob');
    const after = existsSync(join(project, '.e2e', 'report.json')) ? readFileSync(join(project, '.e2e', 'report.json'), 'utf8') : undefined;
    expect(after).toBe(before);
  }, scaledTimeout(120_000));
});

describe.concurrent('the plain Playwright path from the packed tarball', () => {
  it('runs the e2e config with `npx playwright test`, and E2E_REPLAY=1 there is read-only, strict and model-free', async ({ expect }) => {
    // A third machine with the committed tests but no cache yet.
    const fresh = plainMachine;
    rmSync(join(fresh, '.e2e'), { recursive: true, force: true });
    expect(readFileSync(join(fresh, 'playwright.config.ts'), 'utf8')).toContain("export { default } from './e2e.config.js';");
    // What the shipped README links to, and the folder READMEs it names, ship with it.
    const shipped = join(fresh, 'node_modules', 'e2e');
    const readme = readFileSync(join(shipped, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/.test(target));
    const named = [...readme.matchAll(/`((?:[\w-]+\/)+README\.md)`/g)].map((match) => match[1]!);
    expect(linked.length + named.length).toBeGreaterThan(4);
    for (const target of [...linked, ...named, 'examples/ci/e2e.yml', 'examples/ci/ci.sh']) expect(existsSync(join(shipped, target)), target).toBe(true);

    const list = await playwright(fresh, ['test', '--list']);
    expect(list.code, list.stdout + list.stderr).toBe(0);
    expect(list.stdout).toContain('Total: 4 tests in 2 files');

    // Plain Playwright records with the configured (read-write) mode: one of the two files.
    const record = await playwright(fresh, ['test', 'tests/alpha.e2e.ts']);
    expect(record.code, record.stdout + record.stderr).toBe(0);
    expect(record.stdout).toContain('Cache  0 replayed · 0 handed off · 2 recorded · 0 missed · 0 unverified');

    // E2E_REPLAY=1 over both files: what was recorded replays model-free; where nothing is recorded each step fails
    // REPLAY_STALE, no model (here: the executor) runs, and nothing is written. Its blob report (plain Playwright's
    // --reporter replaces e2e's) merges into e2e's report and exit class.
    const recorded = contentsOf(join(fresh, '.e2e', 'cache'));
    expect(Object.keys(recorded).filter((path) => path.startsWith('refs'))).toHaveLength(2);
    const replay = await playwright(fresh, ['test', '--reporter', 'blob'], { E2E_REPLAY: '1' });
    expect(replay.code, replay.stdout + replay.stderr).toBe(1);
    expect(contentsOf(join(fresh, '.e2e', 'cache'))).toEqual(recorded);
    const merged = await e2e(fresh, ['merge-reports', 'blob-report']);
    expect(merged.code, merged.stdout + merged.stderr).toBe(2);
    expect(merged.stdout).toContain('Cache  2 replayed · 0 handed off · 0 recorded · 2 missed · 0 unverified');
    const stepsByTest = Object.fromEntries(
      reportOf(fresh).tests.map((test) => [`${test.file} › ${test.titlePath.at(-1)}`, test.attempts.flatMap((attempt) => attempt.steps).map((step) => [step.cache?.mode, step.errorCode ?? null, step.modelCalls])]),
    );
    expect(stepsByTest).toEqual({
      'tests/alpha.e2e.ts › adds alpha one': [['self-finalized', null, 0]],
      'tests/alpha.e2e.ts › adds alpha two': [['self-finalized', null, 0]],
      'tests/beta.e2e.ts › adds beta one': [['missed', 'REPLAY_STALE', 0]],
      'tests/beta.e2e.ts › adds beta two': [['missed', 'REPLAY_STALE', 0]],
    });
    expect(reportOf(fresh).exitCode).toBe(2);
  }, scaledTimeout(400_000));
});

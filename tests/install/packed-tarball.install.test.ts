/**
 * The install path a user takes: `npm pack` this project, install the tarball with
 * `@playwright/test` into a fresh CommonJS project and a fresh ESM project (copies of the project
 * the install tier installed once, `support/install-once.ts`), `npx e2e init`, a test of their own with a scripted executor (no model),
 * then `npx e2e record`, `replay --list` and `replay -x --repeat-each 2 --reporter junit` (JUnit
 * to a file, parsed strictly as XML; the recorded test replays there, and a renamed copy of it misses, naming the
 * `e2e cache mv` to run), then the test renamed in its file, moved with that command and replayed. Each project has exactly one
 * `@playwright/test` (and `npm ls` one Playwright), and the shipped source maps carry their
 * sources. The projects hold the newest `@playwright/test` of the peer range with no Playwright
 * browser installed (`PLAYWRIGHT_BROWSERS_PATH` an empty folder, `E2E_CHROMIUM_PATH` unset): they
 * record and replay with the system Chromium the discovery finds on `PATH`, and the last replay
 * launches the browser put where the project's Playwright installs its own (the newest end of
 * `playwright-range.install.test.ts`, which checks the oldest end the same way). The two projects
 * run side by side.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotTree } from '../support/directory-snapshot.js';
import type { StaticServer } from '../support/static-server.js';
import { parseXml } from '../support/xml.js';
import { ROOT } from '../runner/support/build.js';
import { serveApp } from '../runner/support/fixture-servers.js';
import { browsersOf, command as userCommand, copyOfTemplate, launchNotingBrowser, NPM, playwrightCopiesIn, reportOf, runE2E, TODO_TEST as TEST, TYPIST_CONFIG as CONFIG, type Finished } from './support/packed-project.js';
import { scaledTimeout } from '../support/load-scaled.js';

let work: string;
let app: StaticServer;
let projects: Record<'commonjs' | 'module', string>;

/** A command in a user's shell; in a project of this file, with no Playwright browser installed (its own empty browser folder). */
function command(cwd: string, file: string, args: string[], extra: Record<string, string> = {}): Promise<Finished> {
  return userCommand(cwd, file, args, { E2E_INSTALL_APP_URL: app.origin, PLAYWRIGHT_BROWSERS_PATH: browsersOf(cwd), ...extra });
}

/**
 * `npx e2e …` as the user types it. `--no`: never fetch `e2e` from the registry, which is
 * another project; `--`: with an npx flag in front, npx would take `--version` as its own.
 */
function npxE2E(project: string, args: string[]): Promise<Finished> {
  return command(project, 'npx', ['--no', '--', 'e2e', ...args]);
}

/** The same binary npx runs, without npx's start-up. */
function e2e(project: string, args: string[], extra: Record<string, string> = {}): Promise<Finished> {
  return runE2E(project, args, { E2E_INSTALL_APP_URL: app.origin, PLAYWRIGHT_BROWSERS_PATH: browsersOf(project), ...extra });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'e2e-install-'));
  app = await serveApp();
  projects = { commonjs: copyOfTemplate('packed-commonjs', 'commonjs'), module: copyOfTemplate('packed-module', 'module') };
}, scaledTimeout(60_000));

afterAll(async () => {
  await app?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

// The two projects are independent and their commands mostly wait (on Playwright, Chromium, npm): they run side by side.
describe.concurrent.each(['commonjs', 'module'] as const)('the packed tarball in a fresh "type": "%s" project', (kind) => {
  it("installs with one @playwright/test, initializes, records and replays with the system Chromium, lists, writes JUnit to a file, moves a renamed test, and launches the browser the project's Playwright installed", async ({ expect }) => {
    const project = projects[kind];
    mkdirSync(browsersOf(project), { recursive: true });
    // One copy: the project's @playwright/test is the one e2e imports, and e2e brings no Playwright of its own.
    const fromProject = createRequire(join(project, 'package.json')).resolve('@playwright/test/package.json');
    const fromE2E = createRequire(join(project, 'node_modules', 'e2e', 'package.json')).resolve('@playwright/test/package.json');
    expect(realpathSync(fromE2E)).toBe(realpathSync(fromProject));
    const installed = (JSON.parse(readFileSync(fromProject, 'utf8')) as { version: string }).version;
    const listed = await command(project, NPM, ['ls', 'playwright', 'playwright-core', '--all', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(playwrightCopiesIn(JSON.parse(listed.stdout))).toEqual([`@playwright/test > playwright@${installed}`, `@playwright/test > playwright > playwright-core@${installed}`]);
    // Shipped source maps carry their sources.
    const maps = readdirSync(join(project, 'node_modules', 'e2e', 'dist'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(50);
    for (const name of maps.slice(0, 20)) {
      const map = JSON.parse(readFileSync(join(project, 'node_modules', 'e2e', 'dist', name), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
      expect(map.sourcesContent?.length, name).toBe(map.sources.length);
    }

    // The installed binary finds its own package.json from dist/.
    const version = await npxE2E(project, ['--version']);
    expect({ code: version.code, stdout: version.stdout }).toEqual({ code: 0, stdout: '0.1.0\n' });

    const init = await npxE2E(project, ['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('created  e2e.config.ts');
    writeFileSync(join(project, 'e2e.config.ts'), CONFIG);
    rmSync(join(project, 'tests', 'example.e2e.ts'));
    writeFileSync(join(project, 'tests', 'todo.e2e.ts'), TEST);

    const record = await e2e(project, ['record']);
    expect(record.code, record.stdout + record.stderr).toBe(0);
    const recorded = reportOf(project).tests.find((test) => test.titlePath.at(-1) === 'adds a todo');
    expect(recorded?.attempts[0]?.steps[0]?.cache).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'saved' });

    // The recorded step replays with the system Chromium in the JUnit run below, and the summary of a clean replay is the last run's.
    const before = snapshotTree(join(project, '.e2e'));
    const list = await e2e(project, ['replay', '--list'], { E2E_INSTALL_STALE: '1' });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('Total: 2 tests in 1 file');
    expect(snapshotTree(join(project, '.e2e'))).toEqual(before);

    // -x stops at the renamed copy of the test (no entry of its own: REPLAY_STALE); the repeats after it do not run.
    const junitFile = join(project, 'results', 'junit.xml');
    const junit = await e2e(project, ['replay', '-x', '--repeat-each', '2', '--reporter', 'junit'], { PLAYWRIGHT_JUNIT_OUTPUT_NAME: junitFile, E2E_INSTALL_STALE: '1' });
    expect(junit.code, junit.stdout + junit.stderr).toBe(2);
    const elements = parseXml(readFileSync(junitFile, 'utf8'));
    expect(elements.filter((element) => element.name === 'testcase').map((element) => element.attributes['name'])).toEqual([
      'adds a todo',
      'adds the todo',
      'adds a todo',
      'adds the todo',
    ]);
    expect(elements.filter((element) => element.name === 'error').map((element) => element.attributes['message'])).toEqual([expect.stringContaining('REPLAY_STALE')]);
    expect(elements.filter((element) => element.name === 'skipped')).toHaveLength(2);
    const ran = reportOf(project).tests.map((test) => test.attempts.length);
    expect(ran).toEqual([1, 1, 0, 0]);
    // The recorded test ran first and replayed, model-free, with the system Chromium.
    expect([reportOf(project).tests[0]?.titlePath.at(-1), reportOf(project).tests[0]?.outcome]).toEqual(['adds a todo', 'expected']);
    expect(reportOf(project).tests[0]?.attempts[0]?.steps.map((step) => [step.cache?.mode, step.modelCalls])).toEqual([['self-finalized', 0]]);
    // It replayed; the renamed copy is the one miss, and the miss names the installed binary's mv command.
    expect(junit.stdout + junit.stderr).toContain('Cache  1 replayed · 0 handed off · 0 recorded · 1 missed · 0 unverified');
    expect(junit.stdout + junit.stderr).toContain("e2e cache mv 'tests/todo.e2e.ts::adds a todo' 'tests/todo.e2e.ts::adds the todo'");

    // The test renamed in its file: the mv command the miss named moves its entry, and the renamed test replays.
    writeFileSync(join(project, 'tests', 'todo.e2e.ts'), TEST.replace("test('adds a todo'", "test('adds the todo'"));
    const moved = await e2e(project, ['cache', 'mv', 'tests/todo.e2e.ts::adds a todo', 'adds the todo']);
    expect(moved.code, moved.stdout + moved.stderr).toBe(0);
    expect(moved.stdout).toContain('Moved 1 entry of tests/todo.e2e.ts::adds a todo to tests/todo.e2e.ts::adds the todo');

    // That replay with a browser where this project's Playwright puts its own build (a wrapper that notes each launch):
    // the lookup asks the project's Playwright, not a copy of e2e's.
    const launches = await launchNotingBrowser(project, { PLAYWRIGHT_BROWSERS_PATH: browsersOf(project) });
    const renamed = await e2e(project, ['replay']);
    expect(renamed.code, renamed.stdout + renamed.stderr).toBe(0);
    expect(renamed.stdout + renamed.stderr).toContain('Cache  1 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified');
    expect(readFileSync(launches, 'utf8')).toContain('launched');
  }, scaledTimeout(300_000));
});

describe('a folder install', () => {
  it('is refused up front with the fix, since the link brings a second @playwright/test', async () => {
    const project = join(work, 'linked');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{ "name": "linked", "version": "1.0.0", "private": true }\n');
    const install = await command(project, NPM, ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', ROOT, '@playwright/test']);
    expect(install.code, install.stderr).toBe(0);
    const init = await e2e(project, ['init']);
    expect(init.code, init.stderr).toBe(0);
    for (const args of [['replay'], ['cache', 'ls']]) {
      const refused = await e2e(project, args);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain('INVALID_CONFIG: two copies of @playwright/test');
      expect(refused.stderr).toContain('npm i -D --install-links <folder>');
    }
  }, scaledTimeout(120_000));
});

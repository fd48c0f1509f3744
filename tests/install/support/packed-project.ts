/**
 * What the install tests share: pack this project once, make a fresh project that installs the
 * tarball with a chosen `@playwright/test` (the tier's global setup does it once per template,
 * `install-once.ts`; a test copies a template), and run commands there in a user's environment
 * (no CI switch, no e2e variables of this test run).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import { expect, inject } from 'vitest';
import { parseReport, type Report } from '../../../runner/report.js';
import { ROOT } from '../../runner/support/build.js';

/** The npm binary of this platform. */
export const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** `npm pack` this project into `folder` (build scripts skipped: the caller built `dist/`); the tarball's path. */
export function packTarball(folder: string): string {
  const packed = JSON.parse(execFileSync(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', folder], { cwd: ROOT, encoding: 'utf8' })) as { filename: string }[];
  return join(folder, packed[0]!.filename);
}

/** The environment of a user's shell: no CI switch or e2e variables of this test run, plus `extra`. */
export function userEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('E2E_') && !key.startsWith('npm_') && key !== 'CI' && key !== 'NODE_OPTIONS') env[key] = value;
  }
  return { ...env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', FORCE_COLOR: '0', ...extra };
}

/** A finished command. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `file args` in `cwd` with {@link userEnvironment}`(extra)`. */
export function command(cwd: string, file: string, args: string[], extra: Record<string, string> = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env: userEnvironment(extra), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The installed `e2e` binary, without npx's start-up (seconds on a busy machine). */
export function runE2E(project: string, args: string[], extra: Record<string, string> = {}): Promise<Finished> {
  return command(project, join(project, 'node_modules', '.bin', 'e2e'), args, extra);
}

/** The project's `.e2e/report.json`, parsed. */
export function reportOf(project: string): Report {
  const read = parseReport(readFileSync(join(project, '.e2e', 'report.json'), 'utf8'));
  if (read.kind !== 'report') throw new Error(`no readable report in ${project}`);
  return read.report;
}

/** A project's own Playwright browser folder (`PLAYWRIGHT_BROWSERS_PATH`): the tests leave it empty, so no Playwright browser is installed. */
export function browsersOf(project: string): string {
  return join(project, 'playwright-browsers');
}

/** A system Chromium on `PATH`, the last place the browser discovery looks. */
export function systemChromium(): string {
  for (const folder of (process.env['PATH'] ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
      if (folder !== '' && existsSync(join(folder, name))) return join(folder, name);
    }
  }
  throw new Error('No system Chromium on PATH for the install tests (apt-get install -y chromium).');
}

/**
 * Put a browser where the project's own Playwright installs its Chromium (its browser folder,
 * `extra` holding `PLAYWRIGHT_BROWSERS_PATH`): a wrapper around the system Chromium that notes each
 * launch in the returned file, so a run shows that the lookup asked the project's Playwright.
 */
export async function launchNotingBrowser(project: string, extra: Record<string, string>): Promise<string> {
  const expected = await command(project, 'node', ['-e', "process.stdout.write(require('@playwright/test').chromium.executablePath())"], extra);
  expect(expected.code, expected.stderr).toBe(0);
  const executable = expected.stdout;
  expect(executable.startsWith(browsersOf(project))).toBe(true);
  const launches = join(project, 'launches.txt');
  mkdirSync(dirname(executable), { recursive: true });
  writeFileSync(executable, `#!/bin/sh\necho launched >> '${launches}'\nexec '${systemChromium()}' "$@"\n`);
  chmodSync(executable, 0o755);
  return launches;
}

/** Every `playwright` / `playwright-core` node of `npm ls --all --json`, as `name@version` at its path. */
export function playwrightCopiesIn(tree: unknown, path = ''): string[] {
  const found: string[] = [];
  const dependencies = (tree as { dependencies?: Record<string, { version?: string }> }).dependencies ?? {};
  for (const [name, node] of Object.entries(dependencies)) {
    if (name === 'playwright' || name === 'playwright-core') found.push(`${path}${name}@${node.version ?? '?'}`);
    found.push(...playwrightCopiesIn(node, `${path}${name} > `));
  }
  return found;
}

/** The ends of the peer range `^1.56.0`: its first release, and whatever is newest in it now. */
export const PLAYWRIGHT_RANGE = { oldest: '@playwright/test@1.56.0', newest: '@playwright/test@^1.56.0' } as const;

/** What the install tier's global setup made: the tarball and a project installed with each end of the range. */
export interface InstalledTemplates {
  /** The folder holding the tarball and the templates; copies go beside them. */
  folder: string;
  tarball: string;
  templates: Record<keyof typeof PLAYWRIGHT_RANGE, string>;
}

/** The tier's installed templates (install-once.ts). */
export function installed(): InstalledTemplates {
  return inject('installed');
}

/**
 * A fresh project `name` of `kind`: a copy of the template installed with the `end` of the range
 * (its node_modules, lock file and links as npm left them), beside the template.
 */
export function copyOfTemplate(name: string, kind: 'commonjs' | 'module', end: keyof typeof PLAYWRIGHT_RANGE = 'newest'): string {
  const template = installed().templates[end];
  const project = join(dirname(template), name);
  cpSync(template, project, { recursive: true, verbatimSymlinks: true });
  const packageName = `fresh-${basename(project)}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ ...manifest, name: packageName, type: kind }, null, 2)}\n`);
  const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { name?: string; packages?: Record<string, { name?: string }> };
  lock.name = packageName;
  if (lock.packages?.[''] !== undefined) lock.packages[''].name = packageName;
  writeFileSync(join(project, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  return project;
}

/** Options of {@link freshProject}. */
export interface FreshProjectOptions {
  /** The package's `"type"`. */
  kind: 'commonjs' | 'module';
  /** The tarball to install. */
  tarball: string;
  /** What to install Playwright Test as (default `@playwright/test`, the newest). */
  playwrightTest?: string;
  /** Environment for `npm install`. */
  extra?: Record<string, string>;
}

/** Make `folder` a fresh project with the tarball and `@playwright/test` installed (from the local npm cache where it can). */
export async function freshProject(folder: string, options: FreshProjectOptions): Promise<string> {
  mkdirSync(folder, { recursive: true });
  const name = `fresh-${folder.split(/[/\\]/).at(-1) ?? 'project'}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  writeFileSync(join(folder, 'package.json'), `${JSON.stringify({ name, version: '1.0.0', private: true, type: options.kind }, null, 2)}\n`);
  const install = await command(
    folder,
    NPM,
    ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', options.tarball, options.playwrightTest ?? '@playwright/test'],
    options.extra,
  );
  if (install.code !== 0) throw new Error(`npm install failed in ${folder}:\n${install.stderr}`);
  return folder;
}

/** A config whose scripted executor (no model) adds the todo its instruction quotes through the policed actions; the app URL comes from `E2E_INSTALL_APP_URL`. */
export const TYPIST_CONFIG = `import { defineConfig, web, type StepExecutor } from 'e2e';

// A scripted executor of the project's own: no model; it types the quoted todo through the policed actions.
const typist: StepExecutor = {
  name: 'typist',
  version: '1',
  async runStep(ctx) {
    const screen = await ctx.observe({ tree: true });
    const box = /#(\\S+) textbox "New todo"/.exec(screen.text)?.[1];
    const todo = /"([^"]+)"/.exec(ctx.step.instruction)?.[1];
    if (box === undefined || todo === undefined) return { status: 'failed', summary: 'No new-todo box or no todo named.' };
    await ctx.actions.type({ id: box }, todo, { replace: true });
    await ctx.actions.press({ id: box }, 'Enter');
    return { status: 'passed', summary: \`Added \${todo}.\` };
  },
};

export default defineConfig({
  testDir: 'tests',
  workers: 1,
  targets: [{ name: 'web', engine: web(), app: { url: process.env.E2E_INSTALL_APP_URL ?? 'http://127.0.0.1:9' } }],
  agents: { default: { executor: typist, context: 'A todo list.' } },
});
`;

/** A test of {@link TYPIST_CONFIG}'s app, verified with `expect` from '@playwright/test' (as most tests are written; it counts like e2e's). */
export const TODO_TEST = `import { test } from 'e2e';
import { expect } from '@playwright/test';

test('adds a todo', async ({ app, agent, screen }) => {
  await app.open('/todo.html');
  await agent.act('add the todo "Buy milk"');
  await expect(screen.getByRole('listitem')).toHaveText('Buy milk');
  await expect(screen.getByRole('status')).toHaveText('Added Buy milk');
  // The page matchers too: Playwright 1.56's check the receiver's class name (the screen handle forwards it).
  await expect(screen).toHaveURL(/todo.html$/);
});

// The same step under a new title, as a renamed test has it: no entry of its own. Declared only where a failing test
// is wanted (the JUnit run and the listing).
if (process.env.E2E_INSTALL_STALE === '1') {
  test('adds the todo', async ({ app, agent }) => {
    await app.open('/todo.html');
    await agent.act('add the todo "Buy milk"');
  });
}
`;

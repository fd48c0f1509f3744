/**
 * The pictures in docs/: Playwright's HTML report of an agent step that replayed, one that
 * was handed to the agent, and one that failed, each a full-page screenshot taken with
 * Chromium. Runs the habits fixture through the real `e2e` binary (record, replay, a run
 * after the app changed, a failing run), opens each HTML report and expands the agent step.
 *
 *   npm run pictures        # rewrites docs/report-{replayed,handed-off,failed}.png
 *
 * Not part of `npm test` (it takes about a minute and rewrites committed files).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from '@playwright/test';
import { resolveLaunchOptions } from '../../engines/web/browser-discovery.js';
import { ROOT, ensureBuilt } from './support/build.js';
import { runE2E } from './support/e2e-process.js';
import { startHabitsApp } from './support/habits-app.js';

const FIXTURE = join(ROOT, 'tests', 'runner', 'fixtures', 'habits');
const REPORT = join(FIXTURE, '.e2e', 'html-report', 'index.html');
const DOCS = join(ROOT, 'docs');

interface Picture {
  file: string;
  test: string;
  step: string;
}

/** Open the HTML report at the test, expand the agent step and its cache line, and take the page. */
async function takePicture(browser: Browser, picture: Picture): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  try {
    await page.goto(pathToFileURL(REPORT).href);
    await page.getByRole('link', { name: picture.test }).first().click();
    await page.getByText(picture.step, { exact: true }).first().click();
    await page.getByText(/^cache: /).first().waitFor();
    await page.screenshot({ path: join(DOCS, picture.file), fullPage: true });
    process.stdout.write(`wrote docs/${picture.file}\n`);
  } finally {
    await page.close();
  }
}

async function main(): Promise<void> {
  ensureBuilt();
  mkdirSync(DOCS, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'e2e-pictures-'));
  const app = await startHabitsApp(join(work, 'cache'));
  const launch = resolveLaunchOptions({ env: process.env });
  const browser = await chromium.launch({ executablePath: launch.executablePath, args: launch.args, headless: true });
  const step = `agent.act 'add a todo "Buy milk"'`;
  const run = async (args: string[], expectedExit: number): Promise<void> => {
    const finished = await runE2E(args, { cwd: FIXTURE, env: app.env });
    if (finished.exitCode !== expectedExit) throw new Error(`e2e ${args.join(' ')} exited ${String(finished.exitCode)}, not ${expectedExit}:\n${finished.stdout}${finished.stderr}`);
  };
  try {
    await run(['record', 'playwright-expect'], 0);
    await run(['replay', 'playwright-expect'], 0);
    await takePicture(browser, { file: 'report-replayed.png', test: 'an expect from Playwright Test verifies the step before it', step });
    app.setAddLabel('Create');
    await run(['run', 'playwright-expect'], 0);
    await takePicture(browser, { file: 'report-handed-off.png', test: 'an expect from Playwright Test verifies the step before it', step });
    app.setAddLabel('Add');
    await run(['run', 'unable'], 1);
    await takePicture(browser, { file: 'report-failed.png', test: 'a step the agent cannot do fails the test', step: `agent.act 'archive the todo "Buy milk"'` });
  } finally {
    await browser.close();
    await app.close();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();

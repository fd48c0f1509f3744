/**
 * The oldest end of the declared peer range: the packed tarball (packed once) installed into a
 * fresh project with `@playwright/test` 1.56.0 (a copy of the project the install tier installed
 * once, `support/install-once.ts`), with no Playwright browser installed and `E2E_CHROMIUM_PATH`
 * unset. There e2e must bring no Playwright of its own (`npm ls` shows one copy), record
 * with the system Chromium the discovery finds on `PATH`, and, once a browser sits where that
 * project's Playwright installs it, replay model-free on that one: the lookup asks the project's
 * Playwright, not a copy of e2e's. The newest end is checked the same way in the projects of
 * `packed-tarball.install.test.ts` (they hold the newest `@playwright/test` of the range).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StaticServer } from '../support/static-server.js';
import { serveApp } from '../runner/support/fixture-servers.js';
import { browsersOf, command, copyOfTemplate, launchNotingBrowser, NPM, playwrightCopiesIn, reportOf, runE2E, TODO_TEST, TYPIST_CONFIG } from './support/packed-project.js';
import { scaledTimeout } from '../support/load-scaled.js';

let app: StaticServer;
let project: string;

function environmentOf(project: string): Record<string, string> {
  return { E2E_INSTALL_APP_URL: app.origin, PLAYWRIGHT_BROWSERS_PATH: browsersOf(project) };
}

beforeAll(async () => {
  app = await serveApp();
  project = copyOfTemplate('range-oldest', 'commonjs', 'oldest');
}, scaledTimeout(60_000));

afterAll(async () => {
  await app?.close();
});

describe('the oldest @playwright/test of the peer range', () => {
  it("installs one Playwright, records with the system Chromium, then replays on the browser the project's Playwright installed", async () => {
    const env = environmentOf(project);
    mkdirSync(browsersOf(project), { recursive: true });
    const installed = JSON.parse(readFileSync(join(project, 'node_modules', '@playwright', 'test', 'package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe('1.56.0');

    // One copy: e2e brings no Playwright of its own.
    const listed = await command(project, NPM, ['ls', 'playwright', 'playwright-core', '--all', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(playwrightCopiesIn(JSON.parse(listed.stdout))).toEqual([`@playwright/test > playwright@${installed.version}`, `@playwright/test > playwright > playwright-core@${installed.version}`]);

    writeFileSync(join(project, 'e2e.config.ts'), TYPIST_CONFIG);
    mkdirSync(join(project, 'tests'), { recursive: true });
    writeFileSync(join(project, 'tests', 'todo.e2e.ts'), TODO_TEST);

    // No Playwright browser installed: the discovery falls through to the system Chromium.
    const record = await runE2E(project, ['record'], env);
    expect(record.code, record.stdout + record.stderr).toBe(0);
    expect(reportOf(project).tests[0]?.attempts[0]?.steps[0]?.cache).toMatchObject({ mode: 'missed', write: 'saved' });

    // A browser where this project's Playwright puts its own build (a wrapper that notes each launch, then runs the system
    // Chromium): the recorded step replays model-free there, and the lookup asked the project's Playwright.
    const launches = await launchNotingBrowser(project, env);
    const replay = await runE2E(project, ['replay'], env);
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    expect(replay.stdout + replay.stderr).toContain('Cache  1 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified');
    expect(reportOf(project).tests[0]?.attempts[0]?.steps.map((step) => [step.cache?.mode, step.modelCalls])).toEqual([['self-finalized', 0]]);
    expect(readFileSync(launches, 'utf8')).toContain('launched');
  }, scaledTimeout(300_000));
});

/**
 * A user's own engine runs (DESIGN §8, "Writing an engine"): an engine written against `e2e` and
 * `e2e/engine` alone, which wraps `web()` and declares fewer verbs (no `navigate`, no point
 * verbs), is set as a target's engine in a fixture project and run through the real binary. It
 * gets its browser from the host delegate (the one `E2E_CHROMIUM_PATH` names), offers the agent
 * only its verbs, refuses the others `UNSUPPORTED_CAPABILITY`, records, and replays model-free.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../runner/report.js';
import type { StaticServer } from '../support/static-server.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { ensureBuilt } from './support/build.js';
import { runE2E } from './support/e2e-process.js';
import { serveApp } from './support/fixture-servers.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/user-engine/', import.meta.url));

let app: StaticServer;
let work: string;
let marks: string;
let browserPath: string;

/** The system Chromium the wrapper starts. */
function systemChromium(): string {
  for (const folder of (process.env['PATH'] ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome']) if (existsSync(join(folder, name))) return join(folder, name);
  }
  throw new Error('no system Chromium on PATH');
}

function stepOf(report: Report | undefined, title: string) {
  return report?.tests.find((test) => test.titlePath.at(-1) === title)?.attempts.at(-1)?.steps[0];
}

beforeAll(async () => {
  ensureBuilt();
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  app = await serveApp();
  work = mkdtempSync(join(tmpdir(), 'e2e-user-engine-'));
  marks = join(work, 'launches.txt');
  // A browser of the user's choosing: it notes each start, so the run shows E2E_CHROMIUM_PATH was followed.
  browserPath = join(work, 'my-chromium');
  writeFileSync(browserPath, `#!/bin/sh\necho started >> '${marks}'\nexec '${systemChromium()}' "$@"\n`);
  chmodSync(browserPath, 0o755);
}, scaledTimeout(60_000));

afterAll(async () => {
  await app?.close();
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('an engine of the user\'s own that wraps web() with fewer verbs', () => {
  it('records with the browser E2E_CHROMIUM_PATH names, offers only its verbs, refuses the others, and replays model-free', async () => {
    const env = { E2E_FIXTURE_APP_URL: app.origin, E2E_CHROMIUM_PATH: browserPath };
    const record = await runE2E(['record'], { cwd: FIXTURE, env });
    expect(record.exitCode, record.stdout + record.stderr).toBe(0);
    expect(readFileSync(marks, 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(1);

    const scripted = stepOf(record.report, 'a wrapper engine with fewer verbs runs a scripted step');
    expect(scripted).toMatchObject({ status: 'passed', cache: { mode: 'missed', write: 'saved' } });
    expect(scripted?.summary).toBe('platform web; verbs tap type press screenshot; navigate UNSUPPORTED_CAPABILITY; doubleTap UNSUPPORTED_CAPABILITY; tapAt done; added Buy milk');

    const built = stepOf(record.report, 'the built-in agent is offered only the verbs the engine declares');
    expect(built).toMatchObject({ status: 'passed', cache: { mode: 'missed', write: 'saved' } });
    const offered = built?.summary.replace(/^offered /, '').split(' ') ?? [];
    expect(offered).toEqual(expect.arrayContaining(['tap', 'type', 'press', 'complete_step']));
    for (const absent of ['navigate', 'back', 'tap_at', 'double_tap', 'right_click', 'hover', 'select', 'check', 'scroll', 'drag']) expect(offered).not.toContain(absent);

    const replay = await runE2E(['replay'], { cwd: FIXTURE, env });
    expect(replay.exitCode, replay.stdout + replay.stderr).toBe(0);
    expect(replay.stdout + replay.stderr).toContain('Cache  2 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified');
  }, scaledTimeout(240_000));
});

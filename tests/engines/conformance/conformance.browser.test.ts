/**
 * The engine conformance suite (`e2e/conformance`, DESIGN §8) on every engine of the project:
 * the web engine on a page served from 127.0.0.1, an engine of a user's own that spreads `web()`
 * and declares fewer verbs, and the in-memory test engine. Each engine plugs in with a small
 * adapter (a subject: the engine, its app, a broken copy of it, the field the scenario types
 * into); every check of the suite runs on each.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import { conformanceChecks, type ConformanceSubject } from '../../../conformance/index.js';
import type { Engine } from '../../../contract/engine.js';
import { memoryEngine } from '../../executor/support/memory-app.js';
import { scaledTimeout } from '../../support/load-scaled.js';
import { testWeb } from '../../support/test-browser.js';
import { serveStatic, type StaticServer } from '../../support/static-server.js';

const APP = fileURLToPath(new URL('./app/', import.meta.url));
/** The echo page with its planted regression: Enter adds nothing. */
const BROKEN_PAGE = readFileSync(join(APP, 'echo.html'), 'utf8').replace('const broken = false;', 'const broken = true;');

// Served before the checks are listed: each subject names its URLs, and the checks a subject gets depend on it.
const server: StaticServer = await serveStatic(APP);
// The broken build of the page (Enter does nothing) is served at the same URL while it is in place.
let brokenBuild = false;
server.route((request, response) => {
  if (!brokenBuild || request.url !== '/echo.html') return false;
  response.writeHead(200, { 'content-type': 'text/html' }).end(BROKEN_PAGE);
  return true;
});
// The web engine on this worker's shared Chromium (the browser tier's, tests/support/test-browser.ts).
const webEngine = testWeb();
// A user's engine: the web engine with fewer verbs, made by spreading it (README "Writing an engine").
const liteEngine: Engine = { ...webEngine, name: 'web-lite', verbs: ['tap', 'type', 'press', 'screenshot'] };

afterAll(async () => {
  await webEngine.dispose?.();
  await server.close();
});

/** A subject on the echo page: type into "New item", Enter adds it to the list (not with ?broken=1). */
function echoPage(name: string, engine: Engine): ConformanceSubject {
  return {
    name,
    engine,
    app: { app: { url: server.origin }, open: `${server.url}echo.html`, prepare: () => void (brokenBuild = false) },
    broken: { app: { url: server.origin }, open: `${server.url}echo.html`, prepare: () => void (brokenBuild = true) },
    field: { role: 'textbox', name: 'New item' },
    secure: { role: 'textbox', name: 'Password' },
    timeoutMs: scaledTimeout(10_000),
    replayWaitMs: scaledTimeout(2_000),
  };
}

const SUBJECTS: ConformanceSubject[] = [
  echoPage('web', webEngine),
  echoPage('web-lite', liteEngine),
  // The memory app shows its password's value on purpose (the runner's redaction is tested on it), so no secure field here.
  {
    name: 'memory',
    engine: memoryEngine(),
    app: { app: {} },
    broken: { app: { brokenSubmit: true } },
    field: { role: 'textbox', name: 'What needs to be done?' },
    timeoutMs: scaledTimeout(5_000),
    replayWaitMs: scaledTimeout(1_000),
  },
];

for (const subject of SUBJECTS) {
  describe(`the ${subject.name} engine keeps the engine contract`, () => {
    for (const check of conformanceChecks(subject)) it(check.name, () => check.run(), scaledTimeout(60_000));
  });
}

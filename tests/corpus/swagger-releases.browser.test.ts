/**
 * The release corpus: one flow recorded on a release of Swagger UI (the built UI that
 * `swagger-ui-dist` publishes to npm) and replayed read-only on releases several majors apart,
 * with real markup changes between them (landmarks, an expand arrow beside each summary button,
 * a renamed "Authorize" in a modal that has no dialog role, a request body in a tab panel).
 * Each release is served at the same origin with a local OpenAPI file and API, no network.
 *
 * A capture listener in the page logs every trusted event with the control it landed on
 * (`LANDING_LISTENER`): no action, replayed or not, may land on a control other than the one
 * its step is about. A step counts as *replayed* when it self-finalized with no executor call,
 * *handed off* otherwise, and as a *false pass* when it self-finalized but the step's `expect`
 * then failed. The table is printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../cache-format/index.js';
import { surfaceOf } from '../../engines/web/index.js';
import { testWeb } from '../support/test-browser.js';
import type { Engine } from '../../contract/engine.js';
import { startAttempt } from '../support/attempt-harness.js';
import type { LiveScreen } from '../support/live-screen.js';
import { folderRoute, serveStatic, type StaticServer } from '../support/static-server.js';
import { corpusTable, emptyTally, playCorpusStep, tallyStep, type CorpusTally } from './support/corpus-step.js';
import { API_KEY, LANDING_LISTENER, PET_BODY, SWAGGER_STEPS, swaggerExecutor } from './support/swagger-steps.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/swagger', import.meta.url));
const require = createRequire(import.meta.url);
/** The releases, as devDependencies under npm aliases (`swagger-ui-dist-v4` is `swagger-ui-dist@4.19.1`). */
const RELEASES = ['swagger-ui-dist-v3', 'swagger-ui-dist-v4', 'swagger-ui-dist-v5'] as const;
const RECORDED_ON = 'swagger-ui-dist-v4';

function releaseFolder(release: string): string {
  return dirname(require.resolve(`${release}/package.json`));
}

function releaseVersion(release: string): string {
  return (require(`${release}/package.json`) as { version: string }).version;
}

interface ReleaseRun extends CorpusTally {
  release: string;
  /** Events that landed on a control their step is not about. */
  misdirected: string[];
  /** The request the flow means reached the API (the typed body, the applied key). */
  requestSent: boolean;
}

let server: StaticServer;
let engine: Engine;
let release: string = RECORDED_ON;
const cacheFolder = mkdtempSync(join(tmpdir(), 'e2e-releases-'));
/** What the local API was sent during the current run. */
const received: string[] = [];
/** The request the flow means: the typed body, with the applied key. */
const SENT = `POST /api/pets ${API_KEY} ${PET_BODY}`;

beforeAll(async () => {
  server = await serveStatic(FIXTURES);
  const releaseRoute = folderRoute(() => releaseFolder(release));
  server.route(async (request, response) => {
    const url = request.url ?? '/';
    if (url.startsWith('/release/')) {
      request.url = url.slice('/release'.length);
      return releaseRoute(request, response);
    }
    if (url.startsWith('/api/')) {
      let body = '';
      for await (const chunk of request) body += String(chunk);
      received.push(`${request.method ?? ''} ${url} ${request.headers['x-api-key'] ?? '-'} ${body}`);
      response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 7, name: 'Rex' }));
      return true;
    }
    return false;
  });
  engine = testWeb();
});
afterAll(async () => {
  await engine.dispose?.();
  await server.close();
  rmSync(cacheFolder, { recursive: true, force: true });
});

/** Run the flow on one release: recording (read-write) or replaying (read-only). */
async function runFlow(name: string, mode: 'read-write' | 'read-only'): Promise<ReleaseRun> {
  release = name;
  received.length = 0;
  const instance = await engine.start({ baseUrl: server.url });
  const live: LiveScreen = { server, engine, instance, open: () => instance.observe(), close: () => instance.close() };
  const run: ReleaseRun = { ...emptyTally(), release: `${name.replace('swagger-ui-dist-', '')} (${releaseVersion(name)})`, misdirected: [], requestSent: false };
  try {
    const page = surfaceOf(engine).page();
    await page.addInitScript(LANDING_LISTENER);
    await instance.session.open(`${server.url}/`);
    await page.waitForSelector('#operations-pets-addPet', { timeout: scaledTimeout(30_000) });
    const executor = swaggerExecutor();
    const store = new FileCacheStore(cacheFolder, { readOnly: mode === 'read-only' });
    const attempt = startAttempt(live, { cache: { store, mode, waitForTargetMs: scaledTimeout(2_000) }, executor, context: 'An API explorer.' });
    let allPassed = true;
    for (const step of SWAGGER_STEPS) {
      const played = await playCorpusStep(attempt, executor, step, page);
      const landed = await page.evaluate(() => (window as unknown as { __landed: string[] }).__landed.splice(0));
      for (const event of landed) {
        const control = event.slice(event.indexOf(' ') + 1);
        if (!step.lands.includes(control)) run.misdirected.push(`${step.instruction}: ${event}`);
      }
      allPassed &&= played.verified;
      tallyStep(run, step.instruction, played);
    }
    await attempt.finish(allPassed);
    run.requestSent = received.includes(SENT);
  } finally {
    await instance.close();
  }
  return run;
}

function table(runs: readonly ReleaseRun[]): string {
  const rows = [
    ['release', 'replayed', 'handed off', 'false passes', 'misdirected actions', 'failed expects', 'request sent'],
    ...runs.map((run) => [run.release, run.replayed, run.handedOff, run.falsePasses, run.misdirected.length, run.failedExpects, run.requestSent ? 'yes' : 'no'].map(String)),
  ];
  return corpusTable(rows);
}

describe('Swagger UI across real releases', () => {
  const runs: ReleaseRun[] = [];

  it(`records the flow on ${RECORDED_ON} with every step verified and every action on its control`, async () => {
    const run = await runFlow(RECORDED_ON, 'read-write');
    runs.push(run);
    expect(run.failedExpects, run.details.join('\n')).toBe(0);
    expect(run.misdirected).toEqual([]);
    await expect(new FileCacheStore(cacheFolder, { readOnly: true }).list()).resolves.toHaveLength(SWAGGER_STEPS.length);
    // The flow really reached the API: the body typed and the key applied.
    expect(run.requestSent, received.join('\n')).toBe(true);
    const again = await runFlow(RECORDED_ON, 'read-only');
    runs.push(again);
    expect(again.replayed, again.details.join('\n')).toBe(SWAGGER_STEPS.length);
  }, scaledTimeout(300_000));

  it('replays on the other releases without acting on a lookalike or passing falsely', async () => {
    const replays: ReleaseRun[] = [];
    for (const name of RELEASES.filter((candidate) => candidate !== RECORDED_ON)) replays.push(await runFlow(name, 'read-only'));
    runs.push(...replays);
    for (const run of replays) {
      expect(run.misdirected, `${run.release}: ${run.details.join('; ')}`).toEqual([]);
      expect(run.falsePasses, `${run.release}: ${run.details.join('; ')}`).toBe(0);
      // Replayed or handed off, the request that reached the API is the one the flow meant.
      expect(run.requestSent, `${run.release}: ${run.details.join('; ')}`).toBe(true);
    }
    // Across majors with real markup changes, 9 of the 10 steps still replay with no model (README, "Release corpus"):
    // what a step produced is required, and v5's reworked tabs are met in a changed form.
    expect(replays.reduce((sum, run) => sum + run.replayed, 0), replays.flatMap((run) => run.details).join('\n')).toBeGreaterThanOrEqual(9);
  }, scaledTimeout(600_000));

  afterAll(() => {
    const replays = runs.slice(2);
    const replayed = replays.reduce((sum, run) => sum + run.replayed, 0);
    const steps = replays.length * SWAGGER_STEPS.length;
    console.log(`\nSwagger UI releases (recorded on ${RECORDED_ON}, ${SWAGGER_STEPS.length} steps per release)\n${table(runs)}\nreplayed with no model on the other releases: ${replayed} of ${steps}\n`);
    for (const run of runs) for (const detail of [...run.details, ...run.misdirected.map((event) => `misdirected: ${event}`)]) console.log(`  ${run.release}: ${detail}`);
  });
});

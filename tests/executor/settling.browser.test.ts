/**
 * What the model is shown is read after the effect, in real Chromium: an action's result
 * waits past the focus a tapped button takes, and a step's first screen waits for a
 * client-rendered app to mount.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../executor/create-agent.js';
import type { Engine } from '../../contract/engine.js';
import { testWeb } from '../support/test-browser.js';
import { htmlPages, serveStatic, type StaticServer } from '../support/static-server.js';
import { callTools, findId, scriptedModel, throwScriptErrors, type ScriptTurn } from './support/scripted-model.js';
import { startAttempt, startPoliced } from '../support/attempt-harness.js';
import { scaledTimeout } from '../support/load-scaled.js';

// Served from `examples/`, so todomvc-common finds no learn.json and adds no sidebar.
const EXAMPLES = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples');

/** A button that takes focus when clicked and shows its content 800 ms later, with no request. */
const DELAYED_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Delayed</title></head><body><main>
<button type="button" id="show">Show details</button><div id="details"></div>
<script>
  document.getElementById('show').addEventListener('click', () => {
    setTimeout(() => { document.getElementById('details').innerHTML = '<p role="status">Details loaded</p>'; }, 800);
  });
</script></main></body></html>`;

let site: StaticServer;
let engine: Engine;

beforeAll(async () => {
  site = await serveStatic(EXAMPLES);
  site.route(htmlPages(new Map([['/delayed', DELAYED_PAGE]])));
  engine = testWeb();
});

afterEach(() => {
  throwScriptErrors();
});

afterAll(async () => {
  await engine.dispose?.();
  await site.close();
});

/** Open `path` in a fresh attempt and run one act step of the built-in agent on `turns`. */
async function actOn(path: string, turns: ScriptTurn[]) {
  const { instance, police } = await startPoliced(engine, site.url);
  try {
    await instance.session.open(`${site.url}${path}`);
    const { runner } = police(startAttempt({ instance, engine, origin: site.origin }, { executor: createAgent({ model: scriptedModel(turns) }) }));
    return await runner.runStep('act', 'look at the app');
  } finally {
    await instance.close();
  }
}

describe('settling', () => {
  it('reports a tapped button after its content arrived, not when it took focus', async () => {
    let result = '';
    const outcome = await actOn('delayed', [
      ({ text }) => callTools(['tap', { target: findId(text, 'button', 'Show details') }]),
      ({ latest }) => {
        result = latest;
        return callTools(['complete_step', { status: 'passed', summary: 'Details shown.' }]);
      },
    ]);
    expect(outcome.verdict.status).toBe('passed');
    expect(result).toMatch(/^tap #\S+: done\./);
    expect(result).toMatch(/added #\S+ status "" text="Details loaded"|added #\S+ status "Details loaded"/);
  });

  it('shows react TodoMVC with its textbox on the first screen of 20 fresh loads out of 20', async () => {
    // One attempt, the page loaded afresh before each of its 20 steps: what is tested is a step's first
    // screen after a load (react mounts after its JSX is fetched and compiled in the page, after the load
    // event about half the time, whether the context is new or not), and a context per load cost ~1 CPU-s.
    let withTextbox = 0;
    // The step's own message holds its first screen (earlier steps are named there, their screens are not).
    const turns: ScriptTurn[] = Array.from({ length: 20 }, () => ({ latest }) => {
      if (/#\S+ textbox "What needs to be done\?"/.test(latest)) withTextbox++;
      return callTools(['complete_step', { status: 'passed', summary: 'Looked.' }]);
    });
    const { instance, police } = await startPoliced(engine, site.url);
    try {
      const { runner } = police(startAttempt({ instance, engine, origin: site.origin }, { executor: createAgent({ model: scriptedModel(turns) }) }));
      for (let load = 0; load < 20; load++) {
        await instance.session.open(`${site.url}react/index.html`);
        const outcome = await runner.runStep('act', `look at the app, load ${load + 1}`);
        expect(outcome.verdict.status).toBe('passed');
      }
    } finally {
      await instance.close();
    }
    expect(withTextbox).toBe(20);
  }, scaledTimeout(120_000));
});

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isE2EError } from '../../../errors/index.js';
import type { EngineInstance, EngineObservation } from '../../../contract/engine.js';
import { shapeOf } from '../../../step/screen-text.js';
import { settleAfterAction } from '../../../step/settle.js';
import { allNodes, nodeNamed } from '../../support/screen-tree.js';
import { scaledTimeout } from '../../support/load-scaled.js';
import { htmlPages, serveStatic, type StaticServer } from '../../support/static-server.js';
import { surfaceOf } from '../../../engines/web/index.js';
import { testWeb } from '../../support/test-browser.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'engines', 'web', 'fixtures');
const TIMEOUT = { timeoutMs: 5000 };

/** A page whose first script replaces its timers with ones that never fire (as a fake clock could). */
const STUBBED_TIMERS_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Stubbed</title>
<script>window.setTimeout = () => 0; window.clearTimeout = () => undefined;</script></head>
<body><button type="button">Go</button></body></html>`;

const engine = testWeb();
let server: StaticServer;
let attempt: EngineInstance | undefined;

beforeAll(async () => {
  server = await serveStatic(FIXTURES);
  server.route(async (request, response) => {
    if (request.url !== '/slow' && request.url !== '/slower') return false;
    await new Promise((resolve) => setTimeout(resolve, request.url === '/slow' ? 300 : 1500));
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return true;
  });
  server.route(htmlPages(new Map([['/stubbed-timers', STUBBED_TIMERS_PAGE]])));
});
afterEach(async () => {
  await attempt?.close();
  attempt = undefined;
});
afterAll(async () => {
  await engine.dispose?.();
  await server.close();
});

/**
 * A fresh attempt on the changes fixture, its first observation, and the settle's calls in
 * order (`observe` and `wait`): what it did, which load does not change, unlike how often.
 */
async function open(): Promise<{ instance: EngineInstance; screen: EngineObservation; observe: () => Promise<EngineObservation>; calls: () => string[] }> {
  attempt = await engine.start({ baseUrl: server.url });
  await attempt.session.open(server.url + 'changes.html');
  const instance = attempt;
  const calls: string[] = [];
  const observe = (): Promise<EngineObservation> => {
    calls.push('observe');
    return instance.observe();
  };
  const waitForChange = instance.waitForChange!.bind(instance);
  instance.waitForChange = (since, options) => {
    calls.push('wait');
    return waitForChange(since, options);
  };
  return { instance, screen: await instance.observe(), observe, calls: () => calls };
}

/** Settle after an action the way the runner does, with the engine's change wait. */
function settle(instance: EngineInstance, observe: () => Promise<EngineObservation>, before: EngineObservation): Promise<EngineObservation> {
  return settleAfterAction(observe, shapeOf(before), { waitForChange: instance.waitForChange!.bind(instance), beforeMark: before.mark });
}

/** Whether every observation after the first came after a wait in the engine: no polling. */
function observedOnlyAfterWaits(calls: string[]): boolean {
  return calls[0] === 'observe' && calls.every((call, index) => call !== 'observe' || index === 0 || calls[index - 1] === 'wait');
}

/** Milliseconds `work` took, with its result. */
async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

describe('web engine waitForChange', () => {
  it('marks every observation, and the mark holds while only the clock ticks', async () => {
    const { instance, screen } = await open();
    expect(screen.mark).toMatch(/\S/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await instance.observe()).mark).toBe(screen.mark);
  });

  it('does not count the engine marking nodes for a masked screenshot as change', async () => {
    const { instance, screen } = await open();
    await instance.screenshot({ mask: [nodeNamed(screen.root, 'heading', 'Changes')] });
    expect((await instance.waitForChange!(screen.mark!, { until: 'change', maxMs: 0 })).changed).toBe(false);
  });

  it('sees a mutation that comes after the action', async () => {
    const { instance, screen } = await open();
    // The action arms the page; the mutation comes when the test calls it, after the wait began,
    // so no timer of the page races the observation on a busy machine.
    await instance.perform(nodeNamed(screen.root, 'button', 'Arm'), { verb: 'tap' }, TIMEOUT);
    // The tap's own focus change is news too; wait from the screen after it.
    const focused = await instance.observe();
    let mutatedAt = Number.POSITIVE_INFINITY;
    const waited = instance.waitForChange!(focused.mark!, { until: 'change', maxMs: scaledTimeout(5000) }).then((result) => ({ result, at: performance.now() }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    mutatedAt = performance.now();
    await surfaceOf(engine).page().evaluate(() => (window as unknown as { addLater(): void }).addLater());
    const { result, at } = await waited;
    expect(result.changed).toBe(true);
    expect(result.mark).not.toBe(focused.mark);
    // It waited for the mutation: nothing before it counted as change.
    expect(at).toBeGreaterThan(mutatedAt);
    expect(allNodes((await instance.observe()).root).some((node) => node.name === 'Added on call' || node.text === 'Added on call')).toBe(true);
  });

  it('settles on the screen the later mutation made, observing only after the engine waited', async () => {
    const { instance, screen, observe, calls } = await open();
    await instance.perform(nodeNamed(screen.root, 'button', 'Later'), { verb: 'tap' }, TIMEOUT);
    // The tap focused the button at once; settle from that screen, as a second action would.
    const focused = await instance.observe();
    const settled = await settle(instance, observe, focused);
    expect(allNodes(settled.root).some((node) => node.name === 'Added later' || node.text === 'Added later')).toBe(true);
    // Polling would observe again and again with no wait in the engine between.
    expect(observedOnlyAfterWaits(calls()), calls().join(' ')).toBe(true);
  });

  it('does not count a ticking clock or timer as change', async () => {
    const { instance, screen } = await open();
    const { result, ms } = await timed(() => instance.waitForChange!(screen.mark!, { until: 'change', maxMs: 600 }));
    expect(result).toEqual({ changed: false, mark: screen.mark });
    expect(ms).toBeGreaterThanOrEqual(590);
    // And the page counts as quiet while they tick.
    // Quiet well before the cap: a wait that counted the ticks would run to maxMs.
    const quiet = await timed(() => instance.waitForChange!(screen.mark!, { until: 'quiet', quietMs: 30, maxMs: 3000 }));
    expect(quiet.ms).toBeLessThan(scaledTimeout(2_500));
  });

  it('sees a navigation, and settling reports the page a tapped link opened', async () => {
    const { instance, screen, observe } = await open();
    await instance.perform(nodeNamed(screen.root, 'link', 'Second page'), { verb: 'tap' }, TIMEOUT);
    const report = await instance.waitForChange!(screen.mark!, { until: 'change', maxMs: 2000 });
    expect(report.changed).toBe(true);
    const settled = await settle(instance, observe, screen);
    expect(settled.url).toBe(server.url + 'second.html');
    expect(nodeNamed(settled.root, 'heading', 'Second page')).toBeDefined();
  });

  it('sees a history navigation that changes nothing but the address', async () => {
    const { instance, screen } = await open();
    await instance.perform(nodeNamed(screen.root, 'button', 'Push'), { verb: 'tap' }, TIMEOUT);
    const report = await instance.waitForChange!(screen.mark!, { until: 'change', maxMs: 2000 });
    expect(report.changed).toBe(true);
  });

  it('sees a typed value, which mutates nothing, at once', async () => {
    const { instance, screen, observe } = await open();
    await instance.perform(nodeNamed(screen.root, 'textbox', 'Name'), { verb: 'type', value: 'Ada', replace: true }, TIMEOUT);
    const { result, ms } = await timed(() => settle(instance, observe, screen));
    expect(nodeNamed(result.root, 'textbox', 'Name').value).toBe('Ada');
    expect(ms).toBeLessThan(scaledTimeout(1000));
  });

  it('waits for quiet until a request the action started has answered', async () => {
    const { instance, screen, observe } = await open();
    await instance.perform(nodeNamed(screen.root, 'button', 'Load'), { verb: 'tap' }, TIMEOUT);
    const settled = await settle(instance, observe, screen);
    expect(allNodes(settled.root).some((node) => node.text === 'Loaded: ok' || node.name === 'Loaded: ok')).toBe(true);
  });

  it('waits for quiet past a request made before the mark only when asked to count every request', async () => {
    const { instance } = await open();
    const page = surfaceOf(engine).page();
    // A request the page made before the mark, as an app still loading its code would.
    const requested = page.waitForRequest('**/slower');
    await page.evaluate(() => {
      void fetch('/slower').then(async (response) => {
        document.body.append(await response.text());
      });
      // A change after the request began, so the next observation hands out a new mark.
      document.body.append('started');
    });
    await requested;
    const mark = (await instance.observe()).mark!;
    const sinceMark = await timed(() => instance.waitForChange!(mark, { until: 'quiet', quietMs: 30, maxMs: 3000 }));
    expect(sinceMark.result.changed).toBe(false);
    const all = await timed(() => instance.waitForChange!(mark, { until: 'quiet', quietMs: 30, maxMs: 3000, requests: 'all' }));
    expect(all.result.changed).toBe(true);
    expect(sinceMark.ms + all.ms).toBeGreaterThan(500);
  });

  it('takes the pointer passing over the page background for no change, and over an element for one', async () => {
    const { instance, screen } = await open();
    const page = surfaceOf(engine).page();
    // What Chromium reports by itself after a new document's first layout, the pointer resting at 0,0.
    await page.evaluate(() => {
      for (const target of [document.documentElement, document.body]) {
        for (const type of ['mouseover', 'mouseout']) target.dispatchEvent(new MouseEvent(type, { bubbles: true }));
      }
    });
    expect((await instance.waitForChange!(screen.mark!, { until: 'change', maxMs: 0 })).changed).toBe(false);
    await page.evaluate(() => document.querySelector('h1')!.dispatchEvent(new MouseEvent('mouseover', { bubbles: true })));
    expect((await instance.waitForChange!(screen.mark!, { until: 'change', maxMs: 0 })).changed).toBe(true);
  });

  it('holds the 2 s cap when the action changes nothing, observing only after the engine waited', async () => {
    const { instance, screen, observe, calls } = await open();
    await instance.perform(nodeNamed(screen.root, 'heading', 'Changes'), { verb: 'hover' }, TIMEOUT);
    const { ms } = await timed(() => settle(instance, observe, screen));
    expect(ms).toBeGreaterThanOrEqual(1990);
    expect(ms).toBeLessThan(scaledTimeout(2600));
    expect(observedOnlyAfterWaits(calls()), calls().join(' ')).toBe(true);
  });

  it('answers a wait for quiet on a page whose first script replaced its timers with ones that never fire', async () => {
    attempt = await engine.start({ baseUrl: server.url });
    await attempt.session.open(server.url + 'stubbed-timers');
    const screen = await attempt.observe();
    await surfaceOf(engine).page().evaluate(() => document.body.append('Changed'));
    // The monitor took the page's timers before its scripts ran; with the stubs the wait would run out maxMs.
    const waited = await attempt.waitForChange!(screen.mark!, { until: 'quiet', quietMs: 1000, maxMs: 600_000 });
    expect(waited.changed).toBe(true);
  });

  it('answers at once with maxMs 0, and rejects with CANCELLED when the signal aborts', async () => {
    const { instance, screen } = await open();
    const { result, ms } = await timed(() => instance.waitForChange!(screen.mark!, { until: 'change', maxMs: 0 }));
    expect(result.changed).toBe(false);
    // Loose on purpose (a shared machine): a wait that ignored maxMs 0 would run to the 5 s below or hang.
    expect(ms).toBeLessThan(scaledTimeout(2_000));
    const controller = new AbortController();
    const waiting = instance.waitForChange!(screen.mark!, { until: 'change', maxMs: 5000, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error: unknown = await waiting.catch((caught: unknown) => caught);
    expect(isE2EError(error) && error.code).toBe('CANCELLED');
  });
});

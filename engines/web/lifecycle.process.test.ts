import { chmodSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserServer } from '@playwright/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isE2EError } from '../../errors/index.js';
import { ENGINE_CONTRACT_VERSION, VERBS, type BrowserRequest, type Engine, type EngineInstance } from '../../contract/engine.js';
import { nodeNamed } from '../../tests/support/screen-tree.js';
import { serveStatic, type StaticServer } from '../../tests/support/static-server.js';
import { tempFolders } from '../../tests/support/temp-folders.js';
import { CHROMIUM_LAUNCH_ARGUMENTS, resolveLaunchOptions } from './browser-discovery.js';
import { surfaceOf, web } from './index.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const ENV = { PATH: process.env['PATH'], E2E_CHROMIUM_PATH: process.env['E2E_CHROMIUM_PATH'] };
const TIMEOUT = { timeoutMs: 5000 };
const pathFolder = tempFolders('e2e-path-');

// One local browser for the file: the remote-server test and the host-page test share it.
let browserServer: BrowserServer;
let hostBrowser: Browser;
let server: StaticServer;
let other: StaticServer;
const engine = web({ env: ENV });
const started: EngineInstance[] = [];

beforeAll(async () => {
  const launch = resolveLaunchOptions({ env: ENV });
  browserServer = await chromium.launchServer({ executablePath: launch.executablePath, args: launch.args, host: '127.0.0.1' });
  hostBrowser = await chromium.connect(browserServer.wsEndpoint());
  server = await serveStatic(FIXTURES);
  other = await serveStatic(FIXTURES);
  server.route((request, response) => {
    if (request.url === '/hang') return true; // never answers
    if (request.url !== '/redirect-away') return false;
    response.writeHead(302, { location: other.url + 'second.html' }).end();
    return true;
  });
});
afterEach(async () => {
  for (const instance of started.splice(0)) await instance.close();
});
afterAll(async () => {
  await engine.dispose?.();
  await hostBrowser.close();
  await browserServer.close();
  await server.close();
  await other.close();
});

/** Start an attempt and remember it for cleanup. */
async function start(on: Engine, options: Parameters<Engine['start']>[0]): Promise<EngineInstance> {
  const instance = await on.start(options);
  started.push(instance);
  return instance;
}

/** The code of what `work` threw. */
async function codeOf(work: Promise<unknown>): Promise<string | undefined> {
  return work.then(
    () => undefined,
    (error: unknown) => (isE2EError(error) ? error.code : `not an E2EError: ${String(error)}`),
  );
}

describe('web()', () => {
  it('describes itself as the web engine with every verb of the contract', () => {
    expect({ name: engine.name, platform: engine.platform, contractVersion: engine.contractVersion }).toEqual({ name: 'web', platform: 'web', contractVersion: ENGINE_CONTRACT_VERSION });
    expect(engine.verbs).toEqual(VERBS);
  });

  it('refuses an unknown browser with a did-you-mean', () => {
    let error: unknown;
    try {
      web({ browser: 'chromiun' as 'chromium' });
    } catch (caught) {
      error = caught;
    }
    expect(isE2EError(error) && error.code).toBe('INVALID_CONFIG');
    expect(String((error as Error).message)).toContain('did you mean `chromium`');
  });

  it('asks its test host for the browser discovery finds, or for the remote browser of connect', () => {
    expect(engine.location).toBe('url');
    const launch = engine.host?.browser?.(ENV);
    expect(launch?.kind).toBe('launch');
    expect(launch).toMatchObject({ args: [...CHROMIUM_LAUNCH_ARGUMENTS], headless: true });
    expect(launch?.kind === 'launch' ? launch.executablePath : '').toMatch(/chrom/);
    const remote = web({ connect: { wsEndpoint: 'ws://127.0.0.1:1/x' } });
    expect(remote.host?.browser?.(ENV)).toEqual({ kind: 'connect', wsEndpoint: 'ws://127.0.0.1:1/x' });
  });

  it("asks for a headless shell on PATH when the project runs headless, for a full Chromium when it shows the window, and keeps web({ headless })", () => {
    const folder = pathFolder();
    for (const name of ['chromium', 'chromium-headless-shell']) {
      writeFileSync(join(folder, name), '#!/bin/sh\n');
      chmodSync(join(folder, name), 0o755);
    }
    const env = { PATH: folder };
    const pathOf = (request: BrowserRequest | undefined): string | undefined => (request?.kind === 'launch' ? request.executablePath : undefined);
    expect(pathOf(web().host?.browser?.(env))).toBe(join(folder, 'chromium-headless-shell'));
    expect(web().host?.browser?.(env, { headless: true })).toMatchObject({ executablePath: join(folder, 'chromium-headless-shell'), headless: true });
    expect(web().host?.browser?.(env, { headless: false })).toMatchObject({ executablePath: join(folder, 'chromium'), headless: false });
    expect(web({ headless: true }).host?.browser?.(env, { headless: false })).toMatchObject({ executablePath: join(folder, 'chromium-headless-shell'), headless: true });
    expect(web({ headless: false }).host?.browser?.(env, { headless: true })).toMatchObject({ executablePath: join(folder, 'chromium'), headless: false });
  });

  it('gives a wrapper that spreads it the same delegate, so the host starts the same browser for it', () => {
    const wrapper: Engine = { ...engine, name: 'web-lite', verbs: ['tap', 'type', 'screenshot'] };
    expect(wrapper.host?.browser?.(ENV)).toEqual(engine.host?.browser?.(ENV));
  });

  it('reports no browser as ENVIRONMENT_UNAVAILABLE when the host asks for one', () => {
    let error: unknown;
    try {
      web().host?.browser?.({ E2E_CHROMIUM_PATH: '/nonexistent/chromium' });
    } catch (caught) {
      error = caught;
    }
    expect(isE2EError(error) && error.code).toBe('ENVIRONMENT_UNAVAILABLE');
  });
});

describe('attempts', () => {
  it('runs against a remote browser server through connect', async () => {
    const remote = web({ connect: { wsEndpoint: browserServer.wsEndpoint() } });
    try {
      const instance = await start(remote, { baseUrl: server.url });
      await instance.session.open(server.url + 'rerender.html');
      const screen = await instance.observe();
      await instance.perform(nodeNamed(screen.root, 'button', 'Re-render'), { verb: 'tap' }, TIMEOUT);
      expect(nodeNamed((await instance.observe()).root, 'listitem', 'Round 2').role).toBe('listitem');
    } finally {
      await remote.dispose?.();
    }
  });

  it('reports an unreachable browser server as ENVIRONMENT_UNAVAILABLE', async () => {
    const remote = web({ connect: { wsEndpoint: 'ws://127.0.0.1:9/nothing', timeoutMs: 2000 } });
    expect(await codeOf(remote.start({ baseUrl: server.url }))).toBe('ENVIRONMENT_UNAVAILABLE');
  });

  it("runs on the host's browser (as the test host hands it in): its own context, the page as the host's screen, closed with the attempt", async () => {
    let asked = 0;
    const instance = await engine.start({
      baseUrl: server.url,
      host: {
        browser: () => {
          asked++;
          return Promise.resolve(hostBrowser);
        },
      },
    });
    const page = surfaceOf(engine).page();
    expect(surfaceOf(engine).context().browser()).toBe(hostBrowser);
    expect(instance.host?.screen).toBe(page);
    await page.goto(server.url + 'second.html');
    const screen = await instance.observe();
    const heading = nodeNamed(screen.root, 'heading', 'Second page');
    expect(await instance.host?.lookedAt?.(page.getByRole('heading', { name: 'Second page' }))).toEqual([heading.id]);
    expect(await instance.host?.lookedAt?.(page.getByRole('heading', { name: 'No such heading' }))).toBeUndefined();
    await instance.close();
    expect(page.isClosed()).toBe(true);
    expect(asked).toBe(1);
    expect(hostBrowser.isConnected()).toBe(true);
    expect(() => surfaceOf(engine).page()).toThrow(/only usable during an attempt/);
  });

  it('has surfaceOf throw INVALID_STATE outside an attempt and INVALID_ARGUMENT for other engines', () => {
    const fresh = web();
    let state: unknown;
    try {
      surfaceOf(fresh).page();
    } catch (caught) {
      state = caught;
    }
    expect(isE2EError(state) && state.code).toBe('INVALID_STATE');
    const foreign: Engine = { ...fresh };
    expect(() => surfaceOf(foreign)).toThrow(/engine made by web\(\)/);
  });

  it('restarts into a fresh context: cookies gone, ids keep counting up', async () => {
    const instance = await start(engine, { baseUrl: server.url });
    await instance.session.open(server.url + 'second.html');
    const firstContext = surfaceOf(engine).context();
    await firstContext.addCookies([{ name: 'session', value: 'abc', url: server.url }]);
    const before = await instance.observe();
    await instance.session.restart();
    expect(surfaceOf(engine).context()).not.toBe(firstContext);
    expect(await surfaceOf(engine).context().cookies()).toEqual([]);
    await instance.session.open(server.url + 'second.html');
    const after = await instance.observe();
    expect(nodeNamed(after.root, 'heading', 'Second page').id).not.toBe(nodeNamed(before.root, 'heading', 'Second page').id);
  });

  it('reports a navigation that does not load in time as OPERATION_TIMEOUT', async () => {
    const instance = await start(engine, { baseUrl: server.url });
    const error = await instance.performOnPage({ verb: 'navigate', url: server.url + 'hang' }, { timeoutMs: 300 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as { engineCode?: string }).engineCode).toBe('OPERATION_TIMEOUT');
  });

  it('reports an app that does not answer as APP_UNREACHABLE', async () => {
    const instance = await start(engine, { baseUrl: server.url });
    expect(await codeOf(instance.session.open('http://127.0.0.1:9/'))).toBe('APP_UNREACHABLE');
  });
});

describe('navigation policy', () => {
  const sameOrigin = (url: string): boolean => url.startsWith(server.origin);

  it('aborts refused navigations before the other server receives them: links, goto and popups', async () => {
    const instance = await start(engine, { baseUrl: server.url, allowNavigation: sameOrigin });
    await instance.session.open(server.url + 'second.html');
    expect(await codeOf(instance.performOnPage({ verb: 'navigate', url: other.url + 'second.html' }, TIMEOUT))).toBe('POLICY_DENIED');
    const page = surfaceOf(engine).page();
    await page.setContent(`<a href="${other.url}rerender.html">Away</a> <a href="${other.url}second.html" target="_blank">Popup</a>`);
    const screen = await instance.observe();
    await instance.perform(nodeNamed(screen.root, 'link', 'Away'), { verb: 'tap' }, TIMEOUT);
    await instance.perform(nodeNamed(screen.root, 'link', 'Popup'), { verb: 'tap' }, TIMEOUT);
    // Proving that nothing arrives needs a moment for anything that would have been sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(other.requests).toEqual([]);
    expect(instance.session.url()).toBe(server.url + 'second.html');
  });

  it('lets listeners added later refuse too, and stops refusing once removed', async () => {
    const instance = await start(engine, { baseUrl: server.url });
    const seen: string[] = [];
    const stop = instance.onNavigationRequest?.((url) => {
      seen.push(new URL(url).pathname);
      return !url.endsWith('/rerender.html');
    });
    await instance.session.open(server.url + 'second.html');
    expect(await codeOf(instance.session.open(server.url + 'rerender.html'))).toBe('POLICY_DENIED');
    stop?.();
    await instance.session.open(server.url + 'rerender.html');
    expect(instance.session.url()).toBe(server.url + 'rerender.html');
    expect(seen).toEqual(['/second.html', '/rerender.html']);
  });

  it('stops a server redirect to a refused origin and reports POLICY_DENIED', async () => {
    const instance = await start(engine, { baseUrl: server.url, allowNavigation: sameOrigin });
    expect(await codeOf(instance.session.open(server.url + 'redirect-away'))).toBe('POLICY_DENIED');
    expect(instance.session.url().startsWith(other.origin)).toBe(false);
  });
});

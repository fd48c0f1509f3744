/**
 * `web()`: the Engine on Playwright and Chromium (DESIGN §8). Under a test host the browser is
 * the host's (asked for through the host delegate, `contract/host.ts`: discovery's launch
 * options, or `connect`); on its own the engine launches (or connects to) one on first use and
 * shares it. Every attempt gets a fresh context and page on it.
 */
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from '@playwright/test';
import { E2EError, didYouMean } from '../../errors/index.js';
import { ENGINE_CONTRACT_VERSION, VERBS, type Engine, type EngineInstance, type EngineStartOptions } from '../../contract/engine.js';
import type { BrowserRequest, BrowserWants, EngineHost, HostEnvironment, RecordingRequest } from '../../contract/host.js';
import { resolveLaunchOptions } from './browser-discovery.js';
import { changeMonitorInitScript } from './observe-page.js';
import { WebAttempt, type AttemptSurface } from './web-attempt.js';

/** Patch version of the web engine (not part of any cache key). */
export const WEB_ENGINE_VERSION = '0.1.0';

/** Viewport used when none is configured. */
export const DEFAULT_VIEWPORT = { width: 1280, height: 720 } as const;

/** Options of {@link web}. Every one has a default. */
export interface WebEngineOptions {
  /** Browser family. Only `chromium` today. Default `chromium`. */
  browser?: 'chromium';
  /** Viewport of each attempt's page. Default 1280×720. */
  viewport?: { width: number; height: number };
  /** Run against a remote Playwright browser server (`chromium.launchServer`). Default: launch locally. */
  connect?: { wsEndpoint: string; headers?: Record<string, string>; timeoutMs?: number };
  /** Attribute read as a node's test id. Default `data-testid`. */
  testIdAttribute?: string;
  /** Run headless. Default: as the project runs (`use.headless`, `--headed`) under the test host, else true. */
  headless?: boolean;
  /**
   * Environment for browser discovery (`E2E_CHROMIUM_PATH`, `PATH`); the CLI or runner entry
   * passes its `process.env`. Default: none (system folders are searched).
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** What {@link surfaceOf} hands an executor: the attempt's Playwright objects. */
export interface WebSurface {
  /** The attempt's page. @throws E2EError `INVALID_STATE` outside an attempt, and when no page is open. */
  page(): Page;
  /** The attempt's browser context. @throws E2EError `INVALID_STATE` outside an attempt. */
  context(): BrowserContext;
}

/** Per-engine state, kept off the public Engine object. */
interface WebEngineState {
  options: WebEngineOptions;
  browser: Promise<Browser> | undefined;
  current: WebAttempt | undefined;
}

const states = new WeakMap<Engine, WebEngineState>();

/** The state of a web engine, or an `INVALID_ARGUMENT` error for any other engine. */
function stateOf(engine: Engine, caller: string): WebEngineState {
  const state = states.get(engine);
  if (state === undefined) throw new E2EError('INVALID_ARGUMENT', `${caller} takes an engine made by web(), not "${engine.name}".`);
  return state;
}

/** True for a Playwright browser handed in by the host (duck-typed: works across Playwright copies). */
function isPlaywrightBrowser(value: unknown): value is Browser {
  return typeof value === 'object' && value !== null && typeof (value as { newContext?: unknown }).newContext === 'function' && typeof (value as { isConnected?: unknown }).isConnected === 'function';
}

/** Launch or connect the shared browser; a disconnected one is replaced on next use. */
async function browserOf(state: WebEngineState): Promise<Browser> {
  if (state.browser !== undefined) {
    const existing = await state.browser.catch(() => undefined);
    if (existing?.isConnected() === true) return existing;
  }
  const { options } = state;
  const starting: Promise<Browser> = options.connect !== undefined ? connectTo(options.connect) : launchLocal(options);
  state.browser = starting;
  starting.catch(() => {
    if (state.browser === starting) state.browser = undefined;
  });
  return starting;
}

/** Connect to a remote browser server. */
async function connectTo(connect: NonNullable<WebEngineOptions['connect']>): Promise<Browser> {
  try {
    return await chromium.connect(connect.wsEndpoint, { timeout: connect.timeoutMs ?? 30_000, ...(connect.headers === undefined ? {} : { headers: connect.headers }) });
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    throw new E2EError('ENVIRONMENT_UNAVAILABLE', `Could not connect to the browser server at ${connect.wsEndpoint} (${reason}). Start it with chromium.launchServer() or fix connect.wsEndpoint.`, { cause: error });
  }
}

/** Launch a local Chromium found by discovery. */
async function launchLocal(options: WebEngineOptions): Promise<Browser> {
  const launch = resolveLaunchOptions({ ...(options.env === undefined ? {} : { env: options.env }), headless: options.headless ?? true });
  try {
    return await chromium.launch(launch);
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    throw new E2EError('ENVIRONMENT_UNAVAILABLE', `Chromium at ${launch.executablePath} failed to start (${reason}). Reinstall it (\`apt-get install -y chromium\`) or set E2E_CHROMIUM_PATH.`, { cause: error });
  }
}

/**
 * Context options of an attempt. On the engine's own browser the viewport defaults to
 * {@link DEFAULT_VIEWPORT}; on the host's, only what `web()` was told is passed, so the
 * project's `use` options (viewport, locale, storage state…) apply as Playwright Test applies
 * them to every context a test creates.
 */
function contextOptionsOf(state: WebEngineState, hosted: boolean, recording: RecordingRequest | undefined): BrowserContextOptions {
  const viewport = state.options.viewport ?? (hosted ? undefined : DEFAULT_VIEWPORT);
  return {
    ...(viewport === undefined ? {} : { viewport }),
    ...(recording === undefined ? {} : { recordVideo: { dir: recording.dir, ...(recording.size === undefined ? {} : { size: recording.size }) } }),
  };
}

/** A fresh context and page on `browser`. */
async function newSurface(browser: Browser, options: BrowserContextOptions): Promise<AttemptSurface> {
  const context = await browser.newContext(options);
  try {
    // Before the first document: each one watches for change from its load on (see observe-page.ts).
    await context.addInitScript(changeMonitorInitScript());
    const page = await context.newPage();
    return { page, context, owned: true };
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}

/** The host's browser for this attempt, checked to be a Playwright browser. */
async function hostBrowser(browser: () => Promise<unknown>): Promise<Browser> {
  const given = await browser();
  if (!isPlaywrightBrowser(given)) throw new E2EError('ENGINE_FAILURE', 'The test host handed the web engine something that is not a Playwright browser.');
  return given;
}

/** True once `signal` aborted (a function, so narrowing does not outlive an await). */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Start one attempt. */
async function startAttempt(state: WebEngineState, start: EngineStartOptions): Promise<EngineInstance> {
  if (isAborted(start.signal)) throw new E2EError('CANCELLED', 'The attempt was cancelled before the browser started.');
  const fromHost = start.host?.browser;
  const browserFor = (): Promise<Browser> => (fromHost !== undefined ? hostBrowser(fromHost) : browserOf(state));
  const options = contextOptionsOf(state, fromHost !== undefined, start.host?.recording);
  const surface = await newSurface(await browserFor(), options);
  if (isAborted(start.signal)) {
    await surface.context.close().catch(() => undefined);
    throw new E2EError('CANCELLED', 'The attempt was cancelled while the browser started.');
  }
  const attempt: WebAttempt = await WebAttempt.start(surface, {
    testIdAttribute: state.options.testIdAttribute ?? 'data-testid',
    newSurface: async () => newSurface(await browserFor(), options),
    recording: start.host?.recording !== undefined,
    ...(start.allowNavigation === undefined ? {} : { allowNavigation: start.allowNavigation }),
    onClose: () => {
      if (state.current === attempt) state.current = undefined;
    },
  });
  state.current = attempt;
  return attempt;
}

/**
 * The browser the web engine asks its test host for (`EngineHost.browser`): the remote server
 * of `connect`, else the Chromium discovery finds in `environment` (`E2E_CHROMIUM_PATH`,
 * Playwright's installed browser, `PATH`: a headless shell first unless the window shows).
 * @throws E2EError `ENVIRONMENT_UNAVAILABLE` naming the places looked at and the fix.
 */
function browserRequestOf(options: WebEngineOptions, environment: HostEnvironment, wants: BrowserWants | undefined): BrowserRequest {
  const { connect } = options;
  if (connect !== undefined) {
    return { kind: 'connect', wsEndpoint: connect.wsEndpoint, ...(connect.headers === undefined ? {} : { headers: connect.headers }), ...(connect.timeoutMs === undefined ? {} : { timeoutMs: connect.timeoutMs }) };
  }
  const launch = resolveLaunchOptions({ env: environment, headless: options.headless ?? wants?.headless ?? true });
  return { kind: 'launch', executablePath: launch.executablePath, args: launch.args, headless: launch.headless };
}

/**
 * The web engine: Playwright driving Chromium. Declares every verb of the contract, and taps
 * that hold modifier keys.
 * @throws E2EError `INVALID_CONFIG` for an unknown browser or an empty test id attribute.
 */
export function web(options: WebEngineOptions = {}): Engine {
  const browser: string = options.browser ?? 'chromium';
  if (browser !== 'chromium') throw new E2EError('INVALID_CONFIG', `web({ browser: "${browser}" }) is not supported; use "chromium"${didYouMean(browser, ['chromium'])}.`);
  if (options.testIdAttribute !== undefined && options.testIdAttribute.trim() === '') throw new E2EError('INVALID_CONFIG', 'web({ testIdAttribute }) must name an attribute, e.g. "data-testid".');
  const state: WebEngineState = { options: { ...options }, browser: undefined, current: undefined };
  const host: EngineHost = { browser: (environment, wants) => browserRequestOf(state.options, environment, wants) };
  const engine: Engine = {
    name: 'web',
    version: WEB_ENGINE_VERSION,
    contractVersion: ENGINE_CONTRACT_VERSION,
    platform: 'web',
    location: 'url',
    host,
    verbs: VERBS,
    tapModifiers: true,
    start: (start) => startAttempt(state, start),
    dispose: async () => {
      const starting = state.browser;
      state.browser = undefined;
      const browserInstance = await starting?.catch(() => undefined);
      await browserInstance?.close().catch(() => undefined);
    },
  };
  states.set(engine, state);
  return engine;
}

/**
 * The attempt's Playwright page and context for an executor (DESIGN §3). Work done through
 * them skips authorization and the cache. The methods throw `INVALID_STATE` outside an attempt,
 * and `page()` also when the attempt's page was closed.
 * @throws E2EError `INVALID_ARGUMENT` for an engine not made by {@link web}.
 */
export function surfaceOf(engine: Engine): WebSurface {
  const state = stateOf(engine, 'surfaceOf');
  const current = (): WebAttempt => {
    const attempt = state.current;
    if (attempt === undefined || attempt.isClosed) throw new E2EError('INVALID_STATE', 'surfaceOf(engine) is only usable during an attempt (inside a test step).');
    return attempt;
  };
  return {
    page: () => {
      const page = current().page;
      if (page.isClosed()) throw new E2EError('INVALID_STATE', 'surfaceOf(engine).page(): no page is open in this attempt (it was closed); open one with app.open() first.');
      return page;
    },
    context: () => current().context,
  };
}

/**
 * The worker's browser, started only when something asks for it: an attempt whose engine's
 * host delegate declares `browser` (web-based engines), or a test that takes Playwright's own
 * `browser`, `context` or `page`. A test on an engine that declares none (a terminal) starts no
 * browser. One per worker, shared by its attempts and Playwright's fixtures, closed with it.
 */
import type { Browser, PlaywrightWorkerArgs, PlaywrightWorkerOptions } from '@playwright/test';
import { E2EError, isE2EError } from '../errors/index.js';
import type { Engine } from '../contract/engine.js';
import type { BrowserRequest, BrowserWants, HostEnvironment } from '../contract/host.js';

/** What starting the browser takes from Playwright Test's worker fixtures. */
export interface BrowserFixtures {
  playwright: PlaywrightWorkerArgs['playwright'];
  browserName: PlaywrightWorkerOptions['browserName'];
  launchOptions: PlaywrightWorkerOptions['launchOptions'];
  connectOptions: PlaywrightWorkerOptions['connectOptions'];
  /** The project's `use.headless` (false under `--headed`). */
  headless?: PlaywrightWorkerOptions['headless'];
}

/** The worker's browser, started on the first {@link WorkerBrowser.get}. */
export interface WorkerBrowser {
  /** The browser, started on the first call. Rejects `ENVIRONMENT_UNAVAILABLE` (the code leads the message) with the fix. */
  get(): Promise<Browser>;
  /** True once a browser was asked for. */
  readonly started: boolean;
  /** Close it, when one was started. */
  close(): Promise<void>;
}

/** The first line of an error, without Playwright's colours and call prefix. */
function headline(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.replace(/\u001b\[[0-9;]*m/g, '').split('\n').find((line) => line.trim() !== '') ?? '').replace(/^[\w.]+: /, '').trim();
}

/** An `ENVIRONMENT_UNAVAILABLE` whose message starts with its code, so the reporter can read it back for attempts that never started. */
function unavailable(message: string, cause?: unknown): E2EError {
  return new E2EError('ENVIRONMENT_UNAVAILABLE', `ENVIRONMENT_UNAVAILABLE: ${message}`, cause === undefined ? undefined : { cause });
}

/** The browser the engine asks for, as the host delegate says (`undefined`: it asks for none). */
function requestOf(engine: Engine | undefined, environment: HostEnvironment, wants: BrowserWants): BrowserRequest | undefined {
  const host = engine?.host;
  const ask = host?.browser;
  if (ask === undefined) return undefined;
  try {
    return ask.call(host, environment, wants);
  } catch (error) {
    if (isE2EError(error) && error.code === 'ENVIRONMENT_UNAVAILABLE') throw unavailable(error.message, error);
    throw error;
  }
}

/** Connect as Playwright's own fixture does: the remote server learns the launch options from a header. */
async function connect(fixtures: BrowserFixtures, wsEndpoint: string, options: { headers?: Readonly<Record<string, string>>; timeout?: number }, launchOptions: object): Promise<Browser> {
  const header = JSON.stringify(launchOptions).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  try {
    return await fixtures.playwright[fixtures.browserName].connect(wsEndpoint, { ...options, headers: { 'x-playwright-launch-options': header, ...options.headers } });
  } catch (error) {
    throw unavailable(`could not connect to the browser server at ${wsEndpoint} (${headline(error)}). Start it with chromium.launchServer() or fix the endpoint.`, error);
  }
}

/** Start the browser: the project's `connectOptions`, else the engine's request beneath the project's `launchOptions`. */
async function start(fixtures: BrowserFixtures, engine: Engine | undefined, environment: HostEnvironment): Promise<Browser> {
  const own = fixtures.launchOptions;
  if (fixtures.connectOptions !== undefined) {
    const { wsEndpoint, ...options } = fixtures.connectOptions;
    return connect(fixtures, wsEndpoint, options, own);
  }
  const request = requestOf(engine, environment, { headless: own?.headless ?? fixtures.headless ?? true });
  if (request?.kind === 'connect') {
    return connect(fixtures, request.wsEndpoint, { ...(request.headers === undefined ? {} : { headers: request.headers }), ...(request.timeoutMs === undefined ? {} : { timeout: request.timeoutMs }) }, own);
  }
  const launchOptions = {
    ...(request?.executablePath === undefined ? {} : { executablePath: request.executablePath }),
    ...(request?.args === undefined ? {} : { args: [...request.args] }),
    ...(request?.headless === undefined ? {} : { headless: request.headless }),
    ...own,
  };
  try {
    // Playwright puts the worker's defaults (tracing folders, headless) beneath these.
    return await fixtures.playwright[fixtures.browserName].launch(launchOptions);
  } catch (error) {
    // The launch's own call log repeats the whole command line; its first line is enough.
    const path = launchOptions.executablePath ?? `Playwright's ${fixtures.browserName}`;
    throw unavailable(
      `the browser at ${path} did not start (${headline(error)}). Point E2E_CHROMIUM_PATH at a Chromium executable (e.g. /usr/bin/chromium) or unset it to use a discovered one; install one with \`apt-get install -y chromium\`.`,
      error,
    );
  }
}

/** The worker's lazily started browser for `engine` (undefined outside an e2e project: Playwright's own launch). */
export function workerBrowser(fixtures: BrowserFixtures, engine: Engine | undefined, environment: HostEnvironment): WorkerBrowser {
  let starting: Promise<Browser> | undefined;
  return {
    get: () => (starting ??= start(fixtures, engine, environment)),
    get started() {
      return starting !== undefined;
    },
    close: async () => {
      const browser = await starting?.catch(() => undefined);
      await browser?.close({ reason: 'Test ended.' });
    },
  };
}

/**
 * The setup both origin fault files share: the app's and the other origin's servers and one
 * web engine per file, and a policed page on the app (allowed origins: the app's alone) that
 * is closed after each test. Registers its own vitest hooks.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Engine } from '../../../../contract/engine.js';
import { testWeb } from '../../../support/test-browser.js';
import { startOriginServers, type OriginServers } from './origin-servers.js';
import { openPolicedPage, type PolicedPage } from './policed-page.js';

/** The servers, engine and page opener of a test file. */
export interface OriginSuite {
  /** The servers, once the file's hooks ran. */
  readonly servers: OriginServers;
  readonly engine: Engine;
  /** A policed page on `path` of the app; closed after the current test. */
  open(path: string): Promise<PolicedPage>;
}

/** Start the servers and share one browser for the calling test file. */
export function originSuite(): OriginSuite {
  const engine = testWeb();
  let servers: OriginServers | undefined;
  let page: PolicedPage | undefined;
  beforeAll(async () => {
    servers = await startOriginServers();
  });
  afterEach(async () => {
    await page?.close();
    page = undefined;
  });
  afterAll(async () => {
    await engine.dispose?.();
    await servers?.close();
  });
  const started = (): OriginServers => {
    if (servers === undefined) throw new Error('The origin servers start in beforeAll; use them inside a test.');
    return servers;
  };
  return {
    engine,
    get servers() {
      return started();
    },
    async open(path) {
      page = await openPolicedPage(engine, `${started().app.origin}${path}`, [started().app.origin]);
      return page;
    },
  };
}

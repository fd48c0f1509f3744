/**
 * The web engine as a test gets it: in the browser tier, on the Chromium its worker shares
 * (`shared-chromium.ts`, through `web({ connect })`); anywhere else (a script, a tier with no
 * shared browser), on a Chromium of its own, found as the engine finds one.
 */
import type { Engine } from '../../contract/engine.js';
import { web, type WebEngineOptions } from '../../engines/web/index.js';
import { sharedChromiumEndpoint } from './shared-chromium-endpoint.js';

/** A web engine for a test: on the worker's shared Chromium when there is one, else launching its own. */
export function testWeb(options: Omit<WebEngineOptions, 'connect' | 'env'> = {}): Engine {
  const endpoint = sharedChromiumEndpoint();
  if (endpoint !== undefined) return web({ ...options, connect: { wsEndpoint: endpoint } });
  return web({ ...options, env: process.env });
}

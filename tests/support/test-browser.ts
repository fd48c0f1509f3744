/**
 * The web engine as a test gets it: in the browser tier, on the Chromium its worker shares
 * (`shared-chromium.ts`, through `web({ connect })`); anywhere else (a script, a tier with no
 * shared browser), on a Chromium of its own, found as the engine finds one.
 */
import { inject } from 'vitest';
import type { Engine } from '../../contract/engine.js';
import { web, type WebEngineOptions } from '../../engines/web/index.js';

/** This worker's shared browser server, when its tier has one. */
export function sharedChromiumEndpoint(): string | undefined {
  let endpoints: string[] | undefined;
  try {
    endpoints = inject('chromiumEndpoints');
  } catch {
    return undefined;
  }
  if (endpoints === undefined || endpoints.length === 0) return undefined;
  const pool = Number(process.env['VITEST_POOL_ID'] ?? '1');
  return endpoints[(Number.isInteger(pool) && pool > 0 ? pool - 1 : 0) % endpoints.length];
}

/** A web engine for a test: on the worker's shared Chromium when there is one, else launching its own. */
export function testWeb(options: Omit<WebEngineOptions, 'connect' | 'env'> = {}): Engine {
  const endpoint = sharedChromiumEndpoint();
  if (endpoint !== undefined) return web({ ...options, connect: { wsEndpoint: endpoint } });
  return web({ ...options, env: process.env });
}

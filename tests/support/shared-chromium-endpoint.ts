/**
 * Which of the shared browsers (`shared-chromium.ts`, the browser and process tiers' global
 * setup) this test worker uses: its own, by `VITEST_POOL_ID`. Apart from `test-browser.ts`, so
 * the process tier reads the endpoint without loading the web engine.
 */
import { inject } from 'vitest';

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

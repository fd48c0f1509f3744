/**
 * A document request answered from Node, for navigations whose redirects no page watch judges
 * (a popup's first load, child frames, a page without a CDP session): `route.fetch` with
 * redirects off, so a refused `Location` is seen before the browser could follow it. Method,
 * body and headers are the request's own; cookies come from and go back to the context's jar.
 */
import type { APIResponse, Route } from '@playwright/test';
import { redirectTarget } from './redirect-hop.js';
import type { HopJudge } from './redirect-watch.js';
import { messageOf } from '../../errors/index.js';

/** Chromium's error for a request that failed in Node, as near as a route can name it. */
function abortCodeOf(error: unknown): string {
  const message = messageOf(error);
  if (/ECONNREFUSED/.test(message)) return 'connectionrefused';
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return 'namenotresolved';
  if (/ECONNRESET|EPIPE/.test(message)) return 'connectionreset';
  if (/ETIMEDOUT|Timeout/i.test(message)) return 'timedout';
  if (/EHOSTUNREACH|ENETUNREACH/.test(message)) return 'addressunreachable';
  return 'failed';
}

/**
 * Fetch the request's answer and hand it to the browser, unless it redirects to a URL `judge`
 * refuses: then the navigation is aborted and the next hop never sent. An allowed redirect is
 * handed over as it is, and the browser follows it.
 */
export async function answerThroughFetch(route: Route, judge: HopJudge): Promise<void> {
  let response: APIResponse;
  try {
    // No timeout: a slow page is the browser's (and the caller's) to wait for, as without the guard.
    response = await route.fetch({ maxRedirects: 0, timeout: 0 });
  } catch (error) {
    await route.abort(abortCodeOf(error)).catch(() => undefined);
    return;
  }
  const next = redirectTarget(response.status(), response.headers()['location'], route.request().url());
  if (next !== undefined && !judge(next)) {
    await route.abort('aborted').catch(() => undefined);
    return;
  }
  await route.fulfill({ response }).catch(() => undefined);
}

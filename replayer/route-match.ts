/**
 * Route checks for replay: does the live page sit where the recording started (or ended)? The
 * rule: replayer/README.md, "Routes".
 */
import type { Route } from '../cache-format/entry.js';
import { formatRouteShape, routeOf, routeShape } from '../semantics/route-of.js';

/** The outcome of a route check. */
export type RouteMatch = { kind: 'match' } | { kind: 'mismatch'; detail: string };

/**
 * Compare a recorded route with a live URL (or route). An entry of an engine without a location
 * has no route (`undefined`): there is nothing to compare, so it matches.
 */
export function matchRoute(recorded: Route | undefined, actual: string | Route): RouteMatch {
  if (recorded === undefined) return { kind: 'match' };
  const actualRoute = typeof actual === 'string' ? routeOf(actual) : actual;
  if (actualRoute === undefined) return { kind: 'mismatch', detail: `expected ${formatRouteShape(routeShape(recorded))}, found ${String(actual)}` };
  const expectedShape = routeShape(recorded);
  const actualShape = routeShape(actualRoute);
  const expected = formatRouteShape(expectedShape);
  const found = formatRouteShape(actualShape);
  if (expected === found) return { kind: 'match' };
  let part: string;
  if (expectedShape.origin !== actualShape.origin) part = 'origin';
  else if (expectedShape.segments.join('/') !== actualShape.segments.join('/')) part = 'path';
  else part = 'query';
  return { kind: 'mismatch', detail: `${part} differs: expected ${expected}, found ${found}` };
}

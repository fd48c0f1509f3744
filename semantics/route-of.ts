/**
 * Routes: where a step starts and ends, as origin + path + query. The fragment is dropped
 * (client-side state, often a token after a login redirect).
 */
import type { Route } from '../cache-format/entry.js';
import { isVolatileSegment } from './volatile-text.js';

/** The route of an absolute URL; undefined for URLs that have no origin (`about:blank`, `data:`). */
export function routeOf(url: string): Route | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.origin === 'null') return undefined;
  return { origin: parsed.origin, path: parsed.pathname, query: parsed.search.replace(/^\?/, '') };
}

/** The origin of an absolute URL, or undefined when it has none. */
export function originOf(url: string): string | undefined {
  return routeOf(url)?.origin;
}

/** A route as one readable string: `http://127.0.0.1:4173/orders/12?tab=a`; `''` for none (an entry without a location). */
export function formatRoute(route: Route | undefined): string {
  if (route === undefined) return '';
  return `${route.origin}${route.path}${route.query === '' ? '' : `?${route.query}`}`;
}

/**
 * A route with its volatile parts as placeholders: path segments and query values that are
 * ids, tokens or timestamps ({@link isVolatileSegment}) read `{id}`; a trailing slash and the
 * order of query parameters do not count.
 */
export interface RouteShape {
  origin: string;
  segments: string[];
  /** `key=value` pairs, sorted, values as placeholders where volatile. */
  query: string[];
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The shape of a route (see {@link RouteShape}). */
export function routeShape(route: Route): RouteShape {
  const segments = route.path
    .split('/')
    .filter((segment, position, all) => !(segment === '' && (position === 0 || position === all.length - 1)))
    .map((segment) => (isVolatileSegment(decoded(segment)) ? '{id}' : decoded(segment)));
  const query = [...new URLSearchParams(route.query)]
    .map(([key, value]) => `${key}=${isVolatileSegment(value) ? '{id}' : value}`)
    .sort();
  return { origin: route.origin, segments, query };
}

/** The shape as one comparable string: `http://host/orders/{id}?tab=a`. */
export function formatRouteShape(shape: RouteShape): string {
  return `${shape.origin}/${shape.segments.join('/')}${shape.query.length === 0 ? '' : `?${shape.query.join('&')}`}`;
}

/** True when two routes have the same shape (volatile parts as placeholders). */
export function sameRouteShape(left: Route, right: Route): boolean {
  return formatRouteShape(routeShape(left)) === formatRouteShape(routeShape(right));
}

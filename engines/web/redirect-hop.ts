/**
 * Where a document response sends the browser next: the one rule both halves of the
 * navigation guard (the CDP redirect watch and the route.fetch answer) apply to a response.
 */

/** Statuses a browser follows to their `Location` (others carrying one are shown as they are). */
const FOLLOWED_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * The absolute URL a response redirects to, or undefined when the browser will not follow it.
 * A `Location` that does not parse comes back as written, so the policy refuses it.
 */
export function redirectTarget(status: number, location: string | undefined, base: string): string | undefined {
  if (!FOLLOWED_STATUSES.has(status) || location === undefined) return undefined;
  try {
    return new URL(location, base).href;
  } catch {
    return location;
  }
}

/** True for URLs whose answer can come from a server (the only ones a route can fetch). */
export function isHttpUrl(url: string): boolean {
  return url.startsWith('http://') || url.startsWith('https://');
}

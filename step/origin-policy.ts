/**
 * Origin policy (DESIGN §9): the agent may go only to the allowed origins and only over
 * http(s) (plus `about:blank`). A secret is typed only on the origins it is allowed for.
 */
import { E2EError } from '../errors/index.js';

/** The decision on one URL. */
export type OriginDecision = { allowed: true } | { allowed: false; reason: string };

/** The origin of `url` (`scheme://host:port`), or undefined when it has none. */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.origin === 'null' ? undefined : parsed.origin;
  } catch {
    return undefined;
  }
}

/** Normalize a configured origin (`http://127.0.0.1:4173/` → `http://127.0.0.1:4173`); throws on a non-http(s) value. */
export function normalizeOrigin(origin: string): string {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    throw new E2EError('INVALID_CONFIG', `\`${origin}\` is not an origin; write it like \`http://127.0.0.1:4173\`.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new E2EError('INVALID_CONFIG', `The origin \`${origin}\` must use http or https.`);
  }
  return parsed.origin;
}

/** Shorten a URL for a message: origin + path, query and fragment elided. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') {
      const elided = parsed.search !== '' || parsed.hash !== '' ? '?…' : '';
      return `${parsed.origin}${parsed.pathname}${elided}`;
    }
    return `${parsed.protocol}…`;
  } catch {
    return 'an unparseable URL';
  }
}

/** The allowlist of one attempt. */
export class OriginPolicy {
  readonly #origins: ReadonlySet<string>;
  readonly #located: boolean;

  /** `origins` are normalized with {@link normalizeOrigin}. */
  constructor(origins: Iterable<string>, located = true) {
    this.#origins = new Set([...origins].map(normalizeOrigin));
    this.#located = located;
  }

  /**
   * The policy of an engine without a location (a terminal): its screens have no URL and it
   * has no `navigate`, so there is nothing to refuse and a secret may be typed wherever a step
   * that was handed it types it.
   */
  static unlocated(): OriginPolicy {
    return new OriginPolicy([], false);
  }

  /** The allowed origins, normalized. */
  origins(): string[] {
    return [...this.#origins];
  }

  /** May a top-level document go to `url`? */
  check(url: string): OriginDecision {
    if (!this.#located || url === 'about:blank') return { allowed: true };
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { allowed: false, reason: 'it is not a valid URL' };
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return { allowed: false, reason: `only http and https are allowed, not ${parsed.protocol.replace(/:$/, '')}:` };
    }
    if (!this.#origins.has(parsed.origin)) {
      return {
        allowed: false,
        reason: `the origin ${parsed.origin} is not allowed; add it to \`origins\` in e2e.config.ts if the agent may go there`,
      };
    }
    return { allowed: true };
  }

  /**
   * May secret `name` be typed while the page is at `url`? `secretOrigins` narrows the
   * allowlist for that secret.
   */
  checkSecret(name: string, url: string, secretOrigins: readonly string[] | undefined): OriginDecision {
    if (!this.#located) return { allowed: true };
    const origin = originOf(url);
    if (origin === undefined) return { allowed: false, reason: `the page has no web origin` };
    const allowed = secretOrigins === undefined ? this.#origins : new Set(secretOrigins.map(normalizeOrigin));
    if (!allowed.has(origin) || !this.#origins.has(origin)) {
      return {
        allowed: false,
        reason: `the secret \`${name}\` may not be typed on ${origin}; list the origin under \`secrets.${name}.origins\` and \`origins\``,
      };
    }
    return { allowed: true };
  }
}

/**
 * The secrets of an attempt: a `SecretRef` (contract/param-values.ts) is looked up in the
 * {@link SecretVault} only at the moment it is typed. The vault also redacts every configured
 * value, in the encodings a value commonly leaks in (raw, URL-encoded, base64, HTML/JSON-escaped), from any text.
 */
import { secretPlaceholder, isSecretRef } from '../contract/param-values.js';
import { E2EError, didYouMean } from '../errors/index.js';

export { secret, isSecretRef, unique, isUniqueValue, secretPlaceholder } from '../contract/param-values.js';
export type { SecretRef, UniqueValue } from '../contract/param-values.js';

/** One configured secret. */
export interface SecretDefinition {
  /** The value; `undefined` when not provided (typing it then fails `SECRET_UNAVAILABLE`). */
  value: string | undefined;
  /** Origins it may be typed on; default: every allowed origin. */
  origins?: string[] | undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function htmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** The encodings a value is redacted in. */
function leakForms(value: string): string[] {
  const base64 = Buffer.from(value, 'utf8').toString('base64');
  const forms = new Set<string>([
    value,
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    encodeURI(value),
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(value, 'utf8').toString('base64url'),
    htmlEscape(value),
    JSON.stringify(value).slice(1, -1),
  ]);
  return [...forms].filter((form) => form.length > 0);
}

/** Holds the configured secrets of an attempt: resolves by name, redacts every value. */
export class SecretVault {
  readonly #definitions: ReadonlyMap<string, SecretDefinition>;
  readonly #pattern: RegExp | undefined;
  readonly #formOwner: ReadonlyMap<string, string>;

  constructor(definitions: Record<string, SecretDefinition>) {
    this.#definitions = new Map(Object.entries(definitions));
    const owner = new Map<string, string>();
    for (const [name, definition] of this.#definitions) {
      if (definition.value === undefined || definition.value.length === 0) continue;
      for (const form of leakForms(definition.value)) {
        const key = form.toLowerCase();
        if (!owner.has(key)) owner.set(key, name);
      }
    }
    this.#formOwner = owner;
    const forms = [...owner.keys()].sort((a, b) => b.length - a.length);
    this.#pattern = forms.length === 0 ? undefined : new RegExp(forms.map(escapeRegExp).join('|'), 'gi');
  }

  /** Names of every configured secret (with or without a value). */
  names(): string[] {
    return [...this.#definitions.keys()];
  }

  /** True when `name` is configured. */
  has(name: string): boolean {
    return this.#definitions.has(name);
  }

  /**
   * The value of `name`, for the moment it is typed. Unknown names and missing values fail
   * `SECRET_UNAVAILABLE` with the fix.
   */
  resolve(name: string): string {
    const definition = this.#definitions.get(name);
    if (definition === undefined) {
      throw new E2EError(
        'SECRET_UNAVAILABLE',
        `No secret named \`${name}\` is configured${didYouMean(name, this.names())}; add it to \`secrets\` in e2e.config.ts.`,
      );
    }
    if (definition.value === undefined || definition.value.length === 0) {
      throw new E2EError(
        'SECRET_UNAVAILABLE',
        `The secret \`${name}\` has no value; set it in \`secrets\` or the environment variable ${environmentVariableFor(name)}.`,
      );
    }
    return definition.value;
  }

  /** Origins `name` may be typed on, or `undefined` for every allowed origin. */
  allowedOrigins(name: string): readonly string[] | undefined {
    return this.#definitions.get(name)?.origins;
  }

  /** Replace every configured secret value in `text` with `<secret:name>`. */
  redact(text: string): string {
    if (this.#pattern === undefined || text.length === 0) return text;
    return text.replace(this.#pattern, (match) => secretPlaceholder(this.#formOwner.get(match.toLowerCase()) ?? 'redacted'));
  }

  /** True when `text` holds a configured secret value in any redacted form. */
  containsSecret(text: string): boolean {
    if (this.#pattern === undefined) return false;
    this.#pattern.lastIndex = 0;
    const found = this.#pattern.test(text);
    this.#pattern.lastIndex = 0;
    return found;
  }

  /** The name of the secret whose value is exactly `text`, if any. */
  nameOfValue(text: string): string | undefined {
    for (const [name, definition] of this.#definitions) if (definition.value !== undefined && definition.value === text) return name;
    return undefined;
  }
}

/** The environment variable a secret is read from: `E2E_SECRET_<NAME>` (upper case, `.`/`-` as `_`). */
export function environmentVariableFor(name: string): string {
  return `E2E_SECRET_${name.replace(/[.-]/g, '_').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

/** Redact every string inside a JSON-like value (objects, arrays); other values pass through. */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactDeep(item, redact)) as T;
  if (isSecretRef(value)) return value;
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = redactDeep(item, redact);
    return copy as T;
  }
  return value;
}

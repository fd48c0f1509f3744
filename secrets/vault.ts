/**
 * The secrets of an attempt: a `SecretRef` (contract/param-values.ts) is looked up in the
 * {@link SecretVault} only at the moment it is typed. The vault also redacts every configured
 * value, in every form {@link createSecretRedactor} recognises, from any text.
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
  /** What the secret is for ("the admin's password"), shown to the model beside its name. */
  purpose?: string | undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function htmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * Shortest start of a value that counts as a clipped copy when an ellipsis (`…` or `...`)
 * follows it: 8 characters, or half of a shorter value, and never fewer than 3.
 */
export function clippedPrefixLength(value: string): number {
  return Math.max(3, Math.min(8, Math.ceil(value.length / 2)));
}

/** Shortest base64 run that counts as a copy of a value embedded in a longer encoded string. */
const SHORTEST_EMBEDDED_BASE64 = 6;

/**
 * The base64 characters that depend only on the value's bytes when it sits at byte offset
 * 0, 1 or 2 of a 3-byte group inside a longer encoded string (`user:value` as a basic-auth header).
 */
export function embeddedBase64Forms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64').replace(/=+$/, '');
    const total = offset + bytes.length;
    const rest = total % 3;
    const start = offset === 0 ? 0 : offset + 1;
    const end = Math.floor(total / 3) * 4 + (rest === 0 ? 0 : rest);
    const core = encoded.slice(start, end);
    if (core.length < SHORTEST_EMBEDDED_BASE64) continue;
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

/** JSON string body with every character outside printable ASCII as `\uXXXX` (Python's `json.dumps`, many loggers). */
function asciiJson(text: string): string {
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(/[^\x20-\x7e]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The literal encodings a value is redacted in (matched in any letter case). */
function literalForms(value: string): string[] {
  const base64 = Buffer.from(value, 'utf8').toString('base64');
  const json = JSON.stringify(value).slice(1, -1);
  const forms = new Set<string>([
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(value, 'utf8').toString('base64url'),
    ...embeddedBase64Forms(value),
    htmlEscape(value),
    json,
    json.replace(/\//g, '\\/'),
    JSON.stringify(json).slice(1, -1),
    asciiJson(value),
  ]);
  try {
    const component = encodeURIComponent(value);
    forms.add(component);
    forms.add(component.replace(/%20/g, '+'));
    forms.add(encodeURI(value));
  } catch {
    // Lone surrogates cannot be URL-encoded; every other form is still matched.
  }
  forms.delete(value);
  return [...forms].filter((form) => form.length > 0).sort((left, right) => right.length - left.length);
}

/** Between two characters of a spaced or grouped rendering: one space or dash, terminal colours around it. */
const SEPARATOR = '(?:\\u001b\\[[0-9;]*m)*[\\s\\-]?(?:\\u001b\\[[0-9;]*m)*';

/** The value itself, also spaced or grouped (`abcd efgh`, `abcd-efgh`, one character at a time) or coloured by a terminal. */
function spacedPattern(value: string): string {
  return [...value].map(escapeRegExp).join(SEPARATOR);
}

/** A start of `form` at least `shortest` characters long, followed by an ellipsis (kept out of the match). */
function clippedPattern(form: string, shortest: number): string | undefined {
  const characters = [...form];
  if (characters.length <= shortest) return undefined;
  let tail = '';
  for (let index = characters.length - 2; index >= shortest; index--) tail = `(?:${escapeRegExp(characters[index]!)}${tail})?`;
  return `${characters.slice(0, shortest).map(escapeRegExp).join('')}${tail}(?=…|\\.\\.\\.)`;
}

/** Every form of one value, as one alternation: the value (spaced, grouped), its encodings, a clipped start. */
function patternOf(value: string): string {
  const shortest = clippedPrefixLength(value);
  const clipped = [value, encodeURIComponentSafe(value), Buffer.from(value, 'utf8').toString('base64')]
    .filter((form, index, all): form is string => form !== undefined && all.indexOf(form) === index)
    .map((form) => clippedPattern(form, shortest))
    .filter((pattern): pattern is string => pattern !== undefined);
  return [spacedPattern(value), ...literalForms(value).map(escapeRegExp), ...clipped].join('|');
}

function encodeURIComponentSafe(value: string): string | undefined {
  try {
    return encodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** A redactor over a fixed set of secrets; see {@link createSecretRedactor}. */
export interface SecretRedactor {
  /** Every recognisable form of every value replaced by `<secret:name>`. */
  redact(text: string): string;
  /**
   * {@link redact}, and a text the engine clipped (ending in `…`) loses any shorter start of a
   * value just before the mark, so a clip never leaves an unredactable piece of a secret.
   */
  redactClipped(text: string): string;
  /** True when `text` holds any recognisable form of a value. */
  contains(text: string): boolean;
}

/** The mark the engine puts where it clipped a long text. */
const CLIP_MARK = '…';

/**
 * The one redactor of the project: every configured value in every form it can be recognised
 * in (in any letter case): raw; spaced or grouped (`abcd efgh`, `abcd-efgh`) and with terminal
 * colours between characters; URL-encoded; base64, base64url and embedded in a longer base64
 * string at any byte alignment; HTML-escaped; JSON-escaped (once, twice, `\/`, `\uXXXX`); and
 * a clipped start ({@link clippedPrefixLength} characters or more, then `…` or `...`). Longer
 * values are tried first, so a secret inside another is never half-replaced, and a replacement
 * is never re-scanned. Everything the tool and Playwright's reporters write goes through this.
 */
export function createSecretRedactor(secrets: Iterable<readonly [name: string, value: string | undefined]>): SecretRedactor {
  const entries: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const [name, value] of [...secrets].sort(([left], [right]) => left.localeCompare(right))) {
    if (typeof value !== 'string' || value === '' || seen.has(value)) continue;
    seen.add(value);
    entries.push([name, value]);
  }
  if (entries.length === 0) return { redact: (text) => text, redactClipped: (text) => text, contains: () => false };
  entries.sort(([, left], [, right]) => right.length - left.length);
  const names = entries.map(([name]) => name);
  const pattern = new RegExp(entries.map(([, value]) => `(${patternOf(value)})`).join('|'), 'giu');
  const probe = new RegExp(pattern.source, 'iu');
  const redact = (text: string): string => {
    if (text === '') return text;
    return text.replace(pattern, (...match: unknown[]) => {
      const index = match.slice(1, names.length + 1).findIndex((group) => group !== undefined);
      return secretPlaceholder(names[index] ?? 'redacted');
    });
  };
  const lowered = entries.map(([name, value]) => [name, value.toLowerCase()] as const);
  return {
    redact,
    redactClipped(text) {
      const redacted = redact(text);
      if (!redacted.endsWith(CLIP_MARK)) return redacted;
      const body = redacted.slice(0, -CLIP_MARK.length).toLowerCase();
      for (const [, value] of lowered) {
        for (let length = Math.min(value.length - 1, clippedPrefixLength(value) - 1); length > 0; length--) {
          if (body.endsWith(value.slice(0, length))) return redacted.slice(0, body.length - length) + CLIP_MARK;
        }
      }
      return redacted;
    },
    contains: (text) => probe.test(text),
  };
}

/** Holds the configured secrets of an attempt: resolves by name, redacts every value. */
export class SecretVault {
  readonly #definitions: ReadonlyMap<string, SecretDefinition>;
  readonly #redactor: SecretRedactor;

  constructor(definitions: Record<string, SecretDefinition>) {
    this.#definitions = new Map(Object.entries(definitions));
    this.#redactor = createSecretRedactor([...this.#definitions].map(([name, definition]) => [name, definition.value] as const));
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

  /** What `name` is for, when its config says (redacted), else undefined. */
  purposeOf(name: string): string | undefined {
    const purpose = this.#definitions.get(name)?.purpose?.trim();
    return purpose === undefined || purpose === '' ? undefined : this.redact(purpose);
  }

  /** Origins `name` may be typed on, or `undefined` for every allowed origin. */
  allowedOrigins(name: string): readonly string[] | undefined {
    return this.#definitions.get(name)?.origins;
  }

  /** Replace every configured secret value, in every recognisable form, in `text` with `<secret:name>`. */
  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  /** {@link redact} for a text the engine may have clipped: no piece of a value survives before its `…`. */
  redactClipped(text: string): string {
    return this.#redactor.redactClipped(text);
  }

  /** True when `text` holds a configured secret value in any redacted form. */
  containsSecret(text: string): boolean {
    return this.#redactor.contains(text);
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

/**
 * Literals a reviewer should look at twice in a cache diff: a typed value or URL that looks
 * like an email address, a payment card number, or a token/key. Heuristics tuned to flag
 * rather than miss; the flag names the kind and a masked preview, never the whole value.
 * Text with hidden characters is flagged by where it sits, never by its value.
 */
import { hasHiddenCharacters } from '../semantics/visible-text.js';

/** What a literal looks like. */
export type SensitiveKind = 'email address' | 'card number' | 'token';

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
const CARD_CANDIDATE = /(?:\d[ -]?){12,18}\d/g;
/** Well-known key and token shapes (provider prefixes, JWTs, PEM keys). */
const KNOWN_TOKENS = [
  /\b(?:sk|pk|rk)[-_](?:live|test|proj)?[-_]?[A-Za-z0-9]{16,}/,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/,
  /\bAKIA[0-9A-Z]{16}\b/,
  /\bglpat-[A-Za-z0-9_-]{20,}/,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];
const LONG_RANDOM_RUN = /[A-Za-z0-9+_=]{24,}/g;

/** Luhn checksum over the digits of `text`. */
function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Shannon entropy in bits per character. */
function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const character of text) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const share = count / text.length;
    bits -= share * Math.log2(share);
  }
  return bits;
}

/** True for a run that reads like a random secret: long, mixed character classes, high entropy. */
function looksRandom(run: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((pattern) => pattern.test(run)).length;
  return classes >= 2 && /[0-9]/.test(run) && entropy(run) >= 3.5;
}

/** The kinds of sensitive data `text` seems to hold (empty when none). */
export function sensitiveKinds(text: string): SensitiveKind[] {
  const kinds: SensitiveKind[] = [];
  if (EMAIL.test(text)) kinds.push('email address');
  for (const match of text.matchAll(CARD_CANDIDATE)) {
    const digits = match[0].replace(/[ -]/g, '');
    if (digits.length >= 13 && digits.length <= 19 && passesLuhn(digits) && !/^(\d)\1+$/.test(digits)) {
      kinds.push('card number');
      break;
    }
  }
  const token = KNOWN_TOKENS.some((pattern) => pattern.test(text)) || [...text.matchAll(LONG_RANDOM_RUN)].some((match) => looksRandom(match[0]));
  if (token) kinds.push('token');
  return kinds;
}

/** A preview that does not reveal the value: its first characters and its length. */
export function maskValue(text: string): string {
  const shown = text.length <= 8 ? text.slice(0, 2) : text.slice(0, 4);
  return `${JSON.stringify(`${shown}…`)} (${text.length} characters)`;
}

/** Most field paths a hidden-characters flag names. */
const MAX_HIDDEN_PATHS_SHOWN = 4;

/**
 * Where an entry's text carries characters that do not show as themselves (controls, bidi,
 * zero-width: `semantics/visible-text.ts`), as field paths (`keyParts.testId`,
 * `actions[0].target.name`); never the values. Empty when none.
 */
export function hiddenTextPaths(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return hasHiddenCharacters(value) ? [path === '' ? '(value)' : path] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => hiddenTextPaths(item, `${path}[${index}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, item]) => {
    const namePath = path === '' ? name : `${path}.${name}`;
    return [...(hasHiddenCharacters(name) ? [`${namePath} (its name)`] : []), ...hiddenTextPaths(item, namePath)];
  });
}

/** The words of a hidden-characters flag: `carries hidden characters …: keyParts.testId, actions[0].target.name`. */
export function describeHiddenText(paths: readonly string[]): string {
  const shown = paths.slice(0, MAX_HIDDEN_PATHS_SHOWN).join(', ');
  const more = paths.length > MAX_HIDDEN_PATHS_SHOWN ? `, and ${paths.length - MAX_HIDDEN_PATHS_SHOWN} more` : '';
  return `carries control, bidi or zero-width characters (shown spelled out) in ${shown}${more}: it may read differently from what it holds`;
}

/**
 * Volatile text: the parts of screen text that change from run to run without the app
 * changing (dates, times, durations, ids, tokens). Recording and replay both compare text
 * through {@link comparableText}, so a ticking clock is not an outcome and a new order id is
 * not a different button.
 *
 * Placeholders, applied in this order (earlier rules win where they overlap):
 *
 * | placeholder  | reads as volatile                                                                     |
 * | ------------ | ------------------------------------------------------------------------------------- |
 * | `{datetime}` | ISO 8601 date-times: `2024-01-05T10:00:00Z`, `2024-01-05 10:00`                       |
 * | `{date}`     | numeric dates: `2024-01-05`, `2024/1/5`, `05/01/2024`, `5-1-24`, `5.1.2024`           |
 * | `{date}`     | month-name dates: `Jan 5`, `January 5, 2024`, `5 Jan 2024`, `5th March`, `March 2024` |
 * | `{date}`     | full weekday names (`Monday`), and short ones before a comma (`Mon, Jan 5`)           |
 * | `{ago}`      | relative times: `5 minutes ago`, `an hour ago`, `just now`                            |
 * | `{time}`     | clock times: `10:30`, `10:30:15`, `10:30 PM`, `9am`, `3 p.m.`                          |
 * | `{duration}` | a number with a time unit: `250ms`, `1.5s`, `3 min`, `2h 15m`, `4 hours`; runs merge  |
 * | `{id}`       | UUIDs; JWT-shaped tokens; hex runs of 8+ with a digit; 16+ character tokens mixing    |
 * |              | letters and digits; `#123`; numbers after `ID`/`No.`/`Nr.`/`Ref`; runs of 6+ digits   |
 *
 * Deliberately NOT volatile: small counts (`2 items left`), prices and amounts (`$19.99`,
 * `1,234`), years on their own (`2024`), days/weeks/months/years without `ago` (`in 5 days`),
 * plain words. A regression that changes a count or a total must still be caught.
 */
import { TICKING_ROLES } from '../contract/roles.js';

const MONTH =
  '(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';
const ORDINAL = '(?:st|nd|rd|th)?';
const TIME_UNIT = '(?:ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)';
const RELATIVE_UNIT = '(?:second|sec|minute|min|hour|hr|day|week|month|year)s?';

/** One replacement rule. `name` appears in docs and tests only. */
interface VolatileRule {
  name: string;
  pattern: RegExp;
  replacement: string | ((match: string, ...groups: string[]) => string);
}

/** True when a run of letters and digits reads as a minted token rather than words. */
function looksMinted(candidate: string): boolean {
  if (candidate.length < 16) return false;
  // A token has a part of 8+ characters mixing letters and digits; a slug (`my-post-2024`) has none.
  return candidate.split(/[-_.~]/).some((part) => part.length >= 8 && /\d/.test(part) && /[A-Za-z]/.test(part));
}

const RULES: readonly VolatileRule[] = [
  {
    name: 'iso date-time',
    pattern: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?![\w:])/g,
    replacement: '{datetime}',
  },
  {
    name: 'numeric date',
    pattern: /\b(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/]\d{1,2}[-/]\d{2,4}|\d{1,2}\.\d{1,2}\.\d{4})\b/g,
    replacement: '{date}',
  },
  {
    name: 'month-name date',
    pattern: new RegExp(
      `\\b(?:${MONTH}\\.?\\s+\\d{1,2}${ORDINAL}(?:,?\\s+\\d{4})?|\\d{1,2}${ORDINAL}\\s+(?:of\\s+)?${MONTH}\\.?(?:,?\\s+\\d{4})?|${MONTH}\\s+\\d{4})\\b`,
      'g',
    ),
    replacement: '{date}',
  },
  {
    name: 'weekday',
    pattern: /\b(?:(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)(?=,))\b/g,
    replacement: '{date}',
  },
  {
    name: 'relative time',
    pattern: new RegExp(`\\b(?:(?:\\d+|an?|one)\\s+${RELATIVE_UNIT}\\s+ago|just now)\\b`, 'gi'),
    replacement: '{ago}',
  },
  {
    name: 'clock time',
    pattern: /\b(?:\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[AaPp]\.?[Mm]\b\.?)?|\d{1,2}\s?[AaPp]\.?[Mm]\b\.?)/g,
    replacement: '{time}',
  },
  {
    name: 'duration',
    pattern: new RegExp(`\\b\\d+(?:\\.\\d+)?\\s?${TIME_UNIT}\\b(?:[\\s,]+\\d+(?:\\.\\d+)?\\s?${TIME_UNIT}\\b)*`, 'g'),
    replacement: '{duration}',
  },
  {
    name: 'uuid',
    pattern: /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g,
    replacement: '{id}',
  },
  {
    name: 'jwt',
    pattern: /\beyJ[\w-]+\.[\w-]+\.[\w-]+/g,
    replacement: '{id}',
  },
  {
    name: 'hex run',
    pattern: /\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,}\b/g,
    replacement: '{id}',
  },
  {
    name: 'minted token',
    pattern: /(?<![\w-])[A-Za-z0-9_-]{16,}(?![\w-])/g,
    replacement: (match) => (looksMinted(match) ? '{id}' : match),
  },
  {
    name: 'hash number',
    pattern: /#\d+\b/g,
    replacement: '#{id}',
  },
  {
    name: 'labelled id',
    pattern: /\b(ID|Id|id|No\.|Nr\.|Ref)(:?\s*#?\s*)\d+\b/g,
    replacement: (_match, label, separator) => `${label}${separator}{id}`,
  },
  {
    name: 'long number',
    pattern: /(?<![\d.,])\d{6,}(?![\d]|[.,]\d)/g,
    replacement: '{id}',
  },
];

/** Names of the rules in the order they apply (for docs and tests). */
export const VOLATILE_RULE_NAMES: readonly string[] = RULES.map((rule) => rule.name);

/** Rules that can match text without a digit; the others all need one. */
const DIGITLESS_RULES = new Set(['weekday', 'relative time', 'jwt']);

/** Replace volatile parts of `text` with placeholders and collapse whitespace. Case is kept. */
export function normalizeVolatileText(text: string): string {
  let result = text.replace(/\s+/g, ' ').trim();
  // Most labels hold no digit; skipping the digit rules keeps indexing a large screen cheap.
  const hasDigit = /\d/.test(result);
  for (const rule of RULES) {
    if (!hasDigit && !DIGITLESS_RULES.has(rule.name)) continue;
    result =
      typeof rule.replacement === 'string'
        ? result.replace(rule.pattern, rule.replacement)
        : result.replace(rule.pattern, rule.replacement as (match: string, ...groups: string[]) => string);
  }
  return result;
}

/** Comparable forms already worked out: a replay indexes a screen after every action, and most labels repeat. */
const comparable = new Map<string, string>();
/** Most forms kept (the memo starts over when full), and the longest text kept in it. */
const MAX_COMPARABLE = 20_000;
const MAX_COMPARABLE_CHARS = 500;

/** The form in which two texts are compared: volatile parts as placeholders, case folded. */
export function comparableText(text: string): string {
  let form = comparable.get(text);
  if (form === undefined) {
    form = normalizeVolatileText(text).toLowerCase();
    if (text.length > MAX_COMPARABLE_CHARS) return form;
    if (comparable.size >= MAX_COMPARABLE) comparable.clear();
    comparable.set(text, form);
  }
  return form;
}

/** True when two texts read the same once volatile parts are placeholders and case is folded. */
export function sameText(left: string, right: string): boolean {
  return left === right || comparableText(left) === comparableText(right);
}

const WHOLE_SEGMENT_ID = [
  /^\d+$/,
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  /^(?=[0-9a-f]*\d)[0-9a-f]{8,}$/i,
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/,
  /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/,
];

/**
 * True when a whole URL path segment or query value is an id, token or timestamp: digits,
 * a UUID, a hex run of 8+ with a digit, an ISO date or date-time, a JWT, a minted token
 * (see {@link normalizeVolatileText}), or a short prefix joined to one of those (`ord_123`,
 * `item-042`, `cus_9s6XKzkNRiz8i3`; a prefixed number needs 3+ digits, so `step-1` stays literal).
 */
export function isVolatileSegment(segment: string): boolean {
  if (segment.length === 0) return false;
  if (WHOLE_SEGMENT_ID.some((pattern) => pattern.test(segment)) || looksMinted(segment)) return true;
  const prefixed = /^[A-Za-z]{1,12}[_-](.+)$/.exec(segment);
  const rest = prefixed?.[1];
  if (rest === undefined) return false;
  // `step-1` stays literal (a wizard step is context); `item-042`, `ord_123` read as ids.
  if (/^\d+$/.test(rest)) return rest.length >= 3;
  return WHOLE_SEGMENT_ID.some((pattern) => pattern.test(rest)) || (rest.length >= 8 && /\d/.test(rest) && /^[A-Za-z0-9]+$/.test(rest));
}

const TOKEN_WORD = [
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  /^(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}$/i,
  /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/,
  /^[A-Za-z0-9+/]{20,}={1,2}$/,
];

/**
 * True when `value` contains a word that reads as a minted token: a UUID, a hex run of 8+
 * mixing digits and letters, a JWT, padded base64, or a 16+ character mix of letters and
 * digits. Plain numbers do not count (a phone number the model made up is repeatable).
 */
export function looksLikeMintedToken(value: string): boolean {
  return value
    .split(/[\s,;:'"()<>[\]{}]+/)
    .some((word) => TOKEN_WORD.some((pattern) => pattern.test(word)) || looksMinted(word));
}

/** True when `value` contains a date, a clock time or a relative time (see the table above). */
export function looksLikeDateOrTime(value: string): boolean {
  return /\{(?:datetime|date|time|ago)\}/.test(normalizeVolatileText(value));
}

// Ticking text: what a screen's shape ignores while it settles (a clock, a timer), narrower than the rules above.

const CLOCK_TIME = /(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:\s?[AaPp]\.?[Mm]\.?)?(?!\d)/g;
const DURATION = /(?<![\w.])\d+(?:[.,]\d+)?\s*(?:ms|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)\b/gi;

/** The ticking rules as plain data, for engines that filter changes in the page (`waitForChange`). */
export const TICKING_RULES = {
  clockTime: CLOCK_TIME.source,
  duration: DURATION.source,
  roles: [...TICKING_ROLES],
} as const;

/** Text with clock times and durations read as placeholders (`12:34:56` → `#:#`, `3s ago` → `# ago`). */
export function maskTickingText(text: string): string {
  return text.replace(CLOCK_TIME, '#:#').replace(DURATION, '#');
}

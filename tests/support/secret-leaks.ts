/**
 * A leak detector written apart from the redactor, so a test of one does not lean on the
 * other: it finds a value in a text raw or in any letter case, URL-encoded, HTML- or
 * JSON-escaped (once or twice), spaced or grouped (separators and terminal colours stripped),
 * base64 or base64url (decoding every run at each of its four character offsets, so a value
 * embedded at any byte alignment is found), and as a clipped start followed by an ellipsis.
 */

/** The shortest clipped start that counts as a leak: 8 characters, or half of a shorter value, at least 3. */
export function shortestClippedStart(value: string): number {
  return Math.max(3, Math.min(8, Math.ceil(value.length / 2)));
}

function lowerForms(value: string): Array<[label: string, form: string]> {
  const json = JSON.stringify(value).slice(1, -1);
  const forms: Array<[string, string]> = [
    ['raw', value],
    ['JSON-escaped', json],
    ['JSON-escaped twice', JSON.stringify(json).slice(1, -1)],
    ['HTML-escaped', value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')],
    ['base64 in any case', Buffer.from(value, 'utf8').toString('base64').replace(/=+$/, '')],
    ['base64url in any case', Buffer.from(value, 'utf8').toString('base64url')],
  ];
  try {
    forms.push(['URL-encoded', encodeURIComponent(value)], ['form-encoded', encodeURIComponent(value).replace(/%20/g, '+')], ['URI-encoded', encodeURI(value)]);
  } catch {
    // A lone surrogate has no URL form.
  }
  return forms.map(([label, form]) => [label, form.toLowerCase()]);
}

const ANSI = /\u001b\[[0-9;]*m/g;
const BASE64_RUN = /[A-Za-z0-9+/_-]{6,}/g;

/** Labels of the forms of `value` found in `text` (empty when none is). */
export function leakedForms(value: string, text: string): string[] {
  if (value === '') return [];
  const found = new Set<string>();
  const lower = text.toLowerCase();
  for (const [label, form] of lowerForms(value)) if (lower.includes(form)) found.add(label);
  const squeezed = (input: string) => input.replace(ANSI, '').replace(/[\s-]/g, '').toLowerCase();
  const bare = squeezed(value);
  if (bare.length > 0 && squeezed(text).includes(bare)) found.add('spaced or grouped');
  const start = [...value].slice(0, shortestClippedStart(value)).join('').toLowerCase();
  if ([...value].length > shortestClippedStart(value) && (lower.includes(`${start}…`) || lower.includes(`${start}...`) || clippedLonger(lower, value.toLowerCase(), start))) found.add('clipped start');
  if (base64Holds(text, Buffer.from(value, 'utf8'))) found.add('base64');
  return [...found];
}

/** A start of `value` longer than `start`, followed by an ellipsis. */
function clippedLonger(lower: string, value: string, start: string): boolean {
  let index = lower.indexOf(start);
  while (index >= 0) {
    let end = index + start.length;
    while (end < lower.length && end - index < value.length && lower[end] === value[end - index]) end++;
    if (lower.startsWith('…', end) || lower.startsWith('...', end)) return true;
    index = lower.indexOf(start, index + 1);
  }
  return false;
}

function base64Holds(text: string, bytes: Buffer): boolean {
  for (const match of text.matchAll(BASE64_RUN)) {
    const run = match[0].replace(/-/g, '+').replace(/_/g, '/');
    for (let shift = 0; shift < 4; shift++) {
      if (Buffer.from(run.slice(shift), 'base64').includes(bytes)) return true;
    }
  }
  return false;
}

/**
 * The literal forms a secret value is recognised in: its Unicode normalization forms, and for
 * each its encodings (URL, base64 and base64url alone and embedded at each byte alignment,
 * HTML-escaped, JSON-escaped once, twice, with `\/` and as `\uXXXX`). The redactor
 * (redactor.ts) matches all of them at once; none is ever turned into a regular expression.
 */

/** Shortest base64 run that counts as a copy of a value embedded in a longer encoded string. */
const SHORTEST_EMBEDDED_BASE64 = 6;

/**
 * Shortest start of a value that counts as a clipped copy when an ellipsis (`…` or `...`)
 * follows it: 8 characters, or half of a shorter value, and never fewer than 3.
 */
export function clippedPrefixLength(value: string): number {
  return Math.max(3, Math.min(8, Math.ceil(value.length / 2)));
}

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

function htmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** JSON string body with every character outside printable ASCII as `\uXXXX` (Python's `json.dumps`, many loggers). */
function asciiJson(text: string): string {
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(/[^\x20-\x7e]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function encodeURIComponentSafe(value: string): string | undefined {
  try {
    return encodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** The value as a page or a back end may hand it back: as given, NFC, NFD, NFKC and NFKD. */
export function normalizationVariants(value: string): string[] {
  const variants = new Set<string>([value]);
  for (const form of ['NFC', 'NFD', 'NFKC', 'NFKD'] as const) {
    try {
      variants.add(value.normalize(form));
    } catch {
      // A value that cannot be normalized is still matched as given.
    }
  }
  return [...variants];
}

/** Every literal form of one variant, the variant itself first. */
export function literalForms(variant: string): string[] {
  const base64 = Buffer.from(variant, 'utf8').toString('base64');
  const json = JSON.stringify(variant).slice(1, -1);
  const forms = new Set<string>([
    variant,
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(variant, 'utf8').toString('base64url'),
    ...embeddedBase64Forms(variant),
    htmlEscape(variant),
    json,
    json.replace(/\//g, '\\/'),
    JSON.stringify(json).slice(1, -1),
    asciiJson(variant),
  ]);
  const component = encodeURIComponentSafe(variant);
  if (component !== undefined) {
    forms.add(component);
    forms.add(component.replace(/%20/g, '+'));
    forms.add(encodeURI(variant));
  }
  return [...forms].filter((form) => form.length > 0);
}

/** The forms whose clipped start (then `…` or `...`) is redacted too: the variant, URL-encoded, base64. */
export function clippableForms(variant: string): string[] {
  const forms = [variant, encodeURIComponentSafe(variant), Buffer.from(variant, 'utf8').toString('base64')];
  return forms.filter((form, index): form is string => form !== undefined && forms.indexOf(form) === index);
}

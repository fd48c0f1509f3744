/**
 * The one rule for text a person reads that came from a page or a cache entry: characters
 * that do not show, or that change how the text around them shows, are spelled out instead.
 * C0 and C1 controls and DEL (an ESC sequence can erase the line above it) read as
 * `\u001b` (`\n`, `\r`, `\t` as such); bidi controls, zero-width and other invisible format
 * characters, line and paragraph separators, variation selectors, fillers and lone
 * surrogates read as `⟨U+202E⟩` (a right-to-left override can make `Pay 100` read as
 * another amount). Every other character, every script included, is shown as it is.
 */

/**
 * Every character {@link visibleText} spells out: controls (Cc), format characters (Cf: bidi
 * controls U+200E/F, U+202A–202E, U+2066–2069, U+061C; zero-width U+200B–200D, U+2060,
 * U+FEFF; soft hyphen, tags, …), line/paragraph separators, lone surrogates, the combining
 * grapheme joiner, Hangul and Khmer fillers, and variation selectors.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u3164\uFE00-\uFE0F\uFFA0\u{E0100}-\u{E01EF}]/gu;
/** The same set, for a yes/no test (no global state). */
const HIDDEN_TEST = new RegExp(HIDDEN.source, 'u');

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function hex(code: number, digits: number): string {
  return code.toString(16).toUpperCase().padStart(digits, '0');
}

/** How one hidden character reads: `\u001b`, `\n`, `⟨U+202E⟩`. */
function spelled(character: string): string {
  const code = character.codePointAt(0)!;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return SHORT_ESCAPES[character] ?? `\\u${hex(code, 4).toLowerCase()}`;
  return `⟨U+${hex(code, 4)}⟩`;
}

/** True when `text` holds a character {@link visibleText} would spell out. */
export function hasHiddenCharacters(text: string): boolean {
  return HIDDEN_TEST.test(text);
}

/** `text` with every control, bidi, zero-width and other invisible character spelled out (see the file comment). */
export function visibleText(text: string): string {
  return hasHiddenCharacters(text) ? text.replace(HIDDEN, spelled) : text;
}

/**
 * `text` with the invisible characters that are not controls spelled out (`⟨U+FEFF⟩`) and the
 * controls left for a later step: for a quote that folds whitespace to one line first (JavaScript's
 * `\s` counts U+FEFF and U+2028 as spaces) and escapes controls after.
 */
export function visibleFormatCharacters(text: string): string {
  return hasHiddenCharacters(text) ? text.replace(HIDDEN, (character) => (/\p{Cc}/u.test(character) ? character : spelled(character))) : text;
}

/**
 * A whole output (a command's text or JSON) for a terminal: line breaks stay, every other
 * hidden character becomes a JSON escape (`\u001b`, `\u202e`). JSON never carries such a
 * character outside a string, so JSON stays valid and parses to the same data; plain text
 * shows the escape. The last guard behind the per-value {@link visibleText}.
 */
export function visibleOutput(text: string): string {
  if (!hasHiddenCharacters(text)) return text;
  return text.replace(HIDDEN, (character) => {
    if (character === '\n') return character;
    let escaped = '';
    for (let index = 0; index < character.length; index++) escaped += `\\u${hex(character.charCodeAt(index), 4).toLowerCase()}`;
    return escaped;
  });
}

/** Text of several lines (an error message) with line breaks kept and every other hidden character spelled out as {@link visibleText} does. */
export function visibleLines(text: string): string {
  return hasHiddenCharacters(text) ? text.split('\n').map(visibleText).join('\n') : text;
}

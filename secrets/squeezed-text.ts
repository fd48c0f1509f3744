/**
 * The view of a text the redactor matches in: letter case folded, and spaces, dashes and
 * terminal colour codes left out, so `abcd efgh`, `ABCD-EFGH` and a coloured value all read as
 * `abcdefgh`. Each kept code unit remembers where it stood, so a match maps back to the
 * original span (separators inside it included). One pass, linear in the text.
 */

/** A squeezed text: `codes[k]` stood at `positions[k]` of the original. */
export interface SqueezedText {
  readonly codes: Uint16Array;
  readonly positions: Int32Array;
  readonly length: number;
}

const ESCAPE = 0x1b;
const BRACKET = 0x5b;
const DASH = 0x2d;

/** Folded code units computed so far (0: not yet); BMP only, a surrogate folds to itself. */
const foldTable = new Uint16Array(65536);

/** One code unit in the one letter case matches are made in (simple case folding, length-preserving). */
export function foldCode(code: number): number {
  if (code < 128) return code >= 65 && code <= 90 ? code + 32 : code;
  const known = foldTable[code]!;
  if (known !== 0) return known;
  let folded = code;
  if (code < 0xd800 || code > 0xdfff) {
    const character = String.fromCharCode(code);
    const upperLower = character.toUpperCase().toLowerCase();
    const lower = character.toLowerCase();
    if (upperLower.length === 1) folded = upperLower.charCodeAt(0);
    else if (lower.length === 1) folded = lower.charCodeAt(0);
  }
  foldTable[code] = folded;
  return folded;
}

/** True for what may sit between two characters of a spaced or grouped value: whitespace (as `\s`) or a dash. */
export function isSeparator(code: number): boolean {
  if (code === 32 || code === DASH || (code >= 9 && code <= 13)) return true;
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** Length of a terminal colour code (`ESC [ digits ; m`) at `index`, or 0. */
function colourCodeAt(text: string, index: number): number {
  if (text.charCodeAt(index) !== ESCAPE || text.charCodeAt(index + 1) !== BRACKET) return 0;
  let end = index + 2;
  for (; end < text.length; end++) {
    const code = text.charCodeAt(end);
    if (!((code >= 48 && code <= 57) || code === 59)) break;
  }
  return text.charCodeAt(end) === 0x6d ? end + 1 - index : 0;
}

/** Squeeze `text`: fold case, drop separators and colour codes, keep where each code unit stood. */
export function squeeze(text: string): SqueezedText {
  const codes = new Uint16Array(text.length);
  const positions = new Int32Array(text.length);
  let length = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === ESCAPE) {
      const colour = colourCodeAt(text, index);
      if (colour > 0) {
        index += colour - 1;
        continue;
      }
    }
    if (isSeparator(code)) continue;
    codes[length] = foldCode(code);
    positions[length] = index;
    length++;
  }
  return { codes, positions, length };
}

/** The squeezed code units of `text`, exactly as many as were kept (for building patterns). */
export function squeezedCodes(text: string): Uint16Array {
  const { codes, length } = squeeze(text);
  return codes.subarray(0, length);
}

/**
 * The one redactor of the project, and its one function: `redact(text)`. Every configured
 * value is replaced by `<secret:name>` in every form it can be recognised in, and a text that
 * ends in the clip mark `…` keeps no piece of a value before it: any text may have been
 * clipped (by the engine, a title, a transcript) before it got here, so there is no second,
 * "plain" function to pick by mistake.
 */
import { isSecretRef, secretPlaceholder } from '../contract/param-values.js';
import { FormAutomaton, type FormMatch, type FormPattern } from './form-automaton.js';
import { clippableForms, clippedPrefixLength, literalForms, normalizationVariants } from './secret-forms.js';
import { squeeze, squeezedCodes } from './squeezed-text.js';

export { clippedPrefixLength, embeddedBase64Forms } from './secret-forms.js';

/** A redactor over a fixed set of secrets; see {@link createSecretRedactor}. */
export interface SecretRedactor {
  /**
   * Every recognisable form of every value replaced by `<secret:name>`; a text ending in `…`
   * also loses any shorter start of a value just before it, so a clip never leaves a piece.
   */
  redact(text: string): string;
  /** True when `text` holds any recognisable form of a value. */
  contains(text: string): boolean;
  /** Names of the secrets whose values `text` holds in any recognisable form, sorted. */
  namesIn(text: string): string[];
}

/** The mark the engine (and every clip of ours) puts where it cut a long text. */
const CLIP_MARK = '…';

/** A region of the squeezed text to replace, and whose placeholder it gets (-1: none, a dropped piece). */
interface Region {
  start: number;
  end: number;
  secret: number;
  weight: number;
}

/** A secret's form names a region before a dropped piece does; among forms, the longer. */
function outranks(left: Region, right: Region): boolean {
  if (left.secret >= 0 !== right.secret >= 0) return left.secret >= 0;
  return left.weight > right.weight;
}

/** Overlapping matches (ends in order) merged into regions; the longest form names the region. */
function regionsOf(matches: readonly FormMatch[]): Region[] {
  const regions: Region[] = [];
  for (const match of matches) {
    const region: Region = { ...match };
    for (let top = regions.at(-1); top !== undefined && top.end >= region.start; top = regions.at(-1)) {
      regions.pop();
      region.start = Math.min(region.start, top.start);
      region.end = Math.max(region.end, top.end);
      if (outranks(top, region)) {
        region.secret = top.secret;
        region.weight = top.weight;
      }
    }
    regions.push(region);
  }
  return regions;
}

/** The first `count` code points of `text`. */
function startOf(text: string, count: number): string {
  let end = 0;
  for (let seen = 0; seen < count && end < text.length; seen++) end += (text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
  return text.slice(0, end);
}

/** The squeezed forms of every secret, longest secret first (a secret inside another is never half-replaced). */
function patternsOf(values: readonly string[]): FormPattern[] {
  const patterns: FormPattern[] = [];
  values.forEach((value, secret) => {
    const shortest = clippedPrefixLength(value);
    const seen = new Set<string>();
    for (const variant of normalizationVariants(value)) {
      const clippable = new Set(clippableForms(variant));
      for (const form of literalForms(variant)) {
        const codes = squeezedCodes(form);
        const key = Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength).toString('latin1');
        if (codes.length === 0 || seen.has(key)) continue;
        seen.add(key);
        const clipFrom = clippable.has(form) ? Math.max(1, squeezedCodes(startOf(form, shortest)).length) : undefined;
        patterns.push({ codes, secret, clipFrom, pieces: form === variant });
      }
    }
  });
  return patterns;
}

/** Automata of the value sets built last: every attempt builds a vault of the same secrets. */
const builtAutomata = new Map<string, FormAutomaton>();
const KEPT_AUTOMATA = 8;

function automatonFor(values: readonly string[]): FormAutomaton {
  const key = JSON.stringify(values);
  const known = builtAutomata.get(key);
  if (known !== undefined) return known;
  const automaton = new FormAutomaton(patternsOf(values));
  if (builtAutomata.size >= KEPT_AUTOMATA) builtAutomata.delete(builtAutomata.keys().next().value!);
  builtAutomata.set(key, automaton);
  return automaton;
}

/**
 * The one redactor of the project: every configured value in every form it can be recognised
 * in (in any letter case, and in its NFC, NFD, NFKC and NFKD normalization): raw; spaced or
 * grouped (`abcd efgh`, `abcd-efgh`) and with terminal colours between characters;
 * URL-encoded; base64, base64url and embedded in a longer base64 string at any byte
 * alignment; HTML-escaped; JSON-escaped (once, twice, `\/`, `\uXXXX`); and a clipped start
 * ({@link clippedPrefixLength} characters or more, then `…` or `...`). Overlapping matches
 * are replaced as one, named by the longest, and a replacement is never re-scanned. Matching
 * is one Aho–Corasick pass (form-automaton.ts): linear in the text and the values' length.
 */
export function createSecretRedactor(secrets: Iterable<readonly [name: string, value: string | undefined]>): SecretRedactor {
  const entries: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const [name, value] of [...secrets].sort(([left], [right]) => left.localeCompare(right))) {
    if (typeof value !== 'string' || value === '' || seen.has(value)) continue;
    seen.add(value);
    entries.push([name, value]);
  }
  if (entries.length === 0) return { redact: (text) => text, contains: () => false, namesIn: () => [] };
  entries.sort(([, left], [, right]) => right.length - left.length);
  const placeholders = entries.map(([name]) => secretPlaceholder(name));
  const automaton = automatonFor(entries.map(([, value]) => value));

  const regions = (text: string): Region[] => {
    if (text === '') return [];
    const squeezed = squeeze(text);
    return regionsOf(automaton.matches(squeezed.codes, squeezed.length, text.endsWith(CLIP_MARK))).map((region) => ({
      ...region,
      start: squeezed.positions[region.start]!,
      // A dropped piece takes the spaces between it and the clip mark with it.
      end: region.secret < 0 ? squeezed.positions[region.end + 1]! - 1 : squeezed.positions[region.end]!,
    }));
  };
  return {
    redact(text) {
      const found = regions(text);
      if (found.length === 0) return text;
      let result = '';
      let cursor = 0;
      for (const region of found) {
        result += text.slice(cursor, region.start) + (region.secret < 0 ? '' : placeholders[region.secret]!);
        cursor = region.end + 1;
      }
      return result + text.slice(cursor);
    },
    contains: (text) => regions(text).some((region) => region.secret >= 0),
    namesIn: (text) => [...new Set(regions(text).flatMap((region) => (region.secret < 0 ? [] : [entries[region.secret]![0]])))].sort(),
  };
}

/**
 * Redact every string inside a JSON-like value (objects, arrays); other values pass through.
 * Copies with an explicit stack, never recursion: a screen tree may nest thousands deep.
 */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  const copyOf = (item: unknown, pending: Array<{ source: unknown; target: Record<string, unknown> | unknown[] }>): unknown => {
    if (typeof item === 'string') return redact(item);
    if (Array.isArray(item)) {
      const target: unknown[] = new Array<unknown>(item.length);
      pending.push({ source: item, target });
      return target;
    }
    if (item === null || typeof item !== 'object' || item instanceof Uint8Array || isSecretRef(item)) return item;
    const target: Record<string, unknown> = {};
    pending.push({ source: item, target });
    return target;
  };
  const pending: Array<{ source: unknown; target: Record<string, unknown> | unknown[] }> = [];
  const result = copyOf(value, pending);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { source, target } = next;
    if (Array.isArray(source)) {
      const list = target as unknown[];
      for (let index = 0; index < source.length; index++) list[index] = copyOf(source[index], pending);
    } else {
      const record = target as Record<string, unknown>;
      for (const [key, item] of Object.entries(source as object)) record[key] = copyOf(item, pending);
    }
  }
  return result as T;
}

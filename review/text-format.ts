/**
 * Small text helpers shared by the cache commands' renderers: sizes, ages, aligned tables,
 * and Markdown that user text (instructions, control names) cannot break out of.
 */
import { clip } from '../contract/text.js';
import { visibleText } from '../semantics/visible-text.js';

const BYTE_UNITS = ['KiB', 'MiB', 'GiB'] as const;

/** `512 B`, `1.5 KiB`, `12.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes;
  let unit: string = 'B';
  for (const next of BYTE_UNITS) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  return `${value.toFixed(1)} ${unit}`;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** How long ago, briefly: `just now`, `5 min`, `3 h`, `12 d`. Negative spans (clock skew) read `just now`. */
export function formatAge(milliseconds: number): string {
  if (milliseconds < MINUTE_MS) return 'just now';
  if (milliseconds < HOUR_MS) return `${Math.floor(milliseconds / MINUTE_MS)} min`;
  if (milliseconds < DAY_MS) return `${Math.floor(milliseconds / HOUR_MS)} h`;
  return `${Math.floor(milliseconds / DAY_MS)} d`;
}

/** Rows as columns padded to the widest cell; the last column is not padded. Cells hold entry text, so hidden characters are spelled out first. */
export function alignColumns(rawRows: ReadonlyArray<readonly string[]>, indent = ''): string[] {
  const rows = rawRows.map((row) => row.map(visibleText));
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, column) => (widths[column] = Math.max(widths[column] ?? 0, cell.length)));
  return rows.map((row) => indent + row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '));
}

/** `"text"` with JSON escapes, shortened to `max` characters with `…`, hidden characters spelled out. */
export function quoteText(text: string, max = 80): string {
  return visibleText(JSON.stringify(clip(text, max)));
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return longest;
}

/**
 * Inline Markdown code that holds any text: a longer backtick fence than any run inside;
 * newlines folded; any other line ending (a lone `\r`) and hidden character spelled out, so
 * the span stays on one line and nothing after it can start a block (HTML, a heading).
 * Inside a code span nothing is a link, an element or a mention.
 */
export function markdownCode(text: string): string {
  const flat = visibleText(text.replace(/[ \t]*\r?\n[ \t]*/g, ' '));
  const fence = '`'.repeat(longestBacktickRun(flat) + 1);
  const padded = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ` ${flat} ` : flat;
  return `${fence}${padded}${fence}`;
}

/** A fenced Markdown code block (`language` e.g. `diff`) whose fence no line inside can close; a line break inside a line is spelled out. */
export function markdownBlock(lines: readonly string[], language = ''): string[] {
  const shown = lines.map(visibleText);
  const fence = '`'.repeat(Math.max(3, ...shown.map((line) => longestBacktickRun(line) + 1)));
  return [`${fence}${language}`, ...shown, fence];
}

/**
 * Markdown text (inside a line) with every ASCII punctuation character backslash-escaped (all
 * that start code, emphasis, links, HTML, entities, tables, headings or lists in CommonMark
 * and GitHub's renderer) and hidden characters spelled out. For our own words: a value from
 * an entry goes in {@link markdownCode}, since GitHub links `@name` and `#1` in plain text
 * whatever the escapes.
 */
export function markdownText(text: string): string {
  return visibleText(text.replace(/[ \t]*\r?\n[ \t]*/g, ' ')).replace(/[!-/:-@[-`{-~]/g, (character) => `\\${character}`);
}

/** `1 entry` / `3 entries`. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** An audit score as text, rounded down so it never reads better than it is: `0.93`; `none` when no mutant was judged. */
export function formatScore(score: number | undefined): string {
  return score === undefined ? 'none' : (Math.floor(score * 100) / 100).toFixed(2);
}

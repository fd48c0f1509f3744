/**
 * The one way a text is shortened for a sentence, a log line or a record: cut to at most
 * `limit` characters, the last of them an ellipsis when cut.
 */

/** `text` cut to at most `limit` characters, ending in `…` when cut. */
export function clip(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** `text` on one line (each run of whitespace as one space, trimmed), clipped to `limit`. */
export function clipLine(text: string, limit: number): string {
  return clip(text.replace(/\s+/g, ' ').trim(), limit);
}

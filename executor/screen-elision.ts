/**
 * Superseded full screens leave the history. A whole screen in an early message is only
 * useful until a newer whole screen arrives; after that it is replaced by a one-line marker,
 * so the history stays small and everything before the marker stays byte-identical between
 * turns (the provider's prompt cache keeps working).
 */
import type { ModelMessage, ToolResultPart } from 'ai';

/**
 * The header line of a full screen (`Screen (revision 3, path /, 6 nodes):`, or of a bounded
 * one, `… 64 nodes shown, 199,975 left out):`). A change report's header (`Screen revision 3,
 * changes since revision 2:`) does not match.
 */
const HEADER = /^Screen \(revision (\d+), [^\n]*(?:nodes|left out)\):$/gm;
/** A line of a screen: optional indentation, then `#id`, or `… ` for nodes left out. */
const NODE_LINE = /^ *(?:#\S|… )/;

/** One full screen found in a text. */
interface ScreenBlock {
  start: number;
  end: number;
  revision: string;
}

/** Find the full screens in a text: each header line plus the node lines under it. */
export function findScreenBlocks(text: string): ScreenBlock[] {
  if (!text.includes('Screen (revision ')) return [];
  const blocks: ScreenBlock[] = [];
  for (const match of text.matchAll(HEADER)) {
    const start = match.index;
    let end = start + match[0].length;
    while (end < text.length) {
      const lineEnd = text.indexOf('\n', end + 1);
      const line = text.slice(end + 1, lineEnd === -1 ? text.length : lineEnd);
      if (!NODE_LINE.test(line)) break;
      end = lineEnd === -1 ? text.length : lineEnd;
    }
    blocks.push({ start, end, revision: match[1] ?? '?' });
  }
  return blocks;
}

/** The marker left where a superseded screen was. */
export function elisionMarker(revision: string): string {
  return `[Screen revision ${revision} left out: a newer screen follows.]`;
}

/** Replace the first `count` screens of `text` with markers. */
function elideFirst(text: string, count: number): string {
  if (count <= 0) return text;
  const blocks = findScreenBlocks(text).slice(0, count);
  let result = '';
  let cursor = 0;
  for (const block of blocks) {
    result += text.slice(cursor, block.start) + elisionMarker(block.revision);
    cursor = block.end;
  }
  return result + text.slice(cursor);
}

/**
 * Apply `transform` to every text a message carries for the model (user text, tool result
 * text), returning the same object when nothing changed. Assistant text is the model's own
 * and stays as it was.
 */
export function mapMessageTexts(message: ModelMessage, transform: (text: string) => string): ModelMessage {
  if (message.role === 'user') {
    if (typeof message.content === 'string') {
      const next = transform(message.content);
      return next === message.content ? message : { ...message, content: next };
    }
    let changed = false;
    const content = message.content.map((part) => {
      if (part.type !== 'text') return part;
      const next = transform(part.text);
      if (next === part.text) return part;
      changed = true;
      return { ...part, text: next };
    });
    return changed ? { ...message, content } : message;
  }
  if (message.role === 'tool') {
    let changed = false;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result') return part;
      const output = mapOutputTexts(part.output, transform);
      if (output === part.output) return part;
      changed = true;
      return { ...part, output } satisfies ToolResultPart;
    });
    return changed ? { ...message, content } : message;
  }
  return message;
}

function mapOutputTexts(output: ToolResultPart['output'], transform: (text: string) => string): ToolResultPart['output'] {
  switch (output.type) {
    case 'text':
    case 'error-text': {
      const next = transform(output.value);
      return next === output.value ? output : { ...output, value: next };
    }
    case 'content': {
      let changed = false;
      const value = output.value.map((item) => {
        if (item.type !== 'text') return item;
        const next = transform(item.text);
        if (next === item.text) return item;
        changed = true;
        return { ...item, text: next };
      });
      return changed ? { ...output, value } : output;
    }
    default:
      return output;
  }
}

/** Collect every text a message carries for the model, in order. */
export function messageTexts(message: ModelMessage): string[] {
  const texts: string[] = [];
  mapMessageTexts(message, (text) => {
    texts.push(text);
    return text;
  });
  return texts;
}

const screenCounts = new WeakMap<ModelMessage, number>();
const fullyElided = new WeakMap<ModelMessage, ModelMessage>();

function countScreens(message: ModelMessage): number {
  let count = screenCounts.get(message);
  if (count === undefined) {
    count = messageTexts(message).reduce((total, text) => total + findScreenBlocks(text).length, 0);
    screenCounts.set(message, count);
  }
  return count;
}

/**
 * The history with every full screen but the latest replaced by a marker. Messages without
 * a superseded screen keep their identity, and a fully elided message is computed once, so
 * repeated calls return equal prefixes.
 */
export function elideSupersededScreens(messages: readonly ModelMessage[]): ModelMessage[] {
  const counts = messages.map(countScreens);
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total <= 1) return [...messages];
  let seen = 0;
  return messages.map((message, index) => {
    const count = counts[index] ?? 0;
    if (count === 0) return message;
    const before = seen;
    seen += count;
    if (seen < total) {
      let elided = fullyElided.get(message);
      if (elided === undefined) {
        elided = mapMessageTexts(message, (text) => elideFirst(text, Number.MAX_SAFE_INTEGER));
        fullyElided.set(message, elided);
      }
      return elided;
    }
    // This message holds the latest screen: keep only its last one.
    let remaining = total - 1 - before;
    return mapMessageTexts(message, (text) => {
      const here = findScreenBlocks(text).length;
      const take = Math.min(here, remaining);
      remaining -= take;
      return elideFirst(text, take);
    });
  });
}

/**
 * The text screen of DESIGN §4: what the model reads instead of HTML. Pure functions over
 * {@link ScreenNode} trees (no Playwright): render with secrets redacted, diff two screens
 * by node id, and a cheap shape signature for settling that ignores ticking clocks.
 */
import { NODE_STATES, type ScreenNode } from '../contract/engine.js';
import { maskTickingText, TICKING_ROLES } from '../contract/volatile-text.js';

/** What {@link renderScreen} needs from an observation. */
export interface RenderableScreen {
  root: ScreenNode;
  /** The page URL; the header shows its path, links are shown relative to its origin. */
  url: string;
}

/** Options of {@link renderScreen}. */
export interface RenderOptions {
  /** Monotonic revision within the attempt. */
  revision: number;
  /** Configured secrets, name → value; every value found is shown as `<secret:name>`. */
  secrets?: ReadonlyMap<string, string>;
}

/** Replace every configured secret value (also URL-encoded) in `text` by `<secret:name>`. */
export type Redactor = (text: string) => string;

/** Regular-expression-safe literal. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The spellings a secret value can take in a page or URL. */
function spellingsOf(value: string): string[] {
  const spellings = new Set<string>([value]);
  try {
    const component = encodeURIComponent(value);
    spellings.add(component);
    spellings.add(component.replace(/%20/g, '+'));
    spellings.add(encodeURI(value));
  } catch {
    // Lone surrogates cannot be encoded; the raw value is still matched.
  }
  return [...spellings].filter((spelling) => spelling !== '');
}

/**
 * Build a redactor for `secrets`. One pass with one alternation, longest spelling first, so
 * a secret inside another is never half-replaced and a replacement is never re-scanned.
 */
export function createRedactor(secrets: ReadonlyMap<string, string> | undefined): Redactor {
  if (secrets === undefined || secrets.size === 0) return (text) => text;
  const nameBySpelling = new Map<string, string>();
  for (const [name, value] of [...secrets].sort(([left], [right]) => left.localeCompare(right))) {
    if (typeof value !== 'string' || value === '') continue;
    for (const spelling of spellingsOf(value)) if (!nameBySpelling.has(spelling)) nameBySpelling.set(spelling, name);
  }
  if (nameBySpelling.size === 0) return (text) => text;
  const spellings = [...nameBySpelling.keys()].sort((left, right) => right.length - left.length);
  const pattern = new RegExp(spellings.map(escapeRegExp).join('|'), 'g');
  return (text) => {
    if (text === '') return text;
    const redacted = text.replace(pattern, (found) => `<secret:${nameBySpelling.get(found) ?? 'unknown'}>`);
    return redacted.endsWith(CLIPPED) ? redactClippedTail(redacted, spellings, nameBySpelling) : redacted;
  };
}

/** The mark the engine puts where it clipped a long text. */
const CLIPPED = '…';
/** Shortest secret prefix worth hiding at a clip point. */
const SHORTEST_TAIL = 3;

/** A text clipped in the middle of a secret would show the secret's start: hide that tail too. */
function redactClippedTail(text: string, spellings: string[], nameBySpelling: Map<string, string>): string {
  const body = text.slice(0, -CLIPPED.length);
  for (const spelling of spellings) {
    for (let length = spelling.length - 1; length >= Math.min(SHORTEST_TAIL, spelling.length - 1) && length > 0; length--) {
      if (body.endsWith(spelling.slice(0, length))) return `${body.slice(0, -length)}<secret:${nameBySpelling.get(spelling) ?? 'unknown'}>${CLIPPED}`;
    }
  }
  return text;
}

/** Replace configured secret values in any text. */
export function redactText(text: string, secrets: ReadonlyMap<string, string> | undefined): string {
  return createRedactor(secrets)(text);
}

/** Quote-safe form of a value inside `"…"`: backslash, quote, newlines and control characters escaped. */
export function escapeQuoted(text: string): string {
  let escaped = '';
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (character === '\\') escaped += '\\\\';
    else if (character === '"') escaped += '\\"';
    else if (character === '\n') escaped += '\\n';
    else if (character === '\r') escaped += '\\r';
    else if (character === '\t') escaped += '\\t';
    else if (code < 0x20 || code === 0x7f || code === 0x2028 || code === 0x2029) escaped += '\\u' + code.toString(16).padStart(4, '0');
    else escaped += character;
  }
  return escaped;
}

/** Path shown in the header: the URL's path, plus a `#/…` hash route when the app routes by hash. */
export function screenPathOf(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'about:' || parsed.protocol === 'data:') return parsed.protocol + parsed.pathname.slice(0, 40);
    const hashRoute = /^#!?\//.test(parsed.hash) ? parsed.hash : '';
    return parsed.pathname + hashRoute;
  } catch {
    return url.split(/[?#]/)[0] ?? url;
  }
}

/** A link target without query and fragment; same-origin links show only their path. */
export function elideHref(href: string, pageUrl: string): string {
  try {
    const target = new URL(href, pageUrl);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return target.protocol + target.pathname;
    let pageOrigin: string | undefined;
    try {
      pageOrigin = new URL(pageUrl).origin;
    } catch {
      pageOrigin = undefined;
    }
    return target.origin === pageOrigin ? target.pathname : target.origin + target.pathname;
  } catch {
    return href.split(/[?#]/)[0] ?? href;
  }
}

/** One node's line, without indentation: `#id role "name" text="…" testid="…" value="…" href="…" [states]`. */
export function renderNodeLine(node: ScreenNode, pageUrl: string, redact: Redactor): string {
  const quoted = (text: string): string => `"${escapeQuoted(redact(text))}"`;
  let line = `#${node.id} ${node.role} ${quoted(node.name)}`;
  if (node.text !== undefined && node.text !== '') line += ` text=${quoted(node.text)}`;
  if (node.testId !== undefined && node.testId !== '') line += ` testid=${quoted(node.testId)}`;
  const secure = node.states.includes('secure');
  if (secure) line += ' value=<secure>';
  else if (node.value !== undefined && node.value !== '') line += ` value=${quoted(node.value)}`;
  if (node.href !== undefined && node.href !== '') line += ` href=${quoted(elideHref(node.href, pageUrl))}`;
  const states = NODE_STATES.filter((state) => node.states.includes(state));
  if (states.length > 0) line += ` [${states.join(' ')}]`;
  return line;
}

/**
 * The whole screen: `Screen (revision 3, path /, 6 nodes):` then one line per node,
 * indented one space per depth. Secret values never survive, in any field or the path.
 */
export function renderScreen(screen: RenderableScreen, options: RenderOptions): string {
  const redact = createRedactor(options.secrets);
  const lines: string[] = [];
  const visit = (node: ScreenNode, depth: number): void => {
    lines.push(' '.repeat(depth) + renderNodeLine(node, screen.url, redact));
    for (const child of node.children) visit(child, depth + 1);
  };
  visit(screen.root, 0);
  const header = `Screen (revision ${options.revision}, path ${redact(screenPathOf(screen.url))}, ${lines.length} nodes):`;
  return header + '\n' + lines.join('\n');
}

/** The change report between two rendered screens. */
export interface ScreenDiff {
  /** `added <line>`, `changed <line> (was: <old line>)`, `removed <line>`, in screen order. */
  lines: string[];
  /** The lines joined by newlines (empty when nothing changed). */
  text: string;
  added: number;
  changed: number;
  removed: number;
  /** True when most of the screen changed: send the whole new screen instead. */
  mostlyChanged: boolean;
  /** True when no node line changed (the header may still differ). */
  unchanged: boolean;
}

/** Share of changed lines above which a screen counts as mostly changed. */
export const MOSTLY_CHANGED_RATIO = 0.6;

const NODE_LINE = /^ *#(\S+) /;

/** Node lines of a rendered screen, by id, in order (the header is skipped). */
function linesById(screen: string): Map<string, string> {
  const byId = new Map<string, string>();
  for (const line of screen.split('\n')) {
    const match = NODE_LINE.exec(line);
    if (match?.[1] !== undefined) byId.set(match[1], line.trimStart());
  }
  return byId;
}

/** What changed from `previous` to `next` (both rendered by {@link renderScreen}), keyed by node id. */
export function diffScreens(previous: string, next: string): ScreenDiff {
  const before = linesById(previous);
  const after = linesById(next);
  const lines: string[] = [];
  let added = 0;
  let changed = 0;
  let removed = 0;
  for (const [id, line] of after) {
    const old = before.get(id);
    if (old === undefined) {
      lines.push(`added ${line}`);
      added++;
    } else if (old !== line) {
      lines.push(`changed ${line} (was: ${old})`);
      changed++;
    }
  }
  for (const [id, line] of before) {
    if (!after.has(id)) {
      lines.push(`removed ${line}`);
      removed++;
    }
  }
  const total = added + changed + removed;
  const base = Math.max(before.size, after.size, 1);
  return { lines, text: lines.join('\n'), added, changed, removed, mostlyChanged: total / base > MOSTLY_CHANGED_RATIO, unchanged: total === 0 };
}

/**
 * A cheap signature of a screen for settling: ids (not of `text` runs), roles, names, texts,
 * values and states, with ticking clocks masked and timers ignored. Rects are left out (layout jitter is not change).
 */
export function shapeOf(screen: ScreenNode | { root: ScreenNode; url?: string }): string {
  const root = 'root' in screen ? screen.root : screen;
  const url = 'root' in screen ? (screen.url ?? '') : '';
  // Two 32-bit multiplicative hashes over the fields, fed piece by piece (no giant string).
  let first = 0x811c9dc5;
  let second = 0x01000193;
  let nodes = 0;
  const feed = (text: string): void => {
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      first = Math.imul(first ^ code, 0x01000193);
      second = Math.imul(second ^ code, 0x5bd1e995);
    }
    first = Math.imul(first ^ 0x1f, 0x01000193);
    second = Math.imul(second ^ 0x1f, 0x5bd1e995);
  };
  feed(url);
  const stack: ScreenNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === undefined) break;
    nodes++;
    // A text run's id follows the DOM text node, which a clock that sets textContent replaces each tick.
    feed(node.role === 'text' ? '' : node.id);
    feed(node.role);
    if (!TICKING_ROLES.has(node.role)) {
      feed(maskTickingText(node.name));
      feed(maskTickingText(node.text ?? ''));
      feed(maskTickingText(node.value ?? ''));
    }
    feed(node.states.join(','));
    feed(String(node.children.length));
    for (let index = node.children.length - 1; index >= 0; index--) {
      const child = node.children[index];
      if (child !== undefined) stack.push(child);
    }
  }
  return `${nodes}:${(first >>> 0).toString(16)}${(second >>> 0).toString(16)}`;
}

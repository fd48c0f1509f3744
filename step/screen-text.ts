/**
 * The text screen of DESIGN §4: what the model reads instead of HTML. Pure functions over
 * {@link ScreenNode} trees (no Playwright): render with secrets redacted, diff two screens
 * by node id, and a cheap shape signature for settling that ignores ticking clocks.
 */
import { NODE_STATES, OMITTED_ROLE, type OmittedNodes, type ScreenNode } from '../contract/engine.js';
import { maskTickingText } from '../semantics/volatile-text.js';
import { createSecretRedactor } from '../secrets/redactor.js';
import { CHANGE_CONTAINER_ROLES, INTERACTIVE_ROLES, TICKING_ROLES } from '../contract/roles.js';

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

/** Replace every configured secret value, in every recognisable form, in `text` by `<secret:name>`. */
export type Redactor = (text: string) => string;

/** A character {@link escapeQuoted} rewrites; most texts have none and are kept as they are. */
const NEEDS_ESCAPE = /[\\"\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Quote-safe form of a value inside `"…"`: backslash, quote, newlines, every other line separator and control characters escaped. */
export function escapeQuoted(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  let escaped = '';
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (character === '\\') escaped += '\\\\';
    else if (character === '"') escaped += '\\"';
    else if (character === '\n') escaped += '\\n';
    else if (character === '\r') escaped += '\\r';
    else if (character === '\t') escaped += '\\t';
    // C0 and C1 controls (NEL, U+0085, among them) and the Unicode line and paragraph separators: a
    // reader that splits lines on any of them must still see one node per line.
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) escaped += '\\u' + code.toString(16).padStart(4, '0');
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

/** Longest first or last name an omission line quotes. */
const OMITTED_NAME_LIMIT = 40;

/** A name clipped for an omission line, quoted and escaped. */
function omittedName(name: string, redact: Redactor): string {
  const clipped = [...name.replace(/\s+/g, ' ').trim()].slice(0, OMITTED_NAME_LIMIT + 1);
  const shown = clipped.length > OMITTED_NAME_LIMIT ? clipped.slice(0, OMITTED_NAME_LIMIT).join('') + '…' : clipped.join('');
  return `"${escapeQuoted(redact(shown))}"`;
}

/**
 * The line that stands for nodes left out of a screen, without indentation:
 * `… 199,975 more listitem in list "Log" ("Item 21" … "Item 199,995") — use find to reach one`.
 * It starts with `…`, never with `#`, so no reader takes it for a node.
 */
export function omissionLine(left: OmittedNodes, parent: ScreenNode | undefined, redact: Redactor): string {
  const what = left.role === '' ? (left.count === 1 ? 'node' : 'nodes') : left.role;
  let line = `… ${left.count.toLocaleString('en-US')} more ${what}`;
  if (parent !== undefined && parent.name !== '' && parent.role !== 'document') line += ` in ${parent.role} "${escapeQuoted(redact(clipLabel(parent.name)))}"`;
  const first = left.first ?? '';
  const last = left.last ?? '';
  if (first !== '' && last !== '' && left.count > 1) line += ` (${omittedName(first, redact)} … ${omittedName(last, redact)})`;
  else if (first !== '') line += ` (${omittedName(first, redact)})`;
  return `${line} — use find to reach one`;
}

/** A container name as an omission line shows it: at most 40 characters. */
function clipLabel(name: string): string {
  const characters = [...name];
  return characters.length > OMITTED_NAME_LIMIT ? characters.slice(0, OMITTED_NAME_LIMIT).join('') + '…' : name;
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
  if (node.states.length > 0) {
    const states = NODE_STATES.filter((state) => node.states.includes(state));
    if (states.length > 0) line += ` [${states.join(' ')}]`;
  }
  return line;
}

/**
 * The first line of a screen: `Screen (revision 3, path /, 6 nodes):` (no path on a screen without a URL), or, when part of the
 * screen was left out, `Screen (revision 3, path /log, 64 nodes shown, 199,975 left out):`.
 */
export function screenHeader(revision: number, path: string | undefined, shown: number, leftOut: number): string {
  const size = leftOut === 0 ? `${shown} nodes` : `${shown.toLocaleString('en-US')} nodes shown, ${leftOut.toLocaleString('en-US')} left out`;
  return `Screen (revision ${revision}, ${path === undefined ? '' : `path ${path}, `}${size}):`;
}

/** Indentations by depth, made once each. */
const INDENTS: string[] = [''];

/** `depth` spaces. */
export function indentation(depth: number): string {
  for (let next = INDENTS.length; next <= Math.min(depth, 1024); next++) INDENTS.push(INDENTS[next - 1] + ' ');
  return depth < INDENTS.length ? INDENTS[depth]! : ' '.repeat(depth);
}

/**
 * The whole screen: `Screen (revision 3, path /, 6 nodes):` then one line per node,
 * indented one space per depth. Secret values never survive, in any field or the path.
 */
export function renderScreen(screen: RenderableScreen, options: RenderOptions): string {
  const redactor = createSecretRedactor(options.secrets ?? []);
  const redact: Redactor = (text) => redactor.redact(text);
  const lines: string[] = [];
  // An explicit stack: a page may nest thousands deep or hold hundreds of thousands of siblings.
  const stack: Array<{ node: ScreenNode; depth: number; parent: ScreenNode | undefined }> = [{ node: screen.root, depth: 0, parent: undefined }];
  let nodes = 0;
  let leftOut = 0;
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { node, depth } = next;
    if (node.omitted !== undefined && node.role === OMITTED_ROLE) {
      // A placeholder the engine put where it left nodes out.
      lines.push(indentation(depth) + omissionLine(node.omitted, next.parent, redact));
      leftOut += node.omitted.count;
      continue;
    }
    nodes++;
    lines.push(indentation(depth) + renderNodeLine(node, screen.url, redact));
    const { children } = node;
    for (let index = children.length - 1; index >= 0; index--) stack.push({ node: children[index]!, depth: depth + 1, parent: node });
  }
  // A screen of an engine without a location has no URL (`''`), so no path.
  return screenHeader(options.revision, screen.url === '' ? undefined : redact(screenPathOf(screen.url)), nodes, leftOut) + '\n' + lines.join('\n');
}

/** The change report between two rendered screens. */
export interface ScreenDiff {
  /**
   * `added <line>`, `changed <line> (was: <old line>)`, `removed <line>`, in screen order. An
   * added or changed line names the container it sits in: `added #n31 checkbox "Toggle" in
   * listitem "Buy milk"`. The old line leaves out the `#id role` it shares with the new one.
   */
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

const NODE_LINE = /^( *)#(\S+) /;
/** `#id role "name"` at the start of a node line (the name as rendered, escapes kept). */
const LINE_HEAD = /^#\S+ (\S+) "((?:[^"\\]|\\.)*)"/;

/** Longest container name shown after `in`; longer ones are clipped. */
const CONTEXT_NAME_LIMIT = 40;

/** A node line, trimmed, the nearest named container around it (`listitem "Buy milk"`), and its parent's id. */
interface ScreenLine {
  line: string;
  container: string | undefined;
  parent: string | undefined;
}

/**
 * What the trees behind two bounded screens say about lines that show on one only: a node
 * that is in the other tree was only left out of that text, not added or removed; a node
 * whose parent now holds a placeholder of the engine may be among what it did not read.
 */
export interface DiffContext {
  /** Every id of the earlier screen's tree. */
  previousIds: ReadonlySet<string>;
  /** Every id of the later screen's tree. */
  nextIds: ReadonlySet<string>;
  /** Ids of the later tree's nodes that hold a placeholder ({@link OMITTED_ROLE}). */
  nextOmitting: ReadonlySet<string>;
}

/** `role "name"` of a container line, or undefined when the line is no named container. */
function containerOf(line: string): string | undefined {
  const head = LINE_HEAD.exec(line);
  if (head === null || !CHANGE_CONTAINER_ROLES.has(head[1]!) || head[2] === '') return undefined;
  let name = head[2]!;
  if ([...name].length > CONTEXT_NAME_LIMIT) {
    name = [...name].slice(0, CONTEXT_NAME_LIMIT).join('');
    // Never end on half an escape (`\`, `\"`).
    const trailing = /\\+$/.exec(name)?.[0].length ?? 0;
    if (trailing % 2 === 1) name = name.slice(0, -1);
    name += '…';
  }
  return `${head[1]} "${name}"`;
}

/** Node lines of a rendered screen, by id, in order (the header is skipped), each with its container. */
function linesById(screen: string): Map<string, ScreenLine> {
  const byId = new Map<string, ScreenLine>();
  // The nearest named container at each open depth, innermost last.
  const open: Array<{ depth: number; container: string | undefined; id: string }> = [];
  for (const line of screen.split('\n')) {
    const match = NODE_LINE.exec(line);
    if (match?.[2] === undefined) continue;
    const depth = match[1]!.length;
    while (open.length > 0 && open[open.length - 1]!.depth >= depth) open.pop();
    const container = open[open.length - 1]?.container;
    const parent = open[open.length - 1]?.id;
    const trimmed = line.trimStart();
    open.push({ depth, container: containerOf(trimmed) ?? container, id: match[2] });
    byId.set(match[2], { line: trimmed, container, parent });
  }
  return byId;
}

/**
 * The lines of the nodes `ids` on a rendered screen, each with the container it sits in
 * (`#n31 checkbox "Toggle" in listitem "Buy milk"`), in the order of `ids`; ids the text
 * does not show are skipped.
 */
export function linesOf(screen: string, ids: readonly string[]): string[] {
  const byId = linesById(screen);
  return ids.flatMap((id) => {
    const line = byId.get(id);
    return line === undefined ? [] : [`${line.line}${placed(line)}`];
  });
}

/** ` in listitem "Buy milk"`, or nothing outside any named container. */
function placed(line: ScreenLine): string {
  return line.container === undefined ? '' : ` in ${line.container}`;
}

/**
 * The old line without what it shares with the new one: the `#id role `, and the name when it
 * is the same; the rest is what changed (`(was: value="Buy milk" [focused])`, or `(was: no
 * value or states)` when only the new line has any).
 */
function formerly(old: string, current: string): string {
  const head = /^#\S+ \S+ /.exec(old)?.[0];
  if (head === undefined || !current.startsWith(head)) return old;
  const rest = old.slice(head.length);
  const name = /^"(?:[^"\\]|\\.)*"/.exec(rest)?.[0];
  if (name === undefined || !current.startsWith(name, head.length)) return rest;
  const remainder = rest.slice(name.length).trimStart();
  return remainder === '' ? 'no value or states' : remainder;
}


/** A line with nothing to read: no name, text, value, link or state, and no control a person operates (`#n4 list ""`). */
function isBare(line: string): boolean {
  const bare = /^#\S+ (\S+) ""$/.exec(line);
  return bare !== null && !INTERACTIVE_ROLES.has(bare[1]!);
}

/**
 * What changed from `previous` to `next` (both rendered by {@link renderScreen} or the bounded
 * renderer), keyed by node id. With `context`, a line that shows on one screen only is reported
 * only when its node is new, or gone from the tree too (not merely left out of a bounded text).
 */
export function diffScreens(previous: string, next: string, context?: DiffContext): ScreenDiff {
  const before = linesById(previous);
  const after = linesById(next);
  const lines: string[] = [];
  let added = 0;
  let changed = 0;
  let removed = 0;
  for (const [id, current] of after) {
    const old = before.get(id);
    if (old === undefined) {
      // Already in the earlier tree: only its line is new to the text.
      if (context?.previousIds.has(id) === true) continue;
      added++;
      // A bare unnamed wrapper (`list ""`) says nothing its added children do not; it is counted, not listed.
      if (!isBare(current.line)) lines.push(`added ${current.line}${placed(current)}`);
    } else if (old.line !== current.line) {
      lines.push(`changed ${current.line}${placed(current)} (was: ${formerly(old.line, current.line)})`);
      changed++;
    }
  }
  for (const [id, old] of before) {
    if (!after.has(id)) {
      // Still in the tree, or possibly among what the engine did not read: left out, not removed.
      if (context !== undefined && (context.nextIds.has(id) || (old.parent !== undefined && context.nextOmitting.has(old.parent)))) continue;
      removed++;
      if (!isBare(old.line)) lines.push(`removed ${old.line}`);
    }
  }
  const total = added + changed + removed;
  const base = Math.max(before.size, after.size, 1);
  return { lines, text: lines.join('\n'), added, changed, removed, mostlyChanged: total / base > MOSTLY_CHANGED_RATIO, unchanged: total === 0 };
}

/** Options of {@link shapeOf}. */
export interface ShapeOptions {
  /** Count which node is focused (default true). */
  focus?: boolean;
  /** Count where each node is (its rect), e.g. to tell whether scrolling moved anything (default false). */
  rects?: boolean;
}

/**
 * A cheap signature of a screen for settling: ids (not of `text` runs), roles, names, texts,
 * values and states, with ticking clocks masked and timers ignored. Rects are left out (layout jitter is not change).
 */
export function shapeOf(screen: ScreenNode | { root: ScreenNode; url?: string }, options: ShapeOptions = {}): string {
  const focus = options.focus ?? true;
  const rects = options.rects ?? false;
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
    feed((focus ? node.states : node.states.filter((state) => state !== 'focused')).join(','));
    feed(String(node.children.length));
    if (rects && node.rect !== undefined) feed(`${node.rect.x},${node.rect.y},${node.rect.width},${node.rect.height}`);
    for (let index = node.children.length - 1; index >= 0; index--) {
      const child = node.children[index];
      if (child !== undefined) stack.push(child);
    }
  }
  return `${nodes}:${(first >>> 0).toString(16)}${(second >>> 0).toString(16)}`;
}

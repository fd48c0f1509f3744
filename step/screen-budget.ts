/**
 * A screen of bounded size (issue 34): past a budget of nodes and characters, the text keeps
 * the structure, what was asked for, the focus, dialogs, controls near the viewport and the
 * first and last items of long runs, and replaces the rest with a line that says what was left
 * out (`… 199,975 more listitem in list "Log" ("Item 21" … "Item 199,995") — use find to reach
 * one`). The tree is never cut: only the text the model reads. See step/README.md, "Bounded
 * screens".
 */
import { OMITTED_ROLE, type OmittedNodes, type ScreenNode } from '../contract/engine.js';
import { createSecretRedactor } from '../secrets/redactor.js';
import { INTERACTIVE_ROLES, OUTLINE_ROLES, OVERLAY_ROLES } from '../contract/roles.js';
import { indentation, omissionLine, renderNodeLine, screenHeader, screenPathOf, type Redactor, type RenderableScreen } from './screen-text.js';

/** How much of a screen the text shows. */
export interface ScreenBudget {
  /** Most node lines. */
  maxNodes: number;
  /** Most characters of the whole text (indentation included). */
  maxChars: number;
}

/**
 * The default budget: 40,000 characters (about 10,000 tokens) or 1,500 nodes, whichever comes
 * first. Measured (bench `observe`, the corpus): TodoMVC screens are under 3,000 characters,
 * the Swagger UI corpus and the 1,000-node bench page fit whole; the 10,000-element bench page
 * (142,000 characters) and a 200,000-item list do not.
 */
export const DEFAULT_SCREEN_BUDGET: ScreenBudget = { maxNodes: 1_500, maxChars: 40_000 };

/** Options of {@link renderBoundedScreen}. */
export interface BoundedRenderOptions {
  revision: number;
  budget: ScreenBudget;
  /** Configured secrets, name → value. */
  secrets?: ReadonlyMap<string, string>;
  /** Ids that must show (what `find` found, what was just acted on), each with its ancestors. */
  keep?: ReadonlySet<string>;
  /** The visible area (controls inside it are kept first); default 1280 × 720. */
  viewport?: { width: number; height: number } | undefined;
}

/** A screen as the model reads it. */
export interface BoundedScreen {
  text: string;
  /** Node lines shown. */
  shown: number;
  /** Nodes left out: those of the tree the text does not show, and those the engine never read. */
  leftOut: number;
  /** Ids of the nodes the text shows; undefined when it shows every node of the tree. */
  shownIds: ReadonlySet<string> | undefined;
}

const DEFAULT_VIEWPORT = { width: 1280, height: 720 };

/** Nodes this shallow are the outline of any screen (what the document holds at its top). */
const OUTLINE_DEPTH = 1;
/** A run of at least this many siblings of one role shows its first and last items whatever else fits. */
const RUN_MIN = 12;
const RUN_HEAD = 3;
const RUN_TAIL = 2;

/** The tree flattened in pre-order, with what selecting needs. */
interface Flat {
  nodes: ScreenNode[];
  parent: Int32Array;
  depth: Int32Array;
  /** Characters of each line, indentation and newline included (0 for placeholders, always shown). */
  cost: Int32Array;
  lines: string[];
}

function flatten(root: ScreenNode, url: string, redact: Redactor): Flat {
  const nodes: ScreenNode[] = [];
  const parents: number[] = [];
  const depths: number[] = [];
  const lines: string[] = [];
  const stack: Array<{ node: ScreenNode; parent: number; depth: number }> = [{ node: root, parent: -1, depth: 0 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const index = nodes.length;
    nodes.push(next.node);
    parents.push(next.parent);
    depths.push(next.depth);
    lines.push(isPlaceholder(next.node) ? '' : renderNodeLine(next.node, url, redact));
    const { children } = next.node;
    for (let child = children.length - 1; child >= 0; child--) stack.push({ node: children[child]!, parent: index, depth: next.depth + 1 });
  }
  const cost = new Int32Array(nodes.length);
  for (let index = 0; index < nodes.length; index++) cost[index] = lines[index] === '' ? 0 : depths[index]! + lines[index]!.length + 1;
  return { nodes, parent: Int32Array.from(parents), depth: Int32Array.from(depths), cost, lines };
}

function isPlaceholder(node: ScreenNode): node is ScreenNode & { omitted: OmittedNodes } {
  return node.role === OMITTED_ROLE && node.omitted !== undefined;
}

/** Picks the nodes to show, most important first, each with its ancestors, within the budget. */
class Selection {
  readonly shown: Uint8Array;
  nodes = 0;
  chars = 0;

  constructor(
    private readonly flat: Flat,
    private readonly budget: ScreenBudget,
  ) {
    this.shown = new Uint8Array(flat.nodes.length);
  }

  /** Show `index` and its ancestors; unless `always`, only when all of them fit. */
  add(index: number, always = false): boolean {
    let nodes = 0;
    let chars = 0;
    for (let at = index; at >= 0 && this.shown[at] === 0; at = this.flat.parent[at]!) {
      if (!isPlaceholder(this.flat.nodes[at]!)) nodes++;
      chars += this.flat.cost[at]!;
    }
    if (nodes === 0 && chars === 0 && this.shown[index] === 1) return true;
    if (!always && (this.nodes + nodes > this.budget.maxNodes || this.chars + chars > this.budget.maxChars)) return false;
    for (let at = index; at >= 0 && this.shown[at] === 0; at = this.flat.parent[at]!) this.shown[at] = 1;
    this.nodes += nodes;
    this.chars += chars;
    return true;
  }

  full(): boolean {
    return this.nodes >= this.budget.maxNodes || this.chars >= this.budget.maxChars;
  }
}

/** Indexes of the nodes inside any dialog, in document order. */
function insideDialogs(flat: Flat): number[] {
  const inside = new Uint8Array(flat.nodes.length);
  const found: number[] = [];
  for (let index = 0; index < flat.nodes.length; index++) {
    const parent = flat.parent[index]!;
    if (OVERLAY_ROLES.has(flat.nodes[index]!.role) || (parent >= 0 && inside[parent] === 1)) {
      inside[index] = 1;
      found.push(index);
    }
  }
  return found;
}

/** Whether a node's box meets the viewport. */
function nearViewport(node: ScreenNode, viewport: { width: number; height: number }): boolean {
  const rect = node.rect;
  if (rect === undefined) return false;
  return rect.y + rect.height > 0 && rect.y < viewport.height && rect.x + rect.width > 0 && rect.x < viewport.width;
}

/** The first and last items of every long run of same-role siblings. */
function runEdges(flat: Flat): number[] {
  const edges: number[] = [];
  const firstChild = new Map<number, number[]>();
  for (let index = 1; index < flat.nodes.length; index++) {
    const parent = flat.parent[index]!;
    let children = firstChild.get(parent);
    if (children === undefined) firstChild.set(parent, (children = []));
    children.push(index);
  }
  for (const children of firstChild.values()) {
    if (children.length < RUN_MIN) continue;
    let start = 0;
    for (let at = 1; at <= children.length; at++) {
      if (at < children.length && flat.nodes[children[at]!]!.role === flat.nodes[children[start]!]!.role) continue;
      if (at - start >= RUN_MIN) {
        for (let head = start; head < start + RUN_HEAD; head++) edges.push(children[head]!);
        for (let tail = at - RUN_TAIL; tail < at; tail++) edges.push(children[tail]!);
      }
      start = at;
    }
  }
  return edges.sort((left, right) => left - right);
}

/** Choose what shows: always the root, placeholders, `keep` and the focus; then dialogs, controls in view, run edges, the outline, the rest in order. */
function select(flat: Flat, options: BoundedRenderOptions): Uint8Array {
  const selection = new Selection(flat, options.budget);
  const viewport = options.viewport ?? DEFAULT_VIEWPORT;
  selection.add(0, true);
  for (let index = 0; index < flat.nodes.length; index++) {
    const node = flat.nodes[index]!;
    if (isPlaceholder(node) || options.keep?.has(node.id) === true || node.states.includes('focused')) selection.add(index, true);
  }
  const tiers: Array<() => Iterable<number>> = [
    () => insideDialogs(flat),
    () => flat.nodes.flatMap((node, index) => (INTERACTIVE_ROLES.has(node.role) && nearViewport(node, viewport) ? [index] : [])),
    () => runEdges(flat),
    () => flat.nodes.flatMap((node, index) => (OUTLINE_ROLES.has(node.role) || flat.depth[index]! <= OUTLINE_DEPTH ? [index] : [])),
    () => flat.nodes.keys(),
  ];
  for (const tier of tiers) {
    for (const index of tier()) {
      if (selection.full()) return selection.shown;
      selection.add(index);
    }
  }
  return selection.shown;
}

/** What a run of hidden siblings (and placeholders among them) comes to. */
class Gap {
  count = 0;
  nodes = 0;
  role: string | undefined;
  first = '';
  last = '';

  /** The one node of the gap, while it has exactly one and no placeholder. */
  only: number | undefined;

  addNode(node: ScreenNode, size: number, index: number): void {
    this.only = this.count === 0 ? index : undefined;
    this.#addRole(node.role, 1);
    this.nodes += size;
    const label = node.name !== '' ? node.name : (node.text ?? '');
    if (this.first === '') this.first = label;
    this.last = label;
  }

  addPlaceholder(left: OmittedNodes): void {
    this.only = undefined;
    this.#addRole(left.role, left.count);
    this.nodes += left.count;
    if (this.first === '') this.first = left.first ?? '';
    this.last = left.last ?? left.first ?? '';
  }

  #addRole(role: string, count: number): void {
    this.role = this.count === 0 || this.role === role ? role : '';
    this.count += count;
  }
}

/**
 * The text screen of DESIGN §4 within `options.budget`: every node when the tree fits, else
 * the chosen nodes, each run of left-out siblings as one omission line in its place.
 */
export function renderBoundedScreen(screen: RenderableScreen, options: BoundedRenderOptions): BoundedScreen {
  const redactor = createSecretRedactor(options.secrets ?? []);
  const redact: Redactor = (text) => redactor.redact(text);
  const flat = flatten(screen.root, screen.url, redact);
  let total = 0;
  let chars = 0;
  for (let index = 0; index < flat.nodes.length; index++) {
    if (!isPlaceholder(flat.nodes[index]!)) total++;
    chars += flat.cost[index]!;
  }
  const fits = total <= options.budget.maxNodes && chars <= options.budget.maxChars;
  const shown = fits ? new Uint8Array(flat.nodes.length).fill(1) : select(flat, options);
  // Subtree sizes (post-order over the pre-order array), to count what a hidden sibling takes with it.
  const size = new Int32Array(flat.nodes.length).fill(1);
  for (let index = flat.nodes.length - 1; index > 0; index--) size[flat.parent[index]!]! += size[index]!;

  const lines: string[] = [];
  let shownCount = 0;
  let leftOut = 0;
  const shownIds = fits ? undefined : new Set<string>();
  // A stack of lines to write: a node (then its children) or an omission line, in document order.
  type Pending = { index: number } | { gap: Gap; depth: number; parent: ScreenNode };
  const stack: Pending[] = [{ index: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if ('gap' in item) {
      lines.push(indentation(item.depth) + omissionLine(omittedOf(item.gap), item.parent, redact));
      continue;
    }
    const { index } = item;
    const node = flat.nodes[index]!;
    lines.push(indentation(flat.depth[index]!) + flat.lines[index]!);
    shownCount++;
    shownIds?.add(node.id);
    const children: Pending[] = [];
    let gap: Gap | undefined;
    const depth = flat.depth[index]! + 1;
    // A node's children follow it in the pre-order array, each subtree `size` long.
    for (let child = index + 1; child < index + size[index]!; child += size[child]!) {
      const childNode = flat.nodes[child]!;
      if (isPlaceholder(childNode)) {
        (gap ??= new Gap()).addPlaceholder(childNode.omitted);
        leftOut += childNode.omitted.count;
      } else if (shown[child] === 1) {
        if (gap !== undefined) children.push({ gap, depth, parent: node });
        gap = undefined;
        children.push({ index: child });
      } else {
        (gap ??= new Gap()).addNode(childNode, size[child]!, child);
        leftOut += size[child]!;
      }
    }
    if (gap !== undefined) children.push({ gap, depth, parent: node });
    // A gap of one childless node shows that node: its line is shorter than the omission line.
    for (let at = 0; at < children.length; at++) {
      const pending = children[at]!;
      if (!('gap' in pending) || pending.gap.count !== 1 || pending.gap.nodes !== 1 || pending.gap.only === undefined) continue;
      children[at] = { index: pending.gap.only };
      leftOut -= 1;
    }
    for (let at = children.length - 1; at >= 0; at--) stack.push(children[at]!);
  }
  const header = screenHeader(options.revision, screen.url === '' ? undefined : redact(screenPathOf(screen.url)), shownCount, leftOut);
  return { text: header + '\n' + lines.join('\n'), shown: shownCount, leftOut, shownIds };
}

function omittedOf(gap: Gap): OmittedNodes {
  const left: OmittedNodes = { count: gap.count, role: gap.role ?? '' };
  if (gap.first !== '') left.first = gap.first;
  if (gap.last !== '') left.last = gap.last;
  return left;
}

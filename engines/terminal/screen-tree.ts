/**
 * The observation's node tree from a read screen: the screen is the root, each drawn box a
 * region (`dialog` at the top, `group` inside another), each list a `menu` or `group` of its
 * rows, and the lines, buttons, marks and the field inside them. Rects are in cells. Ids stay
 * the same while a node's role, name and place stay: they come from a per-attempt map.
 */
import type { NodeState, Rect, ScreenNode } from '../../contract/engine.js';
import type { Box } from './screen-boxes.js';
import type { ScreenElement, ScreenList, ScreenReading } from './screen-elements.js';
import type { Grid } from './screen-grid.js';

/** Node ids that stay the same while what they name stays: role, name and the containers around it. */
export class NodeIds {
  readonly #ids = new Map<string, string>();
  #next = 1;

  /** The id for `key`, the same one every time it is asked. */
  idFor(key: string): string {
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = `t${this.#next++}`;
      this.#ids.set(key, id);
    }
    return id;
  }

  /** Forget every id (a restarted program). */
  clear(): void {
    this.#ids.clear();
    this.#next = 1;
  }
}

const STATE_ORDER: readonly NodeState[] = ['checked', 'disabled', 'selected', 'expanded', 'pressed', 'focused', 'secure'];

function statesOf(element: ScreenElement): NodeState[] {
  return STATE_ORDER.filter((state) => (element.states as Set<string>).has(state));
}

interface Placed {
  node: ScreenNode;
  row: number;
  column: number;
}

/** Options of {@link buildTree}. */
export interface TreeOptions {
  /** The root's name when the program set no title (the command). */
  program: string;
  ids: NodeIds;
}

/** The node tree of a read screen, and its node count. */
export function buildTree(grid: Grid, reading: ScreenReading, options: TreeOptions): { root: ScreenNode; nodeCount: number } {
  const childrenOf = new Map<Box | undefined, Placed[]>();
  const place = (box: Box | undefined, placed: Placed): void => {
    childrenOf.set(box, [...(childrenOf.get(box) ?? []), placed]);
  };
  const listNodes = new Map<ScreenList, { node: ScreenNode; items: Placed[] }>();
  for (const list of reading.lists) {
    const first = list.items[0]!;
    const node: ScreenNode = { id: '', role: list.role, name: list.name, states: [], depth: 0, children: [], rect: listRect(list) };
    listNodes.set(list, { node, items: [] });
    place(list.box, { node, row: first.row, column: first.from });
  }
  for (const element of reading.elements) {
    const node: ScreenNode = { id: '', role: element.role, name: element.name, states: statesOf(element), depth: 0, children: [], rect: { x: element.from, y: element.row, width: element.to - element.from, height: 1 } };
    if (element.value !== undefined) node.value = element.value;
    if (element.placeholder !== undefined) node.placeholder = element.placeholder;
    const placed = { node, row: element.row, column: element.from };
    if (element.list !== undefined) listNodes.get(element.list)!.items.push(placed);
    else place(element.box, placed);
  }
  for (const { node, items } of listNodes.values()) node.children = items.map((item) => item.node);
  const boxNodes = new Map<Box, ScreenNode>();
  for (const box of reading.boxes) {
    const node: ScreenNode = { id: '', role: box.parent === undefined ? 'dialog' : 'group', name: box.title, states: [], depth: 0, children: [], rect: boxRect(box) };
    place(box.parent, { node, row: box.top, column: box.left });
    boxNodes.set(box, node);
  }
  for (const [box, node] of boxNodes) node.children = ordered(childrenOf.get(box) ?? []);
  const root: ScreenNode = {
    id: 'root',
    role: 'document',
    name: grid.title !== '' ? grid.title : options.program,
    states: [],
    depth: 0,
    children: ordered(childrenOf.get(undefined) ?? []),
    rect: { x: 0, y: 0, width: grid.cols, height: grid.rows },
  };
  if (grid.alternate) root.text = 'alternate screen';
  let nodeCount = 0;
  const seen = new Map<string, number>();
  const assign = (node: ScreenNode, depth: number, path: string): void => {
    nodeCount++;
    node.depth = depth;
    if (depth > 0) {
      const base = `${path}\u0001${node.role}\u0002${node.name}`;
      const occurrence = seen.get(base) ?? 0;
      seen.set(base, occurrence + 1);
      node.id = options.ids.idFor(`${base}\u0003${occurrence}`);
    }
    const inner = depth === 0 ? '' : node.children.length > 0 ? `${path}\u0001${node.role}\u0002${node.name}` : path;
    for (const child of node.children) assign(child, depth + 1, inner);
  };
  assign(root, 0, '');
  return { root, nodeCount };
}

function ordered(placed: Placed[]): ScreenNode[] {
  return placed.sort((a, b) => a.row - b.row || a.column - b.column).map((entry) => entry.node);
}

function boxRect(box: Box): Rect {
  return { x: box.left, y: box.top, width: box.right - box.left + 1, height: box.bottom - box.top + 1 };
}

function listRect(list: ScreenList): Rect {
  const first = list.items[0]!;
  const last = list.items.at(-1)!;
  const left = Math.min(...list.items.map((item) => item.from));
  const right = Math.max(...list.items.map((item) => item.to));
  return { x: left, y: first.row, width: right - left, height: last.row - first.row + 1 };
}

/** Every node of a tree in document order. */
export function nodesOf(root: ScreenNode): ScreenNode[] {
  const out: ScreenNode[] = [];
  const walk = (node: ScreenNode): void => {
    out.push(node);
    for (const child of node.children) walk(child);
  };
  walk(root);
  return out;
}

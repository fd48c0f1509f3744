/**
 * Screen trees the size of real pages at their worst, built without recursion: a list of
 * 200,000 siblings (a log viewer, a table without virtualisation) and a chain nested 5,000
 * deep. Every walk over observations must take both without a `RangeError`.
 */
import type { ScreenNode } from '../../contract/engine.js';

/** How many siblings the wide tree holds. */
export const WIDE_SIBLINGS = 200_000;
/** How deep the deep tree nests. */
export const DEEP_LEVELS = 5_000;

/** `200000` as `200,000`, without the locale machinery (200,000 calls of it are slow). */
function groupDigits(number: number): string {
  return String(number).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function leaf(id: string, role: string, name: string, depth: number, extra: Partial<ScreenNode> = {}): ScreenNode {
  return { id, role, name, states: [], depth, children: [], ...extra };
}

/** Every this many items of {@link wideTree}, one holds a `Pin` button. */
export const PIN_EVERY = 1_000;

/**
 * A document with a heading, a `list "Log"` of `count` items (`Item 1` …, ids `i1`…; every
 * {@link PIN_EVERY}th holds a `Pin` button, id `p<number>`), a focused search box, and a
 * `button "Last"` after the list. Items are mostly leaves, so the tree is as wide as a list of
 * 200,000 rows and no heavier than it needs to be.
 */
export function wideTree(count: number = WIDE_SIBLINGS): ScreenNode {
  const items: ScreenNode[] = new Array<ScreenNode>(count);
  for (let index = 0; index < count; index++) {
    const number = index + 1;
    const children = number % PIN_EVERY === 0 ? [leaf(`p${number}`, 'button', 'Pin', 3)] : [];
    items[index] = leaf(`i${number}`, 'listitem', `Item ${groupDigits(number)}`, 2, { children });
  }
  return leaf('root', 'document', 'Log', 0, {
    children: [
      leaf('title', 'heading', 'Log', 1),
      leaf('search', 'searchbox', 'Search', 1, { states: ['focused'] }),
      leaf('log', 'list', 'Log', 1, { children: items }),
      leaf('last', 'button', 'Last', 1),
    ],
  });
}

/**
 * A document whose `group "Level 1"` holds `group "Level 2"` and so on `levels` deep (ids
 * `g1`…), with `button "Deepest"` (id `deepest`) at the bottom and a status beside the chain.
 */
export function deepTree(levels: number = DEEP_LEVELS): ScreenNode {
  const root = leaf('root', 'document', 'Deep', 0, { children: [leaf('status', 'status', 'Ready', 1)] });
  let parent = root;
  for (let level = 1; level <= levels; level++) {
    const group = leaf(`g${level}`, 'group', `Level ${level}`, level);
    parent.children.push(group);
    parent = group;
  }
  parent.children.push(leaf('deepest', 'button', 'Deepest', levels + 1));
  return root;
}

/** The node with `id`, found with a stack; throws when there is none. */
export function nodeById(root: ScreenNode, id: string): ScreenNode {
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.id === id) return node;
    for (const child of node.children) stack.push(child);
  }
  throw new Error(`no node #${id} in the tree`);
}

/** A deep copy of a tree, made with a stack (a changed screen to diff or settle against). */
export function copyTree(root: ScreenNode): ScreenNode {
  const copy: ScreenNode = { ...root, states: [...root.states], children: [] };
  const stack: Array<{ source: ScreenNode; target: ScreenNode }> = [{ source: root, target: copy }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    for (const child of next.source.children) {
      const target: ScreenNode = { ...child, states: [...child.states], children: [] };
      next.target.children.push(target);
      stack.push({ source: child, target });
    }
  }
  return copy;
}

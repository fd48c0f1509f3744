/**
 * One pass over an observed tree that every recorder and replayer question needs: each
 * node's parent, document order, nearest named container, label and twin group. Built once
 * per tree, so describing or matching every node stays linear in the tree's size.
 */
import type { ScreenNode } from '../contract/engine.js';
import { comparableText } from './volatile-text.js';
import { CONTAINER_ROLES, CONTENT_NAMED_CONTAINERS, INTERACTIVE_ROLES, UNNAMED_CONTAINER_ROLES } from '../contract/roles.js';

/** Longest container name kept; container names are often a whole row's text. */
export const MAX_CONTAINER_NAME_CHARS = 200;
/** Longest name kept in a description (the entry schema allows 1,024). */
export const MAX_NAME_CHARS = 1024;
/** Longest text kept in a description. */
export const MAX_TEXT_CHARS = 200;

/** Cut `text` to at most `limit` characters (whitespace collapsed first). */
export function clipText(text: string, limit: number): string {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed.length <= limit ? collapsed : collapsed.slice(0, limit);
}

/** The named container a node sits in, as recorded. */
export interface ContainerInfo {
  role: string;
  name: string;
}

/** One node with what the index learned about it. */
export interface IndexedNode {
  node: ScreenNode;
  parent: IndexedNode | undefined;
  /** Position in document (pre-)order, 0 for the root. */
  order: number;
  /** Nearest ancestor with a container role and a name (its own, or from its content for rows and items), or an unnamed dialog, landmark, tab panel or form. */
  container: ContainerInfo | undefined;
  /** The text the node is known by: name, else text, else placeholder (clipped). */
  label: string;
  /** {@link label} through `comparableText` (volatile parts as placeholders, case folded). */
  comparableLabel: string;
  /** Comparable key of role + label + container; nodes sharing it are twins. */
  twinKey: string;
}

/** An indexed tree. */
export interface TreeIndex {
  root: ScreenNode;
  /** Every node in document order. */
  nodes: readonly IndexedNode[];
  byId: ReadonlyMap<string, IndexedNode>;
  /** Twin groups in document order, by {@link IndexedNode.twinKey}. */
  twins: ReadonlyMap<string, readonly IndexedNode[]>;
}

/** The label of a node: its name, else its text, else its placeholder, clipped. */
export function labelOf(node: Pick<ScreenNode, 'name' | 'text' | 'placeholder'>): string {
  const name = clipText(node.name, MAX_NAME_CHARS);
  if (name !== '') return name;
  const text = clipText(node.text ?? '', MAX_TEXT_CHARS);
  if (text !== '') return text;
  return clipText(node.placeholder ?? '', MAX_NAME_CHARS);
}

/** The comparable key of a container (empty when there is none). */
export function containerKey(container: ContainerInfo | undefined): string {
  return container === undefined ? '' : `${container.role}\u0000${comparableText(container.name)}`;
}

/**
 * The name of a row, list item, tree item or article without an accessible name: the label
 * of its first descendant that is not a control and holds no control (a row's key cell,
 * `Milk` in `Milk | $2 | [Add to cart]`). Empty when there is none.
 */
export function contentNameOf(container: ScreenNode): string {
  const stack: ScreenNode[] = [];
  for (let index = container.children.length - 1; index >= 0; index--) stack.push(container.children[index]!);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!INTERACTIVE_ROLES.has(node.role)) {
      const label = labelOf(node);
      if (label !== '' && !holdsControl(node)) return clipText(label, MAX_CONTAINER_NAME_CHARS);
      for (let childIndex = node.children.length - 1; childIndex >= 0; childIndex--) stack.push(node.children[childIndex]!);
    }
  }
  return '';
}

/** True when `node` or a node below it is a control; walked with a stack, as trees may nest thousands deep. */
function holdsControl(node: ScreenNode): boolean {
  const stack = [node];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (INTERACTIVE_ROLES.has(next.role)) return true;
    for (const child of next.children) stack.push(child);
  }
  return false;
}

/** The name a container is known by: its own, else (rows and items) its content's ({@link contentNameOf}). */
export function containerNameOf(node: ScreenNode): string {
  const own = clipText(node.name, MAX_CONTAINER_NAME_CHARS);
  return own === '' && CONTENT_NAMED_CONTAINERS.has(node.role) ? contentNameOf(node) : own;
}

/** Indexes already built, by root: the recorder and the replayer index the same screens during a replay. Trees are never changed once observed. */
const built = new WeakMap<ScreenNode, TreeIndex>();

/** Index a tree in one iterative pre-order walk (once per tree object). */
export function indexTree(root: ScreenNode): TreeIndex {
  let index = built.get(root);
  if (index === undefined) {
    index = buildIndex(root);
    built.set(root, index);
  }
  return index;
}

function buildIndex(root: ScreenNode): TreeIndex {
  const nodes: IndexedNode[] = [];
  const byId = new Map<string, IndexedNode>();
  const twins = new Map<string, IndexedNode[]>();
  const stack: { node: ScreenNode; parent: IndexedNode | undefined; container: ContainerInfo | undefined; containerKey: string }[] = [
    { node: root, parent: undefined, container: undefined, containerKey: '' },
  ];
  while (stack.length > 0) {
    const { node, parent, container, containerKey: ownContainerKey } = stack.pop()!;
    const label = labelOf(node);
    const comparableLabel = comparableText(label);
    const twinKey = `${node.role}\u0000${comparableLabel}\u0000${ownContainerKey}`;
    const indexed: IndexedNode = { node, parent, order: nodes.length, container, label, comparableLabel, twinKey };
    nodes.push(indexed);
    byId.set(node.id, indexed);
    const group = twins.get(twinKey);
    if (group === undefined) twins.set(twinKey, [indexed]);
    else group.push(indexed);
    const containerName = CONTAINER_ROLES.has(node.role) ? containerNameOf(node) : '';
    const isContainer = containerName !== '' || (node !== root && UNNAMED_CONTAINER_ROLES.has(node.role));
    const childContainer = isContainer ? { role: node.role, name: containerName } : container;
    const childContainerKey = childContainer === container ? ownContainerKey : containerKey(childContainer);
    for (let childIndex = node.children.length - 1; childIndex >= 0; childIndex--) {
      stack.push({ node: node.children[childIndex]!, parent: indexed, container: childContainer, containerKey: childContainerKey });
    }
  }
  return { root, nodes, byId, twins };
}

/** How deep below an unnamed item a child label is looked for. */
const CHILD_LABEL_DEPTH = 3;

/**
 * The label an unnamed row, list item, tree item or article shows through a child, controls
 * included (a todo whose title is a button): the first labelled descendant that is not a
 * field. Empty for a named node or one without such a child. Used only when re-finding a
 * recorded control across markup churn, never to name containers while recording.
 */
export function childLabelOf(node: ScreenNode): string {
  if (!CONTENT_NAMED_CONTAINERS.has(node.role) || containerNameOf(node) !== '') return '';
  const queue: { node: ScreenNode; depth: number }[] = node.children.map((child) => ({ node: child, depth: 1 }));
  // A read position rather than `shift()`, which copies the queue: an item may hold 200,000 children.
  for (let position = 0; position < queue.length; position++) {
    const next = queue[position]!;
    const label = next.node.role === 'textbox' || next.node.role === 'checkbox' ? '' : labelOf(next.node);
    if (label !== '') return clipText(label, MAX_CONTAINER_NAME_CHARS);
    if (next.depth < CHILD_LABEL_DEPTH) for (const child of next.node.children) queue.push({ node: child, depth: next.depth + 1 });
  }
  return '';
}

/**
 * True when `indexed` sits inside `container` loosely: its nearest named container is it, or
 * any ancestor of the container's role is named so (a wrapper added in between), or is an
 * unnamed item that shows the name through a child label.
 */
export function sitsInContainer(indexed: IndexedNode, container: ContainerInfo): boolean {
  const wanted = containerKey(container);
  if (containerKey(indexed.container) === wanted) return true;
  const wantedName = comparableText(container.name);
  for (let ancestor = indexed.parent; ancestor !== undefined; ancestor = ancestor.parent) {
    if (ancestor.node.role !== container.role) continue;
    const name = containerNameOf(ancestor.node);
    if (comparableText(name === '' ? childLabelOf(ancestor.node) : name) === wantedName) return true;
  }
  return false;
}


/**
 * What is in the way of a replayed pointer action: a banner or dialog this run shows that the
 * recording did not. Named, never dismissed; see replayer/README.md, "Obstructions".
 */
import type { ActEntry, RecordedAction, TargetDescription } from '../cache-format/entry.js';
import { nounPhrase } from '../semantics/action-sentence.js';
import type { EngineErrorDetail, Rect, ScreenNode } from '../contract/engine.js';
import { containerKey, containerNameOf, type ContainerInfo, type IndexedNode, type TreeIndex } from '../semantics/tree-index.js';
import { CONTAINER_ROLES, DISMISSABLE_ROLES, OVERLAY_ROLES } from '../contract/roles.js';

/** Longest engine description quoted when nothing on the screen names the element. */
const MAX_SNIPPET_CHARS = 120;

/** The container keys an entry mentions: where its targets sat, what it dismissed, what its end checks name. */
export function knownContainers(entry: Pick<ActEntry, 'actions' | 'appeared' | 'gone'> & Partial<Pick<ActEntry, 'acted' | 'verified'>>): Set<string> {
  const known = new Set<string>();
  const add = (container: ContainerInfo | undefined): void => {
    if (container !== undefined) known.add(containerKey(container));
  };
  const targets = (action: RecordedAction): (TargetDescription | undefined)[] => {
    if (action.verb === 'drag') return [action.target, action.destination];
    return 'target' in action ? [action.target] : [];
  };
  for (const action of entry.actions) {
    for (const target of targets(action)) add(target?.container);
    if ('dismisses' in action) add(action.dismisses);
  }
  for (const control of [...entry.appeared, ...entry.gone, ...(entry.verified ?? [])]) {
    add(control.container);
    if (CONTAINER_ROLES.has(control.role)) add({ role: control.role, name: control.name });
  }
  for (const check of entry.acted ?? []) add(check.target.container);
  return known;
}

function centreOf(rect: Rect): { x: number; y: number } {
  return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
}

function covers(rect: Rect | undefined, point: { x: number; y: number }): boolean {
  return rect !== undefined && rect.width > 0 && rect.height > 0 && point.x >= rect.x && point.x <= rect.x + rect.width && point.y >= rect.y && point.y <= rect.y + rect.height;
}

function isAncestor(candidate: IndexedNode, of: IndexedNode): boolean {
  for (let current = of.parent; current !== undefined; current = current.parent) if (current === candidate) return true;
  return false;
}

/** `dialog "What's new"`, or `an unnamed dialog`. */
function phraseOf(node: ScreenNode): string {
  const name = containerNameOf(node) || node.name;
  return name === '' ? `an unnamed ${node.role}` : nounPhrase({ role: node.role, name });
}

/**
 * Before a pointer action on node `targetId`: the dialog the entry never mentions that covers
 * the control, as a phrase, or undefined when nothing is in the way.
 */
export function coveringOverlay(index: TreeIndex, targetId: string, known: ReadonlySet<string>): string | undefined {
  const target = index.byId.get(targetId);
  if (target?.node.rect === undefined) return undefined;
  const point = centreOf(target.node.rect);
  for (let position = index.nodes.length - 1; position > target.order; position--) {
    const candidate = index.nodes[position]!;
    const { node } = candidate;
    if (!OVERLAY_ROLES.has(node.role) || !covers(node.rect, point) || isAncestor(candidate, target)) continue;
    const name = containerNameOf(node);
    if (name !== '' && known.has(containerKey({ role: node.role, name }))) continue;
    return phraseOf(node);
  }
  return undefined;
}

/** What the engine says took the pointer (`EngineErrorDetail` of kind `obstructed`). */
export type Obstructor = Extract<EngineErrorDetail, { kind: 'obstructed' }>['by'];

/** The nearest overlay, landmark or named container at or above a node, else the node itself when it is named. */
function nameAbove(indexed: IndexedNode): string | undefined {
  for (let current: IndexedNode | undefined = indexed; current !== undefined; current = current.parent) {
    if ((OVERLAY_ROLES.has(current.node.role) || DISMISSABLE_ROLES.has(current.node.role)) && containerNameOf(current.node) !== '') return phraseOf(current.node);
  }
  return indexed.label === '' || indexed.node.role === 'text' ? undefined : `${indexed.node.role} ${JSON.stringify(indexed.label)}`;
}

/**
 * After the engine said something (`by`) took the pointer aimed at node `targetId`: what is in
 * the way, as a phrase. The topmost thing covering the control on the screen (the last in
 * document order that is neither the control nor around it), named by the overlay or
 * landmark holding it, else a named overlay or landmark before it covering it; else a dialog
 * the entry never mentions anywhere on the screen (a modal one takes the pointer everywhere);
 * else the role and name the engine gave; else its description.
 */
export function nameObstruction(index: TreeIndex, targetId: string, by: Obstructor, known: ReadonlySet<string>): string {
  const target = index.byId.get(targetId);
  if (target?.node.rect !== undefined) {
    const point = centreOf(target.node.rect);
    for (let position = index.nodes.length - 1; position > target.order; position--) {
      const candidate = index.nodes[position]!;
      if (!covers(candidate.node.rect, point) || isAncestor(candidate, target) || isAncestor(target, candidate)) continue;
      const phrase = nameAbove(candidate);
      if (phrase !== undefined) return phrase;
    }
    // An overlay placed before the control in the document (raised by z-index).
    for (let position = target.order - 1; position >= 0; position--) {
      const candidate = index.nodes[position]!;
      const { node } = candidate;
      const overlay = OVERLAY_ROLES.has(node.role) || DISMISSABLE_ROLES.has(node.role);
      if (overlay && containerNameOf(node) !== '' && covers(node.rect, point) && !isAncestor(candidate, target)) return phraseOf(node);
    }
  }
  // A modal dialog takes the pointer everywhere, its box wherever it is.
  for (let position = index.nodes.length - 1; position >= 0; position--) {
    const candidate = index.nodes[position]!;
    const { node } = candidate;
    if (!OVERLAY_ROLES.has(node.role) || (target !== undefined && isAncestor(candidate, target))) continue;
    const name = containerNameOf(node);
    if (name === '' || !known.has(containerKey({ role: node.role, name }))) return phraseOf(node);
  }
  if (by.role !== undefined && by.name !== undefined) return `${by.role} ${JSON.stringify(by.name)}`;
  const { description } = by;
  return description.length > MAX_SNIPPET_CHARS ? `${description.slice(0, MAX_SNIPPET_CHARS)}…` : description;
}

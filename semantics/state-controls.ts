/**
 * State controls: the controls whose presence or absence proves what a step did. The recorder
 * diffs start against end, the replayer counts them on its own screens, both through this module.
 */
import type { StateControl } from '../cache-format/entry.js';
import { MAX_STATE_CONTROLS } from '../cache-format/entry.js';
import { OMITTED_ROLE, type NodeState } from '../contract/engine.js';
import { MAX_NAME_CHARS, MAX_TEXT_CHARS, childLabelOf, clipText, containerKey, sitsInContainer, type IndexedNode, type TreeIndex } from './tree-index.js';
import { comparableText } from './volatile-text.js';
import { ANNOUNCEMENT_ROLES, FRAME_ROLES, TEXT_ROLES } from '../contract/roles.js';

/** States kept for end checks, in this order. */
export const RECORDED_STATES = ['checked', 'disabled', 'selected', 'expanded', 'pressed'] as const;
/** One recorded state. */
export type RecordedState = (typeof RECORDED_STATES)[number];

/** Longest label a state control may have; longer text is a blob, not a control. */
export const MAX_STATE_LABEL_CHARS = MAX_TEXT_CHARS;

/** The recorded states a node holds, in {@link RECORDED_STATES} order. */
export function recordedStatesOf(states: readonly NodeState[]): RecordedState[] {
  return RECORDED_STATES.filter((state) => states.includes(state));
}

/** The state control for an indexed node, or undefined when the node is not one. */
export function stateControlOf(indexed: IndexedNode): StateControl | undefined {
  const { node } = indexed;
  if (FRAME_ROLES.has(node.role.toLowerCase())) return undefined;
  const name = clipText(node.name, MAX_NAME_CHARS);
  const text = clipText(node.text ?? '', MAX_TEXT_CHARS);
  const label = name !== '' ? name : text;
  if (label === '' || label.length > MAX_STATE_LABEL_CHARS) return undefined;
  const control: StateControl = { role: node.role, name, states: recordedStatesOf(node.states) };
  if (name === '') control.text = text;
  if (node.testId !== undefined && node.testId !== '') control.testId = clipText(node.testId, MAX_NAME_CHARS);
  if (indexed.container !== undefined) control.container = { ...indexed.container };
  return control;
}

/** The label a control is known by: its name, else its text. */
export function stateControlLabel(control: StateControl): string {
  return control.name !== '' ? control.name : (control.text ?? '');
}

/** A key for "the same control" regardless of its states. */
export function stateControlIdentity(control: StateControl): string {
  return [control.role, comparableText(stateControlLabel(control)), containerKey(control.container), control.testId ?? ''].join('\u0000');
}

/** A key for "the same control in the same states". */
export function stateControlKey(control: StateControl): string {
  return `${stateControlIdentity(control)}\u0000${control.states.join(',')}`;
}

/**
 * True when a node is the control: same role, same label (volatile text as placeholders,
 * case folded), same container and test id when those were recorded, and exactly the
 * recorded states.
 */
export function nodeMatchesStateControl(
  indexed: IndexedNode,
  control: StateControl,
  comparableLabel: string = comparableText(stateControlLabel(control)),
  anyStates = false,
): boolean {
  const { node } = indexed;
  if (node.role !== control.role) return false;
  if (control.testId !== undefined && node.testId !== control.testId) return false;
  const states = recordedStatesOf(node.states);
  const sameStates = states.length === control.states.length && states.every((state, position) => state === control.states[position]);
  if (!sameStates && !anyStates) return false;
  // A node that is a state control has name-else-text as its index label.
  const sameLabel = stateControlOf(indexed) !== undefined && indexed.comparableLabel === comparableLabel;
  // Markup churn: an item that lost its name still shows it through a child label (a title that became a button).
  const throughChild = !sameLabel && indexed.label === '' && comparableLabel !== '' && comparableText(childLabelOf(node)) === comparableLabel;
  if (!sameLabel && !throughChild) return false;
  return control.container === undefined || containerKey(indexed.container) === containerKey(control.container) || sitsInContainer(indexed, control.container);
}

/** How many nodes of the tree are the control (see {@link nodeMatchesStateControl}). */
export function countStateControl(index: TreeIndex, control: StateControl): number {
  const comparableLabel = comparableText(stateControlLabel(control));
  let count = 0;
  for (const indexed of index.nodes) if (nodeMatchesStateControl(indexed, control, comparableLabel)) count++;
  return count;
}

interface Tally {
  control: StateControl;
  first: IndexedNode;
  nodes: IndexedNode[];
}

/** Ids of the nodes holding a placeholder of an engine that left part of their children unread. */
function omittingParents(index: TreeIndex): Set<string> {
  const parents = new Set<string>();
  for (const indexed of index.nodes) if (indexed.node.role === OMITTED_ROLE && indexed.parent !== undefined) parents.add(indexed.parent.node.id);
  return parents;
}

/** True when `indexed` sits among (or inside) the children of one of `parents`. */
function amongChildrenOf(indexed: IndexedNode, parents: ReadonlySet<string>): boolean {
  for (let at: IndexedNode | undefined = indexed; at?.parent !== undefined; at = at.parent) if (parents.has(at.parent.node.id)) return true;
  return false;
}

function tally(index: TreeIndex, unread: ReadonlySet<string> = new Set()): { byKey: Map<string, Tally>; identities: Set<string> } {
  const byKey = new Map<string, Tally>();
  const identities = new Set<string>();
  for (const indexed of index.nodes) {
    // Among children the engine read only in part, being there or not proves nothing.
    if (unread.size > 0 && amongChildrenOf(indexed, unread)) continue;
    const control = stateControlOf(indexed);
    if (control === undefined) continue;
    const key = stateControlKey(control);
    identities.add(stateControlIdentity(control));
    const existing = byKey.get(key);
    if (existing === undefined) byKey.set(key, { control, first: indexed, nodes: [indexed] });
    else existing.nodes.push(indexed);
  }
  return { byKey, identities };
}

/** The controls that appeared and went away between two screens. */
export interface StateChanges {
  appeared: StateControl[];
  gone: StateControl[];
}

/**
 * Diff two screens. Appeared: a control (with its states) that is more numerous at the end
 * than at the start. Gone: one present at the start and absent at the end. A control whose
 * states changed is both: appeared with its new states, gone with its old ones. At most
 * `limit` of each, ranked: announcements (alert, status…) first, then state changes, then
 * named controls and structure, then plain text; outermost before nested, then document order.
 */
export function diffStateControls(start: TreeIndex, end: TreeIndex, limit: number = MAX_STATE_CONTROLS): StateChanges {
  // Where an engine left nodes unread (a placeholder) on either screen, controls there are not compared.
  const unread = new Set([...omittingParents(start), ...omittingParents(end)]);
  const before = tally(start, unread);
  const after = tally(end, unread);
  const appeared: Tally[] = [];
  for (const [key, entry] of after.byKey) {
    if (entry.nodes.length > (before.byKey.get(key)?.nodes.length ?? 0)) appeared.push(entry);
  }
  const gone: Tally[] = [];
  for (const [key, entry] of before.byKey) if (!after.byKey.has(key)) gone.push(entry);
  return {
    appeared: rank(appeared, before.identities).slice(0, limit),
    gone: rank(gone, after.identities).slice(0, limit),
  };
}

function hasChangedAncestor(node: IndexedNode, changedNodes: ReadonlySet<IndexedNode>): boolean {
  for (let current = node.parent; current !== undefined; current = current.parent) if (changedNodes.has(current)) return true;
  return false;
}

/** Rank changed controls; `otherSide` holds identities present on the other screen (state changes). */
function rank(changed: Tally[], otherSide: ReadonlySet<string>): StateControl[] {
  const changedNodes = new Set(changed.flatMap((entry) => entry.nodes));
  const tier = (entry: Tally): number => {
    const role = entry.control.role.toLowerCase();
    if (ANNOUNCEMENT_ROLES.has(role)) return 0;
    if (otherSide.has(stateControlIdentity(entry.control))) return 1;
    const nested = entry.nodes.every((node) => hasChangedAncestor(node, changedNodes));
    return (TEXT_ROLES.has(role) ? 4 : 2) + (nested ? 1 : 0);
  };
  return changed
    .map((entry) => ({ entry, tier: tier(entry) }))
    .sort((left, right) => left.tier - right.tier || left.entry.first.order - right.entry.first.order)
    .map(({ entry }) => entry.control);
}

/** The recorded states of every node that is the control in all but its states. */
export function statesOfLookalikes(index: TreeIndex, control: StateControl): RecordedState[][] {
  const comparableLabel = comparableText(stateControlLabel(control));
  return index.nodes.filter((indexed) => nodeMatchesStateControl(indexed, control, comparableLabel, true)).map((indexed) => recordedStatesOf(indexed.node.states));
}

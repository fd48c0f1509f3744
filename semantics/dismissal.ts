/**
 * Dismissals: actions that only closed intermittent UI (a consent banner, a tour popover), which
 * the replayer may skip. The three rules: recorder/README.md, "Dismissals".
 */
import type { ActedCheck, EndControl, RecordedAction, StateControl } from '../cache-format/entry.js';
import { STRONG_BASES } from './end-purpose.js';
import { diffStateControls, nodeMatchesStateControl, stateControlKey } from './state-controls.js';
import type { ScreenNode } from '../contract/engine.js';
import { containerKey, containerNameOf, indexTree, type ContainerInfo, type IndexedNode, type TreeIndex } from './tree-index.js';
import { comparableText } from './volatile-text.js';
import { DISMISSABLE_ROLES } from '../contract/roles.js';

/** A recorded action of a verb that can dismiss (and carry `dismisses`). */
export type DismissingAction = RecordedAction & { verb: 'tap' | 'doubleTap' | 'longPress' | 'secondaryTap' };

/** True for the verbs that dismiss: tap, double-tap, long-press, right-click. */
export function canDismiss(action: RecordedAction): action is DismissingAction {
  return action.verb === 'tap' || action.verb === 'doubleTap' || action.verb === 'longPress' || action.verb === 'secondaryTap';
}

/** True when the node is the container itself (its role, and its name as a container). */
export function isContainerNode(indexed: IndexedNode, container: ContainerInfo): boolean {
  return indexed.node.role === container.role && comparableText(containerNameOf(indexed.node)) === comparableText(container.name);
}

/** True when the container is on the screen. */
export function containerOnScreen(index: TreeIndex, container: ContainerInfo): boolean {
  return index.nodes.some((indexed) => isContainerNode(indexed, container));
}

/** True when the node is the container or sits anywhere inside it. */
export function sitsWithin(indexed: IndexedNode, container: ContainerInfo): boolean {
  for (let current: IndexedNode | undefined = indexed; current !== undefined; current = current.parent) if (isContainerNode(current, container)) return true;
  return false;
}

/** One action the step performed, as {@link recognizeDismissals} needs it. */
export interface PerformedAction {
  /** Position among the recorded actions. */
  actionIndex: number;
  action: RecordedAction;
  /** Node ids of its target (and destination) on `before`. */
  targetIds: readonly string[];
  before: TreeIndex;
  /** The screen after it settled; indexed only for a likely dismissal. */
  after: ScreenNode | undefined;
  /** Whether the action kept the route's shape. */
  sameRoute: boolean;
}

/** What the step's recording says at its end. */
export interface StepEnd {
  /** The screen the step started on. */
  start: TreeIndex;
  appeared: readonly EndControl[];
  gone: readonly EndControl[];
  acted: readonly ActedCheck[];
  /** Whether the step ended on a route of another shape. */
  routeChanged: boolean;
  /** The screens the verification after the step looked at, with the node ids it looked at. */
  lookedAt: readonly { index: TreeIndex; nodeIds: readonly string[] }[];
}

/** The container a tap took away with its target, or undefined (rules 1 and 2 of recorder/README.md, "Dismissals"). */
function dismissedBy(performed: PerformedAction, start: TreeIndex): ContainerInfo | undefined {
  const { action, targetIds, before, after } = performed;
  if (!canDismiss(action) || after === undefined || !performed.sameRoute) return undefined;
  const targetId = targetIds[0];
  const container = targetId === undefined ? undefined : before.byId.get(targetId)?.container;
  if (container === undefined || !DISMISSABLE_ROLES.has(container.role)) return undefined;
  const afterIndex = indexTree(after);
  if (afterIndex.byId.has(targetId!) || containerOnScreen(afterIndex, container) || !containerOnScreen(start, container)) return undefined;
  return container;
}

/** Whether the end rests on something other than the dismissal: a strong change it did not make, or the route. */
function endRestsElsewhere(performed: PerformedAction, container: ContainerInfo, end: StepEnd): boolean {
  if (end.routeChanged) return true;
  const own = diffStateControls(performed.before, indexTree(performed.after!), Number.POSITIVE_INFINITY);
  const ownKeys = new Set([...own.appeared, ...own.gone].map(stateControlKey));
  const insideAtStart = (control: StateControl): boolean =>
    end.start.nodes.some((indexed) => nodeMatchesStateControl(indexed, control) && sitsWithin(indexed, container));
  const independent = (control: EndControl): boolean =>
    control.basis !== undefined && STRONG_BASES.has(control.basis) && !ownKeys.has(stateControlKey(control)) && !insideAtStart(control);
  if (end.appeared.some(independent) || end.gone.some(independent)) return true;
  const wanted = containerKey(container);
  // Another acted-on control the step left changed (gone, or in a state).
  return end.acted.some((check) => containerKey(check.target.container) !== wanted && (!check.present || check.states.length > 0));
}

/**
 * The actions of a step that are dismissals, by position among the recorded actions, with
 * the container each dismissed.
 */
export function recognizeDismissals(performed: readonly PerformedAction[], end: StepEnd): Map<number, ContainerInfo> {
  const dismissals = new Map<number, ContainerInfo>();
  for (const candidate of performed) {
    const container = dismissedBy(candidate, end.start);
    if (container === undefined) continue;
    const usedElsewhere = performed.some(
      (other) => other !== candidate && other.targetIds.some((id) => {
        const indexed = other.before.byId.get(id);
        return indexed !== undefined && sitsWithin(indexed, container);
      }),
    );
    if (usedElsewhere) continue;
    const looked = end.lookedAt.some(({ index, nodeIds }) => nodeIds.some((id) => {
      const indexed = index.byId.get(id.replace(/^#/, ''));
      return indexed !== undefined && sitsWithin(indexed, container);
    }));
    if (looked || !endRestsElsewhere(candidate, container, end)) continue;
    dismissals.set(candidate.actionIndex, { ...container });
  }
  return dismissals;
}

/**
 * What a step produced: the end outcomes that changed on the screen right after one of the
 * step's actions (between the screen the action was resolved against and the settled screen
 * after it), leaving out the browser's own effect of that action (the acted-on native
 * checkbox's tick, a radio group's switch, a field's or a select's own value). Such an outcome
 * is required at replay on every recording (`producedBy`), whatever its heuristic basis. See
 * recorder/README.md, "What the step produced".
 */
import type { StateControl } from '../cache-format/entry.js';
import { diffStateControls, stateControlKey, stateControlOf } from './state-controls.js';
import { containerKey, type IndexedNode, type TreeIndex } from './tree-index.js';
import { TOGGLE_ROLES, VALUED_ROLES } from '../contract/roles.js';


/** The keys (`stateControlKey`) of the controls that appeared and went away right after one action, the browser's own effects left out. */
export interface ProducedChanges {
  appeared: ReadonlySet<string>;
  gone: ReadonlySet<string>;
}

/** True when a node is inside (or is) the node with id `id`. */
function within(indexed: IndexedNode, id: string): boolean {
  for (let current: IndexedNode | undefined = indexed; current !== undefined; current = current.parent) if (current.node.id === id) return true;
  return false;
}

/**
 * The nodes whose change the browser alone makes when an action lands on `target`: the target
 * itself when it is a native toggle or a field, what it holds when it is a field (a select's
 * options), and for a radio the other radios of its group (same container).
 */
function browserOwn(index: TreeIndex, targetIds: readonly string[]): (indexed: IndexedNode) => boolean {
  const targets = targetIds.map((id) => index.byId.get(id)).filter((target): target is IndexedNode => target !== undefined);
  return (indexed) =>
    targets.some((target) => {
      const role = target.node.role;
      if (VALUED_ROLES.has(role)) return within(indexed, target.node.id);
      if (!TOGGLE_ROLES.has(role)) return false;
      if (indexed.node.id === target.node.id) return true;
      return role === 'radio' && indexed.node.role === 'radio' && containerKey(indexed.container) === containerKey(target.container);
    });
}

/** How many nodes of each wanted key the screen holds that are not the browser's own effect. */
function othersOf(index: TreeIndex, wanted: ReadonlySet<string>, own: (indexed: IndexedNode) => boolean): Map<string, number> {
  const counts = new Map<string, number>();
  for (const indexed of index.nodes) {
    const control = stateControlOf(indexed);
    if (control === undefined || own(indexed)) continue;
    const key = stateControlKey(control);
    if (wanted.has(key)) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * What changed right after one action: the controls (with their states) more numerous on the
 * screen after it than before, and those present before and absent after, except the browser's
 * own effect on the action's targets (`targetIds`, on the screen before).
 */
export function producedChanges(before: TreeIndex, after: TreeIndex, targetIds: readonly string[]): ProducedChanges {
  const changes = diffStateControls(before, after, Number.POSITIVE_INFINITY);
  const keys = new Set([...changes.appeared, ...changes.gone].map(stateControlKey));
  const othersBefore = othersOf(before, keys, browserOwn(before, targetIds));
  const othersAfter = othersOf(after, keys, browserOwn(after, targetIds));
  // A change the browser's own effect alone explains is left out; one on any other node is the app's.
  const more = (control: StateControl): boolean => (othersAfter.get(stateControlKey(control)) ?? 0) > (othersBefore.get(stateControlKey(control)) ?? 0);
  const fewer = (control: StateControl): boolean => (othersBefore.get(stateControlKey(control)) ?? 0) > (othersAfter.get(stateControlKey(control)) ?? 0);
  return {
    appeared: new Set(changes.appeared.filter(more).map(stateControlKey)),
    gone: new Set(changes.gone.filter(fewer).map(stateControlKey)),
  };
}

/** The actions (0-based, ascending) after which `control` appeared (`list: 'appeared'`) or went away; empty when none produced it. */
export function producingActions(control: StateControl, list: 'appeared' | 'gone', produced: ReadonlyMap<number, ProducedChanges>): number[] {
  const key = stateControlKey(control);
  return [...produced.entries()]
    .filter(([, changes]) => changes[list].has(key))
    .map(([action]) => action)
    .sort((left, right) => left - right);
}

/**
 * What proves a step: the basis of each recorded end check (`acted`, `announced`, `verified`,
 * `typed`, `incidental`). See recorder/README.md, "What proves a step".
 */
import type { ActEntry, ActedCheck, EndBasis, EndControl, RecordedAction, StateControl, TargetDescription } from '../cache-format/entry.js';
import { MAX_STATE_CONTROLS } from '../cache-format/entry.js';
import type { ScreenNode } from '../contract/engine.js';
import { recordedStatesOf, stateControlIdentity, stateControlKey, stateControlOf, stateControlLabel } from './state-controls.js';
import { describeIndexedNode } from './describe-target.js';
import { containerKey, labelOf, type IndexedNode, type TreeIndex } from './tree-index.js';
import { comparableText } from './volatile-text.js';
import { ANNOUNCEMENT_ROLES, EDITABLE_ROLES, TOGGLE_ROLES } from '../contract/roles.js';

/** The bases a replay requires to hold, every one. */
export const STRONG_BASES: ReadonlySet<EndBasis> = new Set<EndBasis>(['acted', 'announced', 'verified', 'typed']);

/** Verbs whose target's resulting state says what the step did. */
const ACTED_VERBS: ReadonlySet<RecordedAction['verb']> = new Set(['tap', 'doubleTap', 'longPress', 'secondaryTap', 'check', 'select', 'type', 'upload']);
/** How deep below a looked-at node its controls count as looked at too. */
const LOOKED_AT_DEPTH = 3;
/** Shortest typed value that marks a control as showing it (shorter ones hit ordinary words). */
const MIN_TYPED_CHARS = 2;

/**
 * True when the browser's default behaviour alone could have produced this outcome of the
 * step: the acted-on native checkbox or radio in its new state (it ticks even when the app's
 * handler is broken). Such an outcome proves the click, not the app: it never lets the step's
 * other outcomes count for less.
 */
export function browserDefaultCouldProduce(outcome: { role: string }, basis: EndBasis): boolean {
  return basis === 'acted' && TOGGLE_ROLES.has(outcome.role);
}

/** What classifying end controls needs to know about the step. */
export interface PurposeContext {
  /** The targets the step acted on. */
  actedTargets: readonly TargetDescription[];
  /** Values the step typed, as the end screen shows them. */
  typedValues: readonly string[];
  /** Identities (`stateControlIdentity`) of the controls the verification looked at. */
  lookedAt?: ReadonlySet<string>;
}

/** The identity of the control a target describes (role, label, container, test id). */
function targetIdentity(target: TargetDescription): string {
  const control: StateControl = { role: target.role, name: target.name, states: [] };
  if (target.name === '') control.text = target.text ?? target.placeholder ?? '';
  if (target.testId !== undefined) control.testId = target.testId;
  if (target.container !== undefined) control.container = target.container;
  return stateControlIdentity(control);
}

function isActed(control: StateControl, actedTargets: readonly TargetDescription[]): boolean {
  const identity = stateControlIdentity(control);
  const loose = stateControlIdentity({ ...control, testId: undefined } as StateControl);
  return actedTargets.some((target) => {
    const wanted = targetIdentity(target);
    return wanted === identity || wanted === loose;
  });
}

function showsTyped(control: StateControl, typedValues: readonly string[]): boolean {
  if (EDITABLE_ROLES.has(control.role)) return false;
  const label = comparableText(stateControlLabel(control));
  return typedValues.some((value) => value.length >= MIN_TYPED_CHARS && label.includes(comparableText(value)));
}

/** The basis of one appeared or gone control. */
export function basisOf(control: StateControl, context: PurposeContext): EndBasis {
  if (isActed(control, context.actedTargets)) return 'acted';
  if (ANNOUNCEMENT_ROLES.has(control.role.toLowerCase())) return 'announced';
  if (context.lookedAt?.has(stateControlIdentity(control)) === true) return 'verified';
  if (showsTyped(control, context.typedValues)) return 'typed';
  return 'incidental';
}

/** The targets and literal typed values of recorded actions (`unique()` values as their placeholders). */
export function purposeOfActions(actions: readonly RecordedAction[]): PurposeContext {
  const actedTargets: TargetDescription[] = [];
  const typedValues: string[] = [];
  for (const action of actions) {
    if (ACTED_VERBS.has(action.verb) && 'target' in action && action.target !== undefined) actedTargets.push(action.target);
    if (action.verb === 'type' || action.verb === 'select' || action.verb === 'typeText') {
      if (action.value.kind === 'literal') typedValues.push(action.value.value.trim());
      else if (action.value.kind === 'unique') typedValues.push(`{unique:${action.value.param}}`);
    }
  }
  return { actedTargets, typedValues };
}

/** The basis of an entry's end control: as recorded, else derived from the entry's actions. */
export function basisFromEntry(control: EndControl, context: PurposeContext): EndBasis {
  return control.basis ?? basisOf(control, context);
}

/**
 * The first `limit` changes in their ranked order, with the ones the verification looked at
 * always among them: what the `expect` after a dialog step checked belongs in its end check,
 * however many other controls the dialog changed.
 */
export function keepLookedAt<T extends StateControl>(ranked: readonly T[], lookedAt: ReadonlySet<string>, limit: number = MAX_STATE_CONTROLS): T[] {
  if (ranked.length <= limit) return [...ranked];
  const looked = ranked.filter((control) => lookedAt.has(stateControlIdentity(control))).slice(0, limit);
  const kept = new Set<T>(looked);
  for (const control of ranked) {
    if (kept.size >= limit) break;
    kept.add(control);
  }
  return ranked.filter((control) => kept.has(control));
}

/** Identities of the controls at and below the looked-at nodes of a screen. */
export function lookedAtIdentities(index: TreeIndex, nodeIds: readonly string[]): Set<string> {
  const identities = new Set<string>();
  const visit = (indexed: IndexedNode, depth: number): void => {
    const control = stateControlOf(indexed);
    if (control !== undefined) identities.add(stateControlIdentity(control));
    if (depth >= LOOKED_AT_DEPTH) return;
    for (const child of indexed.node.children) {
      const inner = index.byId.get(child.id);
      if (inner !== undefined) visit(inner, depth + 1);
    }
  };
  for (const id of nodeIds) {
    const indexed = index.byId.get(id.replace(/^#/, ''));
    if (indexed !== undefined) visit(indexed, 0);
  }
  return identities;
}

/**
 * The looked-at controls that are not among the changes: what the verification rested on that
 * the step left in place (the todo that must survive "clear completed"). Fields showing typed
 * text and password fields prove nothing and are left out.
 */
export function verifiedControls(index: TreeIndex, nodeIds: readonly string[], changed: readonly StateControl[], typedValues: readonly string[]): StateControl[] {
  const changedKeys = new Set(changed.map(stateControlKey));
  const kept = new Map<string, StateControl>();
  for (const id of nodeIds) {
    const indexed = index.byId.get(id.replace(/^#/, ''));
    if (indexed === undefined) continue;
    const { node } = indexed;
    if (node.states.includes('secure')) continue;
    if (EDITABLE_ROLES.has(node.role) && typedValues.some((value) => value.length >= MIN_TYPED_CHARS && `${node.value ?? ''} ${node.text ?? ''}`.includes(value))) continue;
    const control = stateControlOf(indexed);
    if (control === undefined || changedKeys.has(stateControlKey(control))) continue;
    kept.set(stateControlKey(control), control);
    if (kept.size >= MAX_STATE_CONTROLS) break;
  }
  return [...kept.values()];
}

/** One acted control as the recorder tracked it: its node id on the screen it was acted on, and its description there. */
export interface ActedTarget {
  id: string;
  target: TargetDescription;
}

function sameDescribedControl(indexed: IndexedNode, target: TargetDescription): boolean {
  const { node } = indexed;
  if (node.role !== target.role) return false;
  const label = labelOf({ name: target.name, text: target.text ?? '', placeholder: target.placeholder ?? '' });
  if (indexed.comparableLabel !== comparableText(label)) return false;
  return target.container === undefined || containerKey(indexed.container) === containerKey(target.container);
}

/**
 * How the step left the controls it acted on (the last {@link MAX_STATE_CONTROLS} distinct
 * ones): the same element when it is still there, else the one control of the same role,
 * label and container; gone when there is none. Several candidates, or one of fewer twins than
 * recorded, and no surviving element: left out (it proves nothing either way).
 */
export function actedChecks(acted: readonly ActedTarget[], end: TreeIndex, mask: (target: TargetDescription) => TargetDescription = (target) => target): ActedCheck[] {
  const byTarget = new Map<string, ActedTarget>();
  for (const item of acted) {
    const key = JSON.stringify(item.target);
    byTarget.delete(key);
    byTarget.set(key, item);
  }
  const checks: ActedCheck[] = [];
  for (const { id, target } of [...byTarget.values()].slice(-MAX_STATE_CONTROLS)) {
    const survivor = end.byId.get(id);
    if (survivor !== undefined) {
      // The same element, described as the step left it (a renamed item is known by its new name).
      checks.push({ target: mask(describeIndexedNode(end, survivor)), present: true, states: recordedStatesOf(survivor.node.states) });
      continue;
    }
    const candidates = end.nodes.filter((indexed) => sameDescribedControl(indexed, target));
    if (candidates.length > 1) continue;
    // One of fewer twins than recorded (a modal's "Authorize" gone, the page's left) is no proof of either.
    if (candidates.length === 1 && candidates.length < target.twinCount) continue;
    const node: ScreenNode | undefined = candidates[0]?.node;
    checks.push(node === undefined ? { target, present: false, states: [] } : { target, present: true, states: recordedStatesOf(node.states) });
  }
  return checks;
}

/** How strongly an entry's end is proven, for `cache show` and `cache diff`. */
export interface EndEvidence {
  strength: 'strong' | 'weak';
  /** In words: `1 acted, 2 typed, 3 produced` or `only the route`. */
  restsOn: string;
}

/** The checks an entry rests on, and whether that is strong evidence of what the step did. */
export function endEvidenceOf(entry: Pick<ActEntry, 'actions' | 'appeared' | 'gone' | 'acted' | 'verified'>): EndEvidence {
  const context = purposeOfActions(entry.actions);
  const counts = new Map<string, number>();
  const add = (what: string): void => {
    counts.set(what, (counts.get(what) ?? 0) + 1);
  };
  for (const control of [...entry.appeared, ...entry.gone]) {
    const basis = basisFromEntry(control, context);
    // An incidental outcome an audit mutant removed is caused by the step, one the step produced right after an action is produced: both required.
    add(STRONG_BASES.has(basis) ? basis : control.causedBy !== undefined ? 'caused' : control.producedBy !== undefined ? 'produced' : basis);
  }
  // A control acted on proves something only when the step left it changed (gone, or in a state).
  for (const check of entry.acted ?? []) if (!check.present || check.states.length > 0) add('acted');
  for (const _control of entry.verified ?? []) add('verified');
  const strong = [...counts.keys()].some((basis) => basis === 'caused' || basis === 'produced' || STRONG_BASES.has(basis as EndBasis));
  const order = ['acted', 'announced', 'verified', 'typed', 'caused', 'produced', 'incidental'];
  const parts = order.filter((basis) => counts.has(basis)).map((basis) => `${counts.get(basis)!} ${basis}`);
  if (parts.length === 0) return { strength: 'weak', restsOn: 'only the route' };
  const incidental = counts.get('incidental') ?? 0;
  return { strength: strong ? 'strong' : 'weak', restsOn: strong ? parts.join(', ') : `only ${incidental} incidental control${incidental === 1 ? '' : 's'}` };
}

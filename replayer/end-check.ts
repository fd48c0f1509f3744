/**
 * The end-state proof of a replayed `act` step (DESIGN §6, step 4), resting on what proves the
 * step. The rules: replayer/README.md, "The end-state proof".
 */
import type { ActEntry, ActedCheck, EndControl, StateControl, TargetDescription } from '../cache-format/entry.js';
import type { ScreenNode } from '../contract/engine.js';
import type { EndFacts } from '../contract/mutation.js';
import { describeStateControl, describeTargetPhrase } from '../semantics/describe-action.js';
import { basisFromEntry, browserDefaultCouldProduce, purposeOfActions, STRONG_BASES } from '../semantics/end-purpose.js';
import { sameRouteShape, routeOf } from '../semantics/route-of.js';
import { countStateControl, recordedStatesOf, statesOfLookalikes } from '../semantics/state-controls.js';
import { containerKey, indexTree, type ContainerInfo, type TreeIndex } from '../semantics/tree-index.js';
import { fillUniquePlaceholders, mapTextFields } from '../semantics/unique-placeholders.js';
import { findChangedForm, goneCountMovedAway, goneReworkedInPlace, type ChangedFormContext } from './changed-form.js';
import { matchTarget } from './match-target.js';
import { matchRoute } from './route-match.js';

/** A screen for the end check. */
export interface EndCheckScreen {
  tree: ScreenNode | TreeIndex;
  url: string;
}

/** What the end check compares. */
export interface EndCheckInput {
  entry: Pick<ActEntry, 'startRoute' | 'endRoute' | 'appeared' | 'gone'> & Partial<Pick<ActEntry, 'actions' | 'acted' | 'verified'>>;
  /** The screen when the replay started. */
  replayStart: EndCheckScreen;
  /** The screen now. */
  end: EndCheckScreen;
  /** This run's `unique()` values, filled into `{unique:<param>}` placeholders. */
  uniqueValues?: Readonly<Record<string, string>>;
  /** Dismissals the replay skipped: their container's going away is not demanded. */
  skipped?: readonly SkippedDismissal[];
}

/** A dismissal the replay skipped because its container was absent. */
export interface SkippedDismissal {
  container: ContainerInfo;
  target: TargetDescription;
}

/** The outcome of the end check: what it tolerated, and the required outcomes it met in a changed form. */
export type EndCheckResult = { ok: true; tolerated?: string[]; changedForms?: string[] } | { ok: false; reason: 'end-mismatch'; detail: string };

function asIndex(tree: ScreenNode | TreeIndex): TreeIndex {
  return 'byId' in tree ? tree : indexTree(tree);
}

function mismatch(detail: string): EndCheckResult {
  return { ok: false, reason: 'end-mismatch', detail };
}

/** A hint for a missing appeared control that is present in other states. */
function statesHint(index: TreeIndex, control: StateControl): string {
  const lookalikes = statesOfLookalikes(index, control);
  if (lookalikes.length === 0) return '';
  return ` (present as ${lookalikes.map((states) => `[${states.join(' ') || 'no state'}]`).join(', ')})`;
}

interface Evaluated {
  holds: boolean;
  changed: boolean;
  strong: boolean;
  failure: string;
  /** The browser's default alone could have produced it (`browserDefaultCouldProduce`). */
  byDefault?: boolean;
  /** A required outcome met in a changed form: where. */
  changedForm?: string;
  /** Strong by its basis (acted, announced, verified, typed), not only because the step produced it. */
  purpose?: boolean;
}

function sameStates(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((state, position) => state === right[position]);
}

function formatStates(states: readonly string[]): string {
  return `[${states.join(' ') || 'no state'}]`;
}

/** True when the step produced the outcome or the audit found it caused: required at replay, whatever its basis. */
function isRequired(control: EndControl): boolean {
  return control.producedBy !== undefined || control.causedBy !== undefined;
}

/** The nodes, on the replay's start and end screens, of the controls the step acted on. */
function actedNodes(acted: readonly ActedCheck[], start: TreeIndex, end: TreeIndex, fillText: (text: string) => string): Set<string> {
  const ids = new Set<string>();
  for (const check of acted) {
    const target = mapTextFields(check.target, fillText);
    for (const index of [start, end]) {
      const match = matchTarget(target, index);
      if (match.kind === 'found') ids.add(match.id);
    }
  }
  return ids;
}

/** A control the step acted on, on the end screen (and whether it was otherwise at the replay's start). */
function evaluateActed(check: ActedCheck, start: TreeIndex, end: TreeIndex): Evaluated {
  const phrase = `${describeTargetPhrase(check.target)}, which the step acted on,`;
  const atEnd = matchTarget(check.target, end);
  const atStart = matchTarget(check.target, start);
  const statesAt = (index: TreeIndex, match: ReturnType<typeof matchTarget>): string[] | undefined =>
    match.kind === 'found' ? recordedStatesOf(index.byId.get(match.id)?.node.states ?? []) : undefined;
  const endStates = statesAt(end, atEnd);
  const startStates = statesAt(start, atStart);
  if (!check.present) {
    return { holds: atEnd.kind === 'not-found', changed: atStart.kind !== 'not-found', strong: true, failure: `${phrase} is still on the screen` };
  }
  if (atEnd.kind === 'ambiguous') return { holds: false, changed: false, strong: true, failure: `${phrase} cannot be told apart (${atEnd.detail})` };
  if (endStates === undefined) return { holds: false, changed: false, strong: true, failure: `${phrase} is gone` };
  const holds = sameStates(endStates, check.states);
  return {
    holds,
    changed: startStates === undefined || !sameStates(startStates, check.states),
    strong: true,
    failure: `${phrase} is not ${formatStates(check.states)} (it is ${formatStates(endStates)})`,
  };
}

/** Where a recorded outcome sits in the entry. */
type OutcomePlace = { list: 'appeared' | 'gone' | 'acted'; index: number } | { list: 'verified'; index: number };

/** One recorded outcome evaluated on the end screen. */
interface PlacedOutcome extends Evaluated {
  place: OutcomePlace;
}

/** Every recorded outcome of the entry evaluated on the end screen, and whether the end route matches. */
function evaluateOutcomes(input: EndCheckInput): { route: ReturnType<typeof matchRoute>; outcomes: PlacedOutcome[] } {
  const { entry } = input;
  const route = matchRoute(entry.endRoute, input.end.url);
  const uniqueValues = input.uniqueValues ?? {};
  const fillText = (text: string): string => fillUniquePlaceholders(text, uniqueValues);
  const fill = <T extends StateControl>(control: T): T => mapTextFields(control, fillText);
  const startIndex = asIndex(input.replayStart.tree);
  const endIndex = asIndex(input.end.tree);
  const purpose = purposeOfActions(entry.actions ?? []);
  // An outcome the step produced (seen right after one of its actions) or the audit found caused by them is required, whatever its basis.
  const isStrong = (control: EndControl): boolean => isRequired(control) || STRONG_BASES.has(basisFromEntry(control, purpose));
  let changedFormContext: ChangedFormContext | undefined;
  const changedForms = (): ChangedFormContext => (changedFormContext ??= { start: startIndex, end: endIndex, gone: entry.gone.map(fill), appeared: entry.appeared.map(fill), acted: actedNodes(entry.acted ?? [], startIndex, endIndex, fillText) });

  // A skipped dismissal's container was never there to go away: its own checks are not demanded.
  const skippedKeys = new Set((input.skipped ?? []).map((skip) => containerKey(skip.container)));
  const ofSkipped = (control: StateControl): boolean =>
    skippedKeys.size > 0 && (skippedKeys.has(containerKey(control.container)) || skippedKeys.has(containerKey({ role: control.role, name: control.name })));
  const outcomes: PlacedOutcome[] = [];
  entry.appeared.forEach((recorded, index) => {
    const control = fill(recorded);
    const atEnd = countStateControl(endIndex, control);
    const evaluated: PlacedOutcome = {
      place: { list: 'appeared', index },
      holds: atEnd > 0,
      changed: atEnd > countStateControl(startIndex, control),
      strong: isStrong(recorded),
      purpose: STRONG_BASES.has(basisFromEntry(recorded, purpose)),
      byDefault: browserDefaultCouldProduce(recorded, basisFromEntry(recorded, purpose)),
      failure: `${describeStateControl(control)} did not appear${statesHint(endIndex, control)}`,
    };
    // Another implementation of the same behaviour may show a required outcome in another form.
    if (atEnd === 0 && isRequired(recorded) && statesOfLookalikes(endIndex, control).length === 0) {
      const changed = findChangedForm(control, changedForms(), { typed: basisFromEntry(recorded, purpose) === 'typed' });
      if (changed.kind === 'found') Object.assign(evaluated, { holds: true, changed: changed.changed, changedForm: changed.note });
      else if (changed.kind === 'other-count') evaluated.failure = `${describeStateControl(control)} did not appear (${changed.shown} shows another count)`;
    }
    outcomes.push(evaluated);
  });
  entry.gone.forEach((recorded, index) => {
    if (ofSkipped(recorded)) return;
    const control = fill(recorded);
    const evaluated: PlacedOutcome = {
      place: { list: 'gone', index },
      holds: countStateControl(endIndex, control) === 0,
      changed: countStateControl(startIndex, control) > 0,
      strong: isStrong(recorded),
      purpose: STRONG_BASES.has(basisFromEntry(recorded, purpose)),
      byDefault: browserDefaultCouldProduce(recorded, basisFromEntry(recorded, purpose)),
      failure: `${describeStateControl(control)} is still on the screen`,
    };
    // A count this replay started elsewhere may pass through the recorded old value: what must go is where it started.
    const changedForm = evaluated.holds || !isRequired(recorded) ? undefined : (goneCountMovedAway(control, changedForms()) ?? goneReworkedInPlace(control, changedForms()));
    if (changedForm !== undefined) Object.assign(evaluated, { holds: true, changed: true, changedForm });
    outcomes.push(evaluated);
  });
  (entry.acted ?? []).forEach((check, index) => {
    if (!check.present && skippedKeys.has(containerKey(check.target.container))) return;
    const acted = evaluateActed({ ...check, target: mapTextFields(check.target, fillText) }, startIndex, endIndex);
    outcomes.push({ ...acted, place: { list: 'acted', index }, purpose: true, byDefault: check.present && browserDefaultCouldProduce(check.target, 'acted') });
  });
  (entry.verified ?? []).forEach((recorded, index) => {
    const control = fill(recorded);
    outcomes.push({
      place: { list: 'verified', index },
      holds: countStateControl(endIndex, control) > 0,
      changed: false,
      strong: true,
      purpose: true,
      failure: `${describeStateControl(control)}, which the verification after the step looked at, is not on the screen${statesHint(endIndex, control)}`,
    });
  });
  return { route, outcomes };
}

/**
 * Whether each recorded outcome holds on the end screen (`e2e record --audit`): one flag per
 * appeared, gone and acted check of the entry, in its order. A check the replay does not demand
 * (a skipped dismissal's) counts as holding.
 */
export function endFacts(input: EndCheckInput): EndFacts {
  const { entry } = input;
  const { route, outcomes } = evaluateOutcomes(input);
  const facts: EndFacts = {
    route: route.kind !== 'mismatch',
    appeared: entry.appeared.map(() => true),
    gone: entry.gone.map(() => true),
    acted: (entry.acted ?? []).map(() => true),
  };
  for (const outcome of outcomes) if (outcome.place.list !== 'verified') facts[outcome.place.list][outcome.place.index] = outcome.holds;
  return facts;
}

/** True when every recorded outcome holds (the route included). */
export function allHold(facts: EndFacts): boolean {
  return facts.route && [...facts.appeared, ...facts.gone, ...facts.acted].every(Boolean);
}

/** Check the end state of a replay. */
export function checkEndState(input: EndCheckInput): EndCheckResult {
  const { entry } = input;
  const { route, outcomes: evaluated } = evaluateOutcomes(input);
  if (route.kind === 'mismatch') return mismatch(`end route ${route.detail}`);
  const fill = <T extends StateControl>(control: T): T => mapTextFields(control, (text) => fillUniquePlaceholders(text, input.uniqueValues ?? {}));

  // The step's purpose first (what it acted on, announced, typed, or the verification saw), then what it produced.
  const firstFailure = (ofPurpose: boolean) => evaluated.find((check) => check.strong && !check.holds && (check.purpose === true) === ofPurpose);
  const strongFailure = firstFailure(true) ?? firstFailure(false);
  if (strongFailure !== undefined) return mismatch(strongFailure.failure);
  const incidental = evaluated.filter((check) => !check.strong);
  const failing = incidental.filter((check) => !check.holds);
  // A ticked native checkbox shows the click, not the app: the purpose shows in what the browser alone cannot do.
  const purposeShown = evaluated.some((check) => check.strong && check.changed && check.byDefault !== true);
  // Churn may drop incidental controls, but never most of them, and only once the purpose showed.
  if (failing.length > 0 && (!purposeShown || failing.length * 2 > incidental.length)) {
    const extra = failing.length > 1 ? ` (and ${failing.length - 1} more of ${incidental.length} incidental checks)` : '';
    return mismatch(`${failing[0]!.failure}${extra}`);
  }

  let changedDuringReplay = evaluated.some((check) => check.holds && check.changed);
  // An entry without a location (version 2) has no routes; its outcomes alone show the change.
  if (!changedDuringReplay && entry.startRoute !== undefined && entry.endRoute !== undefined && !sameRouteShape(entry.startRoute, entry.endRoute)) {
    const startRoute = routeOf(input.replayStart.url);
    changedDuringReplay = startRoute === undefined || !sameRouteShape(startRoute, entry.endRoute);
  }
  if (!changedDuringReplay) {
    const appeared = entry.appeared[0];
    const first = appeared ?? entry.gone[0];
    const example = first === undefined ? '' : `: ${describeStateControl(fill(first))} was already ${appeared === undefined ? 'gone' : 'on the screen'} when the replay started`;
    return mismatch(`no recorded change happened during the replay${example}`);
  }
  const changedForms = evaluated.flatMap((check) => (check.changedForm === undefined ? [] : [check.changedForm]));
  return {
    ok: true,
    ...(failing.length === 0 ? {} : { tolerated: failing.map((check) => check.failure) }),
    ...(changedForms.length === 0 ? {} : { changedForms }),
  };
}

/**
 * A required outcome met in a changed form: when the control a step produced is nowhere on the
 * replay's screen as recorded (in any state), another implementation of the same behaviour may
 * still show it: the same text in another element (a `status` where a `text` was), a count that
 * moved the same way in other words (`0 item left` for `0 items left`), or the same control
 * that lost its label (an unnamed "toggle all" checkbox that became checked). The rules:
 * replayer/README.md, "The end-state proof".
 */
import type { EndControl, StateControl } from '../cache-format/entry.js';
import { describeStateControl } from '../semantics/describe-action.js';
import { countStateControl, nodeMatchesStateControl, recordedStatesOf, stateControlIdentity, stateControlKey, stateControlLabel, stateControlOf } from '../semantics/state-controls.js';
import { containerKey, sitsInContainer, type IndexedNode, type TreeIndex } from '../semantics/tree-index.js';
import { INTERACTIVE_ROLES, VALUED_ROLES } from '../contract/roles.js';
import { comparableText } from '../semantics/volatile-text.js';

/** Where a required appeared outcome was found in a changed form, or why a count rules one out. */
export type ChangedForm =
  | { kind: 'found'; changed: boolean; note: string }
  /** The same count shows with another number that did not move the same way: the app counts otherwise. */
  | { kind: 'other-count'; shown: string }
  | { kind: 'none' };

/** What a changed form may be compared with. */
export interface ChangedFormContext {
  start: TreeIndex;
  end: TreeIndex;
  /** The entry's gone controls (a count's value before the step, when it was on the screen), placeholders filled. */
  gone: readonly EndControl[];
  /** The entry's appeared controls: a count's value after the step. */
  appeared: readonly StateControl[];
  /** Nodes (on either screen) the step acted on: their own states prove the click, not the app. */
  acted: ReadonlySet<string>;
}

const NUMBER = /\d+(?:[.,]\d+)*/g;

/** The numbers a text shows, in order. */
function numbersOf(text: string): number[] {
  return [...text.matchAll(NUMBER)].map((match) => Number(match[0].replace(/,/g, '')));
}

/**
 * A text as a count: numbers as `#`, punctuation dropped, words singular (`items` → `item`):
 * `0 items left` and `0 item left` are one count form, `1 item left` shows the same count.
 */
export function countForm(text: string): string {
  return comparableText(text)
    .toLowerCase()
    .replace(NUMBER, ' # ')
    .replace(/[^\p{L}#\s]+/gu, ' ')
    .split(/\s+/)
    .filter((word) => word !== '')
    .map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word))
    .join(' ');
}

function sameStates(indexed: IndexedNode, states: readonly string[]): boolean {
  const live = recordedStatesOf(indexed.node.states);
  return live.length === states.length && live.every((state, position) => state === states[position]);
}

/** The state controls of a screen, fields left out: a field showing text proves nothing (it may be what the step typed). */
function labelled(index: TreeIndex): { indexed: IndexedNode; control: StateControl }[] {
  return index.nodes.flatMap((indexed) => {
    const control = VALUED_ROLES.has(indexed.node.role) ? undefined : stateControlOf(indexed);
    return control === undefined ? [] : [{ indexed, control }];
  });
}

function equalNumbers(left: readonly number[], right: readonly number[]): boolean {
  return left.length === right.length && left.every((value, position) => value === right[position]);
}

/** The count's move during the recorded step: appeared minus its gone counterpart (same count form), when there was one. */
function recordedMove(recorded: StateControl, form: string, gone: readonly StateControl[]): number[] | undefined {
  const before = gone.find((control) => countForm(stateControlLabel(control)) === form);
  if (before === undefined) return undefined;
  const from = numbersOf(stateControlLabel(before));
  const to = numbersOf(stateControlLabel(recorded));
  return from.length === to.length ? to.map((value, position) => value - from[position]!) : undefined;
}

/** A count in other words: same count form, the same numbers or numbers that moved the same way since the replay started. */
function asCount(recorded: StateControl, context: ChangedFormContext): ChangedForm {
  const label = stateControlLabel(recorded);
  const form = countForm(label);
  if (!form.includes('#')) return { kind: 'none' };
  const numbers = numbersOf(label);
  const same = (index: TreeIndex) => labelled(index).filter(({ indexed, control }) => countForm(stateControlLabel(control)) === form && sameStates(indexed, recorded.states));
  const atEnd = same(context.end);
  if (atEnd.length === 0) return { kind: 'none' };
  const equal = atEnd.filter(({ control }) => equalNumbers(numbersOf(stateControlLabel(control)), numbers));
  const describeFound = (control: StateControl): string => `${describeStateControl(recorded)} as ${describeStateControl(control)}`;
  if (equal.length > 0) {
    const before = same(context.start).filter(({ control }) => equalNumbers(numbersOf(stateControlLabel(control)), numbers)).length;
    return { kind: 'found', changed: equal.length > before, note: describeFound(equal[0]!.control) };
  }
  const move = recordedMove(recorded, form, context.gone);
  const from = same(context.start)[0];
  if (move !== undefined && from !== undefined) {
    const start = numbersOf(stateControlLabel(from.control));
    const moved = atEnd.find(({ control }) => {
      const end = numbersOf(stateControlLabel(control));
      return end.length === start.length && end.every((value, position) => value - start[position]! === move[position]);
    });
    if (moved !== undefined) return { kind: 'found', changed: true, note: `${describeFound(moved.control)}, moved the same way` };
  }
  return { kind: 'other-count', shown: describeStateControl(atEnd[0]!.control) };
}

/** The same text in another element (any role or container), in the recorded states. */
function asSameText(recorded: StateControl, context: ChangedFormContext): ChangedForm {
  const label = comparableText(stateControlLabel(recorded));
  const holding = (index: TreeIndex) => labelled(index).filter(({ indexed }) => indexed.comparableLabel === label && sameStates(indexed, recorded.states));
  const atEnd = holding(context.end);
  if (atEnd.length === 0) return { kind: 'none' };
  return { kind: 'found', changed: atEnd.length > holding(context.start).length, note: `${describeStateControl(recorded)} as ${describeStateControl(atEnd[0]!.control)}` };
}

/**
 * The same control without its label: a node of the recorded role (one a person operates: a
 * checkbox, a button) with no label at all, in the
 * recorded states and container (none when none was recorded), more of them at the end than when the replay started, not
 * counting the controls the step acted on (a ticked box proves the click, not the app).
 */
function asUnlabelled(recorded: StateControl, context: ChangedFormContext): ChangedForm {
  // Only a control a person operates can lose its name and stay itself; an item or a text without one shows nothing.
  if (stateControlLabel(recorded) === '' || !INTERACTIVE_ROLES.has(recorded.role)) return { kind: 'none' };
  const count = (index: TreeIndex): number =>
    index.nodes.filter(
      (indexed) =>
        indexed.node.role === recorded.role &&
        indexed.label === '' &&
        !context.acted.has(indexed.node.id) &&
        sameStates(indexed, recorded.states) &&
        // In the recorded container, or in none when none was recorded (a todo's own checkbox is no "toggle all").
        (containerKey(indexed.container) === containerKey(recorded.container) || (recorded.container !== undefined && sitsInContainer(indexed, recorded.container))),
    ).length;
  const atEnd = count(context.end);
  if (atEnd === 0 || atEnd <= count(context.start)) return { kind: 'none' };
  return { kind: 'found', changed: true, note: `${describeStateControl(recorded)} as an unlabelled ${recorded.role}${recorded.states.length === 0 ? '' : ` [${recorded.states.join(' ')}]`}` };
}

/**
 * A required appeared outcome that is nowhere on the end screen as recorded, in a changed
 * form. Never when the recorded label shows on the screen in any other way (another state,
 * another count): that is the same control telling another story.
 */
export function findChangedForm(recorded: StateControl, context: ChangedFormContext, options: { typed: boolean }): ChangedForm {
  const count = asCount(recorded, context);
  if (count.kind !== 'none') return count;
  const text = asSameText(recorded, context);
  if (text.kind !== 'none') return text;
  const label = comparableText(stateControlLabel(recorded));
  // A typed value is the outcome itself; and a label still on the screen, only not as recorded, has no unlabelled stand-in.
  if (options.typed || context.end.nodes.some((indexed) => indexed.comparableLabel === label)) return { kind: 'none' };
  return asUnlabelled(recorded, context);
}

/**
 * A required gone count (`2 items left` when the step took the count from 2 to 1) still on the
 * screen because this replay started from another count: it holds when the entry's appeared
 * counterpart (same count form) was met and the count left the value it had when the replay
 * started. Undefined when that does not apply.
 */
export function goneCountMovedAway(recorded: StateControl, context: ChangedFormContext): string | undefined {
  const form = countForm(stateControlLabel(recorded));
  if (!form.includes('#')) return undefined;
  const counterpart = context.appeared.find((control) => countForm(stateControlLabel(control)) === form);
  if (counterpart === undefined || asCount(counterpart, context).kind !== 'found') return undefined;
  const sameForm = (index: TreeIndex) => labelled(index).filter(({ control }) => countForm(stateControlLabel(control)) === form);
  const starts = sameForm(context.start).map(({ control }) => numbersOf(stateControlLabel(control)));
  if (starts.length === 0) return undefined;
  const ends = sameForm(context.end).map(({ control }) => numbersOf(stateControlLabel(control)));
  if (ends.some((end) => starts.some((start) => equalNumbers(start, end)))) return undefined;
  return `${describeStateControl(recorded)} went away as the count moved on from where this replay started`;
}

/**
 * A required gone control still on the screen because this app reworked its group in place
 * rather than removing it (a release that keeps the "Schema" tab and turns "Example Value" into
 * "Edit Value" where the recorded one removed both tabs): another gone control of the same role
 * and container, gone after the same action, did go away, and beside the one that stayed a
 * control of that role shows that was not on the screen when the replay started. Undefined
 * when that does not apply.
 */
export function goneReworkedInPlace(recorded: EndControl, context: ChangedFormContext): string | undefined {
  const actions = new Set(recorded.producedBy ?? recorded.causedBy ?? []);
  const partner = context.gone.find(
    (other) =>
      stateControlKey(other) !== stateControlKey(recorded) &&
      other.role === recorded.role &&
      containerKey(other.container) === containerKey(recorded.container) &&
      (other.producedBy ?? other.causedBy ?? []).some((action) => actions.has(action)) &&
      countStateControl(context.end, other) === 0 &&
      countStateControl(context.start, other) > 0,
  );
  if (partner === undefined) return undefined;
  const startIdentities = new Set(labelled(context.start).map(({ control }) => stateControlIdentity(control)));
  const label = comparableText(stateControlLabel(recorded));
  for (const indexed of context.end.nodes) {
    if (!nodeMatchesStateControl(indexed, recorded, label)) continue;
    const newcomer = (indexed.parent?.node.children ?? [])
      .map((sibling) => context.end.byId.get(sibling.id))
      .map((sibling) => (sibling === undefined ? undefined : stateControlOf(sibling)))
      .find((control) => control !== undefined && control.role === recorded.role && !startIdentities.has(stateControlIdentity(control)));
    if (newcomer !== undefined) return `${describeStateControl(recorded)} stayed where ${describeStateControl(partner)} became ${describeStateControl(newcomer)}`;
  }
  return undefined;
}

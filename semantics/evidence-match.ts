/**
 * What "a node matches an evidence check" means, shared by the recorder and the replayer so both
 * sides count alike. See recorder/README.md, "Evidence checks".
 */
import type { EvidenceCheck, StateControl } from '../cache-format/entry.js';
import { MAX_VALUE_CHARS } from '../cache-format/entry.js';
import { nodeMatchesStateControl, recordedStatesOf, stateControlLabel, stateControlOf } from './state-controls.js';
import { clipText, type IndexedNode, type TreeIndex } from './tree-index.js';
import { comparableText } from './volatile-text.js';
import { CHECKABLE_ROLES } from '../contract/roles.js';

/** A node's value as evidence keeps it: whitespace collapsed, clipped. */
export function evidenceValueOf(value: string | undefined): string {
  return clipText(value ?? '', MAX_VALUE_CHARS);
}

function sameStates(indexed: IndexedNode, control: StateControl): boolean {
  const states = recordedStatesOf(indexed.node.states);
  return states.length === control.states.length && states.every((state, position) => state === control.states[position]);
}

function literalControlMatch(indexed: IndexedNode, control: StateControl): boolean {
  const { node } = indexed;
  if (node.role !== control.role || !sameStates(indexed, control)) return false;
  if (control.testId !== undefined && node.testId !== control.testId) return false;
  if (stateControlOf(indexed) === undefined || indexed.label !== stateControlLabel(control)) return false;
  const container = control.container;
  return container === undefined || (indexed.container?.role === container.role && indexed.container.name === container.name);
}

function valueMatches(indexed: IndexedNode, check: EvidenceCheck): boolean {
  if (check.value === undefined) return true;
  const value = evidenceValueOf(indexed.node.value);
  return check.exact === true ? value === check.value : comparableText(value) === comparableText(check.value);
}

/** True when `indexed` is a node `check` counts. */
export function nodeMatchesEvidence(indexed: IndexedNode, check: EvidenceCheck, comparableLabel?: string): boolean {
  const { control } = check;
  if (check.match === 'role') return indexed.node.role === control.role && sameStates(indexed, control);
  const isControl = check.exact === true ? literalControlMatch(indexed, control) : nodeMatchesStateControl(indexed, control, comparableLabel);
  return isControl && valueMatches(indexed, check);
}

/** How many nodes of the screen `check` counts. */
export function countEvidenceMatches(index: TreeIndex, check: EvidenceCheck): number {
  const comparableLabel = check.match === 'role' || check.exact === true ? undefined : comparableText(stateControlLabel(check.control));
  let count = 0;
  for (const indexed of index.nodes) if (nodeMatchesEvidence(indexed, check, comparableLabel)) count++;
  return count;
}

/** True when `count` matching nodes satisfy `check` (present: at least one, exactly `count` when set; absent: none). */
export function evidenceHolds(check: EvidenceCheck, count: number): boolean {
  if (check.expect === 'absent') return count === 0;
  return count > 0 && (check.count === undefined || count === check.count);
}

/**
 * Judgment evidence: the nodes a passing judge cited, as checks a replay evaluates with no model.
 * The rules: recorder/README.md, "Judgment evidence".
 */
import { MAX_EVIDENCE_CHECKS, type EvidenceCheck, type Route, type StateControl } from '../cache-format/entry.js';
import type { ScreenNode } from '../contract/engine.js';
import { countEvidenceMatches, evidenceHolds, evidenceValueOf } from '../semantics/evidence-match.js';
import { routeOf } from '../semantics/route-of.js';
import { RECORDED_STATES, recordedStatesOf, stateControlOf, type RecordedState } from '../semantics/state-controls.js';
import { indexTree, type IndexedNode, type TreeIndex } from '../semantics/tree-index.js';
import { mapTextFields, maskUniqueValues } from '../semantics/unique-placeholders.js';
import { CHECKABLE_ROLES, EDITABLE_ROLES, ITEM_ROLES } from '../contract/roles.js';

/** The judgment kinds. */
export type JudgmentKind = 'assert' | 'waitFor' | 'extract';

/** What the evidence is built from. */
export interface JudgmentEvidenceInput {
  kind: JudgmentKind;
  /** The question or condition as asked (decides whether counts are kept). */
  question: string;
  /** The judged screen. */
  tree: ScreenNode | TreeIndex;
  url: string;
  /** False for an engine without a location (a terminal): no route is recorded. Default true. */
  located?: boolean;
  /** The ids the judge cited. */
  nodeIds: readonly string[];
  /** Values typed into the app earlier in this attempt (redacted, as events carry them). */
  typedValues: Iterable<string>;
  /** This run's `unique()` values by param name; recorded as placeholders. */
  uniqueValues?: Readonly<Record<string, string>>;
}

/** The evidence, or why the judgment cannot be cached. */
export type JudgmentEvidence =
  | { kind: 'evidence'; route: Route | undefined; checks: EvidenceCheck[]; skipped: string[] }
  | { kind: 'not-cacheable'; reason: string };

/** Roles a count question counts as a census. */
const CENSUS_ROLES: ReadonlySet<string> = new Set([...ITEM_ROLES, ...CHECKABLE_ROLES, 'tab']);
/** The state a census toggles per role (checked for checkable roles). */
const TOGGLED_STATE: Readonly<Record<string, RecordedState>> = {
  checkbox: 'checked',
  switch: 'checked',
  radio: 'checked',
  menuitemcheckbox: 'checked',
  menuitemradio: 'checked',
  option: 'selected',
  tab: 'selected',
  treeitem: 'expanded',
};
/** How deep below a cited item its state controls are looked for. */
const ITEM_DEPTH = 4;
/** Shortest typed value that marks a node as showing typed text (shorter ones hit ordinary words). */
const MIN_TYPED_CHARS = 2;

/**
 * True when the question is about a count: a number, or a word that counts or quantifies
 * (`only`, `all`, `no`, `none`, `each`, `remain`, `left`, `how many`…). Erring towards yes
 * costs only cache hits (a count that changes sends the judgment back to the model).
 */
export function isCountQuestion(question: string): boolean {
  return /\b(?:\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|single|both|only|all|every|each|none|no|nothing|any|several|multiple|many|count|number|exactly|least|most|more|fewer|less|remains?|remaining|left|empty)\b/i.test(
    question,
  );
}

/** Why a node proves nothing, or undefined when it may be evidence. */
function provesNothing(node: ScreenNode, typed: readonly string[]): string | undefined {
  if (node.states.includes('secure')) return `${node.role} "${node.name}" is a password field`;
  const value = node.value ?? '';
  if (value.includes('<secret:')) return `${node.role} "${node.name}" shows a secret`;
  const shown = EDITABLE_ROLES.has(node.role) ? [value, node.text ?? ''] : [value];
  for (const text of shown) {
    if (text.trim() === '') continue;
    if (typed.some((entry) => text.includes(entry) || entry.includes(text.trim()))) return `${node.role} "${node.name}" shows text this attempt typed`;
  }
  return undefined;
}

function toggled(states: readonly RecordedState[], state: RecordedState): RecordedState[] {
  const next = states.includes(state) ? states.filter((item) => item !== state) : [...states, state];
  return RECORDED_STATES.filter((item) => next.includes(item));
}

/** The state-bearing descendants of a cited item (its checkbox, its pressed toggle). */
function itemControls(item: IndexedNode, index: TreeIndex): IndexedNode[] {
  const found: IndexedNode[] = [];
  const walk = (node: ScreenNode, depth: number): void => {
    for (const child of node.children) {
      const indexed = index.byId.get(child.id);
      if (indexed === undefined) continue;
      const toggle = TOGGLED_STATE[child.role];
      if (CHECKABLE_ROLES.has(child.role) || (toggle !== undefined && child.states.includes(toggle)) || child.states.includes('pressed')) found.push(indexed);
      if (depth < ITEM_DEPTH) walk(child, depth + 1);
    }
  };
  walk(item.node, 1);
  return found;
}

function keyOf(check: EvidenceCheck): string {
  const { control } = check;
  return JSON.stringify([check.match ?? 'control', check.expect, control.role, control.name, control.text ?? '', control.testId ?? '', control.container ?? null, control.states, check.value ?? null]);
}

/** Build the evidence of a passing judgment. Never throws on page content. */
export function buildJudgmentEvidence(input: JudgmentEvidenceInput): JudgmentEvidence {
  const route = input.located === false ? undefined : routeOf(input.url);
  if (route === undefined && input.located !== false) return { kind: 'not-cacheable', reason: 'the judged screen has no route (not an http page)' };
  const index = 'byId' in input.tree ? input.tree : indexTree(input.tree);
  const typed = [...new Set(input.typedValues)].map((value) => value.trim()).filter((value) => value.length >= MIN_TYPED_CHARS);
  const uniqueValues = input.uniqueValues ?? {};
  const extract = input.kind === 'extract';
  const checks = new Map<string, EvidenceCheck>();
  const skipped: string[] = [];
  const cited: IndexedNode[] = [];

  const add = (indexed: IndexedNode, citedDirectly: boolean): void => {
    const problem = provesNothing(indexed.node, typed);
    if (problem !== undefined) {
      if (citedDirectly) skipped.push(problem);
      return;
    }
    const control = stateControlOf(indexed);
    if (control === undefined) {
      if (citedDirectly) skipped.push(`${indexed.node.role} #${indexed.node.id} has no label a replay could find`);
      return;
    }
    const check: EvidenceCheck = { control, expect: 'present' };
    const value = evidenceValueOf(indexed.node.value);
    if (value !== '') check.value = value;
    if (extract) check.exact = true;
    checks.set(keyOf(check), check);
    cited.push(indexed);
  };

  for (const id of input.nodeIds) {
    const indexed = index.byId.get(id.replace(/^#/, ''));
    if (indexed === undefined) return { kind: 'not-cacheable', reason: `the cited node ${id} is not on the judged screen` };
    add(indexed, true);
    if (!extract && ITEM_ROLES.has(indexed.node.role)) for (const inner of itemControls(indexed, index)) add(inner, false);
  }
  if (checks.size === 0) {
    return { kind: 'not-cacheable', reason: `no cited node can be checked without a model${skipped.length === 0 ? '' : ` (${skipped.join('; ')})`}` };
  }

  if (!extract && isCountQuestion(input.question)) {
    for (const check of checks.values()) check.count = countEvidenceMatches(index, check);
    for (const role of new Set(cited.map((indexed) => indexed.node.role))) {
      if (!CENSUS_ROLES.has(role)) continue;
      const variants = new Map<string, RecordedState[]>();
      for (const indexed of index.nodes) {
        if (indexed.node.role !== role) continue;
        const states = recordedStatesOf(indexed.node.states);
        variants.set(states.join(' '), states);
      }
      const toggle = TOGGLED_STATE[role];
      for (const states of [...variants.values()]) {
        if (toggle === undefined) continue;
        const other = toggled(states, toggle);
        if (!variants.has(other.join(' '))) variants.set(other.join(' '), other);
      }
      for (const states of variants.values()) {
        const control: StateControl = { role, name: '', states };
        const census: EvidenceCheck = { control, expect: 'present', match: 'role' };
        const count = countEvidenceMatches(index, census);
        if (count === 0) census.expect = 'absent';
        else census.count = count;
        checks.set(keyOf(census), census);
      }
    }
  }

  const kept = [...checks.values()];
  if (kept.length > MAX_EVIDENCE_CHECKS) {
    return { kind: 'not-cacheable', reason: `the evidence needs ${kept.length} checks (at most ${MAX_EVIDENCE_CHECKS} are recorded)` };
  }
  for (const check of kept) {
    // By construction every check holds here; one that does not would prove nothing later.
    if (!evidenceHolds(check, countEvidenceMatches(index, check))) return { kind: 'not-cacheable', reason: 'a check made from the cited nodes does not hold on the judged screen' };
  }
  const mask = (text: string): string => maskUniqueValues(text, uniqueValues);
  const masked = kept.map((check) => {
    const result: EvidenceCheck = { ...check, control: mapTextFields(check.control, mask) };
    if (check.value !== undefined) result.value = mask(check.value);
    return result;
  });
  return { kind: 'evidence', route, checks: masked, skipped };
}

/**
 * What changed between two recordings of a step, in the words of `cache diff`: the actions as
 * sentences with a line diff (`tap button "Apply"` → `tap button "Redeem"`), the routes, the
 * end checks, typed values and origins the new recording brings, a step that became a gap,
 * the summary and the provenance.
 */
import { diffArrays } from 'diff';
import type { Entry, RecordedAction } from '../cache-format/index.js';
import { describeAction, describeTypedValue } from '../semantics/describe-action.js';
import { formatRoute } from '../semantics/route-of.js';
import { endEvidenceOf } from '../semantics/end-purpose.js';
import { describeEndEvidence, describeProvenance, endCheckLines } from './entry-text.js';
import { maskValue, sensitiveKinds, type SensitiveKind } from './risky-values.js';

/** One line of a line diff. */
export interface DiffLine {
  change: 'kept' | 'removed' | 'added';
  text: string;
}

/** A value before and after. */
export interface BeforeAfter {
  base: string;
  head: string;
}

/** A literal the new recording types or visits that looks sensitive. */
export interface SensitiveLiteral {
  /** A masked preview (`"jane…" (20 characters)`), never the whole value. */
  preview: string;
  kinds: SensitiveKind[];
}

/** The changes between two recordings of a step (empty arrays and absent fields: no change). */
export interface ContentChanges {
  /** The action sentences, as a line diff; absent when the actions read alike. */
  actions?: DiffLine[];
  startRoute?: BeforeAfter;
  endRoute?: BeforeAfter;
  /** For judgments: the route the evidence was checked on. */
  route?: BeforeAfter;
  /** End checks (appeared/gone) or evidence, as a line diff; absent when alike. */
  endChecks?: DiffLine[];
  /** How many end checks (or evidence checks) each side has. */
  endCheckCounts: { base: number; head: number };
  /** Typed values (as sentences show them) the base recording did not type. */
  newTypedValues: string[];
  /** Origins the base recording did not visit. */
  newOrigins: string[];
  /** Gaps (actions that cannot be replayed) the base recording did not have. */
  newGaps: string[];
  /** New literals that look like an email, card number or token. */
  sensitiveLiterals: SensitiveLiteral[];
  summary?: BeforeAfter;
  extracted?: BeforeAfter;
  /** What the end check rests on (`act` entries), when that changed. */
  endEvidence?: BeforeAfter;
  /** True when the new recording's end is proven weakly and the old one's was not. */
  weakerEnd?: boolean;
  provenance?: BeforeAfter;
}

/** Literal texts an action carries: typed values and URLs. */
export function literalsOf(action: RecordedAction): string[] {
  switch (action.verb) {
    case 'type':
    case 'select':
    case 'typeText':
      return action.value.kind === 'literal' ? [action.value.value] : [];
    case 'navigate':
      return [action.url];
    default:
      return [];
  }
}

/** Typed values of an action as sentences show them (`"Buy milk"`, `secret password`, `unique email`). */
function typedValuesOf(action: RecordedAction): string[] {
  switch (action.verb) {
    case 'type':
    case 'select':
    case 'typeText':
      return [describeTypedValue(action.value)];
    default:
      return [];
  }
}

/** A line diff of two lists (the `diff` package's array diff). */
export function diffLines(base: readonly string[], head: readonly string[]): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const part of diffArrays([...base], [...head])) {
    const change = part.added ? 'added' : part.removed ? 'removed' : 'kept';
    for (const text of part.value) lines.push({ change, text });
  }
  return lines;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

function changed(base: string, head: string): BeforeAfter | undefined {
  return base === head ? undefined : { base, head };
}

function actionsOf(entry: Entry): readonly RecordedAction[] {
  return entry.kind === 'act' ? entry.actions : [];
}

/** Sensitive-looking literals among `literals`, each once. */
export function sensitiveLiterals(literals: Iterable<string>): SensitiveLiteral[] {
  const found: SensitiveLiteral[] = [];
  for (const value of new Set(literals)) {
    const kinds = sensitiveKinds(value);
    if (kinds.length > 0) found.push({ preview: maskValue(value), kinds });
  }
  return found;
}

/** What a brand-new recording brings (every literal is new). */
export function literalsOfEntry(entry: Entry): string[] {
  return actionsOf(entry).flatMap(literalsOf);
}

/** The changes from `base` to `head` (two recordings of one step). */
export function entryChanges(base: Entry, head: Entry): ContentChanges {
  const baseActions = actionsOf(base).map(describeAction);
  const headActions = actionsOf(head).map(describeAction);
  const baseChecks = endCheckLines(base);
  const headChecks = endCheckLines(head);
  const baseValues = new Set(actionsOf(base).flatMap(typedValuesOf));
  const baseLiterals = new Set(literalsOfEntry(base));
  const baseOrigins = new Set(base.kind === 'act' ? (base.origins ?? []) : []);
  const baseGaps = new Set(actionsOf(base).filter((action) => action.verb === 'gap').map(describeAction));
  const changes: ContentChanges = {
    endCheckCounts: { base: baseChecks.length, head: headChecks.length },
    newTypedValues: [...new Set(actionsOf(head).flatMap(typedValuesOf))].filter((value) => !baseValues.has(value)),
    newOrigins: head.kind === 'act' ? (head.origins ?? []).filter((origin) => !baseOrigins.has(origin)) : [],
    newGaps: [...new Set(actionsOf(head).filter((action) => action.verb === 'gap').map(describeAction))].filter((gap) => !baseGaps.has(gap)),
    sensitiveLiterals: sensitiveLiterals(literalsOfEntry(head).filter((literal) => !baseLiterals.has(literal))),
  };
  if (!sameList(baseActions, headActions)) changes.actions = diffLines(baseActions, headActions);
  if (!sameList(baseChecks, headChecks)) changes.endChecks = diffLines(baseChecks, headChecks);
  if (base.kind === 'act' && head.kind === 'act') {
    const start = changed(formatRoute(base.startRoute), formatRoute(head.startRoute));
    const end = changed(formatRoute(base.endRoute), formatRoute(head.endRoute));
    if (start !== undefined) changes.startRoute = start;
    if (end !== undefined) changes.endRoute = end;
    const evidence = changed(describeEndEvidence(base), describeEndEvidence(head));
    if (evidence !== undefined) changes.endEvidence = evidence;
    if (endEvidenceOf(head).strength === 'weak' && endEvidenceOf(base).strength === 'strong') changes.weakerEnd = true;
  }
  if (base.kind !== 'act' && head.kind !== 'act') {
    const route = changed(formatRoute(base.route), formatRoute(head.route));
    const extracted = changed(base.extracted ?? '', head.extracted ?? '');
    if (route !== undefined) changes.route = route;
    if (extracted !== undefined) changes.extracted = extracted;
  }
  const summary = changed(base.summary, head.summary);
  const provenance = changed(describeProvenance(base), describeProvenance(head));
  if (summary !== undefined) changes.summary = summary;
  if (provenance !== undefined) changes.provenance = provenance;
  return changes;
}

/** True when `changes` has anything to say (a re-keyed entry may carry the same recording). */
export function hasContentChanges(changes: ContentChanges): boolean {
  const { endCheckCounts: _counts, newTypedValues, newOrigins, newGaps, sensitiveLiterals: literals, weakerEnd: _weaker, ...rest } = changes;
  return newTypedValues.length + newOrigins.length + newGaps.length + literals.length > 0 || Object.keys(rest).length > 0;
}

/**
 * A cache entry as readable text for `e2e cache show` and git's textconv: the key parts, the
 * start route, each action as a sentence (`describeAction`), the end checks with their states,
 * the origins, the summary and the provenance. Deterministic (no "ago"), so `git diff` of two
 * renderings shows only what changed.
 */
import type { ActEntry, ActedCheck, EndBasis, Entry, EvidenceCheck, KeyParts, RecordedAction, StateControl } from '../cache-format/index.js';
import { describeAction, describeStateControl, describeTargetPhrase } from '../semantics/describe-action.js';
import { basisFromEntry, endEvidenceOf, purposeOfActions } from '../semantics/end-purpose.js';
import { describeEvidenceCheck } from '../semantics/describe-evidence.js';
import { causalLinks, hasCausalChecks, type CausalOutcome } from '../semantics/causal-outcomes.js';
import { formatRoute } from '../semantics/route-of.js';
import { visibleText } from '../semantics/visible-text.js';
import { alignColumns, quoteText } from './text-format.js';

/** The params of a step as `name=value, …` (secrets and `unique()` values are already placeholders). */
export function describeParams(params: Readonly<Record<string, string>>): string {
  return visibleText(
    Object.keys(params)
      .sort()
      .map((name) => `${name}=${params[name]!}`)
      .join(', '),
  );
}

/** A step as a short phrase: `act "add two todos" with title=<unique:title>` (and the occurrence when it is not the first). */
export function describeStep(parts: KeyParts): string {
  const params = describeParams(parts.params);
  let phrase = `${parts.kind} ${quoteText(parts.instruction)}`;
  if (params !== '') phrase += ` with ${params}`;
  if (parts.occurrence > 0) phrase += ` (occurrence ${parts.occurrence + 1})`;
  return visibleText(phrase);
}

/** The actions an outcome is caused by, as words: `caused by actions 1, 3` (1-based), or nothing. */
function describeCause(causedBy: readonly number[] | undefined): string {
  if (causedBy === undefined || causedBy.length === 0) return '';
  return `caused by action${causedBy.length === 1 ? '' : 's'} ${causedBy.map((action) => action + 1).join(', ')}`;
}

/** An end check as a line: `appeared: status "Saved" (announced)`, `gone: dialog "Confirm"`, `appeared: text "0 items left" (incidental, caused by action 3)`. */
export function describeEndCheck(check: 'appeared' | 'gone', control: StateControl & { causedBy?: readonly number[] | undefined }, basis?: EndBasis): string {
  const notes = [basis, describeCause(control.causedBy)].filter((note) => note !== undefined && note !== '');
  return `${check}: ${describeStateControl(control)}${notes.length === 0 ? '' : ` (${notes.join(', ')})`}`;
}

/** A control the step acted on, as a line: `acted: unnamed checkbox in listitem "Buy milk" ends [checked]`. */
export function describeActedCheck(check: ActedCheck): string {
  const cause = describeCause(check.causedBy);
  return `acted: ${actedPhrase(check)}${cause === '' ? '' : ` (${cause})`}`;
}

/** `unnamed checkbox in listitem "Buy milk" ends [checked]`. */
function actedPhrase(check: ActedCheck): string {
  const end = check.present ? (check.states.length === 0 ? 'stays' : `ends [${check.states.join(' ')}]`) : 'ends gone';
  return `${describeTargetPhrase(check.target)} ${end}`;
}

/** An outcome that proves an action, as words: `text "0 items left" appeared`. */
function describeCausalOutcome(outcome: CausalOutcome): string {
  if (outcome.list === 'acted') return actedPhrase(outcome.check);
  return `${describeStateControl(outcome.control)} ${outcome.list === 'appeared' ? 'appeared' : 'went away'}`;
}

/**
 * Under each action of an entry recorded with causal end checks, what it is proven by: the
 * outcomes its audit mutants removed (`proven by: text "0 items left" appeared; …`), or that
 * none of the entry's end checks is tied to it (its mutants stopped the replay before the end,
 * or changed nothing the entry records). Nothing for an entry recorded without the audit.
 */
export function causalLinkLines(entry: ActEntry): string[][] {
  if (!hasCausalChecks(entry)) return entry.actions.map(() => []);
  return causalLinks(entry).map((outcomes) =>
    outcomes.length === 0 ? ['proven by: no end check (its mutants stop the replay earlier, or change nothing recorded)'] : [`proven by: ${outcomes.map(describeCausalOutcome).join('; ')}`],
  );
}

/** What an action dismissed, as words after its sentence: ` (dismisses dialog "Cookie consent")`, or nothing. */
export function describeDismissal(action: RecordedAction): string {
  return 'dismisses' in action && action.dismisses !== undefined ? ` (dismisses ${action.dismisses.role} ${quoteText(action.dismisses.name)})` : '';
}

/**
 * The end checks of an `act` entry, each with what it rests on, then each dismissal (an
 * action replay skips when its container is absent, whose container's going away is then
 * not demanded): `dismissal: action 1 closes dialog "Cookie consent"; skipped when it is absent`.
 */
function actEndCheckLines(entry: ActEntry): string[] {
  const purpose = purposeOfActions(entry.actions);
  const dismissals = entry.actions.flatMap((action, index) =>
    'dismisses' in action && action.dismisses !== undefined
      ? [`dismissal: action ${index + 1} closes ${action.dismisses.role} ${quoteText(action.dismisses.name)}; skipped when it is absent`]
      : [],
  );
  return [
    ...entry.appeared.map((control) => describeEndCheck('appeared', control, basisFromEntry(control, purpose))),
    ...entry.gone.map((control) => describeEndCheck('gone', control, basisFromEntry(control, purpose))),
    ...(entry.acted ?? []).map(describeActedCheck),
    ...(entry.verified ?? []).map((control) => `verified: ${describeStateControl(control)} present`),
    ...dismissals,
  ];
}

/** How strongly an `act` entry's end is proven, as a line (`strong: 2 typed, 1 acted`; `WEAK: only the route`). */
export function describeEndEvidence(entry: ActEntry): string {
  const evidence = endEvidenceOf(entry);
  return evidence.strength === 'strong' ? `strong (${evidence.restsOn})` : `WEAK: ${evidence.restsOn}`;
}

/** A judgment's evidence check as a line: `expect listitem "Buy milk" present`, `expect 1 × listitem present`. */
export function describeEvidence(check: EvidenceCheck): string {
  return describeEvidenceCheck(check);
}

/** The end checks of an entry as lines (appeared/gone for `act`, evidence for judgments). */
export function endCheckLines(entry: Entry): string[] {
  if (entry.kind === 'act') return actEndCheckLines(entry);
  return entry.evidence.map(describeEvidence);
}

/** The acts a judgment is keyed after: `2 act steps (1a2b3c4d, 5e6f7a8b)`. */
export function describePreceding(keys: readonly string[]): string {
  if (keys.length === 0) return 'no act step';
  const shown = keys.slice(-4).map((key) => key.slice(0, 8));
  return `${keys.length} act ${keys.length === 1 ? 'step' : 'steps'} (${keys.length > 4 ? '…, ' : ''}${shown.join(', ')})`;
}

/** The provenance of an entry as one line. */
export function describeProvenance(entry: Entry): string {
  const { provenance } = entry;
  const executor = provenance.executorVersion === undefined ? provenance.executor : `${provenance.executor} ${provenance.executorVersion}`;
  return visibleText(`recorded ${provenance.recordedAt}, verified by ${provenance.verifiedBy}, executor ${executor}, e2e ${provenance.toolVersion}`);
}

/** Where the bytes came from, for the heading. */
export interface EntrySource {
  blob: string;
  storedVersion: number;
}

/** The entry as lines of readable text. */
export function entryLines(entry: Entry, source: EntrySource): string[] {
  const parts = entry.keyParts;
  const lines = [`Cache entry ${entry.key} (blob ${source.blob}, schema version ${source.storedVersion})`, ''];
  const keyRows: string[][] = [
    ['test', parts.testId],
    ['project', parts.projectId],
    ['target', parts.target],
    ['engine', `${parts.engine} (contract ${parts.engineContract})`],
    ['step', `${parts.kind} ${quoteText(parts.instruction, 4096)}`],
    ['params', describeParams(parts.params) || '(none)'],
    ['occurrence', String(parts.occurrence)],
    ...(parts.preceding === undefined ? [] : [['after', describePreceding(parts.preceding)]]),
    ['app', parts.appIdentity],
    ['agent', `${parts.agent} (context digest ${parts.contextDigest})`],
    ['replay policy', String(parts.replayPolicy)],
  ];
  lines.push('Key parts:', ...alignColumns(keyRows.map(([name, value]) => [`${name}:`, value!]), '  '), '');
  if (entry.kind === 'act') {
    // An entry without a location (a terminal's) has no routes or origins to show.
    if (entry.startRoute !== undefined) lines.push(`Starts at ${formatRoute(entry.startRoute)}`);
    lines.push('Actions:');
    const links = causalLinkLines(entry);
    entry.actions.forEach((action, index) => {
      lines.push(`  ${index + 1}. ${describeAction(action)}${describeDismissal(action)}`);
      for (const link of links[index] ?? []) lines.push(`     ${link}`);
    });
    if (entry.endRoute !== undefined) lines.push(`Ends at ${formatRoute(entry.endRoute)}`);
  } else if (entry.route !== undefined) {
    lines.push(`Judged at ${formatRoute(entry.route)}`);
  }
  const checks = endCheckLines(entry);
  lines.push(entry.kind === 'act' ? 'End checks:' : 'Evidence:', ...(checks.length === 0 ? ['  (none)'] : checks.map((line) => `  ${line}`)));
  if (entry.kind === 'act') lines.push(`End rests on: ${describeEndEvidence(entry)}`);
  if (entry.kind === 'act' && entry.origins !== undefined) lines.push(`Origins: ${entry.origins.length === 0 ? '(none)' : entry.origins.join(', ')}`);
  if (entry.kind !== 'act' && entry.extracted !== undefined) lines.push(`Extracted: ${entry.extracted}`);
  lines.push(`Summary: ${entry.summary}`, `Provenance: ${describeProvenance(entry)}`);
  // Test id, target, agent, origins and summary are entry text: spelled out like the sentences.
  return lines.map(visibleText);
}

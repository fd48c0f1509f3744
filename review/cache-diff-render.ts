/**
 * `cache diff` output: plain text for a terminal, Markdown for a pull-request comment (user
 * text always inside code spans or fences it cannot close), and JSON (the result as it is).
 * Risky changes come first; sensitive-looking literals are masked there (the action sentences
 * still show what the entry itself holds).
 */
import type { CacheDiffResult, DiffAuditSummary, EntryAudit, KeyPartChange, StepDiff, StepIdentity } from './cache-diff.js';
import type { ContentChanges, DiffLine } from './entry-changes.js';
import { splitTestId, TEST_ID_FILE_SEPARATOR } from '../cache-format/test-id.js';
import { formatScore, markdownBlock, markdownCode, plural } from './text-format.js';
import { visibleText } from '../semantics/visible-text.js';

/** Output formats of `cache diff`. */
export const DIFF_FORMATS = ['text', 'markdown', 'json'] as const;
/** An output format of `cache diff`. */
export type DiffFormat = (typeof DIFF_FORMATS)[number];

const LINE_MARK: Readonly<Record<DiffLine['change'], string>> = { kept: ' ', removed: '-', added: '+' };

function countsLine(result: CacheDiffResult): string {
  const { counts } = result;
  // A proposal in the words of `cache accept`: what it adds, what it replaces, what stays.
  if (result.proposal === true) {
    return [`${counts.added + counts.rekeyed} added`, `${counts.changed} replaced`, ...(counts.unreadable > 0 ? [`${counts.unreadable} unreadable`] : []), `${counts.unchanged} unchanged`].join(', ');
  }
  const parts = [
    `${counts.changed} changed`,
    `${counts.rekeyed} re-keyed`,
    `${counts.added} added`,
    `${counts.removed} removed`,
    ...(counts.unreadable > 0 ? [`${counts.unreadable} unreadable`] : []),
    `${counts.unchanged} unchanged`,
  ];
  return parts.join(', ');
}

/** A head entry's audit in a line or a few: `audit: caught 3 of 4`, then each survivor. */
function auditLines(audit: EntryAudit | undefined, show: (text: string) => string): string[] {
  if (audit === undefined) return [];
  if (audit.state === 'not-audited') return ['audit: not audited (run `e2e cache audit` or `e2e record --audit`)'];
  const apart = `${audit.notRun > 0 ? `, ${audit.notRun} not run` : ''}${audit.equivalent.length > 0 ? `, ${audit.equivalent.length} equivalent` : ''}`;
  return [
    `audit: caught ${audit.caught} of ${plural(audit.total, 'mutant')}${apart} (${audit.auditedAt.slice(0, 10)})`,
    ...audit.survivors.map((survivor) => `survived: ${show(survivor)}`),
    ...audit.equivalent.map((mutant) => `equivalent (the test's own checks pass with it too): ${show(mutant)}`),
  ];
}

/** The audit of what head adds or changes, in a line, and the `--min-audit-score` verdict. */
function auditSummaryLines(audit: DiffAuditSummary | undefined): string[] {
  if (audit === undefined || audit.entries === 0) return [];
  const unaudited = audit.entries - audit.audited;
  const lines = [
    `Audit of the new and changed entries: score ${formatScore(audit.score)} · ${audit.caught} of ${plural(audit.total, 'mutant')} caught · ${audit.audited} of ${plural(audit.entries, 'entry', 'entries')} audited${unaudited > 0 ? ` (${unaudited} not)` : ''}`,
  ];
  if (audit.failed) lines.push(`below --min-audit-score ${audit.minScore}${unaudited > 0 ? ': every new or changed entry needs an audit of its recording' : ''}`);
  return lines;
}

function hasChanges(result: CacheDiffResult): boolean {
  return result.tests.length > 0;
}

/** `tests/a.e2e.ts::old → ::new` (the file is written once when it stays). */
function retitledText(retitled: { from: string; to: string }): string {
  const { file } = splitTestId(retitled.from);
  const to = file !== undefined && retitled.to.startsWith(`${file}${TEST_ID_FILE_SEPARATOR}`) ? retitled.to.slice(file.length) : retitled.to;
  return `${retitled.from} → ${to}`;
}

/** An edited step's key change as a reviewer reads it: `instruction: "a" → "b"`, `context changed`. */
function supersedeLine(change: KeyPartChange, show: (text: string) => string): string {
  if (change.part === 'the instruction') return `instruction: ${show(JSON.stringify(change.base))} → ${show(JSON.stringify(change.head))}`;
  if (change.part === "the agent's context") return 'context changed';
  return `${change.part.replace(/^the /, '')}: ${show(change.base)} → ${show(change.head)}`;
}

function stepTitle(identity: StepIdentity): string {
  return `${identity.step} [${identity.target}]`;
}

/** The detail lines of content changes (without indentation), for both renderers. */
function contentLines(content: ContentChanges, diffLine: (line: DiffLine) => string): string[] {
  const lines: string[] = [];
  if (content.actions !== undefined) lines.push('actions:', ...content.actions.map((line) => `  ${diffLine(line)}`));
  if (content.endChecks !== undefined) lines.push('end checks:', ...content.endChecks.map((line) => `  ${diffLine(line)}`));
  return lines;
}

function facts(content: ContentChanges, show: (text: string) => string): string[] {
  const lines: string[] = [];
  const change = (label: string, value: { base: string; head: string } | undefined): void => {
    if (value !== undefined) lines.push(`${label}: ${show(value.base)} → ${show(value.head)}`);
  };
  change('start route', content.startRoute);
  change('end route', content.endRoute);
  change('route', content.route);
  change('extracted', content.extracted);
  change('end rests on', content.endEvidence);
  if (content.newTypedValues.length > 0) lines.push(`new typed values: ${content.newTypedValues.map(show).join(', ')}`);
  if (content.newOrigins.length > 0) lines.push(`new origins: ${content.newOrigins.map(show).join(', ')}`);
  for (const gap of content.newGaps) lines.push(`became a gap: ${show(gap)}`);
  change('summary', content.summary);
  change('provenance', content.provenance);
  return lines;
}

function textStep(step: StepDiff, proposal: boolean): string[] {
  const diffLine = (line: DiffLine): string => `${LINE_MARK[line.change]} ${line.text}`;
  const nested = (lines: string[]): string[] => lines.map((line) => `    ${line}`);
  switch (step.change) {
    case 'changed':
      return [`  ${proposal ? 'replaced' : 'changed '}  ${stepTitle(step.head)} (key ${step.head.key})`, ...nested([...contentLines(step.content, diffLine), ...facts(step.content, (text) => text), ...auditLines(step.head.audit, (text) => text)])];
    case 'rekeyed': {
      if (step.retitled !== undefined) {
        return [`  re-keyed  ${stepTitle(step.head)} (key ${step.base.key} → ${step.head.key})`, ...nested([`test id changed: ${retitledText(step.retitled)}`, 'same recording', ...auditLines(step.head.audit, (text) => text)])];
      }
      const content = [...(step.content === undefined ? ['same recording'] : [...contentLines(step.content, diffLine), ...facts(step.content, (text) => text)]), ...auditLines(step.head.audit, (text) => text)];
      if (step.supersedes === true) {
        const edits = step.keyChanges.map((change) => supersedeLine(change, (text) => text));
        return [`  re-keyed  ${stepTitle(step.head)} (key ${step.base.key} → ${step.head.key}, supersedes it)`, ...nested([...edits, ...content])];
      }
      const why = step.keyChanges.map((change) => `${change.part} changed (${change.base} → ${change.head})`).join('; ');
      return [`  re-keyed  ${stepTitle(step.head)} (key ${step.base.key} → ${step.head.key})`, ...nested([`because ${why}`, ...content])];
    }
    case 'added':
      return [
        `  added     ${stepTitle(step.head)} (key ${step.head.key})`,
        ...nested([
          ...step.outline.actions.map((action, index) => `${index + 1}. ${action}`),
          ...step.outline.endChecks,
          ...(step.outline.endEvidence === undefined ? [] : [`end rests on: ${step.outline.endEvidence}`]),
          ...(step.outline.origins.length > 0 ? [`origins: ${step.outline.origins.join(', ')}`] : []),
          ...auditLines(step.head.audit, (text) => text),
        ]),
      ];
    case 'removed':
      return [`  removed   ${stepTitle(step.base)} (key ${step.base.key})`];
    case 'unreadable':
      return [`  unreadable in ${step.side === 'base' ? 'base' : 'head'}: ${step.key} (${step.reason}): ${step.message}`];
  }
}

/** `cache diff` as plain text. */
export function renderDiffText(result: CacheDiffResult): string {
  const heading =
    result.proposal === true
      ? `Proposal ${result.head} laid over ${result.base}, as \`e2e cache accept\` would apply it: ${countsLine(result)}`
      : `Cache diff ${result.base} → ${result.head}: ${countsLine(result)}`;
  if (!hasChanges(result)) return `${heading}\nNo changes.`;
  const summary = auditSummaryLines(result.audit);
  const lines = [heading, ...summary, ''];
  if (result.risks.length > 0) {
    lines.push('Risky changes:');
    for (const risk of result.risks) lines.push(`  ! ${risk.testId}: ${risk.step}: ${risk.detail}`);
    lines.push('');
  }
  for (const test of result.tests) {
    lines.push(test.testId, ...test.steps.flatMap((step) => textStep(step, result.proposal === true)), '');
  }
  // One logical line each: a line break inside a value (a forged test id) is spelled out, never a line of its own.
  return lines.map(visibleText).join('\n').trimEnd();
}

function markdownStep(step: StepDiff, proposal: boolean): string[] {
  const diffLine = (line: DiffLine): string => `${LINE_MARK[line.change]} ${line.text}`;
  const code = markdownCode;
  const block = (lines: string[]): string[] => (lines.length === 0 ? [] : ['', ...markdownBlock(lines, 'diff')]);
  const bullets = (lines: string[]): string[] => (lines.length === 0 ? [] : ['', ...lines.map((line) => `- ${line}`)]);
  const title = (identity: StepIdentity): string => `${code(identity.step)} on ${code(identity.target)}`;
  const sections = (content: ContentChanges): string[] => {
    const diffs: string[] = [];
    if (content.actions !== undefined) diffs.push('# actions', ...content.actions.map(diffLine));
    if (content.endChecks !== undefined) diffs.push('# end checks', ...content.endChecks.map(diffLine));
    return [...block(diffs), ...bullets(facts(content, code))];
  };
  switch (step.change) {
    case 'changed':
      return [`**${proposal ? 'replaced' : 'changed'}** ${title(step.head)} (key ${code(step.head.key)})`, ...sections(step.content), ...bullets(auditLines(step.head.audit, code))];
    case 'rekeyed': {
      const why =
        step.retitled !== undefined
          ? [`test id changed: ${code(retitledText(step.retitled))}`]
          : step.supersedes === true
            ? step.keyChanges.map((change) => supersedeLine(change, code))
            : step.keyChanges.map((change) => `${change.part} changed: ${code(change.base)} → ${code(change.head)}`);
      return [
        `**re-keyed** ${title(step.head)} (key ${code(step.base.key)} → ${code(step.head.key)}${step.supersedes === true ? ', supersedes it' : ''})`,
        ...bullets(why),
        ...(step.content === undefined ? ['', 'Same recording.'] : sections(step.content)),
        ...bullets(auditLines(step.head.audit, code)),
      ];
    }
    case 'added':
      return [
        `**added** ${title(step.head)} (key ${code(step.head.key)})`,
        ...block([...step.outline.actions.map((action) => `+ ${action}`), ...(step.outline.endChecks.length > 0 ? ['# end checks', ...step.outline.endChecks.map((check) => `+ ${check}`)] : [])]),
        ...bullets([
          ...(step.outline.endEvidence === undefined ? [] : [`end rests on: ${code(step.outline.endEvidence)}`]),
          ...(step.outline.origins.length > 0 ? [`origins: ${step.outline.origins.map(code).join(', ')}`] : []),
          ...auditLines(step.head.audit, code),
        ]),
      ];
    case 'removed':
      return [`**removed** ${title(step.base)} (key ${code(step.base.key)})`];
    case 'unreadable':
      return [`**unreadable** in ${step.side} (key ${code(step.key)}, ${step.reason}): ${code(step.message)}`];
  }
}

/** `cache diff` as Markdown for a pull-request comment. */
export function renderDiffMarkdown(result: CacheDiffResult): string {
  const lines = [`### e2e cache diff: ${markdownCode(result.base)} → ${markdownCode(result.head)}`, '', countsLine(result)];
  if (!hasChanges(result)) return [...lines, '', 'No changes.'].join('\n');
  const summary = auditSummaryLines(result.audit);
  if (summary.length > 0) lines.push('', ...(result.audit?.failed === true ? ['> [!CAUTION]', ...summary.map((line) => `> ${line}`)] : summary));
  if (result.risks.length > 0) {
    lines.push('', '> [!WARNING]', '> **Risky changes**');
    // The detail quotes entry values (an origin, a preview): a code span, where GitHub links no `@name`.
    for (const risk of result.risks) lines.push(`> - ${markdownCode(risk.testId)}, ${markdownCode(risk.step)}: ${markdownCode(risk.detail)}`);
  }
  for (const test of result.tests) {
    lines.push('', `#### ${markdownCode(test.testId)}`);
    for (const step of test.steps) lines.push('', ...markdownStep(step, result.proposal === true));
  }
  return lines.join('\n');
}

/** `cache diff --format json`. */
export function renderDiffJson(result: CacheDiffResult): string {
  return JSON.stringify(result, null, 2);
}

/** Renders `result` in `format`. */
export function renderDiff(result: CacheDiffResult, format: DiffFormat): string {
  switch (format) {
    case 'text':
      return renderDiffText(result);
    case 'markdown':
      return renderDiffMarkdown(result);
    case 'json':
      return renderDiffJson(result);
  }
}

/**
 * The per-step table `e2e run --debug` prints at the end of a run, from the report alone:
 * where each step's time went (model calls, observing, acting), its model calls and tokens
 * (with the share of input tokens the provider served from its prompt cache), and how the
 * replay cache took part.
 */
import type { Report, ReportStep, ReportTest } from './report.js';
import type { CacheOutcome } from '../contract/cache-outcome.js';
import { clipLine } from '../contract/text.js';

const HEADER = ['step', 'status', 'total', 'model', 'observe', 'action', 'calls', 'tokens in/out', 'cached', 'cache'] as const;

function milliseconds(value: number): string {
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}

function count(value: number): string {
  return value < 1000 ? String(value) : `${(value / 1000).toFixed(1).replace(/\.0$/, '')}k`;
}

function clip(text: string, length: number): string {
  return clipLine(text, length);
}

/** `self-finalized`, `missed (no-entry) → saved`, … */
function cacheText(cache: CacheOutcome | null): string {
  if (cache === null) return '—';
  const why = cache.reason === undefined ? '' : ` (${cache.reason})`;
  const written = cache.write === undefined || cache.write === 'no-change' ? '' : ` → ${cache.write}`;
  return `${cache.mode}${why}${written}`;
}

function row(test: ReportTest, step: ReportStep, retry: number, position: number): string[] {
  const title = [...test.titlePath].join(' › ');
  const attempt = retry > 0 ? ` (retry ${retry})` : '';
  const input = step.tokens.input;
  return [
    `${clip(title, 40)}${attempt} #${position} ${step.kind} ${JSON.stringify(clip(step.instruction, 40))}`,
    step.errorCode === null ? step.status : `${step.status} ${step.errorCode}`,
    milliseconds(step.durationMs),
    step.modelCalls === 0 ? '—' : milliseconds(step.timing.modelMs),
    milliseconds(step.timing.observeMs),
    milliseconds(step.timing.actionMs),
    String(step.modelCalls),
    step.modelCalls === 0 ? '—' : `${count(input)}/${count(step.tokens.output)}`,
    input === 0 ? '—' : `${Math.round((step.tokens.cached / input) * 100)}%`,
    cacheText(step.cache),
  ];
}

/** The table's lines, or none when the run had no agent steps. */
export function debugTableLines(report: Pick<Report, 'tests'>): string[] {
  const rows: string[][] = [];
  for (const test of report.tests) {
    for (const attempt of test.attempts) attempt.steps.forEach((step, position) => rows.push(row(test, step, attempt.retry, position)));
  }
  if (rows.length === 0) return [];
  const widths = HEADER.map((title, column) => Math.max(title.length, ...rows.map((cells) => cells[column]!.length)));
  const numeric = new Set([2, 3, 4, 5, 6, 7, 8]);
  const line = (cells: readonly string[]): string =>
    `  ${cells.map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ')}`.trimEnd();
  return ['Steps (--debug): where the time went', line(HEADER), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line), ''];
}

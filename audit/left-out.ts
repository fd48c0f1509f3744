/**
 * What an audit run can judge of its plan, and why the rest was not: the audit's own `--shard`
 * (a test's control run and all its mutants in one shard, chosen from the plan, so every shard of
 * the same cache agrees) and the user's filters (`--grep`, a file, `--project`, …), which select a
 * test's copies exactly when they select the test. Every planned mutant that did not run is said,
 * by reason, with its entries and how to audit them: never a silent skip.
 */
import type { Entry } from '../cache-format/index.js';
import { shellWord } from '../errors/index.js';
import { auditProjectName, type PlannedMutant } from '../runner/audit-mutants.js';
import { plural } from '../review/index.js';

/** `--shard current/total`. */
export interface AuditShard {
  current: number;
  total: number;
}

/** Playwright options that select tests: what the audit calls "your filter". */
const SELECTING = ['--grep', '-g', '--grep-invert', '-G', '--project', '--only-changed', '--last-failed', '--test-list', '--test-list-invert'];

/** Selecting options that take no value (`--only-changed [ref]` takes one only as `--only-changed=ref`). */
const VALUELESS = ['--last-failed', '--only-changed'];

const flagOf = (argument: string): string => argument.split('=', 1)[0]!;

/** The arguments of an audit's run, its shard, and the user's filters as given (for the hint). */
export interface AuditArguments {
  /** Playwright's arguments: `--shard` taken out (the audit shards by test), `--project <target>` named as the target's audit project. */
  playwright: string[];
  shard?: AuditShard | undefined;
  /** The filters that select tests, as the user gave them (positional file filters, then the selecting options). */
  filters: string[];
}

/** Shell-quote a value when it needs it, for a hint the user can paste. */
function quoted(text: string): string {
  return /^[\w./:@%+,-]+$/.test(text) ? text : shellWord(text);
}

/** A selecting option as the user would type it: `--grep 'adds a todo$'`. */
function shown(argument: string): string {
  const at = argument.indexOf('=');
  return at === -1 ? argument : `${argument.slice(0, at)} ${quoted(argument.slice(at + 1))}`;
}

/**
 * Split an audit's Playwright arguments (`--flag=value` as `playwrightArgumentsOf` writes them,
 * or `--shard 1/2` as given after `--`): the shard is the audit's to apply, and a `--project`
 * names a target, whose tests run in its audit project. `select: false` (the tests are chosen already, `e2e record
 * --audit`): the options that select tests are left out too.
 */
export function auditArgumentsOf(playwright: readonly string[] = [], fileFilters: readonly string[] = [], { select = true }: { select?: boolean } = {}): AuditArguments {
  const args: string[] = [];
  const filters = [...fileFilters.map(quoted)];
  let shard: AuditShard | undefined;
  for (let index = 0; index < playwright.length; index += 1) {
    let argument = playwright[index]!;
    const flag = flagOf(argument);
    // A value given apart (`--grep x` after `--`, not as playwrightArgumentsOf writes it) goes with its flag.
    if ((flag === '--shard' || (SELECTING.includes(flag) && !VALUELESS.includes(flag))) && !argument.includes('=') && index + 1 < playwright.length) argument = `${flag}=${playwright[(index += 1)]!}`;
    const value = argument.includes('=') ? argument.slice(argument.indexOf('=') + 1) : undefined;
    if (flag === '--shard') {
      const [current, total] = (value ?? '').split('/').map(Number);
      if (current !== undefined && total !== undefined && Number.isInteger(current) && Number.isInteger(total) && current >= 1 && current <= total) shard = { current, total };
      continue;
    }
    if (!SELECTING.includes(flag)) {
      args.push(argument);
      continue;
    }
    if (!select) continue;
    filters.push(shown(argument));
    if (flag === '--project' && value !== undefined) args.push(`--project=${auditProjectName(value)}`);
    // A short flag takes its value apart (`-g=x` would read `=x`).
    else if (!flag.startsWith('--') && value !== undefined) args.push(flag, value);
    else args.push(argument);
  }
  return { playwright: args, shard, filters };
}

/** A test of the plan: its target and cache test id. */
const testOf = (mutant: Pick<PlannedMutant, 'project' | 'testId'>): string => `${mutant.project}\u0000${mutant.testId}`;

/**
 * The shard (1-based) of each test of the plan: a test with its control run and every mutant in
 * one shard, the shards balanced by mutants (the most mutated tests first, each to the least
 * loaded shard, the lower one on a tie), so every machine that plans the same cache agrees.
 */
export function shardsOfTests(mutants: readonly PlannedMutant[], total: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const mutant of mutants) counts.set(testOf(mutant), (counts.get(testOf(mutant)) ?? 0) + 1);
  const loads = Array.from({ length: total }, () => 0);
  const shards = new Map<string, number>();
  const order = [...counts.entries()].map(([test, count], position) => ({ test, count, position })).sort((left, right) => right.count - left.count || left.position - right.position);
  for (const { test, count } of order) {
    const least = loads.indexOf(Math.min(...loads));
    loads[least]! += count;
    shards.set(test, least + 1);
  }
  return shards;
}

/** The plan's mutants of one shard. */
export function mutantsOfShard(mutants: readonly PlannedMutant[], shard: AuditShard | undefined): PlannedMutant[] {
  if (shard === undefined || shard.total === 1) return [...mutants];
  const shards = shardsOfTests(mutants, shard.total);
  return mutants.filter((mutant) => shards.get(testOf(mutant)) === shard.current);
}

/** Planned mutants an audit did not judge, for one reason. */
export interface LeftOut {
  /**
   * `filter`: the run's filters left their test out (or some of its copies: `--last-failed`,
   * `--test-list` select by test id and title, which a copy does not share); `shard`: their
   * test is in another shard of the audit (`shard`); `absent`: the run had no such test (renamed
   * or removed, its target gone, or a `test.only` elsewhere). Under a filter, a test that is gone
   * reads as `filter`: the run cannot tell the two apart.
   */
  reason: 'filter' | 'shard' | 'absent';
  /** `current/total`: the shard that audits them. */
  shard?: string | undefined;
  mutants: number;
  /** Each entry with mutants left out, and how many. */
  entries: { key: string; testId: string; kind: Entry['kind']; instruction: string; mutants: number }[];
  /** How to audit them. */
  include: string;
}

/** What {@link leftOutOf} needs to know of the audit. */
export interface LeftOutContext {
  /** The whole plan (every shard). */
  plan: readonly PlannedMutant[];
  /** This run's shard of it, if sharded. */
  shard?: AuditShard | undefined;
  /** The planned mutants of this shard the run reported no test for. */
  unjudged: readonly PlannedMutant[];
  /** The user's filters, as given. */
  filters: readonly string[];
  entries: readonly Entry[];
}

/** The planned mutants not judged, by reason (filter, each other shard in order, absent). */
export function leftOutOf(context: LeftOutContext): LeftOut[] {
  const byEntry = new Map(context.entries.map((entry) => [entry.key, entry]));
  const groups = new Map<string, { reason: LeftOut['reason']; shard?: number; mutants: PlannedMutant[] }>();
  const add = (key: string, group: { reason: LeftOut['reason']; shard?: number }, mutant: PlannedMutant): void => {
    const found = groups.get(key) ?? { ...group, mutants: [] };
    groups.set(key, found);
    found.mutants.push(mutant);
  };
  const isMutant = (mutant: PlannedMutant): boolean => mutant.mutation.kind !== 'none';
  for (const mutant of context.unjudged.filter(isMutant)) add(context.filters.length > 0 ? 'filter' : 'absent', { reason: context.filters.length > 0 ? 'filter' : 'absent' }, mutant);
  if (context.shard !== undefined && context.shard.total > 1) {
    const shards = shardsOfTests(context.plan, context.shard.total);
    for (const mutant of context.plan.filter(isMutant)) {
      const shard = shards.get(testOf(mutant))!;
      if (shard !== context.shard.current) add(`shard ${String(shard).padStart(6, '0')}`, { reason: 'shard', shard }, mutant);
    }
  }
  const order = (key: string): string => (key === 'filter' ? '0' : key === 'absent' ? '2' : `1${key}`);
  const total = context.shard?.total ?? 1;
  const filters = context.filters.join(' ');
  return [...groups.entries()]
    .sort(([left], [right]) => (order(left) < order(right) ? -1 : 1))
    .map(([, group]) => {
      const counts = new Map<string, number>();
      for (const mutant of group.mutants) counts.set(mutant.entry, (counts.get(mutant.entry) ?? 0) + 1);
      const entries = [...counts.entries()].flatMap(([key, mutants]) => {
        const entry = byEntry.get(key);
        return entry === undefined ? [] : [{ key, testId: entry.keyParts.testId, kind: entry.kind, instruction: entry.keyParts.instruction, mutants }];
      });
      const shard = group.shard === undefined ? undefined : `${group.shard}/${total}`;
      const include =
        group.reason === 'filter'
          ? `run the audit without ${filters}, or with a filter that selects their tests`
          : group.reason === 'shard'
            ? `e2e cache audit --shard ${shard}${filters === '' ? '' : ` ${filters}`}`
            : 'their test is not in the suite: `e2e cache mv` moves a renamed test\'s entries, `e2e cache prune` removes the rest';
      return { reason: group.reason, ...(shard === undefined ? {} : { shard }), mutants: group.mutants.length, entries, include };
    });
}

/** The left-out mutants as lines under the audit's table: what, why, how to include them, and their entries (the first ten). */
export function renderLeftOut(leftOut: readonly LeftOut[]): string[] {
  const lines: string[] = [];
  for (const group of leftOut) {
    const why = group.reason === 'filter' ? 'left out by your filter' : group.reason === 'shard' ? `in shard ${group.shard}` : 'not in this run: the suite has no such test';
    lines.push(`Not audited: ${plural(group.mutants, 'mutant')} of ${plural(group.entries.length, 'entry', 'entries')}, ${why}; to audit them: ${group.include}`);
    for (const entry of group.entries.slice(0, 10)) lines.push(`    ${entry.testId}  ${entry.kind} "${entry.instruction}"  ${plural(entry.mutants, 'mutant')}  ${entry.key.slice(0, 8)}`);
    if (group.entries.length > 10) lines.push(`    … and ${plural(group.entries.length - 10, 'more entry', 'more entries')}`);
  }
  return lines;
}

/** The left-out totals: mutants, and distinct entries. */
export function leftOutTotals(leftOut: readonly LeftOut[]): { mutants: number; entries: number } {
  return { mutants: leftOut.reduce((sum, group) => sum + group.mutants, 0), entries: new Set(leftOut.flatMap((group) => group.entries.map((entry) => entry.key))).size };
}

/**
 * `e2e cache audit [filter…]`: does each entry notice when its step is broken? The mutants of
 * every entry (an action skipped, an action whose events the page never hears, a judgment's
 * evidence hidden) are replayed model-free and read-only (a copy of the test per mutant, one
 * audit project per target), next to one unmutated control run per test; a mutant is caught when its
 * step does not pass. The verdicts become a table, `.e2e/audit.json`, each entry's last audit in the audit ledger
 * (`cache ls` / `cache show`), and, through annotations, the HTML report. `--since <base>`
 * audits only the entries the cache adds or changes against a git revision or cache folder.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { AuditLedger, FileCacheStore, nodeFileSystem, type Entry } from '../cache-format/index.js';
import type { CacheLocation } from '../cache-format/index.js';
import { splitTestId, TEST_ID_TITLE_SEPARATOR, formatTestId } from '../cache-format/test-id.js';
import type { StepMutation } from '../contract/mutation.js';
import { E2EError } from '../errors/index.js';
import { mutantTests, mutantVerdict, type MutantVerdict, type PlannedMutant } from '../runner/audit-mutants.js';
import type { Report, ReportTest } from '../runner/report.js';
import { describeAction } from '../semantics/describe-action.js';
import { describeEvidenceCheck } from '../semantics/describe-evidence.js';
import { canDismiss } from '../semantics/dismissal.js';
import { cacheLocationOf, findConfigFile, startRun, type CommandOutcome, type ConfigFolders, type RunCommandOptions, type RunHandle } from '../launch/index.js';
import { alignColumns, changedEntriesSince, formatScore, plural } from '../review/index.js';
import { auditArgumentsOf, leftOutOf, leftOutTotals, mutantsOfShard, renderLeftOut, type LeftOut } from './left-out.js';

export { formatScore };

/** Where the audit writes, relative to the config's folder. */
export const AUDIT_REPORT_PATH = join('.e2e', 'audit.json');
/** The mutant run's own report, so `.e2e/report.json` keeps the last real run. */
const RUN_REPORT_PATH = join('.e2e', 'audit-run.json');

/** Verbs whose events reach the page's listeners (navigation and scrolling have none of the app's). */
const HANDLED_VERBS: ReadonlySet<string> = new Set([
  'tap', 'doubleTap', 'longPress', 'secondaryTap', 'hover', 'type', 'press', 'select', 'check', 'upload', 'drag', 'typeText', 'pressKey', 'tapAt',
]);

/** Options of {@link startAudit}. */
export interface AuditOptions extends Pick<RunCommandOptions, 'filters' | 'config' | 'reporter' | 'playwright' | 'extra' | 'debug' | 'cwd' | 'env' | 'childStdout'> {
  /** `--min-score`: the audit fails (exit 1) below it. */
  minScore?: number | undefined;
  /** `--since <base>`: only the entries the cache adds or changes against this git revision or cache folder. */
  since?: string | undefined;
  /** The config's folders as a run of the same config already reported them (`e2e record --audit`'s record run): the config is not probed again. */
  probed?: ConfigFolders | undefined;
  /**
   * `e2e record --audit`: the tests its record run ran (its report's). Only their entries are
   * audited, and the run's filters and `--shard` are not applied again: the record run applied
   * them, and a shard of this machine's cache could hold other tests than the record run's shard.
   */
  recorded?: readonly Pick<ReportTest, 'project' | 'file' | 'titlePath'>[] | undefined;
}

/** One mutant and its verdict. */
export interface AuditedMutant {
  id: string;
  entry: string;
  testId: string;
  mutation: StepMutation;
  /** What the mutant changes, as a sentence (`action 2 of 3: tap button "Save"`). */
  change: string;
  verdict: MutantVerdict;
}

/** One entry's audit. */
export interface AuditedEntry {
  key: string;
  /** The blob the audited recording was read from: an audit speaks for these bytes only (`cache diff` shows it only while they are the entry's). */
  blob?: string | undefined;
  testId: string;
  kind: Entry['kind'];
  instruction: string;
  caught: number;
  /** Judged mutants: caught + survived (equivalent ones are left out). */
  total: number;
  notRun: number;
  /** What each survivor is blind to (`blind to action 2 of 3: tap button "Save"`): real blind spots, the test failed after the step passed. */
  survivors: string[];
  /** What each real blind spot's test then failed on, in the order of `survivors`. */
  survivorFailures: string[];
  /** Mutants equivalent by the test's standard (the step and the test's own checks after it passed): listed apart, out of the score. */
  equivalent: string[];
  /** Why mutants were not run. */
  notRunReasons: string[];
  /** What caught each caught mutant: the outcome the mutated action or evidence is proven by. */
  proofs: string[];
}

/** The audit of a suite. */
export interface AuditResult {
  outcome: CommandOutcome;
  entries: AuditedEntry[];
  mutants: AuditedMutant[];
  caught: number;
  total: number;
  notRun: number;
  /** Mutants equivalent by the test's standard, out of `total` and the score. */
  equivalent: number;
  /** caught / total; undefined when no mutant was judged. */
  score: number | undefined;
  minScore?: number | undefined;
  /** Wall time of the mutant run, and how many Playwright tests (mutants and control runs) it ran. */
  runMs: number;
  /** A line for the user when the run could not judge anything. */
  message?: string | undefined;
  /** The planned mutants this audit did not judge, by reason (left out by the filters, in another shard, no such test), with their entries and how to audit them. */
  notAudited: LeftOut[];
  /** `e2e record --audit`: the audit as recorded, and what causal end checks changed (see causal-record.ts). */
  causal?: CausalSummary | undefined;
}

/** What `e2e record --audit` did to the entries between its two audits. */
export interface CausalSummary {
  /** The audit of the entries as recorded, before their end checks named their causes. */
  before: Pick<AuditResult, 'entries' | 'caught' | 'total' | 'notRun' | 'equivalent' | 'score'>;
  /** Entries rewritten with causal end checks: how many outcomes name their causing actions, how many of them were weighed incidental before, and each action's proof. */
  amended: { key: string; testId: string; instruction: string; caused: number; newlyRequired: number; links: string[] }[];
  /** Amended entries put back as recorded, and why (their step no longer replayed unmutated). */
  restored: { key: string; reason: string }[];
  /** `act` entries left as they were, and why. */
  unchanged: { key: string; reason: string }[];
}

/** The mutants of one entry, each with what it changes. */
export function mutantsOf(entry: Entry): { id: string; mutation: StepMutation; change: string }[] {
  if (entry.kind !== 'act') {
    const present = entry.evidence.filter((check) => check.expect === 'present');
    if (present.length === 0) return [];
    return [{ id: `${entry.key}-hide`, mutation: { kind: 'hide-evidence' }, change: `hidden evidence: ${present.map(describeEvidenceCheck).join('; ')}` }];
  }
  const total = entry.actions.length;
  const mutants: { id: string; mutation: StepMutation; change: string }[] = [];
  entry.actions.forEach((action, index) => {
    if (action.verb === 'gap') return;
    const where = `action ${index + 1} of ${total}: ${describeAction(action)}`;
    // A dismissal is optional by design: replay skips it itself when its banner is absent.
    if (!(canDismiss(action) && action.dismisses !== undefined)) mutants.push({ id: `${entry.key}-skip-${index + 1}`, mutation: { kind: 'skip-action', action: index }, change: where });
    if (HANDLED_VERBS.has(action.verb)) mutants.push({ id: `${entry.key}-break-${index + 1}`, mutation: { kind: 'break-handlers', action: index }, change: `a broken handler at ${where}` });
  });
  return mutants;
}

/** Options of {@link planAudit}. */
export interface PlanOptions {
  /** `e2e record --audit`: where each mutant's attempt writes its end facts (by mutant id). */
  factsOf?: ((mutantId: string) => string) | undefined;
  /** Only these entries' mutants, and the control runs of their tests. */
  only?: ReadonlySet<string> | undefined;
  /** The re-audit of `e2e record --audit`: every planned mutant, whatever `--shard` says (its entries are this shard's already). */
  unsharded?: boolean | undefined;
  /** Only the entries of these tests (`<target>\u0000<cache test id>`, {@link recordedTests}), with none of the run's filters or its shard. */
  tests?: ReadonlySet<string> | undefined;
}

/** The tests a run's report holds, as {@link PlanOptions.tests} names them. */
export function recordedTests(tests: readonly Pick<ReportTest, 'project' | 'file' | 'titlePath'>[]): Set<string> {
  return new Set(tests.map((test) => `${test.project}\u0000${formatTestId(test.file, test.titlePath)}`));
}

/** The mutants one audit pass asks its run to replay (the run request carries them): one control run per test, then every entry's mutants. */
export interface AuditPlan {
  mutants: PlannedMutant[];
}

/** The audit's plan and what it was made from. */
export interface PlannedAudit {
  plan: AuditPlan;
  entries: Entry[];
  /** What each mutant changes, by mutant id. */
  changes: Map<string, string>;
  /** The blob each entry was read from, by key. */
  blobs: Map<string, string>;
}

/** The plan of a cache: every readable entry's mutants, and one control run per test. */
export async function planAudit(cacheDirectory: string, options: PlanOptions = {}): Promise<PlannedAudit> {
  const store = new FileCacheStore(cacheDirectory, { readOnly: true });
  const entries: Entry[] = [];
  const blobs = new Map<string, string>();
  for (const ref of await store.list()) {
    if (options.only !== undefined && !options.only.has(ref.key)) continue;
    const read = await store.read(ref.key);
    if (read.kind !== 'hit') continue;
    if (options.tests !== undefined && !options.tests.has(`${read.entry.keyParts.projectId}\u0000${read.entry.keyParts.testId}`)) continue;
    entries.push(read.entry);
    blobs.set(read.entry.key, read.blob);
  }
  entries.sort((left, right) => (left.keyParts.testId < right.keyParts.testId ? -1 : left.keyParts.testId > right.keyParts.testId ? 1 : 0));
  const mutants: PlannedMutant[] = [];
  const changes = new Map<string, string>();
  const controls = new Map<string, PlannedMutant>();
  for (const entry of entries) {
    const { file, title } = splitTestId(entry.keyParts.testId);
    if (file === undefined) continue;
    const base = { project: entry.keyParts.projectId, testId: entry.keyParts.testId, file, titlePath: title.split(TEST_ID_TITLE_SEPARATOR), entry: entry.key };
    const controlKey = `${base.project}\u0000${base.testId}`;
    const factsOf = (id: string): { facts?: string } => (options.factsOf === undefined ? {} : { facts: options.factsOf(id) });
    if (!controls.has(controlKey)) {
      const id = `control-${controls.size + 1}`;
      controls.set(controlKey, { ...base, id, mutation: { kind: 'none' }, ...factsOf(id) });
    }
    for (const mutant of mutantsOf(entry)) {
      mutants.push({ ...base, id: mutant.id, mutation: mutant.mutation, ...factsOf(mutant.id) });
      changes.set(mutant.id, mutant.change);
    }
  }
  return { plan: { mutants: [...controls.values(), ...mutants] }, entries, changes, blobs };
}

/** The test of each mutant in the report (the test or its copy, in its target's audit project: `mutantTests`), if the run got to it. */
function testsOf(report: Report, mutants: readonly PlannedMutant[]): (mutant: PlannedMutant) => ReportTest | undefined {
  const tests = mutantTests(mutants);
  const byProjectAndId = new Map(report.tests.map((test) => [`${test.project}\u0000${formatTestId(test.file, test.titlePath)}`, test]));
  return (mutant) => {
    const test = tests.get(mutant.id);
    return test === undefined ? undefined : byProjectAndId.get(`${test.project}\u0000${test.testId}`);
  };
}

/** The judged mutants and entries of one run, and how each entry's step replayed in its test's control run. */
export interface JudgedAudit {
  entries: AuditedEntry[];
  mutants: AuditedMutant[];
  /** By entry key: the control run's verdict on the entry's step (`survived`: it replayed unmutated). */
  controls: Map<string, MutantVerdict>;
  /** The planned mutants (control runs too) whose test or copy the run did not report: filtered out, or no such test. */
  unjudged: PlannedMutant[];
}

/** Judge every mutant the run reported on. */
export function judgeAudit(report: Report, plan: AuditPlan, entries: readonly Entry[], changes: ReadonlyMap<string, string>, blobs: ReadonlyMap<string, string> = new Map()): JudgedAudit {
  const testOf = testsOf(report, plan.mutants);
  const controlOf = new Map<string, ReportTest | undefined>();
  for (const mutant of plan.mutants) if (mutant.mutation.kind === 'none') controlOf.set(`${mutant.project}\u0000${mutant.testId}`, testOf(mutant));
  const controls = new Map<string, MutantVerdict>();
  for (const entry of entries) {
    const control = controlOf.get(`${entry.keyParts.projectId}\u0000${entry.keyParts.testId}`)?.attempts.at(-1);
    if (control !== undefined) controls.set(entry.key, mutantVerdict(control.steps, entry.key, control.error));
  }
  const audited: AuditedMutant[] = [];
  const unjudged: PlannedMutant[] = [];
  for (const mutant of plan.mutants) {
    const test = testOf(mutant);
    // Not in the run: the caller says why (leftOutOf), never a silent skip.
    if (test === undefined) unjudged.push(mutant);
    if (mutant.mutation.kind === 'none' || test === undefined) continue;
    const attempt = test.attempts.at(-1);
    const audit = (verdict: MutantVerdict): number => audited.push({ id: mutant.id, entry: mutant.entry, testId: mutant.testId, mutation: mutant.mutation as StepMutation, change: changes.get(mutant.id) ?? mutant.id, verdict });
    if (attempt === undefined || (test.outcome === 'skipped' && attempt.steps.length === 0)) {
      audit({ kind: 'not-run', reason: 'its test was skipped or never started' });
      continue;
    }
    let verdict = mutantVerdict(attempt.steps, mutant.entry, attempt.error, attempt.status === 'passed');
    const control = controlOf.get(`${mutant.project}\u0000${mutant.testId}`)?.attempts.at(-1);
    if (control !== undefined && verdict.kind === 'caught') {
      // A step that does not replay unmutated proves nothing by failing mutated.
      const unmutated = mutantVerdict(control.steps, mutant.entry, control.error);
      if (unmutated.kind !== 'survived') verdict = { kind: 'not-run', reason: `the step does not replay unmutated either (${unmutated.kind === 'caught' ? unmutated.detail : unmutated.kind === 'not-run' ? unmutated.reason : unmutated.kind})` };
    }
    audit(verdict);
  }
  const byEntry: AuditedEntry[] = [];
  for (const entry of entries) {
    const mine = audited.filter((mutant) => mutant.entry === entry.key);
    if (mine.length === 0) continue;
    const caught = mine.filter((mutant) => mutant.verdict.kind === 'caught').length;
    const survived = mine.filter((mutant) => mutant.verdict.kind === 'survived');
    const notRun = mine.filter((mutant) => mutant.verdict.kind === 'not-run');
    const equivalent = mine.filter((mutant) => mutant.verdict.kind === 'equivalent');
    byEntry.push({
      key: entry.key,
      blob: blobs.get(entry.key),
      testId: entry.keyParts.testId,
      kind: entry.kind,
      instruction: entry.keyParts.instruction,
      caught,
      total: caught + survived.length,
      notRun: notRun.length,
      survivors: survived.map((mutant) => `blind to ${mutant.change}`),
      survivorFailures: survived.map((mutant) => (mutant.verdict.kind === 'survived' ? (mutant.verdict.then ?? 'the test was not run past the step') : '')),
      equivalent: equivalent.map((mutant) => mutant.change),
      notRunReasons: [...new Set(notRun.map((mutant) => (mutant.verdict.kind === 'not-run' ? mutant.verdict.reason : '')))],
      proofs: mine.flatMap((mutant) => (mutant.verdict.kind === 'caught' ? [`${mutant.change}: proven by: ${mutant.verdict.detail}`] : [])),
    });
  }
  return { entries: byEntry, mutants: audited, controls, unjudged };
}

/** A started audit. */
export interface AuditHandle {
  result: Promise<AuditResult>;
  /** Forward an interrupt to the mutant run. */
  interrupt(): void;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

/** Where one audit pass runs: the cache, the config's folder, and what it plans. */
export interface AuditPassSetup {
  location: CacheLocation;
  configDir: string;
  plan?: PlanOptions | undefined;
}

/** One mutant run, judged (nothing noted yet), or why it judged nothing. */
export type AuditPass =
  | { kind: 'judged'; audit: AuditResult; planned: PlannedAudit; controls: Map<string, MutantVerdict> }
  | { kind: 'ended'; audit: AuditResult };

/** The totals and score of judged entries. */
export function totalsOf(entries: readonly AuditedEntry[]): Pick<AuditResult, 'caught' | 'total' | 'notRun' | 'equivalent' | 'score'> {
  const caught = entries.reduce((sum, entry) => sum + entry.caught, 0);
  const total = entries.reduce((sum, entry) => sum + entry.total, 0);
  const notRun = entries.reduce((sum, entry) => sum + entry.notRun, 0);
  const equivalent = entries.reduce((sum, entry) => sum + entry.equivalent.length, 0);
  return { caught, total, notRun, equivalent, score: total === 0 ? undefined : caught / total };
}

/** The outcome of an audit with these totals: a test failure below `--min-score`. */
export function auditOutcome(score: number | undefined, minScore: number | undefined): CommandOutcome {
  return minScore !== undefined && (score === undefined || score < minScore) ? 'test-failure' : 'passed';
}

/** An audit that judged nothing, with why. */
function emptyAudit(options: Pick<AuditOptions, 'minScore'>, message: string): AuditResult {
  return { outcome: 'passed', entries: [], mutants: [], caught: 0, total: 0, notRun: 0, equivalent: 0, score: undefined, minScore: options.minScore, runMs: 0, message, notAudited: [] };
}

/**
 * Plan, run and judge one set of mutants, model-free and read-only. `track` receives the run
 * (to forward interrupts to it).
 */
export async function runAuditPass(options: AuditOptions, setup: AuditPassSetup, track: (run: RunHandle) => void): Promise<AuditPass> {
  const whole = await planAudit(setup.location.cacheDirectory, setup.plan);
  const empty = (message: string): AuditResult => emptyAudit(options, message);
  if (whole.plan.mutants.length === 0) return { kind: 'ended', audit: empty(`No cache entries to audit in ${setup.location.cacheDirectory}.`) };
  // `--shard` is the audit's: a test's control run and all its mutants go to one shard, chosen from the plan. The
  // tests of a record run are selected already (its filters and shard): the audit's projects hold only theirs.
  const selected = setup.plan?.tests !== undefined;
  const given = auditArgumentsOf(options.playwright, selected ? [] : options.filters, { select: !selected });
  const after = auditArgumentsOf(options.extra, [], { select: !selected });
  const args = { shard: given.shard ?? after.shard, filters: [...given.filters, ...after.filters] };
  const shard = setup.plan?.unsharded === true || selected ? undefined : args.shard;
  const planned: PlannedAudit = { ...whole, plan: { mutants: mutantsOfShard(whole.plan.mutants, shard) } };
  const { plan, entries, changes } = planned;
  const notAudited = (unjudged: readonly PlannedMutant[]): LeftOut[] => leftOutOf({ plan: whole.plan.mutants, shard, unjudged, filters: args.filters, entries });
  if (plan.mutants.length === 0) {
    // A shard with no test: noted like any audit (its .e2e/audit.json says where the mutants are), with no run.
    const audit: AuditResult = { ...empty(`No test is in shard ${shard?.current}/${shard?.total}: the audit shards by test, and the cache has entries of fewer tests than shards.`), outcome: auditOutcome(undefined, options.minScore), notAudited: notAudited([]) };
    return { kind: 'judged', audit, planned, controls: new Map() };
  }
  const started = performance.now();
  const run = startRun({ ...options, filters: selected ? [] : options.filters, playwright: given.playwright, extra: after.playwright, kind: 'replay', cache: true, mutants: plan.mutants, reportFile: RUN_REPORT_PATH });
  track(run);
  const ran = await run.result;
  const runMs = performance.now() - started;
  if (ran.outcome === 'interrupted') return { kind: 'ended', audit: { ...empty('The audit was interrupted; nothing was noted.'), outcome: 'interrupted', runMs } };
  if (ran.report === undefined) return { kind: 'ended', audit: { ...empty(ran.message ?? 'The mutant run wrote no report.'), outcome: ran.outcome === 'passed' ? 'configuration' : ran.outcome, runMs } };
  const judged = judgeAudit(ran.report, plan, entries, changes, planned.blobs);
  const totals = totalsOf(judged.entries);
  const audit: AuditResult = { outcome: auditOutcome(totals.score, options.minScore), entries: judged.entries, mutants: judged.mutants, ...totals, minScore: options.minScore, runMs, notAudited: notAudited(judged.unjudged) };
  if (judged.mutants.length === 0) audit.message = 'No mutant ran: the filters or the shard selected none of the tests that hold cache entries.';
  return { kind: 'judged', audit, planned, controls: judged.controls };
}

/** Note an audit: each entry's last audit in the ledger (`cache ls`, `cache show`) and `.e2e/audit.json`. */
export async function noteAudit(audit: AuditResult, setup: Pick<AuditPassSetup, 'location' | 'configDir'>): Promise<void> {
  const auditedAt = new Date().toISOString();
  const ledger = new AuditLedger(nodeFileSystem, setup.location.hitsDirectory);
  for (const entry of audit.entries) {
    await ledger.record(entry.key, { auditedAt, ...(entry.blob === undefined ? {} : { blob: entry.blob }), caught: entry.caught, total: entry.total, notRun: entry.notRun, survivors: entry.survivors.slice(0, 100), proofs: entry.proofs.slice(0, 100), equivalent: entry.equivalent.slice(0, 100) });
  }
  await writeAtomically(resolve(setup.configDir, AUDIT_REPORT_PATH), `${renderAuditJson(audit)}\n`);
}

/** Where the audit of `options` runs: the cache and the config's folder. */
export async function auditSetupOf(options: Pick<AuditOptions, 'cwd' | 'config' | 'env' | 'probed'>): Promise<AuditPassSetup> {
  const configPath = findConfigFile(options.cwd, options.config);
  if (configPath === undefined) throw new E2EError('INVALID_CONFIG', `no config (${options.config ?? 'e2e.config.ts'}) found in ${options.cwd}; create e2e.config.ts or pass --config.`);
  const location = await cacheLocationOf({ cwd: options.cwd, env: options.env, config: options.config, probed: options.probed });
  return { location, configDir: dirname(configPath) };
}

/** Run the audit. */
export function startAudit(options: AuditOptions): AuditHandle {
  let run: RunHandle | undefined;
  let interrupted = false;
  const result = (async (): Promise<AuditResult> => {
    const setup = await auditSetupOf(options);
    if (options.since !== undefined) {
      const changed = await changedEntriesSince(options.since, options.cwd, setup.location.cacheDirectory);
      if (changed.keys.size === 0) return emptyAudit(options, `No entry is new or changed since ${changed.base}: nothing to audit.`);
      setup.plan = { ...setup.plan, only: changed.keys };
    }
    if (options.recorded !== undefined) setup.plan = { ...setup.plan, tests: recordedTests(options.recorded) };
    const pass = await runAuditPass(options, setup, (started) => {
      run = started;
      if (interrupted) started.interrupt();
    });
    if (pass.kind === 'judged') await noteAudit(pass.audit, setup);
    return pass.audit;
  })();
  return {
    result,
    interrupt: () => {
      interrupted = true;
      run?.interrupt();
    },
  };
}

/** The audit as a console table: one row per entry, its survivors under it, then the score. */
export function renderAudit(result: AuditResult): string {
  const lines: string[] = [];
  if (result.entries.length > 0) {
    const rows = [['test', 'step', 'caught', 'key'], ...result.entries.map((entry) => [entry.testId, `${entry.kind} "${entry.instruction}"`, `${entry.caught} of ${entry.total}${entry.notRun > 0 ? ` (${entry.notRun} not run)` : ''}`, entry.key.slice(0, 8)])];
    const aligned = alignColumns(rows);
    lines.push(aligned[0]!);
    result.entries.forEach((entry, index) => {
      lines.push(aligned[index + 1]!);
      entry.survivors.forEach((survivor, position) => lines.push(`    ${survivor}: a real blind spot, the test then failed: ${entry.survivorFailures[position] ?? 'after it'}`));
      for (const equivalent of entry.equivalent) lines.push(`    equivalent: ${equivalent}: the test's own checks pass with it too (left out of the score)`);
      for (const reason of entry.notRunReasons) lines.push(`    not run: ${reason}`);
    });
    lines.push('');
  }
  if (result.message !== undefined) lines.push(result.message);
  const leftOut = renderLeftOut(result.notAudited);
  if (leftOut.length > 0) lines.push(...leftOut, '');
  const notRun = `${result.equivalent > 0 ? `; ${result.equivalent} equivalent, left out` : ''}${result.notRun > 0 ? `; ${plural(result.notRun, 'mutant')} not run` : ''}`;
  const missed = leftOutTotals(result.notAudited);
  const notAudited = missed.mutants > 0 ? ` · ${plural(missed.mutants, 'mutant')} of ${plural(missed.entries, 'entry', 'entries')} not audited` : '';
  lines.push(`   Audit  score ${formatScore(result.score)} · ${result.caught} of ${plural(result.total, 'mutant')} caught${notRun} · ${plural(result.entries.length, 'entry', 'entries')}${notAudited}`);
  if (result.minScore !== undefined && result.outcome === 'test-failure') lines.push(`          below --min-score ${result.minScore}`);
  return lines.join('\n');
}

/** The audit as JSON (`--json`, `.e2e/audit.json`). */
export function renderAuditJson(result: AuditResult): string {
  const { outcome: _outcome, ...rest } = result;
  return JSON.stringify({ version: 1, ...rest }, null, 2);
}


/**
 * Causal end checks, after `e2e record --audit` (or `cache: { audit: 'record' }`) recorded:
 * the audit's mutants run while the app is at hand, each replay reporting which recorded end
 * outcomes held on its end screen. An outcome the unmutated replay showed and a mutant of action
 * *k* did not is caused by action *k*: the entry is rewritten with `causedBy`, which makes it
 * required at replay. The amended entries are audited again; one whose step no longer replays
 * unmutated is put back as it was recorded (no good entry is lost). Result: the audit after,
 * with the score before.
 */
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { canonicalEncode, FileCacheStore, type ActEntry, type Entry } from '../cache-format/index.js';
import { readEndFacts, type PlannedMutant } from '../runner/audit-mutants.js';
import { amendCausally, type MutantFacts } from './causal-amendment.js';
import { describeAction } from '../semantics/describe-action.js';
import type { EndFacts } from '../contract/mutation.js';
import { auditOutcome, auditSetupOf, formatScore, noteAudit, recordedTests, renderAudit, runAuditPass, totalsOf, type AuditedEntry, type AuditHandle, type AuditOptions, type AuditResult, type CausalSummary } from './cache-audit.js';
import type { RunHandle } from '../launch/index.js';
import { causalLinkLines, plural } from '../review/index.js';

/** Where the mutants' end facts go, relative to the config's folder (removed afterwards). */
const FACTS_FOLDER = join('.e2e', 'audit-facts');

/** The end facts one attempt reported for `entry`'s step, if it replayed that far. */
function factsFor(path: string | undefined, entry: string): EndFacts | undefined {
  if (path === undefined) return undefined;
  return readEndFacts(path)?.steps.find((step) => step.entry === entry)?.facts;
}

/** An amendment to write: the entry as recorded and as amended. */
interface Amendment {
  original: ActEntry;
  blob: string;
  amended: ActEntry;
  caused: number;
  newlyRequired: number;
}

/** The amendments the facts of a probed pass call for, and the `act` entries left alone (with why). */
function amendmentsOf(mutants: readonly PlannedMutant[], entries: readonly Entry[], blobs: ReadonlyMap<string, string>, controls: ReadonlyMap<string, { kind: string }>, notAudited: ReadonlySet<string>): { amendments: Amendment[]; unchanged: CausalSummary['unchanged'] } {
  const amendments: Amendment[] = [];
  const unchanged: CausalSummary['unchanged'] = [];
  for (const entry of entries) {
    // Left out by the filters or in another shard: the audit says so (`notAudited`), and its shard amends it.
    if (entry.kind !== 'act' || notAudited.has(entry.key)) continue;
    const blob = blobs.get(entry.key);
    const controlRun = mutants.find((mutant) => mutant.mutation.kind === 'none' && mutant.project === entry.keyParts.projectId && mutant.testId === entry.keyParts.testId);
    const control = controls.get(entry.key)?.kind === 'survived' ? factsFor(controlRun?.facts, entry.key) : undefined;
    if (blob === undefined || control === undefined) {
      unchanged.push({ key: entry.key, reason: 'its step did not replay unmutated in the audit, so nothing could be tied to its actions' });
      continue;
    }
    const facts: MutantFacts[] = [];
    for (const mutant of mutants) {
      if (mutant.entry !== entry.key || !('action' in mutant.mutation)) continue;
      const seen = factsFor(mutant.facts, entry.key);
      if (seen !== undefined) facts.push({ action: mutant.mutation.action, facts: seen });
    }
    const amendment = amendCausally(entry, control, facts);
    if (amendment === undefined || canonicalEncode(amendment.entry) === canonicalEncode(entry)) {
      unchanged.push({ key: entry.key, reason: amendment === undefined ? 'the replay saw another shape of entry' : amendment.caused === 0 ? 'no mutant removed a recorded outcome' : 'its end checks already name their causes' });
      continue;
    }
    amendments.push({ original: entry, blob, amended: amendment.entry, caused: amendment.caused, newlyRequired: amendment.newlyRequired });
  }
  return { amendments, unchanged };
}

/** The proof of each action of an amended entry, as lines: `action 3 of 3: check …: proven by: …`. */
function linksOf(entry: ActEntry): string[] {
  const total = entry.actions.length;
  return causalLinkLines(entry).flatMap((lines, index) => lines.map((line) => `action ${index + 1} of ${total}: ${describeAction(entry.actions[index]!)}: ${line}`));
}

/**
 * Record causal end checks and re-audit (see the file comment). The cache is written only
 * for amendments; an interrupted or failed re-audit puts every amended entry back.
 */
export function startCausalAudit(options: AuditOptions): AuditHandle {
  let run: RunHandle | undefined;
  let interrupted = false;
  const track = (started: RunHandle): void => {
    run = started;
    if (interrupted) started.interrupt();
  };
  const result = (async (): Promise<AuditResult> => {
    const setup = await auditSetupOf(options);
    const factsFolder = resolve(setup.configDir, FACTS_FOLDER);
    await rm(factsFolder, { recursive: true, force: true });
    try {
      // The tests the record run ran, if it told (its filters and shard chose them): the audit's own selection.
      const tests = options.recorded === undefined ? {} : { tests: recordedTests(options.recorded) };
      const first = await runAuditPass(options, { ...setup, plan: { factsOf: (id) => join(factsFolder, `${id}.json`), ...tests } }, track);
      if (first.kind === 'ended') return first.audit;
      const before = first.audit;
      const judged = new Set(before.entries.map((entry) => entry.key));
      const leftOut = new Set(before.notAudited.flatMap((group) => group.entries.map((entry) => entry.key)).filter((key) => !judged.has(key)));
      const { amendments, unchanged } = amendmentsOf(first.planned.plan.mutants, first.planned.entries, first.planned.blobs, first.controls, leftOut);
      const summary: CausalSummary = { before: { entries: before.entries, ...totalsOf(before.entries) }, amended: [], restored: [], unchanged };
      const store = new FileCacheStore(setup.location.cacheDirectory);
      const written: { amendment: Amendment; blob: string }[] = [];
      for (const amendment of amendments) {
        // Only over the entry the audit read: a newer recording by someone else stays.
        const write = await store.write(amendment.amended, { replacing: amendment.blob });
        if (write.status === 'conflict') unchanged.push({ key: amendment.original.key, reason: 'it was recorded again meanwhile; the newer recording stays' });
        else written.push({ amendment, blob: write.blob });
      }
      const putBack = async (amendment: Amendment, blob: string, reason: string): Promise<void> => {
        const write = await store.write(amendment.original, { replacing: blob });
        summary.restored.push({ key: amendment.original.key, reason: write.status === 'conflict' ? `${reason}; it was recorded again meanwhile, and the newer recording stays` : reason });
      };
      if (written.length === 0 || interrupted) {
        for (const { amendment, blob } of interrupted ? written : []) await putBack(amendment, blob, 'the audit was interrupted');
        const audit: AuditResult = { ...before, outcome: interrupted ? 'interrupted' : before.outcome, causal: summary };
        if (!interrupted) await noteAudit(audit, setup);
        return audit;
      }
      const second = await runAuditPass(options, { ...setup, plan: { only: new Set(written.map(({ amendment }) => amendment.original.key)), unsharded: true, ...tests } }, track);
      if (second.kind === 'ended') {
        for (const { amendment, blob } of written) await putBack(amendment, blob, `the re-audit judged nothing (${second.audit.message ?? second.audit.outcome})`);
        const audit: AuditResult = { ...before, outcome: second.audit.outcome === 'passed' ? before.outcome : second.audit.outcome, causal: summary };
        if (second.audit.outcome !== 'interrupted') await noteAudit(audit, setup);
        return audit;
      }
      const after = new Map<string, AuditedEntry>(second.audit.entries.map((entry) => [entry.key, entry]));
      const kept = new Set<string>();
      for (const { amendment, blob } of written) {
        const key = amendment.original.key;
        const control = second.controls.get(key);
        if (control?.kind !== 'survived' || !after.has(key)) {
          await putBack(amendment, blob, `with its causal end checks the step did not replay unmutated (${control === undefined ? 'not run' : control.kind === 'caught' ? control.detail : control.kind === 'not-run' ? control.reason : 'survived'})`);
          continue;
        }
        kept.add(key);
        summary.amended.push({ key, testId: amendment.original.keyParts.testId, instruction: amendment.original.keyParts.instruction, caused: amendment.caused, newlyRequired: amendment.newlyRequired, links: linksOf(amendment.amended) });
      }
      // Entries left as recorded keep their first verdicts; amended ones take the re-audit's.
      const entries = before.entries.map((entry) => (kept.has(entry.key) ? after.get(entry.key)! : entry));
      const mutants = [...before.mutants.filter((mutant) => !kept.has(mutant.entry)), ...second.audit.mutants.filter((mutant) => kept.has(mutant.entry))];
      const totals = totalsOf(entries);
      const audit: AuditResult = { ...before, outcome: auditOutcome(totals.score, options.minScore), entries, mutants, ...totals, runMs: before.runMs + second.audit.runMs, causal: summary };
      await noteAudit(audit, setup);
      return audit;
    } finally {
      await rm(factsFolder, { recursive: true, force: true });
    }
  })();
  return {
    result,
    interrupt: () => {
      interrupted = true;
      run?.interrupt();
    },
  };
}

/** The causal audit as text: the audit as recorded, what was amended and why, the audit after, and the two scores. */
export function renderCausalAudit(result: AuditResult): string {
  const causal = result.causal;
  if (causal === undefined) return renderAudit(result);
  const lines: string[] = ['As recorded:', renderAudit({ ...result, ...causal.before, message: undefined, minScore: undefined, outcome: 'passed' }), ''];
  const newly = causal.amended.reduce((sum, entry) => sum + entry.newlyRequired, 0);
  lines.push(`Causal end checks: ${plural(causal.amended.length, 'entry', 'entries')} amended, ${plural(newly, 'outcome')} required at replay that were weighed incidental`);
  for (const entry of causal.amended) {
    lines.push(`  ${entry.key.slice(0, 8)} ${entry.testId} act "${entry.instruction}": ${plural(entry.caused, 'outcome')} tied to their actions, ${entry.newlyRequired} newly required`);
    for (const link of entry.links) lines.push(`    ${link}`);
  }
  for (const entry of causal.restored) lines.push(`  ${entry.key.slice(0, 8)} put back as recorded: ${entry.reason}`);
  if (causal.amended.length === 0 && causal.restored.length === 0) lines.push('  No entry changed; the audit as recorded stands.');
  else lines.push('', 'Re-audited:', renderAudit({ ...result, notAudited: [] }));
  lines.push(`  Causal  score ${formatScore(causal.before.score)} → ${formatScore(result.score)}`);
  return lines.join('\n');
}

/**
 * `e2e cache diff`: a semantic diff of two cache states (git revisions or folders). Entries
 * with the same key and another blob are *changed*; an entry only in one state is paired with
 * one only in the other as *re-keyed*, naming the key parts that changed: first an entry moved
 * to another test id (`e2e cache mv`: the same recording, key parts equal but for the test id
 * and the acts before it, moved alike), then one of the same test and occurrence (fewest
 * differing key parts first); the rest are *added* or *removed*. Before those, an entry that
 * names the entry it supersedes (the same step after its instruction, params or agent context
 * changed) is paired with it as one re-keyed change, even while the old entry is still there
 * (it is then no longer counted unchanged: `cache prune` removes it). Risky
 * changes are collected for the top of the output: a new origin, fewer end checks, a new
 * literal that looks like an email, card number or token, an entry that no longer reads.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AuditLedger, canonicalEncode, explainKeyChange, nodeFileSystem, PROPOSAL_MARKER_FILE, type AuditRecord, type CanonicalValue, type Entry, type KeyParts, type ReadEntryResult } from '../cache-format/index.js';
import { describeAction } from '../semantics/describe-action.js';
import { folderSpec, openCacheState, resolveStateArgument, type CacheState, type StateEntry } from './cache-state-source.js';
import { splitTestId } from '../cache-format/test-id.js';
import { describeEndEvidence, describeParams, describePreceding, describeStep, endCheckLines } from './entry-text.js';
import { entryChanges, hasContentChanges, literalsOfEntry, sensitiveLiterals, type ContentChanges, type SensitiveLiteral } from './entry-changes.js';
import { describeHiddenText, hiddenTextPaths } from './risky-values.js';

/** Which step an entry records. */
export interface StepIdentity {
  key: string;
  blob: string;
  testId: string;
  target: string;
  kind: Entry['kind'];
  instruction: string;
  params: Record<string, string>;
  occurrence: number;
  /** The step as a phrase (`act "add two todos"`). */
  step: string;
  /** Field paths whose text carries control, bidi or zero-width characters (`risky-values.ts`); absent when none. */
  hiddenText?: string[];
  /** The head entry's last audit, when the diff was given the audit ledger (see {@link EntryAudit}). */
  audit?: EntryAudit;
}

/**
 * A new or changed entry's last audit (`e2e cache audit`, `e2e record --audit`), as the audit
 * ledger holds it for exactly these bytes: an audit of an earlier recording under the same key
 * does not count.
 */
export type EntryAudit =
  | { state: 'audited'; auditedAt: string; caught: number; total: number; notRun: number; survivors: string[]; equivalent: string[] }
  | { state: 'not-audited' };

/** The audit of the entries the head state adds or changes (what a pull request brings), and the `--min-audit-score` gate. */
export interface DiffAuditSummary {
  /** New and changed entries (added, changed, re-keyed). */
  entries: number;
  /** Of them, entries with an audit of their bytes. */
  audited: number;
  caught: number;
  /** Judged mutants: caught + survived. */
  total: number;
  /** caught / total over the audited entries; undefined when no mutant was judged. */
  score: number | undefined;
  /** `--min-audit-score`, when given. */
  minScore?: number;
  /** Below `minScore`: a new or changed entry is not audited, or the score is under it. */
  failed: boolean;
}

/** A key part that changed, with both values. */
export interface KeyPartChange {
  /** As a miss explanation names it (`the instruction`). */
  part: string;
  base: string;
  head: string;
}

/** A new recording, shown whole. */
export interface RecordingOutline {
  actions: string[];
  endChecks: string[];
  /** What the end check rests on (`act` entries): `strong (…)` or `WEAK: …`. */
  endEvidence?: string;
  origins: string[];
  sensitiveLiterals: SensitiveLiteral[];
}

/** One step's change. */
export type StepDiff =
  | { change: 'added'; head: StepIdentity; outline: RecordingOutline }
  | { change: 'removed'; base: StepIdentity }
  | {
      change: 'rekeyed';
      base: StepIdentity;
      head: StepIdentity;
      keyChanges: KeyPartChange[];
      content: ContentChanges | undefined;
      /** Set when the entry moved to another test id with its recording unchanged (`e2e cache mv`). */
      retitled?: { from: string; to: string };
      /** Set when the head entry names the base entry as the one it supersedes (an edited step). */
      supersedes?: true;
    }
  | { change: 'changed'; base: StepIdentity; head: StepIdentity; content: ContentChanges }
  | { change: 'unreadable'; key: string; side: 'base' | 'head'; reason: string; message: string };

/** The changes of one test. */
export interface TestDiff {
  testId: string;
  steps: StepDiff[];
}

/** A change a reviewer should look at first. */
export interface DiffRisk {
  kind: 'new-origin' | 'fewer-end-checks' | 'weak-end-check' | 'sensitive-value' | 'hidden-characters' | 'unreadable-entry';
  testId: string;
  /** The step (or key) concerned. */
  step: string;
  /** What is risky, in words (values masked). */
  detail: string;
}

/** The result of `cache diff`. */
export interface CacheDiffResult {
  base: string;
  head: string;
  /**
   * Set when head is a proposal folder (`e2e run --propose`): the diff shows what `cache accept`
   * would do. Entries the proposal lacks stay (counted unchanged, never removed); `changed` are
   * the entries accept replaces.
   */
  proposal?: true;
  counts: { added: number; removed: number; rekeyed: number; changed: number; unchanged: number; unreadable: number };
  risks: DiffRisk[];
  tests: TestDiff[];
  /** Set when the diff was given the audit ledger: the audit of what head adds or changes. */
  audit?: DiffAuditSummary;
}

type Readable = { key: string; blob: string; entry: Entry };

function identityOf({ key, blob, entry }: Readable): StepIdentity {
  const parts = entry.keyParts;
  const identity: StepIdentity = { key, blob, testId: parts.testId, target: parts.target, kind: entry.kind, instruction: parts.instruction, params: parts.params, occurrence: parts.occurrence, step: describeStep(parts) };
  const hiddenText = hiddenTextPaths(entry);
  return hiddenText.length === 0 ? identity : { ...identity, hiddenText };
}

const KEY_PART_VALUES: Readonly<Record<string, (parts: KeyParts) => string>> = {
  'the instruction': (parts) => parts.instruction,
  'the params': (parts) => describeParams(parts.params) || '(none)',
  "the agent's context": (parts) => `digest ${parts.contextDigest}`,
  'the occurrence index': (parts) => String(parts.occurrence),
  'the steps before it': (parts) => describePreceding(parts.preceding ?? []),
  'the app identity': (parts) => parts.appIdentity,
  'the engine': (parts) => `${parts.engine} (contract ${parts.engineContract})`,
  'the agent': (parts) => parts.agent,
  'the target': (parts) => parts.target,
  'the step kind': (parts) => parts.kind,
  'the test': (parts) => parts.testId,
  'the project': (parts) => parts.projectId,
  'the replay policy': (parts) => String(parts.replayPolicy),
};

function keyPartChanges(base: KeyParts, head: KeyParts): KeyPartChange[] {
  return explainKeyChange(base, head).map((part) => {
    const value = KEY_PART_VALUES[part] ?? (() => '');
    return { part, base: value(base), head: value(head) };
  });
}

/** What must be equal for an entry to count as moved to another test: everything but the key, the test id and the acts' keys. */
function movedSignature(entry: Entry): string {
  const { key: _key, keyParts, ...recording } = entry;
  const { testId: _testId, preceding, ...parts } = keyParts;
  return canonicalEncode({ parts, preceding: preceding?.length ?? -1, recording } as unknown as CanonicalValue);
}

/**
 * Pairs entries that moved to another test id unchanged (what `e2e cache mv` does): the same
 * recording (provenance and recording time included, so an unrelated test recorded with the same
 * instruction never pairs) and the same key parts but the test id; a judgment pairs only when
 * each act before it is one of the acts that moved with it. Acts first, then the judgments after them.
 */
function pairRetitled(removed: readonly Readable[], added: readonly Readable[]): Array<[Readable, Readable]> {
  const bySignature = new Map<string, Readable[]>();
  for (const head of added) {
    const signature = movedSignature(head.entry);
    bySignature.set(signature, [...(bySignature.get(signature) ?? []), head]);
  }
  const pairs: Array<[Readable, Readable]> = [];
  const movedKeys = new Map<string, string>();
  const used = new Set<string>();
  const precedingMoved = (base: Entry, head: Entry): boolean =>
    (base.keyParts.preceding ?? []).every((key, index) => movedKeys.get(key) === head.keyParts.preceding?.[index]);
  const ordered = [...removed].sort((a, b) => Number(a.entry.kind !== 'act') - Number(b.entry.kind !== 'act') || compareText(a.key, b.key));
  for (const base of ordered) {
    const candidates = (bySignature.get(movedSignature(base.entry)) ?? []).filter(
      (head) => !used.has(head.key) && head.entry.keyParts.testId !== base.entry.keyParts.testId && precedingMoved(base.entry, head.entry),
    );
    // Among equals (rare: the same recording in several tests), the same file first, then by test id.
    const sameFile = (head: Readable): number => Number(fileOf(head.entry.keyParts.testId) !== fileOf(base.entry.keyParts.testId));
    const head = candidates.sort((a, b) => sameFile(a) - sameFile(b) || compareText(a.entry.keyParts.testId, b.entry.keyParts.testId) || compareText(a.key, b.key))[0];
    if (head === undefined) continue;
    used.add(head.key);
    if (base.entry.kind === 'act') movedKeys.set(base.key, head.key);
    pairs.push([base, head]);
  }
  return pairs;
}

/**
 * Pairs each head-only entry with the base entry it names as superseded: one only in base, or
 * one still unchanged in both (then taken out of `unchangedKeys` and read from base).
 */
async function pairSuperseded(base: CacheState, onlyBase: readonly Readable[], onlyHead: readonly Readable[], unchangedKeys: Set<string>): Promise<Array<[Readable, Readable]>> {
  const baseOnly = new Map(onlyBase.map((entry) => [entry.key, entry]));
  const wanted = onlyHead.filter((head) => head.entry.supersedes !== undefined && (baseOnly.has(head.entry.supersedes) || unchangedKeys.has(head.entry.supersedes)));
  const stillThere = [...new Set(wanted.map((head) => head.entry.supersedes!).filter((key) => unchangedKeys.has(key)))];
  const reads = stillThere.length === 0 ? new Map<string, ReadEntryResult>() : await base.read(stillThere);
  const pairs: Array<[Readable, Readable]> = [];
  const used = new Set<string>();
  for (const head of wanted) {
    const key = head.entry.supersedes!;
    if (used.has(key)) continue;
    const read = reads.get(key);
    const from = baseOnly.get(key) ?? (read?.kind === 'hit' ? { key, blob: read.blob, entry: read.entry } : undefined);
    if (from === undefined || from.entry.kind !== head.entry.kind || from.entry.keyParts.testId !== head.entry.keyParts.testId) continue;
    used.add(key);
    unchangedKeys.delete(key);
    pairs.push([from, head]);
  }
  return pairs;
}

function fileOf(testId: string): string {
  return splitTestId(testId).file ?? '';
}

/** Pairs entries only in base with entries only in head of the same test and occurrence, fewest differing key parts first. */
function pairRekeyed(removed: Readable[], added: Readable[]): Array<[Readable, Readable]> {
  const slot = (entry: Entry): string => `${entry.keyParts.testId}\u0000${entry.keyParts.occurrence}`;
  const candidates: Array<{ base: Readable; head: Readable; score: number }> = [];
  const addedBySlot = new Map<string, Readable[]>();
  for (const head of added) addedBySlot.set(slot(head.entry), [...(addedBySlot.get(slot(head.entry)) ?? []), head]);
  for (const base of removed) {
    for (const head of addedBySlot.get(slot(base.entry)) ?? []) {
      candidates.push({ base, head, score: explainKeyChange(base.entry.keyParts, head.entry.keyParts).length });
    }
  }
  candidates.sort((a, b) => a.score - b.score || compareText(a.base.key, b.base.key) || compareText(a.head.key, b.head.key));
  const used = new Set<string>();
  const pairs: Array<[Readable, Readable]> = [];
  for (const { base, head } of candidates) {
    if (used.has(`base:${base.key}`) || used.has(`head:${head.key}`)) continue;
    used.add(`base:${base.key}`);
    used.add(`head:${head.key}`);
    pairs.push([base, head]);
  }
  return pairs;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function readable(state: StateEntry): Readable | undefined {
  return state.result.kind === 'hit' ? { key: state.key, blob: state.result.blob, entry: state.result.entry } : undefined;
}

function unreadable(state: StateEntry, side: 'base' | 'head'): StepDiff {
  const { result } = state;
  return result.kind === 'invalid'
    ? { change: 'unreadable', key: state.key, side, reason: result.reason, message: result.message }
    : { change: 'unreadable', key: state.key, side, reason: 'absent', message: `Cache entry ${state.key} disappeared while it was read.` };
}

function risksOf(step: StepDiff, baseOrigins: ReadonlySet<string>): DiffRisk[] {
  if (step.change === 'removed') return [];
  if (step.change === 'unreadable') {
    return step.side === 'head' ? [{ kind: 'unreadable-entry', testId: '', step: step.key, detail: `entry ${step.key} does not read (${step.reason})` }] : [];
  }
  const { testId, step: phrase } = step.head;
  const risks: DiffRisk[] = [];
  if (step.head.hiddenText !== undefined) risks.push({ kind: 'hidden-characters', testId, step: phrase, detail: describeHiddenText(step.head.hiddenText) });
  const newOrigins = step.change === 'added' ? step.outline.origins.filter((origin) => !baseOrigins.has(origin)) : (step.content?.newOrigins ?? []);
  for (const origin of newOrigins) risks.push({ kind: 'new-origin', testId, step: phrase, detail: `visits a new origin ${origin}` });
  const content = step.change === 'added' ? undefined : step.content;
  if (content !== undefined && content.endCheckCounts.head < content.endCheckCounts.base) {
    risks.push({ kind: 'fewer-end-checks', testId, step: phrase, detail: `checks fewer outcomes (${content.endCheckCounts.base} → ${content.endCheckCounts.head} end checks)` });
  }
  // A new entry is flagged when only the route proves it; a re-recording when it lost its strong checks.
  const weakEnd = step.change === 'added' ? step.outline.endEvidence === 'WEAK: only the route' : content?.weakerEnd === true;
  if (weakEnd) {
    const restsOn = step.change === 'added' ? step.outline.endEvidence! : content!.endEvidence!.head;
    risks.push({ kind: 'weak-end-check', testId, step: phrase, detail: `its end is proven weakly (${restsOn.replace(/^WEAK: /, '')}): a broken app could replay it` });
  }
  const literals = step.change === 'added' ? step.outline.sensitiveLiterals : (content?.sensitiveLiterals ?? []);
  for (const literal of literals) {
    risks.push({ kind: 'sensitive-value', testId, step: phrase, detail: `types or visits a new literal that looks like ${literal.kinds.map(withArticle).join(' or ')}: ${literal.preview}` });
  }
  return risks;
}

function withArticle(kind: string): string {
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

function testOf(step: StepDiff, unreadableTests: ReadonlyMap<string, string>): string {
  switch (step.change) {
    case 'removed':
      return step.base.testId;
    case 'unreadable':
      return unreadableTests.get(step.key) ?? '(unreadable entries)';
    default:
      return step.head.testId;
  }
}

function sortKey(step: StepDiff): string {
  if (step.change === 'unreadable') return `\uffff${step.key}`;
  const identity = step.change === 'removed' ? step.base : step.head;
  return `${identity.instruction}\u0000${String(identity.occurrence).padStart(6, '0')}\u0000${identity.key}`;
}

function originsOf(results: Iterable<ReadEntryResult>): Set<string> {
  const origins = new Set<string>();
  for (const result of results) if (result.kind === 'hit' && result.entry.kind === 'act') for (const origin of result.entry.origins ?? []) origins.add(origin);
  return origins;
}

/**
 * The origins the base state visits, as far as an added entry needs them: the entries already
 * read first, the rest of the base only when an added entry visits an origin not among them.
 */
async function baseOriginsFor(base: CacheState, alreadyRead: ReadonlyMap<string, ReadEntryResult>, steps: readonly StepDiff[]): Promise<Set<string>> {
  const origins = originsOf(alreadyRead.values());
  const wanted = steps.flatMap((step) => (step.change === 'added' ? step.outline.origins : []));
  if (wanted.every((origin) => origins.has(origin))) return origins;
  const rest = await base.read([...base.refs.keys()].filter((key) => !alreadyRead.has(key)));
  for (const origin of originsOf(rest.values())) origins.add(origin);
  return origins;
}

/** Options of {@link diffCacheStates}. */
export interface DiffStatesOptions {
  /** Head is a proposal laid over base (what `cache accept` does): base entries it lacks stay. */
  proposal?: boolean;
  /** Each entry's last audit by key (the audit ledger): the new and changed entries then show theirs. */
  audits?: ReadonlyMap<string, AuditRecord>;
  /** `--min-audit-score`: the summary fails below it (needs `audits`). */
  minAuditScore?: number;
}

/** The head entry's last audit, if it was of these bytes. */
function auditOf(head: StepIdentity, audits: ReadonlyMap<string, AuditRecord>): EntryAudit {
  const record = audits.get(head.key);
  if (record === undefined || record.blob !== head.blob) return { state: 'not-audited' };
  return { state: 'audited', auditedAt: record.auditedAt, caught: record.caught, total: record.total, notRun: record.notRun, survivors: record.survivors, equivalent: record.equivalent ?? [] };
}

/** Attach each new or changed entry's audit to its head identity, and total them. */
function auditNewEntries(steps: readonly StepDiff[], audits: ReadonlyMap<string, AuditRecord>, minScore: number | undefined): DiffAuditSummary {
  let entries = 0;
  let audited = 0;
  let caught = 0;
  let total = 0;
  for (const step of steps) {
    if (step.change !== 'added' && step.change !== 'changed' && step.change !== 'rekeyed') continue;
    const audit = auditOf(step.head, audits);
    step.head.audit = audit;
    entries += 1;
    if (audit.state !== 'audited') continue;
    audited += 1;
    caught += audit.caught;
    total += audit.total;
  }
  const score = total === 0 ? undefined : caught / total;
  const summary: DiffAuditSummary = { entries, audited, caught, total, score, failed: false };
  if (minScore !== undefined) {
    summary.minScore = minScore;
    summary.failed = entries > 0 && (audited < entries || score === undefined || score < minScore);
  }
  return summary;
}

/** Compares two cache states, reading (and verifying) only the entries whose bytes differ. */
export async function diffCacheStates(base: CacheState, head: CacheState, options: DiffStatesOptions = {}): Promise<CacheDiffResult> {
  const counts = { added: 0, removed: 0, rekeyed: 0, changed: 0, unchanged: 0, unreadable: 0 };
  const inBoth: string[] = [];
  const sameName: string[] = [];
  for (const [key, blob] of head.refs) {
    if (base.refs.has(key)) (blob !== undefined && base.refs.get(key) === blob ? sameName : inBoth).push(key);
  }
  // Same blob name: unchanged when the bytes are equal too (a damaged copy keeps its name), checked without decoding.
  const [baseFingerprints, headFingerprints] = await Promise.all([base.fingerprints(sameName), head.fingerprints(sameName)]);
  const unchangedKeys = new Set<string>();
  for (const key of sameName) {
    const fingerprint = headFingerprints.get(key);
    if (fingerprint !== undefined && fingerprint === baseFingerprints.get(key)) unchangedKeys.add(key);
    else inBoth.push(key);
  }
  // Laid over the cache, a proposal removes nothing: the entries it lacks stay as they are.
  const onlyBaseKeys = options.proposal === true ? [] : [...base.refs.keys()].filter((key) => !head.refs.has(key));
  if (options.proposal === true) for (const key of base.refs.keys()) if (!head.refs.has(key)) unchangedKeys.add(key);
  const onlyHeadKeys = [...head.refs.keys()].filter((key) => !base.refs.has(key));
  const [baseResults, headResults] = await Promise.all([base.read([...inBoth, ...onlyBaseKeys]), head.read([...inBoth, ...onlyHeadKeys])]);
  const entryOf = (state: CacheState, results: ReadonlyMap<string, ReadEntryResult>, key: string): StateEntry => ({ key, blob: state.refs.get(key), result: results.get(key)! });
  const steps: StepDiff[] = [];
  // An unreadable entry is filed under the test its readable counterpart (same key) belongs to.
  const unreadableTests = new Map<string, string>();
  for (const key of inBoth) {
    const baseEntry = entryOf(base, baseResults, key);
    const headEntry = entryOf(head, headResults, key);
    const baseReadable = readable(baseEntry);
    const headReadable = readable(headEntry);
    if (headReadable === undefined) {
      if (baseReadable !== undefined) unreadableTests.set(key, baseReadable.entry.keyParts.testId);
      steps.push(unreadable(headEntry, 'head'));
    } else if (baseReadable === undefined) {
      unreadableTests.set(key, headReadable.entry.keyParts.testId);
      steps.push(unreadable(baseEntry, 'base'));
    } else {
      steps.push({ change: 'changed', base: identityOf(baseReadable), head: identityOf(headReadable), content: entryChanges(baseReadable.entry, headReadable.entry) });
    }
  }
  const onlyBase: Readable[] = [];
  const onlyHead: Readable[] = [];
  for (const key of onlyBaseKeys) {
    const entry = entryOf(base, baseResults, key);
    const read = readable(entry);
    if (read === undefined) steps.push(unreadable(entry, 'base'));
    else onlyBase.push(read);
  }
  for (const key of onlyHeadKeys) {
    const entry = entryOf(head, headResults, key);
    const read = readable(entry);
    if (read === undefined) steps.push(unreadable(entry, 'head'));
    else onlyHead.push(read);
  }
  const superseding = await pairSuperseded(base, onlyBase, onlyHead, unchangedKeys);
  for (const [from, to] of superseding) {
    const changes = entryChanges(from.entry, to.entry);
    const content = hasContentChanges(changes) ? changes : undefined;
    steps.push({ change: 'rekeyed', base: identityOf(from), head: identityOf(to), keyChanges: keyPartChanges(from.entry.keyParts, to.entry.keyParts), content, supersedes: true });
  }
  counts.unchanged = unchangedKeys.size;
  const supersedingKeys = new Set(superseding.flatMap(([from, to]) => [from.key, to.key]));
  onlyBase.splice(0, onlyBase.length, ...onlyBase.filter((entry) => !supersedingKeys.has(entry.key)));
  onlyHead.splice(0, onlyHead.length, ...onlyHead.filter((entry) => !supersedingKeys.has(entry.key)));
  const retitled = pairRetitled(onlyBase, onlyHead);
  const retitledKeys = new Set(retitled.flatMap(([from, to]) => [from.key, to.key]));
  for (const [from, to] of retitled) {
    const keyChanges = keyPartChanges(from.entry.keyParts, to.entry.keyParts).filter((change) => change.part === 'the test');
    steps.push({ change: 'rekeyed', base: identityOf(from), head: identityOf(to), keyChanges, content: undefined, retitled: { from: from.entry.keyParts.testId, to: to.entry.keyParts.testId } });
  }
  const paired = pairRekeyed(
    onlyBase.filter((entry) => !retitledKeys.has(entry.key)),
    onlyHead.filter((entry) => !retitledKeys.has(entry.key)),
  );
  const pairedKeys = new Set([...retitledKeys, ...paired.flatMap(([from, to]) => [from.key, to.key])]);
  for (const [from, to] of paired) {
    const changes = entryChanges(from.entry, to.entry);
    const content = hasContentChanges(changes) ? changes : undefined;
    steps.push({ change: 'rekeyed', base: identityOf(from), head: identityOf(to), keyChanges: keyPartChanges(from.entry.keyParts, to.entry.keyParts), content });
  }
  for (const from of onlyBase.filter((entry) => !pairedKeys.has(entry.key))) steps.push({ change: 'removed', base: identityOf(from) });
  for (const to of onlyHead.filter((entry) => !pairedKeys.has(entry.key))) {
    const actions = to.entry.kind === 'act' ? to.entry.actions.map(describeAction) : [];
    const origins = to.entry.kind === 'act' ? (to.entry.origins ?? []) : [];
    const outline: RecordingOutline = { actions, endChecks: endCheckLines(to.entry), origins, sensitiveLiterals: sensitiveLiterals(literalsOfEntry(to.entry)) };
    if (to.entry.kind === 'act') outline.endEvidence = describeEndEvidence(to.entry);
    steps.push({ change: 'added', head: identityOf(to), outline });
  }
  const baseOrigins = await baseOriginsFor(base, baseResults, steps);
  const byTest = new Map<string, StepDiff[]>();
  for (const step of steps) {
    counts[step.change] += 1;
    const test = testOf(step, unreadableTests);
    byTest.set(test, [...(byTest.get(test) ?? []), step]);
  }
  const tests = [...byTest.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .map(([testId, testSteps]) => ({ testId, steps: testSteps.sort((a, b) => compareText(sortKey(a), sortKey(b))) }));
  const risks = tests.flatMap((test) =>
    test.steps.flatMap((step) => risksOf(step, baseOrigins).map((risk) => (risk.testId === '' ? { ...risk, testId: test.testId } : risk))),
  );
  const result: CacheDiffResult = { base: base.label, head: head.label, counts, risks, tests };
  if (options.proposal === true) result.proposal = true;
  if (options.audits !== undefined) result.audit = auditNewEntries(steps, options.audits, options.minAuditScore);
  return result;
}

/** Options of {@link diffCache}. */
export interface DiffCacheOptions {
  cwd: string;
  /** The cache folder: the working-tree state, and where revisions are read. */
  cacheDirectory: string;
  /** A git revision or a cache folder. Default `HEAD`. */
  base?: string | undefined;
  /** A git revision or a cache folder. Default: the cache folder in the working tree. */
  head?: string | undefined;
  /** The hit-ledger folder: its audit ledger gives each new or changed entry its last audit. */
  hitsDirectory?: string | undefined;
  /** `--min-audit-score` (with `hitsDirectory`). */
  minAuditScore?: number | undefined;
}

/** Reads the two states `options` name and compares them. */
export async function diffCache(options: DiffCacheOptions): Promise<CacheDiffResult> {
  const baseSpec = await resolveStateArgument(options.base ?? 'HEAD', options.cwd, options.cacheDirectory);
  const headSpec = options.head === undefined ? folderSpec(options.cwd, options.cacheDirectory, 'working tree') : await resolveStateArgument(options.head, options.cwd, options.cacheDirectory);
  const [base, head] = await Promise.all([openCacheState(baseSpec), openCacheState(headSpec)]);
  const proposal = headSpec.kind === 'folder' && existsSync(join(headSpec.directory, PROPOSAL_MARKER_FILE));
  const ledger = options.hitsDirectory === undefined ? undefined : await new AuditLedger(nodeFileSystem, options.hitsDirectory).readAll();
  // A project that never audited gets no audit lines, unless the gate asks for them.
  const audits = ledger !== undefined && (ledger.size > 0 || options.minAuditScore !== undefined) ? ledger : undefined;
  return diffCacheStates(base, head, { proposal, ...(audits === undefined ? {} : { audits }), ...(options.minAuditScore === undefined ? {} : { minAuditScore: options.minAuditScore }) });
}

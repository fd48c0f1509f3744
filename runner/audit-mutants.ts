/**
 * What a run does with the audit's mutants (`e2e cache audit`, `audit/`): the mutants come in
 * the run request (`run-request.ts`); each test declares one copy of itself per mutant beyond
 * the first (`fixtures.ts`, `playwright-internals.ts`: copyTestRegistrations), and the config
 * puts them in one audit project per target, whose fixture option {@link MUTANT_OPTION} carries
 * the mutants to the attempts, so a worker process runs many mutants (Playwright gives workers
 * by project, never by test) and `--shard` splits them. Here too: how a mutant's attempt is judged (the HTML report's `e2e audit`
 * annotation, and the audit's verdicts) and the end facts file of `e2e record --audit`.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { CacheOutcome } from '../contract/cache-outcome.js';
import type { EndFacts, StepMutation } from '../contract/mutation.js';
import type { ErrorCode } from '../errors/index.js';
import { formatTestId, splitTestId, TEST_ID_TITLE_SEPARATOR } from '../cache-format/test-id.js';

/**
 * How long the screen of an audit's replay (a mutant's mutated step, every step of a control
 * run) must hold still, with no request in flight, before the step's end-state wait ends
 * without the recorded end state: a caught mutant then stops about a second after its actions
 * instead of waiting out the full end-state wait (5 s). The control run waits by the same rule,
 * so a step whose outcome comes only after such a pause does not replay unmutated either and
 * its mutants are not run, never caught by it.
 */
export const AUDIT_STILL_MS = 1_000;

/** Name of the fixture option holding an audit project's mutants ({@link PlannedMutant}; each test or copy runs one). */
export const MUTANT_OPTION = 'e2eMutants';

const mutationSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('skip-action'), action: z.number().int().min(0) }),
  z.strictObject({ kind: z.literal('break-handlers'), action: z.number().int().min(0) }),
  z.strictObject({ kind: z.literal('hide-evidence') }),
  // The control run: the test replayed unmutated, so a mutant is judged only on a step that replays without it.
  z.strictObject({ kind: z.literal('none') }),
]);

/** One planned mutant, as the run request carries it. */
export const plannedMutantSchema = z.strictObject({
  /** Unique within the plan. */
  id: z.string().regex(/^[a-z0-9-]+$/),
  /** The target (project) the entry was recorded on. */
  project: z.string().min(1),
  /** The cache test id (`<file>::<title path>`) of the test that holds the step. */
  testId: z.string().min(1),
  /** The test's file, relative to the config's folder, `/` separators. */
  file: z.string().min(1),
  titlePath: z.array(z.string()),
  /** The key of the entry whose step is mutated (for the control run: the test's first entry). */
  entry: z.string().regex(/^[0-9a-f]{16}$/),
  mutation: mutationSchema,
  /**
   * `e2e record --audit`: the absolute path where the attempt writes which recorded outcomes
   * held at the end of each `act` step it replayed ({@link EndFactsFile}).
   */
  facts: z.string().min(1).optional(),
});

/** One planned mutant; `none` is the test's control run (replayed unmutated, to the end). */
export type PlannedMutant = z.infer<typeof plannedMutantSchema> & { mutation: StepMutation | { kind: 'none' } };

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What a test's copy adds to its title: the `n`th mutant of a test runs in the copy titled `<title> · audit <n>` (the first in the test itself). */
export const AUDIT_COPY_MARK = ' · audit ';

/** The title of the copy of a test that runs its `slot`th mutant (1: the test itself). */
export function auditCopyTitle(title: string, slot: number): string {
  return slot === 1 ? title : `${title}${AUDIT_COPY_MARK}${slot}`;
}

/** The audit project of a target: the one project (so one kind of worker) that runs every mutant of its tests. */
export function auditProjectName(target: string): string {
  return `${target} · audit`;
}

/** The Playwright test that runs a mutant: its project, and its title path and test id (`formatTestId`) there. */
export interface MutantTest {
  project: string;
  /** 1 for the test itself, n for its copy `· audit n`. */
  slot: number;
  titlePath: string[];
  testId: string;
}

/**
 * The test that runs each mutant, by mutant id: a test's mutants (its control run first) take
 * the test itself, then its copies `· audit 2`, `· audit 3`, … ({@link copyTestsOf}), all in
 * its target's audit project, so one worker process and one browser run them all in turn
 * (Playwright gives workers by project, never by test).
 */
export function mutantTests(mutants: readonly Pick<PlannedMutant, 'project' | 'testId' | 'id' | 'file' | 'titlePath'>[]): Map<string, MutantTest> {
  const taken = new Map<string, number>();
  const tests = new Map<string, MutantTest>();
  for (const mutant of mutants) {
    const test = `${mutant.project}\u0000${mutant.testId}`;
    const slot = (taken.get(test) ?? 0) + 1;
    taken.set(test, slot);
    const titlePath = [...mutant.titlePath.slice(0, -1), auditCopyTitle(mutant.titlePath.at(-1) ?? '', slot)];
    tests.set(mutant.id, { project: auditProjectName(mutant.project), slot, titlePath, testId: formatTestId(mutant.file, titlePath) });
  }
  return tests;
}

/**
 * The copies a test declared at `declaration` needs (their titles), so that each of its mutants
 * has a test of its own in one project ({@link mutantTests}): as many as its most mutated
 * target has mutants, less the test itself. A test matches a mutant by its title path and a file
 * ending in the mutant's (relative to the config's folder, as the audit project's `testMatch`
 * matches it); the attempt then checks the exact test id.
 */
export function copyTestsOf(mutants: readonly PlannedMutant[]): (declaration: { file: string; titlePath: readonly string[] }) => string[] {
  // By title path (as test ids join it), then by target and file: how many mutants.
  const counts = new Map<string, Map<string, { file: string; count: number }>>();
  for (const mutant of mutants) {
    const { title } = splitTestId(mutant.testId);
    const byTarget = counts.get(title) ?? new Map<string, { file: string; count: number }>();
    counts.set(title, byTarget);
    const key = `${mutant.project}\u0000${mutant.file}`;
    byTarget.set(key, { file: mutant.file, count: (byTarget.get(key)?.count ?? 0) + 1 });
  }
  return ({ file, titlePath }) => {
    const byTarget = counts.get(titlePath.join(TEST_ID_TITLE_SEPARATOR));
    if (byTarget === undefined) return [];
    const path = `/${file.replace(/\\/g, '/')}`;
    const most = Math.max(0, ...[...byTarget.values()].filter((test) => path.endsWith(`/${test.file}`)).map((test) => test.count));
    const title = titlePath.at(-1) ?? '';
    return Array.from({ length: Math.max(0, most - 1) }, (_, index) => auditCopyTitle(title, index + 2));
  };
}

/**
 * Whether a copy of a test runs a mutant in its audit project, by the project's id (its name),
 * the declaring file (absolute) and the copy's title path: such a copy is matched by title as
 * its test is (`playwright-internals.ts`, copyTestRegistrations), so `--grep 'adds a todo$'`
 * selects it with its test, and the project's own `grep` (the tests' titles,
 * {@link auditProjects}) selects it too. A copy without a mutant in a project (a test with fewer
 * mutants on this target than on another) keeps its own title, which that grep leaves out.
 */
export function copyRunsMutant(mutants: readonly PlannedMutant[]): (copy: { projectId: string; file: string; titlePath: readonly string[] }) => boolean {
  const files = new Map<string, string[]>();
  for (const test of mutantTests(mutants).values()) {
    if (test.slot === 1) continue;
    const { file, title } = splitTestId(test.testId);
    const key = `${test.project}\u0000${title}`;
    files.set(key, [...(files.get(key) ?? []), file ?? '']);
  }
  return ({ projectId, file, titlePath }) => {
    const path = `/${file.replace(/\\/g, '/')}`;
    return (files.get(`${projectId}\u0000${titlePath.join(TEST_ID_TITLE_SEPARATOR)}`) ?? []).some((relative) => path.endsWith(`/${relative}`));
  };
}

/** A Playwright project as the config builds it. */
interface Project {
  name: string;
  use: Record<string, unknown>;
}

/** The audit project of a target: its mutants' tests. */
type AuditProject<P> = P & { testMatch: RegExp[]; grep: RegExp[]; fullyParallel: true };

/**
 * The audit projects ({@link mutantTests}), one per target, each on the settings of its target:
 * only its mutants' files and tests (the test itself and its copies, which a title filter matches
 * as the test: {@link copyRunsMutant}; the attempt checks the exact test id and takes the test's
 * mutant), the mutants as a fixture option. Fully parallel, so
 * that the run's workers share the tests as they shared the one-slot projects before (Playwright
 * still keeps a serial describe's tests together and hands tests under `beforeAll` hooks out in
 * a few groups). A mutant of a target the config no longer has gets no project (the audit reports it).
 */
export function auditProjects<P extends Project>(projects: readonly P[], mutants: readonly PlannedMutant[]): AuditProject<P>[] {
  const byName = new Map(projects.map((project) => [project.name, project]));
  const targets = new Map<string, { base: P; mutants: PlannedMutant[]; titles: Set<string> }>();
  for (const mutant of mutants) {
    const base = byName.get(mutant.project);
    if (base === undefined) continue;
    const target = targets.get(mutant.project) ?? { base, mutants: [], titles: new Set<string>() };
    targets.set(mutant.project, target);
    target.mutants.push(mutant);
    // The test's title: its copies that run a mutant here are matched by title as the test is.
    target.titles.add(mutant.titlePath.join(' '));
  }
  return [...targets.values()].map(({ base, mutants: held, titles }) => ({
    ...base,
    name: auditProjectName(base.name),
    fullyParallel: true as const,
    testMatch: [...new Set(held.map((mutant) => mutant.file))].map((file) => new RegExp(`(^|[\\\\/])${file.split('/').map(escape).join('[\\\\/]')}$`)),
    grep: [...titles].map((title) => new RegExp(`(^| )${escape(title)}( @|$)`)),
    use: { ...base.use, [MUTANT_OPTION]: held },
  }));
}

/** The title path of the test a copy ({@link auditCopyTitle}) of slot `slot` copies. */
export function copiedTitlePath(titlePath: readonly string[], slot: number): string[] {
  const title = titlePath.at(-1) ?? '';
  const mark = `${AUDIT_COPY_MARK}${slot}`;
  return slot === 1 || !title.endsWith(mark) ? [...titlePath] : [...titlePath.slice(0, -1), title.slice(0, -mark.length)];
}

const testIndexes = new WeakMap<readonly PlannedMutant[], Map<string, { mutant: PlannedMutant; slot: number }>>();

/**
 * The mutant the test `testId` (`formatTestId` of its file and title path, a copy's with its
 * mark) runs among an audit project's mutants, and its slot (1: the test itself); undefined when it runs none.
 */
export function mutantOfTest(mutants: readonly PlannedMutant[], testId: string): { mutant: PlannedMutant; slot: number } | undefined {
  let index = testIndexes.get(mutants);
  if (index === undefined) {
    const tests = mutantTests(mutants);
    index = new Map(mutants.map((mutant) => [tests.get(mutant.id)!.testId, { mutant, slot: tests.get(mutant.id)!.slot }]));
    testIndexes.set(mutants, index);
  }
  return index.get(testId);
}

/** How one mutant's run ended. */
export type MutantVerdict =
  /** The mutated step did not pass: the replay noticed (`detail` says where). */
  | { kind: 'caught'; detail: string }
  /**
   * The mutated step passed: the entry is blind to the mutation. When the rest of the test ran,
   * its own checks failed after it (`then`: the first error): the cache passed what the test fails.
   */
  | { kind: 'survived'; then?: string }
  /** The mutated step passed and so did the rest of the test, its own checks included: a mutant equivalent by the test's standard. */
  | { kind: 'equivalent' }
  /** The run did not get to judge the mutation (a step before it failed, the test ended first, an unrelated error). */
  | { kind: 'not-run'; reason: string };

/** What {@link mutantVerdict} reads of each step of the mutant's attempt. */
export interface JudgedStep {
  kind: string;
  instruction: string;
  status: 'passed' | 'failed' | 'blocked';
  errorCode?: ErrorCode | null | undefined;
  summary: string;
  cache?: CacheOutcome | null | undefined;
}

/** Reasons of a replay that stopped on its own account, which is what a mutation can cause. */
const REPLAY_STOPS: ReadonlySet<string> = new Set(['wrong-context', 'target-not-found', 'target-ambiguous', 'action-failed', 'end-mismatch']);

/**
 * Judge a mutant from its attempt's steps: the step that used `entry` is the mutated one. It is
 * caught only when its own replay stopped (never for an unrelated error, such as a timeout),
 * survived when it replayed, and not run when the attempt never got to it. `testPassed` (a
 * mutant's run goes on to the test's end): a survivor whose test then passed too, its own
 * `expect`s and judgments included, is equivalent; one whose test then failed is a real blind
 * spot. Without it (a control run), a step that replayed is `survived`.
 */
export function mutantVerdict(steps: readonly JudgedStep[], entry: string, attemptError?: string, testPassed?: boolean): MutantVerdict {
  const position = steps.findIndex((step) => step.cache?.entry === entry);
  if (position === -1) {
    const failed = [...steps].reverse().find((step) => step.status !== 'passed');
    if (failed !== undefined) return { kind: 'not-run', reason: `an earlier step did not pass: agent.${failed.kind} "${failed.instruction}" (${failed.errorCode ?? failed.status}): ${failed.summary}` };
    return { kind: 'not-run', reason: attemptError === undefined ? 'the test never reached the mutated step' : `the test ended before the mutated step: ${attemptError}` };
  }
  const step = steps[position]!;
  if (step.status === 'passed' && step.cache?.mode === 'self-finalized') {
    if (testPassed === true) return { kind: 'equivalent' };
    if (testPassed === false) return { kind: 'survived', then: attemptError ?? laterFailure(steps.slice(position + 1)) ?? 'the test failed after it' };
    return { kind: 'survived' };
  }
  const reason = step.cache?.reason;
  // A model-free replay that stopped reads as drift (REPLAY_STALE) or as a regression (ASSERTION_FAILED, its
  // outcome missing after every action ran); a timeout or a crash mid-replay is not the mutant's doing.
  const stopped = step.cache?.classification !== undefined || step.errorCode === 'REPLAY_STALE';
  if (step.status !== 'passed' && stopped && reason !== undefined && REPLAY_STOPS.has(reason)) return { kind: 'caught', detail: step.cache?.detail ?? reason };
  return { kind: 'not-run', reason: `the mutated step ended for another reason (${step.errorCode ?? step.status}): ${step.summary}` };
}

/** The first step after the mutated one that did not pass, as a line. */
function laterFailure(steps: readonly JudgedStep[]): string | undefined {
  const failed = steps.find((step) => step.status !== 'passed');
  return failed === undefined ? undefined : `agent.${failed.kind} "${failed.instruction}" (${failed.errorCode ?? failed.status}): ${failed.summary}`;
}

/** Version of the end-facts file. */
export const END_FACTS_VERSION = 1;

const endFactsSchema = z.strictObject({ route: z.boolean(), appeared: z.array(z.boolean()), gone: z.array(z.boolean()), acted: z.array(z.boolean()) });
const endFactsFileSchema = z.strictObject({
  version: z.literal(END_FACTS_VERSION),
  steps: z.array(z.strictObject({ entry: z.string().regex(/^[0-9a-f]{16}$/), step: z.number().int().min(0), facts: endFactsSchema })),
});

/** What one mutant's attempt saw at the end of each `act` step it replayed (`e2e record --audit`). */
export interface EndFactsFile {
  version: typeof END_FACTS_VERSION;
  steps: { entry: string; step: number; facts: EndFacts }[];
}

/** Write an attempt's end facts (a retry's replace the first attempt's), atomically. */
export function writeEndFacts(path: string, steps: EndFactsFile['steps']): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify({ version: END_FACTS_VERSION, steps } satisfies EndFactsFile));
  renameSync(temporary, path);
}

/** Read an attempt's end facts; undefined when the attempt wrote none (or not this build's). */
export function readEndFacts(path: string): EndFactsFile | undefined {
  try {
    const parsed = endFactsFileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

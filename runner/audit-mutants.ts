/**
 * What a run does with the audit's mutants (`e2e cache audit`, `audit/`): the mutants come in
 * the run request (`run-request.ts`); the config puts them in projects, at most one mutant per
 * test in each, whose fixture option {@link MUTANT_OPTION} carries them to the attempts, so
 * Playwright's workers run the mutants (a worker runs one project's tests in turn) and
 * `--shard` splits them. Here too: how a mutant's attempt is judged (the HTML report's `e2e audit`
 * annotation, and the audit's verdicts) and the end facts file of `e2e record --audit`.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { CacheOutcome } from '../contract/cache-outcome.js';
import type { EndFacts, StepMutation } from '../contract/mutation.js';
import type { ErrorCode } from '../errors/index.js';

/**
 * How long the screen of an audit's replay (a mutant's mutated step, every step of a control
 * run) must hold still, with no request in flight, before the step's end-state wait ends
 * without the recorded end state: a caught mutant then stops about a second after its actions
 * instead of waiting out the full end-state wait (5 s). The control run waits by the same rule,
 * so a step whose outcome comes only after such a pause does not replay unmutated either and
 * its mutants are not run, never caught by it.
 */
export const AUDIT_STILL_MS = 1_000;

/** Name of the fixture option holding a project's mutants ({@link PlannedMutant}, one per test). */
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
  /** Unique within the plan; part of the project's name. */
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

/**
 * The project of each mutant, by mutant id: a test's mutants (its control run first) go to
 * projects `<target> · audit 1`, `· audit 2`, …, one each, so a project holds at most one
 * mutant per test and its worker runs the mutants of every test in turn (one worker process
 * and one browser for many mutants, instead of one per mutant).
 */
export function mutantProjectNames(mutants: readonly Pick<PlannedMutant, 'project' | 'testId' | 'id'>[]): Map<string, string> {
  const taken = new Map<string, number>();
  const names = new Map<string, string>();
  for (const mutant of mutants) {
    const test = `${mutant.project}\u0000${mutant.testId}`;
    const slot = (taken.get(test) ?? 0) + 1;
    taken.set(test, slot);
    names.set(mutant.id, `${mutant.project} · audit ${slot}`);
  }
  return names;
}

/** A Playwright project as the config builds it. */
interface Project {
  name: string;
  use: Record<string, unknown>;
}

/** The project of one slot: its mutants, one per test. */
type AuditProject<P> = P & { testMatch: RegExp[]; grep: RegExp[] };

/**
 * The mutants' projects ({@link mutantProjectNames}), each on the settings of its target: only
 * its tests' files and titles (the attempt checks the exact test id and takes its test's mutant),
 * the mutants as a fixture option. A mutant of a target the config no longer has gets no
 * project (the audit reports it).
 */
export function auditProjects<P extends Project>(projects: readonly P[], mutants: readonly PlannedMutant[]): AuditProject<P>[] {
  const byName = new Map(projects.map((project) => [project.name, project]));
  const names = mutantProjectNames(mutants);
  const slots = new Map<string, { base: P; mutants: PlannedMutant[] }>();
  for (const mutant of mutants) {
    const base = byName.get(mutant.project);
    if (base === undefined) continue;
    const name = names.get(mutant.id)!;
    const slot = slots.get(name) ?? { base, mutants: [] };
    slots.set(name, slot);
    slot.mutants.push(mutant);
  }
  return [...slots].map(([name, { base, mutants: held }]) => ({
    ...base,
    name,
    testMatch: [...new Set(held.map((mutant) => mutant.file))].map((file) => new RegExp(`(^|[\\\\/])${file.split('/').map(escape).join('[\\\\/]')}$`)),
    grep: [...new Set(held.map((mutant) => mutant.titlePath.join(' ')))].map((title) => new RegExp(`(^| )${escape(title)}( @|$)`)),
    use: { ...base.use, [MUTANT_OPTION]: held },
  }));
}

/** The mutant of the test `testId` among a project's mutants, if it has one. */
export function mutantOfTest(mutants: readonly PlannedMutant[], testId: string): PlannedMutant | undefined {
  return mutants.find((mutant) => mutant.testId === testId);
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

/**
 * One attempt of the real step runner with the attempt cache and the built-in judgments
 * wired in, over a live page: what the runner host does per test attempt, without
 * Playwright Test around it. The `default` agent judges with `judge` (none: a model-free
 * run, as `e2e replay`); acts go to a `typist` agent with a scripted executor.
 */
import type { CacheStore } from '../../../cache-format/index.js';
import { createBuiltInAgent } from '../../../agent/built-in.js';
import { createAttemptCache, type AttemptCache, type AttemptCacheMode, type WriteReport } from '../../../step-cache/attempt-cache.js';
import { SecretVault, type SecretRef, type UniqueValue } from '../../../executor/secrets.js';
import type { StepExecutor } from '../../../contract/step-contract.js';
import { createAttemptRunner, type AgentEntry, type AttemptRunner, type StepOutcome } from '../../../executor/step-runner.js';
import type { LiveScreen } from '../../support/live-screen.js';

/** Options of {@link judgedAttempt}. */
export interface JudgedAttemptOptions {
  live: LiveScreen;
  store: CacheStore;
  /** The judge (an AI SDK model); without one, judgments can only replay. */
  judge?: object;
  /** The executor of the `typist` agent that runs `act` steps. */
  typist?: StepExecutor;
  mode?: AttemptCacheMode;
  strict?: boolean;
  retry?: number;
  proposalStore?: CacheStore;
  hitsEnabled?: boolean;
}

type Params = Record<string, string | SecretRef | UniqueValue>;

/** A running attempt. */
export interface JudgedAttempt {
  runner: AttemptRunner;
  cache: AttemptCache;
  act(instruction: string, params?: Params): Promise<StepOutcome>;
  assert(question: string, params?: Params): Promise<StepOutcome>;
  waitFor(condition: string, options?: { timeout?: number; interval?: number }): Promise<StepOutcome>;
  extract(question: string, schema: unknown): Promise<StepOutcome>;
  /** End the attempt as the fixture teardown does; `passed` defaults to every step having passed. */
  finish(passed?: boolean): Promise<WriteReport[]>;
}

/** The test id every judged attempt uses. */
export const JUDGED_TEST_ID = 'todos.e2e.ts::todos › judges the list';

/** Start an attempt with the cache and the built-in judgments wired in. */
export function judgedAttempt(options: JudgedAttemptOptions): JudgedAttempt {
  const vault = new SecretVault({});
  const cache = createAttemptCache({
    store: options.store,
    mode: options.mode ?? 'read-write',
    strict: options.strict ?? false,
    projectId: 'web',
    appIdentity: options.live.server.origin,
    engine: { name: options.live.engine.name, contractVersion: options.live.engine.contractVersion },
    toolVersion: '0.1.0',
    secrets: {},
    redact: (text) => vault.redact(text),
    proposalStore: options.proposalStore,
    hitsEnabled: options.hitsEnabled ?? false,
    replay: { waitForTargetMs: 300, pollIntervalMs: 50 },
  });
  const agents: Record<string, AgentEntry> = {
    default: { ...(options.judge === undefined ? {} : { model: options.judge }), context: 'A todo app.', limits: {} },
    typist: { ...(options.typist === undefined ? {} : { executor: options.typist }), context: 'A todo app.', limits: {} },
  };
  const runner = createAttemptRunner({
    engine: options.live.instance,
    target: { name: 'web', platform: options.live.engine.platform, verbs: options.live.engine.verbs },
    secrets: vault,
    origins: [options.live.server.origin],
    projectRoot: process.cwd(),
    agents,
    builtIn: createBuiltInAgent(),
    attempt: { testId: JUDGED_TEST_ID, retry: options.retry ?? 0, titlePath: ['todos', 'judges the list'] },
    evidence: false,
    onAction: cache.listener,
    stepInterceptor: cache.interceptor,
  });
  /** A passed judgment verifies the steps before it, as the `agent` fixture reports it. */
  const judged = async (kind: 'assert' | 'waitFor', instruction: string, run: Promise<StepOutcome>): Promise<StepOutcome> => {
    const outcome = await run;
    if (outcome.verdict.status === 'passed') runner.recordVerification(kind, instruction);
    return outcome;
  };
  return {
    runner,
    cache,
    act: (instruction, params) => runner.runStep('act', instruction, { agent: 'typist', ...(params === undefined ? {} : { params }) }),
    assert: (question, params) => judged('assert', question, runner.runStep('assert', question, params === undefined ? undefined : { params })),
    waitFor: (condition, waitOptions) => judged('waitFor', condition, runner.runStep('waitFor', condition, waitOptions)),
    extract: (question, schema) => runner.runStep('extract', question, { schema }),
    finish: async (passed) => {
      const allPassed = runner.records.every((record) => record.status === 'passed');
      const reports = await cache.finishAttempt({ passed: passed ?? allPassed, steps: runner.records, verifications: runner.verifications });
      for (const report of reports) runner.annotateStep(report.stepIndex, report.outcome);
      runner.close();
      return reports;
    },
  };
}

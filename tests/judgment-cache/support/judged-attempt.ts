/**
 * One attempt of the real step runner with the attempt cache and the built-in judgments
 * wired in, over a live page: what the runner host does per test attempt, without
 * Playwright Test around it. The `default` agent judges with `judge` (none: a model-free
 * run, as `e2e replay`); acts go to a `typist` agent with a scripted executor.
 */
import type { CacheStore } from '../../../cache-format/index.js';
import type { AttemptCache, CacheMode, WriteReport } from '../../../step-cache/attempt-cache.js';
import { SecretVault, type SecretRef, type UniqueValue } from '../../../secrets/vault.js';
import type { StepExecutor } from '../../../contract/step-contract.js';
import type { AgentEntry, AttemptRunner, StepOutcome } from '../../../step/step-runner.js';
import { wireAttempt } from '../../../runner/wire-attempt.js';
import type { LiveScreen } from '../../support/live-screen.js';
import { liveCacheOptions } from '../../support/cached-attempt.js';

/** Options of {@link judgedAttempt}. */
export interface JudgedAttemptOptions {
  live: LiveScreen;
  store: CacheStore;
  /** The judge (an AI SDK model); without one, judgments can only replay. */
  judge?: object;
  /** The executor of the `typist` agent that runs `act` steps. */
  typist?: StepExecutor;
  mode?: CacheMode;
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
  const agents: Record<string, AgentEntry> = {
    default: { ...(options.judge === undefined ? {} : { model: options.judge }), context: 'A todo app.', limits: {} },
    typist: { ...(options.typist === undefined ? {} : { executor: options.typist }), context: 'A todo app.', limits: {} },
  };
  const { runner, cache, finish } = wireAttempt({
    cache: liveCacheOptions({ ...options, secrets: {}, waitForTargetMs: 300 }, vault),
    engine: options.live.instance,
    target: { name: 'web', platform: options.live.engine.platform, verbs: options.live.engine.verbs },
    secrets: vault,
    origins: [options.live.server.origin],
    projectRoot: process.cwd(),
    agents,
    attempt: { testId: JUDGED_TEST_ID, retry: options.retry ?? 0, titlePath: ['todos', 'judges the list'] },
    evidence: false,
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
      const reports = await finish({ passed: passed ?? allPassed });
      runner.close();
      return reports;
    },
  };
}

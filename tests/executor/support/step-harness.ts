/**
 * Runs agent steps through the real step runner (`step/step-runner.ts`) over any engine
 * instance: the memory app for fast loop tests, the web engine for browser tests. Artifacts
 * (transcripts, screenshots) are kept for assertions.
 */
import type { EngineInstance } from '../../../contract/engine.js';
import { SecretVault } from '../../../secrets/vault.js';
import type { OpaqueLanguageModel, StepExecutor } from '../../../contract/step-contract.js';
import type { AgentEntry, AttemptRunner, BuiltInAgent } from '../../../step/step-runner.js';
import type { LimitOverrides } from '../../../step/budgets.js';
import type { StepInterceptor } from '../../../contract/step-seams.js';
import { wireAttempt } from '../../../runner/wire-attempt.js';
import { MEMORY_APP_VERBS } from './memory-app.js';
import type { Verb } from '../../../contract/engine.js';
import type { Logger } from '../../../contract/logger.js';

/** Options of {@link attemptOver}. */
export interface HarnessOptions {
  executor?: StepExecutor;
  model?: OpaqueLanguageModel;
  judge?: OpaqueLanguageModel;
  context?: string;
  limits?: LimitOverrides;
  secrets?: Record<string, string>;
  verbs?: readonly Verb[];
  origins?: string[];
  /** The runner's built-in agent; default `createBuiltInAgent()`. */
  builtIn?: BuiltInAgent;
  testTimeoutMs?: number;
  /** Stands in for the replay cache (e.g. to hand a replayed prefix to the executor). */
  stepInterceptor?: StepInterceptor;
  /** Receives the runner's debug and warning lines. */
  logger?: Logger;
}

/** An attempt runner plus what it attached. */
export interface Harness {
  runner: AttemptRunner;
  transcripts: string[];
  screenshots: number;
}

/** A step runner over `engine`, with one agent entry named `default`. */
export function attemptOver(engine: EngineInstance, options: HarnessOptions = {}): Harness {
  const transcripts: string[] = [];
  const harness: Harness = { runner: undefined as unknown as AttemptRunner, transcripts, screenshots: 0 };
  const entry: AgentEntry = { context: options.context ?? '', limits: options.limits ?? {} };
  if (options.executor !== undefined) entry.executor = options.executor;
  if (options.model !== undefined) entry.model = options.model;
  if (options.judge !== undefined) entry.judge = options.judge;
  harness.runner = wireAttempt({
    engine,
    target: { name: 'web', platform: 'web', verbs: options.verbs ?? MEMORY_APP_VERBS },
    secrets: new SecretVault(Object.fromEntries(Object.entries(options.secrets ?? {}).map(([name, value]) => [name, { value }]))),
    origins: options.origins ?? ['http://127.0.0.1:4173'],
    projectRoot: process.cwd(),
    agents: { default: entry },
    attempt: { testId: 'agent-tests', retry: 0, titlePath: ['agent'] },
    builtIn: options.builtIn,
    debug: true,
    evidence: false,
    ...(options.testTimeoutMs === undefined ? {} : { testTimeoutMs: options.testTimeoutMs }),
    ...(options.stepInterceptor === undefined ? {} : { stepInterceptor: options.stepInterceptor }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    artifacts: {
      attach: (artifact) => {
        if (typeof artifact.body === 'string') transcripts.push(artifact.body);
        else harness.screenshots++;
        return Promise.resolve();
      },
    },
  }).runner;
  return harness;
}

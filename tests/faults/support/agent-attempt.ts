/**
 * One attempt as the Playwright fixture runs it (runner/fixtures.ts), without Playwright
 * Test: the real step runner over a web engine instance, the attempt cache on its two seams,
 * a logger, an artifact sink, and a teardown that ends the runner, finishes the cache, builds
 * the attempt's report payload and closes the engine attempt. Everything the runner hands out
 * is kept, so a test can scan it.
 */
import type { CacheStore } from '../../../cache-format/index.js';
import type { AttemptCache, WriteReport } from '../../../step-cache/attempt-cache.js';
import type { LimitOverrides } from '../../../step/budgets.js';
import type { Engine, EngineInstance } from '../../../contract/engine.js';
import { E2EError } from '../../../errors/index.js';
import { redactDeep } from '../../../secrets/redactor.js';
import { SecretVault, type SecretRef } from '../../../secrets/vault.js';
import type { StepExecutor } from '../../../contract/step-contract.js';
import type { AttemptRunner, StepOutcome } from '../../../step/step-runner.js';
import { REPORT_VERSION, toReportStep, type AttemptPayload } from '../../../runner/report.js';
import { wireAttempt } from '../../../runner/wire-attempt.js';

/** Options of {@link agentAttempt}. */
export interface AgentAttemptOptions {
  engine: Engine;
  instance: EngineInstance;
  origin: string;
  store: CacheStore;
  executor: StepExecutor;
  secrets?: Record<string, string>;
  limits?: LimitOverrides;
  testTimeoutMs?: number;
}

/** Everything the attempt handed out, as text. */
export interface Handouts {
  logs: string[];
  /** String artifacts (transcripts) by name. */
  texts: Record<string, string>;
  /** Binary artifacts (screenshots) by name. */
  binaries: Record<string, Uint8Array>;
}

/** A running attempt. */
export interface AgentAttempt {
  runner: AttemptRunner;
  cache: AttemptCache;
  handouts: Handouts;
  act(instruction: string, options?: { params?: Record<string, string | SecretRef>; maxSteps?: number; maxModelCalls?: number; timeout?: number }): Promise<StepOutcome>;
  verify(): void;
  /** End the attempt as the fixture teardown does; returns the cache's write reports and the report payload JSON. */
  finish(passed: boolean): Promise<{ reports: WriteReport[]; payload: string }>;
}

export const AGENT_TEST_ID = 'faults.e2e.ts::faults › echoes and budgets';

export function agentAttempt(options: AgentAttemptOptions): AgentAttempt {
  const secrets = options.secrets ?? {};
  const vault = new SecretVault(Object.fromEntries(Object.entries(secrets).map(([name, value]) => [name, { value }])));
  const handouts: Handouts = { logs: [], texts: {}, binaries: {} };
  const { runner, cache, finish } = wireAttempt({
    cache: {
      store: options.store,
      mode: 'read-write',
      strict: false,
      projectId: 'web',
      appIdentity: options.origin,
      engine: { name: options.engine.name, contractVersion: options.engine.contractVersion },
      toolVersion: '0.1.0',
      secrets,
      redact: (text) => vault.redact(text),
      hitsEnabled: false,
      // The raw collector, not a redacting one: whatever the cache logs is scanned as it was said.
      logger: { debug: (message) => handouts.logs.push(`cache debug ${message}`), warn: (message) => handouts.logs.push(`cache warn ${message}`) },
      replay: { waitForTargetMs: 2000, pollIntervalMs: 50 },
    },
    engine: options.instance,
    target: { name: 'web', platform: options.engine.platform, verbs: options.engine.verbs },
    secrets: vault,
    origins: [options.origin],
    projectRoot: process.cwd(),
    agents: { default: { executor: options.executor, context: 'A small test app.', limits: options.limits ?? {} } },
    attempt: { testId: AGENT_TEST_ID, retry: 0, titlePath: ['faults', 'echoes and budgets'] },
    ...(options.testTimeoutMs === undefined ? {} : { testTimeoutMs: options.testTimeoutMs }),
    logger: {
      debug: (message) => handouts.logs.push(`debug ${message}`),
      warn: (message) => handouts.logs.push(`warn ${message}`),
    },
    debug: true,
    evidence: true,
    artifacts: {
      attach: ({ name, body }) => {
        if (typeof body === 'string') handouts.texts[name] = body;
        else handouts.binaries[name] = body;
        return Promise.resolve();
      },
    },
  });
  return {
    runner,
    cache,
    handouts,
    act: (instruction, stepOptions) => runner.runStep('act', instruction, stepOptions),
    verify: () => runner.recordVerification('expect', 'toBeVisible'),
    finish: async (passed) => {
      runner.close(new E2EError('CANCELLED', 'The test ended while the step was running.'));
      const reports = await finish({ passed });
      const payload: AttemptPayload = { version: REPORT_VERSION, steps: [...runner.records], verifications: [...runner.verifications] };
      const body = JSON.stringify(redactDeep(payload, (text) => runner.redact(text)));
      handouts.texts['report steps'] = JSON.stringify(runner.records.map(toReportStep));
      await options.instance.close();
      return { reports, payload: body };
    },
  };
}

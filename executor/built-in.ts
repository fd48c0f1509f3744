/**
 * The bridge the step runner uses to reach `executor/` (its `BuiltInAgent` seam): the built-in
 * executor for an agent entry with a model, and judgment executors for `assert`, `waitFor`
 * and `extract` when no custom executor handles them. The modules that call a model (and the
 * AI SDK with them) are loaded on the first step that runs one of these: a model-free replay
 * never loads them (golden/example-shop.process.test.ts, "loads no AI SDK module in any of its
 * processes").
 */
import type { z } from 'zod';
import { E2EError } from '../errors/index.js';
import type { OpaqueLanguageModel, StepExecutor, StepVerdict } from '../contract/step-contract.js';
import type { AgentEntry, BuiltInAgent } from '../step/step-runner.js';
import { BUILT_IN_AGENT_NAME, BUILT_IN_AGENT_VERSION } from './agent-identity.js';
import type { AgentOptions } from './create-agent.js';
import type { Judgment } from './judgments.js';
import { isLanguageModel } from './model.js';
import type { ProviderPolicy } from './provider-errors.js';

/** Options of {@link createBuiltInAgent}. */
export interface BuiltInAgentOptions {
  /** Extra options of the built-in executor for an entry (its `system`, `tools`, …). */
  agentOptions?(entry: AgentEntry): AgentOptions;
  /** Request timeout and retry behaviour of every model call. */
  provider?: ProviderPolicy;
}

/** The name judgment executors report. */
export const JUDGMENT_EXECUTOR_NAME = 'e2e-judgment';

function firstModel(...candidates: Array<OpaqueLanguageModel | undefined>): OpaqueLanguageModel | undefined {
  return candidates.find((candidate) => isLanguageModel(candidate));
}

/** A judgment as a plain verdict: a passed one carries its evidence to the cache. */
function asVerdict(judgment: Judgment): StepVerdict {
  const verdict: StepVerdict = { status: judgment.status, summary: judgment.summary };
  if (judgment.errorCode !== undefined) verdict.errorCode = judgment.errorCode;
  if (judgment.status === 'passed') verdict.evidence = judgment.evidence;
  return verdict;
}

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function' && '_zod' in value;
}

/** An executor that answers `assert`, `waitFor` or `extract` steps with the built-in judgments. */
export function judgmentExecutor(kind: 'assert' | 'waitFor' | 'extract', model: OpaqueLanguageModel, provider?: ProviderPolicy): StepExecutor {
  const policy = provider === undefined ? {} : { provider };
  return {
    name: JUDGMENT_EXECUTOR_NAME,
    version: '1',
    vision: true,
    model,
    judge: model,
    runStep: async (ctx) => {
      const { step } = ctx;
      const { judgeAssert, judgeExtract, judgeWaitFor } = await import('./judgments.js');
      switch (kind) {
        case 'assert':
          return asVerdict(await judgeAssert(ctx, { question: step.instruction, vision: step.vision ?? false, ...policy }));
        case 'waitFor':
          return asVerdict(
            await judgeWaitFor(ctx, {
              condition: step.instruction,
              vision: step.vision ?? false,
              ...(step.intervalMs === undefined ? {} : { intervalMs: step.intervalMs }),
              ...policy,
            }),
          );
        case 'extract': {
          if (!isZodSchema(step.schema)) throw new E2EError('INVALID_ARGUMENT', 'agent.extract needs a zod schema for its answer.');
          const extraction = await judgeExtract(ctx, { question: step.instruction, schema: step.schema, ...policy });
          return { status: 'passed', summary: extraction.summary, value: extraction.value, evidence: extraction.evidence };
        }
      }
    },
  };
}

/**
 * The built-in executor `createAgent(options)` would make, with the same name, version, vision,
 * model and judge, but the agent itself (and the AI SDK) is loaded when its first step runs.
 */
export function agentOnDemand(options: AgentOptions): StepExecutor {
  let agent: Promise<StepExecutor> | undefined;
  const executor: StepExecutor = {
    name: BUILT_IN_AGENT_NAME,
    version: BUILT_IN_AGENT_VERSION,
    vision: true,
    runStep: async (ctx) => {
      agent ??= import('./create-agent.js').then(({ createAgent }) => createAgent(options));
      return (await agent).runStep(ctx);
    },
  };
  if (options.model !== undefined) executor.model = options.model;
  if (options.judge !== undefined) executor.judge = options.judge;
  return executor;
}

/**
 * The runner's `BuiltInAgent`: `executorFor` gives the built-in executor of an entry that has
 * a model (one per entry), `judgeFor` a judgment executor using the entry's judge, else its
 * model, else its custom executor's; both return undefined when there is no model.
 */
export function createBuiltInAgent(options: BuiltInAgentOptions = {}): BuiltInAgent {
  const executors = new WeakMap<AgentEntry, StepExecutor>();
  return {
    executorFor(entry) {
      if (!isLanguageModel(entry.model)) return undefined;
      let executor = executors.get(entry);
      if (executor === undefined) {
        const judge = firstModel(entry.judge);
        executor = agentOnDemand({
          model: entry.model,
          ...(judge === undefined ? {} : { judge: judge as NonNullable<AgentOptions['judge']> }),
          ...(entry.providerOptions === undefined ? {} : { providerOptions: entry.providerOptions as NonNullable<AgentOptions['providerOptions']> }),
          ...(options.provider === undefined ? {} : { provider: options.provider }),
          ...options.agentOptions?.(entry),
        });
        executors.set(entry, executor);
      }
      return executor;
    },
    judgeFor(entry, kind) {
      const model = firstModel(entry.judge, entry.model, entry.executor?.judge, entry.executor?.model);
      return model === undefined ? undefined : judgmentExecutor(kind, model, options.provider);
    },
  };
}

/**
 * Which model a step talks to, and how one model call's usage is counted. The step contract
 * types models opaquely (it compiles without `ai`); this is where `executor/` narrows them.
 */
import type { LanguageModel, LanguageModelUsage } from 'ai';
import { E2EError } from '../errors/index.js';
import type { ModelUsage, OpaqueLanguageModel, StepContext } from '../contract/step-contract.js';

/** True for a value the AI SDK accepts as a `LanguageModel`: a model id string or a model object. */
export function isLanguageModel(value: unknown): value is LanguageModel {
  if (typeof value === 'string') return value.length > 0;
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { specificationVersion?: unknown; doGenerate?: unknown };
  return typeof candidate.specificationVersion === 'string' && typeof candidate.doGenerate === 'function';
}

/**
 * The first usable model among `candidates`, or `MODEL_UNAVAILABLE` naming what to configure.
 * `purpose` says what the model was for ("the act step", "the judgment").
 */
export function requireModel(purpose: string, ...candidates: Array<OpaqueLanguageModel | undefined>): LanguageModel {
  for (const candidate of candidates) if (isLanguageModel(candidate)) return candidate;
  const configured = candidates.find((candidate) => candidate !== undefined);
  const reason =
    configured === undefined
      ? 'no model is configured'
      : 'the configured model is not an AI SDK language model (a provider model such as openai("gpt-5-mini"))';
  throw new E2EError('MODEL_UNAVAILABLE', `Cannot run ${purpose}: ${reason}. Set \`model\` on the agent entry.`);
}

/** The model a judgment uses: the step's judge, else its model. */
export function judgeModelOf(ctx: StepContext): LanguageModel {
  return requireModel('the judgment', ctx.judge, ctx.model);
}

/** The AI SDK's usage of one call in the contract's shape (absent numbers stay absent). */
export function toModelUsage(usage: LanguageModelUsage | undefined, durationMs?: number): ModelUsage {
  const result: ModelUsage = {};
  if (durationMs !== undefined) result.durationMs = durationMs;
  if (usage === undefined) return result;
  if (usage.inputTokens !== undefined) result.inputTokens = usage.inputTokens;
  if (usage.outputTokens !== undefined) result.outputTokens = usage.outputTokens;
  const cached = usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens;
  if (cached !== undefined) result.cachedInputTokens = cached;
  return result;
}

/**
 * The options of one step call (`agent.act(instruction, options)` and the others), checked
 * once: an unknown key names the nearest one, a wrong type names the option.
 */
import { z } from 'zod';
import { E2EError, didYouMean } from '../errors/index.js';
import type { StepKind } from '../contract/step-contract.js';

/** Options of one step call. */
export interface RunStepOptions {
  params?: Record<string, unknown>;
  agent?: string;
  maxSteps?: number;
  maxModelCalls?: number;
  timeout?: number;
  vision?: boolean | 'only';
  interval?: number;
  /** For `extract`: a zod schema. */
  schema?: unknown;
  /** What this step adds to the agent's context (after the agent's and the test's). */
  agentContext?: string;
}

const positive = z.number().int().positive();
const OPTION_KEYS: Record<StepKind, string[]> = {
  act: ['params', 'agent', 'agentContext', 'maxSteps', 'maxModelCalls', 'timeout'],
  assert: ['params', 'agent', 'agentContext', 'vision', 'timeout'],
  waitFor: ['params', 'agent', 'agentContext', 'timeout', 'interval', 'vision'],
  extract: ['params', 'agent', 'agentContext', 'timeout', 'schema'],
};
const optionSchema = z.strictObject({
  params: z.record(z.string(), z.unknown()).optional(),
  agent: z.string().min(1).optional(),
  maxSteps: positive.optional(),
  maxModelCalls: positive.optional(),
  timeout: positive.optional(),
  vision: z.union([z.boolean(), z.literal('only')]).optional(),
  interval: positive.optional(),
  schema: z.unknown().optional(),
  agentContext: z.string().optional(),
});

/** Check the options of a `kind` call; throws `INVALID_ARGUMENT` naming the fix. */
export function parseOptions(kind: StepKind, options: unknown, method: string): RunStepOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new E2EError('INVALID_ARGUMENT', `${method} takes its options as an object, e.g. { ${OPTION_KEYS[kind].join(', ')} }.`);
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS[kind].includes(key)) {
      throw new E2EError('INVALID_ARGUMENT', `${method} has no option \`${key}\`${didYouMean(key, OPTION_KEYS[kind])}; it takes ${OPTION_KEYS[kind].join(', ')}.`);
    }
  }
  const parsed = optionSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new E2EError('INVALID_ARGUMENT', `${method}: option \`${issue.path.join('.')}\` ${issue.message}.`);
  }
  return parsed.data as RunStepOptions;
}

/** True for a zod-like schema (has `safeParse`). */
export function isSchema(value: unknown): value is { safeParse(input: unknown): { success: boolean } } {
  return typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}


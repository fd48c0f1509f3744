/**
 * `complete_step`: how a model ends a step. The tool checks the verdict's shape (a passed
 * verdict has no code, a blocked one needs one, runtime-only codes are not the model's to
 * give) and keeps the first valid one.
 */
import { tool, type Tool } from 'ai';
import { z } from 'zod';
import type { ErrorCode } from '../errors/index.js';
import type { StepVerdict } from '../contract/step-contract.js';

/** The name of the verdict tool. */
export const VERDICT_TOOL_NAME = 'complete_step';

/** Codes a model may put on a failed or blocked verdict. */
export const MODEL_VERDICT_CODES = [
  'ASSERTION_FAILED',
  'ASSERTION_INCONCLUSIVE',
  'ACTION_FAILED',
  'LOCATOR_NOT_FOUND',
  'AUTOMATION_UNSUPPORTED',
  'AUTH_CREDENTIAL_INVALID',
  'AUTH_CREDENTIAL_UNAVAILABLE',
  'SECRET_UNAVAILABLE',
  'SEED_DATA_MISSING',
  'APP_UNREACHABLE',
] as const satisfies readonly ErrorCode[];

/** The verdict tool's input. */
export const verdictInputSchema = z.strictObject({
  status: z.enum(['passed', 'failed', 'blocked']),
  summary: z.string().min(1).max(2000),
  errorCode: z.enum(MODEL_VERDICT_CODES).optional(),
});

/** The verdict tool's input type. */
export type VerdictInput = z.infer<typeof verdictInputSchema>;

/**
 * Guidance for the verdict tool, in the words the built-in agent uses. Append it to a system
 * prompt whenever a model is given `complete_step`.
 */
export const VERDICT_RULES = [
  'End with complete_step alone, after seeing your last result. passed: done and shown on screen; no errorCode. failed: the app misbehaves (a check does not hold, a control does not respond, what the step names is missing); give the fitting errorCode. blocked: something outside the app stops you (no credentials, missing data, an error page, a need beyond these tools); errorCode required.',
  'Summarize what you saw; claim nothing you did not see.',
].join('\n');

/** What {@link createVerdictTool} returns. */
export interface VerdictTool {
  /** The AI SDK tool to offer as `complete_step`. */
  tool: Tool<VerdictInput, string>;
  /** The first accepted verdict, or undefined while none was given. */
  verdict(): StepVerdict | undefined;
}

/** Why a verdict input is refused, or undefined when it is acceptable. */
export function verdictProblem(input: VerdictInput): string | undefined {
  if (input.status === 'passed' && input.errorCode !== undefined) return 'A passed verdict takes no errorCode. Call complete_step again without it.';
  if (input.status === 'blocked' && input.errorCode === undefined) return 'A blocked verdict needs an errorCode. Call complete_step again with one.';
  return undefined;
}

/** Turn an accepted input into a `StepVerdict`. */
export function toStepVerdict(input: VerdictInput): StepVerdict {
  const verdict: StepVerdict = { status: input.status, summary: input.summary.trim() };
  if (input.errorCode !== undefined) verdict.errorCode = input.errorCode;
  return verdict;
}

/**
 * The verdict tool for executors that drive a model themselves: give the model `tool` and
 * {@link VERDICT_RULES}, run the loop, then return `verdict()`. A refused input comes back
 * to the model as an explanation; the first accepted verdict wins.
 */
export function createVerdictTool(): VerdictTool {
  let accepted: StepVerdict | undefined;
  const verdictTool = tool({
    description: 'End the step.',
    inputSchema: verdictInputSchema,
    execute: (input: VerdictInput): string => {
      if (accepted !== undefined) return `A verdict was already recorded (${accepted.status}).`;
      const problem = verdictProblem(input);
      if (problem !== undefined) return problem;
      accepted = toStepVerdict(input);
      return `Verdict recorded: ${accepted.status}.`;
    },
  });
  return { tool: verdictTool, verdict: () => accepted };
}

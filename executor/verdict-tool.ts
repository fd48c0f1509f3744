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

/** The codes an `act` step's verdict may carry: an act step asserts nothing that could be inconclusive. */
export const ACT_VERDICT_CODES = MODEL_VERDICT_CODES.filter((code) => code !== 'ASSERTION_INCONCLUSIVE');

/** Longest verdict summary. */
const MAX_SUMMARY_CHARS = 2000;

/** The verdict tool's input schema offering `codes`; the summary's bounds are checked, not sent (every request repeats the schema). */
function verdictSchema(codes: readonly (typeof MODEL_VERDICT_CODES)[number][]) {
  return z.strictObject({
    status: z.enum(['passed', 'failed', 'blocked']),
    summary: z.string().refine((summary) => summary.trim().length >= 1 && summary.length <= MAX_SUMMARY_CHARS, `1 to ${MAX_SUMMARY_CHARS} characters`),
    // The codes are named in VERDICT_RULES and checked here, not listed in the schema every request repeats.
    errorCode: z
      .string()
      .refine((code) => (codes as readonly string[]).includes(code), `one of ${codes.join(', ')}`)
      .optional(),
  });
}

/** The verdict tool's input. */
export const verdictInputSchema = verdictSchema(MODEL_VERDICT_CODES);

/** The verdict tool's input type. */
export type VerdictInput = z.infer<typeof verdictInputSchema>;

/**
 * Guidance for the verdict tool, in the words the built-in agent uses. Append it to a system
 * prompt whenever a model is given `complete_step`.
 */
export const VERDICT_RULES = [
  'End with complete_step, alone or after your last action, once its changes show the outcome. passed: done and shown. failed, the app misbehaves: ASSERTION_FAILED, ACTION_FAILED or LOCATOR_NOT_FOUND. blocked, something else stops you: AUTH_CREDENTIAL_INVALID, AUTH_CREDENTIAL_UNAVAILABLE, SECRET_UNAVAILABLE, SEED_DATA_MISSING, APP_UNREACHABLE or AUTOMATION_UNSUPPORTED. Claim only what you saw.',
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
  // The schema admitted only codes of MODEL_VERDICT_CODES.
  if (input.errorCode !== undefined) verdict.errorCode = input.errorCode as ErrorCode;
  return verdict;
}

/**
 * The verdict tool for executors that drive a model themselves: give the model `tool` and
 * {@link VERDICT_RULES}, run the loop, then return `verdict()`. A refused input comes back
 * to the model as an explanation; the first accepted verdict wins.
 */
export function createVerdictTool(options: { codes?: readonly (typeof MODEL_VERDICT_CODES)[number][] } = {}): VerdictTool {
  let accepted: StepVerdict | undefined;
  const verdictTool = tool({
    inputSchema: options.codes === undefined ? verdictInputSchema : verdictSchema(options.codes),
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

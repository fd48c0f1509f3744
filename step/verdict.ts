/**
 * Verdict rules (DESIGN §3): `passed` has no code, `blocked` needs one, and the
 * runtime-only codes are accepted only when they are true. Any misuse becomes a failed
 * verdict with `MODEL_OUTPUT_INVALID`.
 */
import { z } from 'zod';
import { ERROR_CODES, codesWith, exitClassOf, type ErrorCode } from '../errors/index.js';
import type { StepEvidence, StepKind, StepVerdict } from '../contract/step-contract.js';

/** Codes only the runtime may assert (the `runtimeOnly` trait); an executor may return them only when they hold. */
export const RUNTIME_ONLY_CODES: readonly ErrorCode[] = codesWith('runtimeOnly');

const verdictSchema = z.strictObject({
  status: z.enum(['passed', 'failed', 'blocked']),
  summary: z.string().max(20_000),
  errorCode: z.enum(ERROR_CODES).optional(),
  value: z.unknown().optional(),
  // Checked apart by stepEvidenceOf: bad evidence makes a judgment uncacheable, not invalid.
  evidence: z.unknown().optional(),
});

const evidenceSchema = z.strictObject({
  nodeIds: z.array(z.string().max(200)).max(500),
  revision: z.number().int().min(0),
  cacheable: z.boolean(),
});

/** What the runtime knows at the end of a step. */
export interface StepFacts {
  budgetSpent: boolean;
  deadlinePassed: boolean;
  cancelled: boolean;
}

function invalid(reason: string): StepVerdict {
  return { status: 'failed', errorCode: 'MODEL_OUTPUT_INVALID', summary: `The executor returned an unusable verdict: ${reason}.` };
}

/** The code a failed verdict without one gets. */
export function defaultFailureCode(kind: StepKind): ErrorCode {
  return kind === 'assert' || kind === 'waitFor' ? 'ASSERTION_FAILED' : 'ACTION_FAILED';
}

/** Why an executor's runtime-only code does not hold, or undefined when it does. */
function untrueRuntimeClaim(code: ErrorCode, facts: StepFacts): string | undefined {
  switch (code) {
    case 'STEP_BUDGET_EXHAUSTED':
      return facts.budgetSpent ? undefined : 'STEP_BUDGET_EXHAUSTED was returned while budget remained';
    case 'STEP_TIMEOUT':
      return facts.deadlinePassed ? undefined : 'STEP_TIMEOUT was returned before the step deadline';
    case 'CANCELLED':
      return facts.cancelled ? undefined : 'CANCELLED was returned while the test was not cancelled';
    default:
      // A runtime-only code without a fact to check it against is never the executor's to claim.
      return `${code} is the runtime's to report`;
  }
}

/** Check an executor's verdict against the rules and the facts; misuse becomes `MODEL_OUTPUT_INVALID`. */
export function checkVerdict(raw: unknown, kind: StepKind, facts: StepFacts): StepVerdict {
  const parsed = verdictSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'the verdict' : `\`${issue.path.join('.')}\``;
    return invalid(`${where} ${issue?.message ?? 'is malformed'} (expected { status: 'passed' | 'failed' | 'blocked', summary, errorCode? })`);
  }
  const { status, summary, errorCode, value } = parsed.data;
  if (status === 'passed') {
    if (errorCode !== undefined) return invalid(`a passed verdict carries no error code, but it had ${errorCode}`);
    return kind === 'extract' && value !== undefined ? { status, summary, value } : { status, summary };
  }
  if (errorCode === undefined) {
    if (status === 'blocked') return invalid('a blocked verdict needs an error code');
    return { status, summary, errorCode: defaultFailureCode(kind) };
  }
  if (RUNTIME_ONLY_CODES.includes(errorCode)) {
    const untrue = untrueRuntimeClaim(errorCode, facts);
    if (untrue !== undefined) return invalid(untrue);
  }
  return { status, summary, errorCode };
}

/** The status a runtime error ends a step with: `blocked` for configuration and infrastructure codes, `failed` otherwise. */
export function statusForCode(code: ErrorCode): 'failed' | 'blocked' {
  const exitClass = exitClassOf(code);
  return exitClass === 1 ? 'failed' : 'blocked';
}

/**
 * The evidence of a passed judgment verdict, or undefined: other kinds, other statuses and
 * malformed evidence carry none (the judgment then is simply not cached).
 */
export function stepEvidenceOf(raw: unknown, kind: StepKind): StepEvidence | undefined {
  if (kind === 'act' || typeof raw !== 'object' || raw === null) return undefined;
  const { status, evidence } = raw as { status?: unknown; evidence?: unknown };
  if (status !== 'passed' || evidence === undefined) return undefined;
  const parsed = evidenceSchema.safeParse(evidence);
  return parsed.success ? { nodeIds: [...parsed.data.nodeIds], revision: parsed.data.revision, cacheable: parsed.data.cacheable } : undefined;
}

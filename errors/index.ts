/**
 * The one error vocabulary of e2e. Every failure a user can see carries a code from
 * {@link ERROR_CODES}; the exit-code class of a run follows from the codes (DESIGN §3).
 * This folder is a leaf: it imports nothing, and every other folder may import it.
 */

/** Codes of step outcomes and runtime failures, the closed list of DESIGN §3 plus the few internal ones. */
export const ERROR_CODES = [
  // exit 1: test failure
  'ASSERTION_FAILED',
  'ASSERTION_INCONCLUSIVE',
  'ACTION_FAILED',
  'LOCATOR_NOT_FOUND',
  'AUTOMATION_UNSUPPORTED',
  'STEP_BUDGET_EXHAUSTED',
  'STEP_TIMEOUT',
  'STEP_NO_CONCLUSION',
  'MODEL_OUTPUT_INVALID',
  'CONTEXT_OVERFLOW',
  'TEST_TIMEOUT',
  // exit 2: configuration
  'INVALID_CONFIG',
  'MODEL_UNAVAILABLE',
  'AUTH_CREDENTIAL_INVALID',
  'AUTH_CREDENTIAL_UNAVAILABLE',
  'SECRET_UNAVAILABLE',
  'SEED_DATA_MISSING',
  'TEST_SETUP_FAILED',
  'POLICY_DENIED',
  'REPLAY_STALE',
  'UNSUPPORTED_CAPABILITY',
  // exit 3: infrastructure
  'ENVIRONMENT_UNAVAILABLE',
  'APP_UNREACHABLE',
  'MODEL_PROVIDER_FAILED',
  'ENGINE_FAILURE',
  // exit 130
  'CANCELLED',
  // programmer / argument errors (exit 2 when they reach the CLI)
  'INVALID_ARGUMENT',
  'INVALID_STATE',
  'CACHE_WRITE_FAILED',
  'CACHE_VERSION_UNSUPPORTED',
] as const;

/** A stable error code. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The exit-code class of a code. */
export type ExitClass = 0 | 1 | 2 | 3 | 130;

const EXIT_CLASS: Record<ErrorCode, ExitClass> = {
  ASSERTION_FAILED: 1,
  ASSERTION_INCONCLUSIVE: 1,
  ACTION_FAILED: 1,
  LOCATOR_NOT_FOUND: 1,
  AUTOMATION_UNSUPPORTED: 1,
  STEP_BUDGET_EXHAUSTED: 1,
  STEP_TIMEOUT: 1,
  STEP_NO_CONCLUSION: 1,
  MODEL_OUTPUT_INVALID: 1,
  CONTEXT_OVERFLOW: 1,
  TEST_TIMEOUT: 1,
  INVALID_CONFIG: 2,
  MODEL_UNAVAILABLE: 2,
  AUTH_CREDENTIAL_INVALID: 2,
  AUTH_CREDENTIAL_UNAVAILABLE: 2,
  SECRET_UNAVAILABLE: 2,
  SEED_DATA_MISSING: 2,
  TEST_SETUP_FAILED: 2,
  POLICY_DENIED: 2,
  REPLAY_STALE: 2,
  UNSUPPORTED_CAPABILITY: 2,
  ENVIRONMENT_UNAVAILABLE: 3,
  APP_UNREACHABLE: 3,
  MODEL_PROVIDER_FAILED: 3,
  ENGINE_FAILURE: 3,
  CANCELLED: 130,
  INVALID_ARGUMENT: 2,
  INVALID_STATE: 2,
  CACHE_WRITE_FAILED: 3,
  CACHE_VERSION_UNSUPPORTED: 2,
};

/** Exit class of one code (DESIGN §3 table). */
export function exitClassOf(code: ErrorCode): ExitClass {
  return EXIT_CLASS[code];
}

/** Highest-wins combination of exit classes: 130 > 3 > 2 > 1 > 0. */
export function combineExitClasses(classes: Iterable<ExitClass>): ExitClass {
  const order: ExitClass[] = [0, 1, 2, 3, 130];
  let best: ExitClass = 0;
  for (const value of classes) if (order.indexOf(value) > order.indexOf(best)) best = value;
  return best;
}

/** True when `value` is one of the known codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

const MARKER = Symbol.for('e2e.error');

/**
 * The base error of e2e. `code` is stable; `message` names the fix and never carries a
 * secret value or decoded cache content.
 */
export class E2EError extends Error {
  /** Marker that survives duplicate module copies (checked by {@link isE2EError}). */
  readonly [MARKER] = true;
  override readonly name: string = 'E2EError';
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/** Cross-copy check for {@link E2EError}. */
export function isE2EError(value: unknown): value is E2EError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}

/** A failed or blocked agent step surfaced to the test (`agent.act` throws it). */
export class AgentError extends E2EError {
  override readonly name: string = 'AgentError';
  readonly status: 'failed' | 'blocked';

  constructor(code: ErrorCode, message: string, status: 'failed' | 'blocked', options?: { cause?: unknown }) {
    super(code, message, options);
    this.status = status;
  }
}

/** Levenshtein distance, for did-you-mean suggestions. */
function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** The nearest of `candidates` to `name`, or undefined when none is close. */
export function nearestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** " (did you mean `x`?)" or "" */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const nearest = nearestName(name, candidates);
  return nearest === undefined ? '' : ` (did you mean \`${nearest}\`?)`;
}

/** The message of a thrown value, for logs and summaries (a non-Error is turned into text). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The closed list of error codes (DESIGN §3). What each code means to the rest of e2e (its
 * exit class and traits) is one table beside it, `code-traits.ts`.
 */

/** Codes of step outcomes and runtime failures, the closed list of DESIGN §3 plus the few internal ones. */
export const ERROR_CODES = [
  // exit 1: test failure (classes and traits: code-traits.ts)
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

/**
 * Runtime hard stops: failures a model cannot work around, so a tool loop must end the step
 * and let them reach the runner instead of reporting them to the model as text.
 */
import { isE2EError, type ErrorCode } from '../errors/index.js';

/**
 * Codes that end a step whatever the model would try next: spent budgets and deadlines,
 * cancellation, policy refusals (the configuration must change, not the approach), and
 * broken infrastructure (browser, app server, model provider).
 */
export const RUNTIME_HARD_STOP_CODES: readonly ErrorCode[] = [
  'STEP_BUDGET_EXHAUSTED',
  'STEP_TIMEOUT',
  'TEST_TIMEOUT',
  'CANCELLED',
  'POLICY_DENIED',
  'SECRET_UNAVAILABLE',
  'ENGINE_FAILURE',
  'ENVIRONMENT_UNAVAILABLE',
  'APP_UNREACHABLE',
  'MODEL_UNAVAILABLE',
  'MODEL_PROVIDER_FAILED',
  'INVALID_STATE',
];

/**
 * True for an error that must end the step and propagate: an `E2EError` whose code is in
 * {@link RUNTIME_HARD_STOP_CODES}. A tool wrapped in `guard()` rethrows these; anything else
 * goes back to the model as text.
 */
export function isRuntimeHardStop(error: unknown): boolean {
  return isE2EError(error) && RUNTIME_HARD_STOP_CODES.includes(error.code);
}

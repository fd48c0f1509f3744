/**
 * Runtime hard stops: failures a model cannot work around, so a tool loop must end the step
 * and let them reach the runner instead of reporting them to the model as text.
 */
import { codesWith, hasTrait, isE2EError, type ErrorCode } from '../errors/index.js';

/**
 * Codes that end a step whatever the model would try next (the `hardStop` trait of
 * `errors/code-traits.ts`): spent budgets and deadlines, cancellation, policy refusals (the
 * configuration must change, not the approach), and broken infrastructure (browser, app
 * server, model provider).
 */
export const RUNTIME_HARD_STOP_CODES: readonly ErrorCode[] = codesWith('hardStop');

/**
 * True for an error that must end the step and propagate: an `E2EError` whose code is in
 * {@link RUNTIME_HARD_STOP_CODES}. A tool wrapped in `guard()` rethrows these; anything else
 * goes back to the model as text.
 */
export function isRuntimeHardStop(error: unknown): boolean {
  return isE2EError(error) && hasTrait(error.code, 'hardStop');
}

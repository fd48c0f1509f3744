/**
 * Usage errors of the review commands: `INVALID_ARGUMENT`, one line naming the fix, exit 2
 * (the CLI's output sink prints them as `error: …`).
 */
import { E2EError } from '../errors/index.js';

/** A usage error: exit 2 with one line that names the fix. */
export function usageError(message: string): E2EError {
  return new E2EError('INVALID_ARGUMENT', message);
}

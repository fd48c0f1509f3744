/**
 * Playwright's own messages for mistakes e2e users make, turned into coded errors that name
 * the fix. Playwright raises them before e2e code runs (loading a test file), so the
 * redacting reporter, which sees every error first, puts the coded line in front of the
 * original message in place: every reporter then shows it, and the e2e reporter reads its code.
 */
import type { ErrorCode } from '../errors/index.js';

/** A recognised mistake: its code and the message naming the fix. */
export interface ExplainedMistake {
  code: ErrorCode;
  message: string;
}

const E2E_FIXTURES = new Set(['app', 'agent', 'screen', 'e2eAttempt']);

/** The coded explanation of a Playwright message, when it is a mistake e2e knows. */
export function explainKnownMistake(message: string): ExplainedMistake | undefined {
  const unknownFixture = /Test has unknown parameter "([^"]+)"/.exec(message)?.[1];
  if (unknownFixture !== undefined && E2E_FIXTURES.has(unknownFixture)) {
    return {
      code: 'TEST_SETUP_FAILED',
      message: `The test takes the e2e fixture "${unknownFixture}", but its \`test\` is Playwright's: import { test } from 'e2e' instead of from '@playwright/test' (\`expect\` may come from either).`,
    };
  }
  return undefined;
}

/** Put the coded explanation in front of `error.message` (and its stack) in place; true when it did. */
export function explainInPlace(error: { message?: string; stack?: string }): boolean {
  if (error.message === undefined) return false;
  const explained = explainKnownMistake(error.message);
  if (explained === undefined || error.message.startsWith(`${explained.code}: `)) return false;
  const head = `${explained.code}: ${explained.message}`;
  error.message = `${head}\n\n${error.message}`;
  if (error.stack !== undefined) error.stack = `${head}\n\n${error.stack}`;
  return true;
}

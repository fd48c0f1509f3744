import { describe, expect, it } from 'vitest';
import { explainInPlace, explainKnownMistake } from './known-mistakes.js';

describe('known mistakes', () => {
  it("turns Playwright's unknown e2e fixture into a coded error saying to import test from 'e2e', once", () => {
    expect(explainKnownMistake('Test has unknown parameter "app".')).toMatchObject({ code: 'TEST_SETUP_FAILED', message: expect.stringContaining("import { test } from 'e2e'") });
    const error = { message: 'Test has unknown parameter "agent".', stack: 'Test has unknown parameter "agent".\n    at x.e2e.ts:3' };
    expect(explainInPlace(error)).toBe(true);
    expect(error.message).toMatch(/^TEST_SETUP_FAILED: The test takes the e2e fixture "agent", but its `test` is Playwright's[\s\S]*\n\nTest has unknown parameter "agent"\.$/);
    expect(error.stack.startsWith('TEST_SETUP_FAILED: ')).toBe(true);
    expect(explainInPlace(error)).toBe(false);
  });

  it('leaves other unknown parameters and other messages alone', () => {
    expect(explainKnownMistake('Test has unknown parameter "todoPage".')).toBeUndefined();
    const error = { message: 'expect(received).toBe(expected)' };
    expect(explainInPlace(error)).toBe(false);
    expect(error.message).toBe('expect(received).toBe(expected)');
  });
});

/**
 * The one table of error-code traits: every code has a row, and the decisions that were
 * spread over five files read the same answers from it.
 */
import { describe, expect, it } from 'vitest';
import { CODE_TRAITS, E2EError, ERROR_CODES, cleanedCause, codesWith, exitClassOf, hasTrait, isE2EError, isErrorCode } from './index.js';

describe('the error-code traits table', () => {
  it('has exactly one row per code and answers the exit class from it', () => {
    expect(Object.keys(CODE_TRAITS).sort()).toEqual([...ERROR_CODES].sort());
    expect([exitClassOf('ASSERTION_FAILED'), exitClassOf('INVALID_CONFIG'), exitClassOf('APP_UNREACHABLE'), exitClassOf('CANCELLED'), exitClassOf('CACHE_WRITE_FAILED')]).toEqual([1, 2, 3, 130, 3]);
    expect(isErrorCode('POLICY_DENIED')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
  });

  it('names the runtime-only, hard-stop, replay-ending, pre-flight and no-model codes', () => {
    expect(codesWith('runtimeOnly')).toEqual(['STEP_BUDGET_EXHAUSTED', 'STEP_TIMEOUT', 'CANCELLED']);
    expect(codesWith('hardStop').sort()).toEqual(
      ['STEP_BUDGET_EXHAUSTED', 'STEP_TIMEOUT', 'TEST_TIMEOUT', 'CANCELLED', 'POLICY_DENIED', 'SECRET_UNAVAILABLE', 'ENGINE_FAILURE', 'ENVIRONMENT_UNAVAILABLE', 'APP_UNREACHABLE', 'MODEL_UNAVAILABLE', 'MODEL_PROVIDER_FAILED', 'INVALID_STATE'].sort(),
    );
    expect(codesWith('endsReplay').sort()).toEqual(['CANCELLED', 'STEP_BUDGET_EXHAUSTED', 'STEP_TIMEOUT', 'TEST_TIMEOUT']);
    expect(codesWith('preFlight').sort()).toEqual(['INVALID_ARGUMENT', 'SECRET_UNAVAILABLE', 'UNSUPPORTED_CAPABILITY']);
    expect(codesWith('mayHaveCommitted').sort()).toEqual(['POLICY_DENIED', 'STEP_TIMEOUT']);
    expect(codesWith('noModel').sort()).toEqual(['MODEL_PROVIDER_FAILED', 'MODEL_UNAVAILABLE']);
    expect(codesWith('freezesCache').sort()).toEqual(['CANCELLED', 'MODEL_PROVIDER_FAILED', 'MODEL_UNAVAILABLE', 'REPLAY_STALE']);
  });

  it('keeps every runtime-only code a hard stop that ends a replay', () => {
    for (const code of codesWith('runtimeOnly')) expect([code, hasTrait(code, 'hardStop'), hasTrait(code, 'endsReplay')]).toEqual([code, true, true]);
    expect(hasTrait(undefined, 'noModel')).toBe(false);
  });
});

describe('cleanedCause', () => {
  it("keeps a re-wrap's cause, its name, code and chain, with its text cleaned", () => {
    const inner = new Error('socket closed while typing hunter2');
    const original = new E2EError('ENGINE_FAILURE', 'fill failed: hunter2', { cause: inner });
    const clean = (text: string): string => text.replaceAll('hunter2', '<secret:pw>');
    const cause = cleanedCause(original, clean);
    const rewrapped = new E2EError('ENGINE_FAILURE', clean(original.message), { cause });
    expect(isE2EError(rewrapped.cause)).toBe(true);
    expect(rewrapped.cause).toMatchObject({ name: 'E2EError', code: 'ENGINE_FAILURE', message: 'fill failed: <secret:pw>' });
    expect((rewrapped.cause as Error).cause).toMatchObject({ name: 'Error', message: 'socket closed while typing <secret:pw>' });
    expect(JSON.stringify([(rewrapped.cause as Error).stack, ((rewrapped.cause as Error).cause as Error).stack])).not.toContain('hunter2');
    expect(cleanedCause('thrown hunter2', clean)).toBe('thrown <secret:pw>');
  });
});

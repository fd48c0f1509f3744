import { describe, expect, it } from 'vitest';
import { ACTION_TIMEOUT_MS, DEFAULT_JUDGMENT_TIMEOUT_MS, ENGINE_TIMEOUT_MARGIN_MS, engineTimeoutFor, limitsFor } from './budgets.js';

const base = { viaExecutor: false, entry: {}, call: {}, testTimeoutMs: 120_000 };

describe('step limits', () => {
  it('give judgments 30 s, or the action timeout when it is larger, unless the call sets one', () => {
    expect(limitsFor('assert', base).timeoutMs).toBe(DEFAULT_JUDGMENT_TIMEOUT_MS);
    expect(limitsFor('extract', { ...base, actionTimeoutMs: 10_000 }).timeoutMs).toBe(30_000);
    expect(limitsFor('waitFor', { ...base, actionTimeoutMs: 45_000 }).timeoutMs).toBe(45_000);
    expect(limitsFor('assert', { ...base, actionTimeoutMs: 45_000, call: { timeoutMs: 5_000 } }).timeoutMs).toBe(5_000);
  });

  it('leave act and an executor-run assert on the test timeout whatever the action timeout', () => {
    expect(limitsFor('act', { ...base, actionTimeoutMs: 45_000 }).timeoutMs).toBe(120_000);
    expect(limitsFor('assert', { ...base, viaExecutor: true, actionTimeoutMs: 45_000 }).timeoutMs).toBe(120_000);
  });
});

describe('the engine timeout of an action', () => {
  it('ends a second before the runner bound, so the engine reports why it could not act', () => {
    expect(engineTimeoutFor(ACTION_TIMEOUT_MS)).toBe(ACTION_TIMEOUT_MS - ENGINE_TIMEOUT_MARGIN_MS);
    expect(engineTimeoutFor(60_000)).toBe(ACTION_TIMEOUT_MS - ENGINE_TIMEOUT_MARGIN_MS);
    expect(engineTimeoutFor(5_000)).toBe(4_000);
  });

  it('takes half of a bound too short for the margin, and never 0 (Playwright reads 0 as no timeout)', () => {
    expect(engineTimeoutFor(1_500)).toBe(750);
    expect(engineTimeoutFor(1)).toBe(1);
    expect(engineTimeoutFor(0)).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { createVerdictTool, verdictInputSchema } from './verdict-tool.js';

const options = { toolCallId: 'x', messages: [] };

describe('the verdict tool', () => {
  it('records the first acceptable verdict and ignores later ones', async () => {
    const { tool, verdict } = createVerdictTool();
    expect(verdict()).toBeUndefined();
    expect(await tool.execute!({ status: 'passed', summary: 'Two todos are listed.' }, options)).toBe('Verdict recorded: passed.');
    expect(await tool.execute!({ status: 'failed', summary: 'late' }, options)).toMatch(/already recorded/);
    expect(verdict()).toEqual({ status: 'passed', summary: 'Two todos are listed.' });
  });

  it('refuses a passed verdict with a code and a blocked one without', async () => {
    const { tool, verdict } = createVerdictTool();
    expect(await tool.execute!({ status: 'passed', summary: 'ok', errorCode: 'ACTION_FAILED' }, options)).toMatch(/takes no errorCode/);
    expect(await tool.execute!({ status: 'blocked', summary: 'no login' }, options)).toMatch(/needs an errorCode/);
    expect(verdict()).toBeUndefined();
    await tool.execute!({ status: 'blocked', summary: 'no login', errorCode: 'AUTH_CREDENTIAL_UNAVAILABLE' }, options);
    expect(verdict()).toEqual({ status: 'blocked', summary: 'no login', errorCode: 'AUTH_CREDENTIAL_UNAVAILABLE' });
  });

  it('does not let the model claim runtime-only codes or add fields', () => {
    expect(verdictInputSchema.safeParse({ status: 'failed', summary: 's', errorCode: 'STEP_TIMEOUT' }).success).toBe(false);
    expect(verdictInputSchema.safeParse({ status: 'failed', summary: 's', extra: 1 }).success).toBe(false);
    expect(verdictInputSchema.safeParse({ status: 'failed', summary: 's', errorCode: 'ASSERTION_FAILED' }).success).toBe(true);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { web } from '../../engines/web/index.js';
import { defineConfig, type E2EConfig } from '../../runner/config.js';

const base: E2EConfig = { targets: [{ engine: web(), app: { url: 'http://127.0.0.1:4173' } }] };

function failure(options: E2EConfig): { code: string; message: string } | undefined {
  try {
    defineConfig(options);
  } catch (error) {
    return error as { code: string; message: string };
  }
  return undefined;
}

afterEach(() => {
  delete process.env['E2E_SECRET_TOKEN'];
  delete process.env['E2E_SECRET_STRAY'];
});

describe('defineConfig and secrets that cannot be redacted safely', () => {
  it('refuses a short or common value given in the config or the environment with INVALID_CONFIG', () => {
    expect(failure({ ...base, secrets: { token: 't' } })).toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining('the secret `token` cannot be redacted safely') as string });
    process.env['E2E_SECRET_TOKEN'] = 'the';
    expect(failure({ ...base, secrets: { token: undefined } })?.message).toContain('`token`');
    delete process.env['E2E_SECRET_TOKEN'];
    process.env['E2E_SECRET_STRAY'] = 'test';
    expect(failure(base)?.message).toContain('the secret `E2E_SECRET_STRAY` cannot be redacted safely: its value is a common word');
  });

  it('accepts a long secret', () => {
    expect(failure({ ...base, secrets: { token: 'x7'.repeat(32768) } })).toBeUndefined();
  });
});

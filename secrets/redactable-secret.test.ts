import { describe, expect, it } from 'vitest';
import { isE2EError } from '../errors/index.js';
import { COMMON_WORDS, refuseUnsafeSecrets, SHORTEST_SECRET, unsafeSecretReason } from './redactable-secret.js';

function refusal(secrets: Array<readonly [string, string | undefined]>): { code: string; message: string } {
  try {
    refuseUnsafeSecrets(secrets);
  } catch (error) {
    if (isE2EError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the secrets were accepted');
}

describe('which secrets can be redacted safely', () => {
  it('refuses a value of 1 or 3 characters, naming the secret and the minimum, never the value', () => {
    for (const value of ['§', 'Q7z']) {
      const { code, message } = refusal([['token', value]]);
      expect(code).toBe('INVALID_CONFIG');
      expect(message).toContain('the secret `token` cannot be redacted safely');
      expect(message).toContain(`fewer than the ${SHORTEST_SECRET} a secret needs`);
      expect(message).not.toContain(value);
    }
  });

  it('counts no spaces, dashes or colour codes, which the redactor skips between characters', () => {
    expect(unsafeSecretReason('a - b')).toContain('has 2 characters');
    expect(unsafeSecretReason('\u001b[31mab\u001b[0m')).toContain('has 2 characters');
    expect(unsafeSecretReason('xq-7z')).toBeUndefined();
  });

  it('refuses a common word in any case and spacing, and names every refused secret at once', () => {
    expect(SHORTEST_SECRET).toBe(4);
    expect(COMMON_WORDS.has('password')).toBe(true);
    const { code, message } = refusal([
      ['one', 'Pass-Word'],
      ['two', 'the'],
      ['fine', 'Kx9 canary/Vault+81'],
      ['unset', undefined],
    ]);
    expect(code).toBe('INVALID_CONFIG');
    expect(message).toContain('the secret `one` cannot be redacted safely: its value is a common word');
    expect(message).toContain('the secret `two` cannot be redacted safely: its value has 3 characters');
    expect(message).not.toContain('`fine`');
    expect(message).not.toContain('`unset`');
  });

  it('accepts 4 characters, long keys and Unicode values', () => {
    expect(() => refuseUnsafeSecrets([['pin', '4417-9'], ['key', 'k'.repeat(65536)], ['umlaut', 'Grüße'], ['empty', '']])).not.toThrow();
  });
});

import { describe, expect, it } from 'vitest';
import { environmentHints } from './environment-hints.js';

describe('environment variable hints', () => {
  it('names the variable e2e reads for a near miss that is set while the real one is not', () => {
    expect(environmentHints({ OPENAI_APIKEY: 'sk-1', E2E_OPENAI_COMPATIBLE_URI: 'http://127.0.0.1:1/v1', PATH: '/bin' })).toEqual([
      'OPENAI_APIKEY is set, but e2e reads OPENAI_API_KEY: did you mean it?',
      'E2E_OPENAI_COMPATIBLE_URI is set, but e2e reads E2E_OPENAI_COMPATIBLE_URL: did you mean it?',
    ]);
  });

  it('says nothing about correct names, secrets, unrelated variables, or a near miss whose real name is set too', () => {
    expect(environmentHints({ OPENAI_API_KEY: 'sk-1', OPENAI_APIKEY: 'sk-2', E2E_SECRET_PIN: '1', HOME: '/root', OPENAI_ORG_ID: 'org' })).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { maskValue, sensitiveKinds } from './risky-values.js';

describe('sensitive-looking literals', () => {
  it('flags email addresses', () => {
    expect(sensitiveKinds('jane.doe+shop@example.co.uk')).toEqual(['email address']);
  });

  it('flags Luhn-valid card numbers with or without separators, not other digit runs', () => {
    expect(sensitiveKinds('4242 4242 4242 4242')).toEqual(['card number']);
    expect(sensitiveKinds('5555-5555-5555-4444')).toEqual(['card number']);
    expect(sensitiveKinds('4242 4242 4242 4241')).toEqual([]);
    expect(sensitiveKinds('0000000000000000')).toEqual([]);
    expect(sensitiveKinds('order 20250304')).toEqual([]);
  });

  it('flags provider keys, JWTs and long random strings as tokens', () => {
    expect(sensitiveKinds('sk_live_51HqLyjWDarjtT1zdp7dc')).toEqual(['token']);
    expect(sensitiveKinds('ghp_16C7e42F292c6912E7710c838347Ae178B4a')).toEqual(['token']);
    expect(sensitiveKinds('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U')).toEqual(['token']);
    expect(sensitiveKinds('AKIAIOSFODNN7EXAMPLE')).toEqual(['token']);
    expect(sensitiveKinds('q8Zt3Lm0Vx7Rb2Nw5Kc9Pj4Hs1Dy6Fg')).toEqual(['token']);
  });

  it('leaves ordinary words, sentences, URLs and slugs alone', () => {
    for (const text of ['Buy milk', 'Walk the dog twice a day', 'https://shop.example.com/orders/12345/items', 'internationalization-and-localization', 'SAVE10', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa']) {
      expect(sensitiveKinds(text)).toEqual([]);
    }
  });

  it('masks a value to its first characters and its length', () => {
    expect(maskValue('jane.doe@example.com')).toBe('"jane…" (20 characters)');
    expect(maskValue('1234')).toBe('"12…" (4 characters)');
  });
});

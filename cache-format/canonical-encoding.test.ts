import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isE2EError } from '../errors/index.js';
import { canonicalEncode } from './canonical-encoding.js';

/** Rebuilds `value` with every object's keys inserted in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).reverse().map(([key, item]) => [key, reversedKeys(item)]));
  }
  return value;
}

describe('canonicalEncode', () => {
  it('sorts object keys at every depth, so insertion order does not matter', () => {
    const first = canonicalEncode({ b: 1, a: { d: [1, { z: true, y: null }], c: 'x' } });
    const second = canonicalEncode({ a: { c: 'x', d: [1, { y: null, z: true }] }, b: 1 });
    expect(first).toBe(second);
    expect(first).toBe('{"a":{"c":"x","d":[1,{"y":null,"z":true}]},"b":1}');
  });

  it('orders integer-like keys as text, not in the engine’s numeric-first order', () => {
    expect(canonicalEncode({ b: 0, 10: 1, 2: 2 })).toBe('{"10":1,"2":2,"b":0}');
  });

  it('leaves out undefined properties, so an absent optional and an explicit undefined encode alike', () => {
    expect(canonicalEncode({ a: 1, b: undefined })).toBe(canonicalEncode({ a: 1 }));
  });

  it('escapes strings the way JSON does', () => {
    expect(canonicalEncode({ text: 'quote " backslash \\ newline \n' })).toBe('{"text":"quote \\" backslash \\\\ newline \\n"}');
  });

  it.each([
    ['undefined in an array', [1, undefined]],
    ['a top-level undefined', undefined],
    ['NaN', { value: Number.NaN }],
    ['Infinity', { value: Number.POSITIVE_INFINITY }],
    ['a bigint', { value: 1n }],
    ['a function', { value: () => 1 }],
    ['a Date', { value: new Date(0) }],
    ['a Map', { value: new Map() }],
  ])('refuses %s with a programmer error', (_label, value) => {
    let caught: unknown;
    try {
      canonicalEncode(value);
    } catch (error) {
      caught = error;
    }
    expect(isE2EError(caught) && caught.code).toBe('INVALID_ARGUMENT');
  });

  it('gives the same text for any JSON value whatever its key order (property-based)', () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`canonicalEncode property seed: ${seed}`);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalEncode(reversedKeys(value))).toBe(canonicalEncode(value));
      }),
      { seed, numRuns: 300 },
    );
  });
});

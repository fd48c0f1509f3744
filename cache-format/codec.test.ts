import { Packr, Unpackr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { isE2EError } from '../errors/index.js';
import { contentAddress, decodeCanonical, encodeCanonical, parseBlobName } from './codec.js';
import { MAX_NESTING_DEPTH } from './msgpack-scan.js';

const hex = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text.replace(/\s+/g, ''), 'hex'));

/** A MessagePack fixstr. */
function fixString(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return (0xa0 + bytes.length).toString(16) + bytes.toString('hex');
}

/** `depth` nested one-item arrays around the number 1. */
function nestedArrays(depth: number): Uint8Array {
  return hex('91'.repeat(depth) + '01');
}

function problemOf(bytes: Uint8Array): string {
  const result = decodeCanonical(bytes);
  if (result.ok) throw new Error('expected the bytes to be refused');
  return result.problem;
}

describe('encodeCanonical', () => {
  it('gives identical bytes for equal values whatever their key order', () => {
    const first = encodeCanonical({ b: [1, { y: 'x', x: null }], a: true });
    const second = encodeCanonical({ a: true, b: [1, { x: null, y: 'x' }] });
    expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
  });

  it('writes map keys in text order, integer-like keys included', () => {
    expect(Buffer.from(encodeCanonical({ b: 0, 10: 1, 2: 2 })).toString('hex')).toBe(`83${fixString('10')}01${fixString('2')}02${fixString('b')}00`);
  });

  it('round-trips plain values through the decoder', () => {
    const value = { text: 'héllo ✓', list: [1, -2, 3.5, 70000, -70000, 2 ** 40, null, false], nested: { deep: { deeper: 'x' } } };
    expect(decodeCanonical(encodeCanonical(value))).toEqual({ ok: true, value });
  });

  it('leaves out undefined properties', () => {
    expect(decodeCanonical(encodeCanonical({ a: 1, b: undefined }))).toEqual({ ok: true, value: { a: 1 } });
  });

  it('turns lone surrogates into U+FFFD so every string is valid UTF-8', () => {
    expect(decodeCanonical(encodeCanonical({ text: 'a\uD800b' }))).toEqual({ ok: true, value: { text: 'a\uFFFDb' } });
  });

  it.each([
    ['a reserved key', JSON.parse('{"__proto__": 1}') as unknown],
    ['a constructor key', { constructor: 1 }],
    ['undefined in an array', [undefined]],
    ['NaN', { value: Number.NaN }],
    ['a Date', { value: new Date(0) }],
    ['a Set', { value: new Set([1]) }],
    ['a bigint', { value: 1n }],
  ])('refuses %s with a programmer error', (_label, value) => {
    let caught: unknown;
    try {
      encodeCanonical(value);
    } catch (error) {
      caught = error;
    }
    expect(isE2EError(caught) && caught.code).toBe('INVALID_ARGUMENT');
  });
});

describe('decodeCanonical', () => {
  // msgpackr keeps its extensions in one global table; these options do not switch them off.
  const plainUnpackr = new Unpackr({ useRecords: false, structuredClone: false, moreTypes: false, mapsAsObjects: true });
  const extensionPackr = new Packr({ moreTypes: true, structuredClone: true });
  const extensionSamples: Array<[string, unknown]> = [
    ['a Set', new Set([1])],
    ['a RegExp', /ab+c/giu],
    ['an Error', new Error('boom')],
    ['a Date (timestamp)', new Date(0)],
    ['a typed array', new Float64Array([1.5])],
    ['a big integer', 10n ** 30n],
  ];

  it.each(extensionSamples)('refuses %s, which msgpackr itself would build even with extras off', (_label, value) => {
    const bytes = extensionPackr.pack(value);
    const built: unknown = plainUnpackr.unpack(bytes);
    expect(typeof built === 'object' || typeof built === 'bigint').toBe(true);
    expect(decodeCanonical(bytes).ok).toBe(false);
  });

  it('refuses a record definition, which msgpackr decodes even with records off', () => {
    const bytes = new Packr({ useRecords: true }).pack({ a: 1, b: 'x' });
    expect(plainUnpackr.unpack(bytes)).toEqual({ a: 1, b: 'x' });
    expect(problemOf(bytes)).toContain('extension type');
  });

  it.each([
    ['an extension type (fixext 1)', 'd4 01 00'],
    ['an extension type (ext 8)', 'c7 01 05 00'],
    ['binary data', 'c4 01 00'],
    ['a 64-bit integer', 'cf 0000000000000001'],
    ['the reserved type', 'c1'],
  ])('refuses %s by its type byte', (label, bytes) => {
    expect(problemOf(hex(bytes))).toContain(label.replace(/ \(.*\)$/, ''));
  });

  it(`accepts nesting ${MAX_NESTING_DEPTH} levels deep and refuses one more`, () => {
    expect(decodeCanonical(nestedArrays(MAX_NESTING_DEPTH)).ok).toBe(true);
    expect(problemOf(nestedArrays(MAX_NESTING_DEPTH + 1))).toContain('nesting deeper');
  });

  it('refuses 100,000 levels of nesting without overflowing the stack', () => {
    expect(problemOf(nestedArrays(100_000))).toContain('nesting deeper');
  });

  it('refuses a length header that claims more than the bytes hold', () => {
    expect(problemOf(hex('dd ffffffff 01'))).toContain('claims 4294967295 items');
    expect(problemOf(hex('df 7fffffff'))).toContain('claims');
    expect(problemOf(hex('db 00100000 61'))).toContain('needs');
  });

  it('refuses bytes after the value', () => {
    expect(problemOf(hex('01 02'))).toContain('unexpected bytes');
  });

  it('refuses truncated bytes', () => {
    expect(problemOf(hex('92 01'))).toContain('claims 2 items');
    expect(problemOf(hex('92 01 a3 61'))).toContain('needs 3 bytes');
    expect(problemOf(hex('cb 0000'))).toContain('needs 8 bytes');
    expect(problemOf(new Uint8Array(0))).toContain('the bytes end');
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the map key %s, so no prototype can be reached', (key) => {
    expect(problemOf(hex(`81 ${fixString(key)} 81 ${fixString('polluted')} c3`))).toContain('reserved key');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a repeated map key', () => {
    expect(problemOf(hex(`82 ${fixString('a')} 01 ${fixString('a')} 02`))).toContain('repeats a key');
  });

  it('refuses a map key that is not a string', () => {
    expect(problemOf(hex('81 01 01'))).toContain('not a string');
  });

  it('refuses invalid UTF-8 in keys and values', () => {
    expect(problemOf(hex('a2 c328'))).toContain('UTF-8');
    expect(problemOf(hex('81 a2 c328 01'))).toContain('UTF-8');
  });

  it('never quotes decoded content in a problem', () => {
    const canary = 'CANARY-7d1f';
    const bytes = encodeCanonical({ [canary]: canary, list: [canary] });
    const withTrailer = Uint8Array.from([...bytes, 0x01]);
    expect(problemOf(withTrailer)).not.toContain(canary);
  });
});

describe('contentAddress', () => {
  it('names bytes by their 64-bit xxhash and length', async () => {
    const name = await contentAddress(new TextEncoder().encode('abc'));
    expect(name).toMatch(/^[0-9a-f]{16}-3$/);
    expect(parseBlobName(name)).toEqual({ hash: name.slice(0, 16), size: 3 });
  });

  it('gives different names to different bytes and the same name to equal bytes', async () => {
    const first = await contentAddress(encodeCanonical({ a: 1 }));
    expect(await contentAddress(encodeCanonical({ a: 1 }))).toBe(first);
    expect(await contentAddress(encodeCanonical({ a: 2 }))).not.toBe(first);
  });

  it('is not fooled by names that only look like blob names', () => {
    expect(parseBlobName('0123456789abcdef-01')).toBeUndefined();
    expect(parseBlobName('0123456789ABCDEF-1')).toBeUndefined();
    expect(parseBlobName('../../etc/passwd')).toBeUndefined();
  });
});

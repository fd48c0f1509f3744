/**
 * A deterministic, JSON-like text encoding for hashing: object keys sorted by UTF-16 code
 * unit order at every depth, no whitespace, `undefined` object properties left out (so an
 * absent optional and an explicit `undefined` encode alike). Two equal values always give
 * the same text, whatever order their keys were inserted in.
 */
import { E2EError } from '../errors/index.js';

/** A value the canonical encoding accepts. */
export type CanonicalValue =
  | null
  | boolean
  | number
  | string
  | readonly CanonicalValue[]
  | { readonly [key: string]: CanonicalValue | undefined };

/** Nesting beyond this is a programmer error (keys and entries are shallow). */
const MAX_DEPTH = 64;

/**
 * Encodes `value` canonically. Throws `INVALID_ARGUMENT` (a programmer error) for values
 * JSON cannot carry faithfully: `undefined` in an array or at the top, non-finite numbers,
 * bigints, functions, symbols, and objects other than plain objects and arrays.
 */
export function canonicalEncode(value: unknown): string {
  return encodeValue(value, '$', 0);
}

function encodeValue(value: unknown, path: string, depth: number): string {
  if (depth > MAX_DEPTH) throw invalid(path, `is nested deeper than ${MAX_DEPTH} levels`);
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw invalid(path, 'is not a finite number');
      return JSON.stringify(value);
    case 'object':
      return Array.isArray(value) ? encodeArray(value, path, depth) : encodeObject(value, path, depth);
    default:
      throw invalid(path, `is a ${typeof value}, which the canonical encoding does not carry`);
  }
}

function encodeArray(items: readonly unknown[], path: string, depth: number): string {
  const parts: string[] = [];
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (item === undefined) throw invalid(`${path}[${index}]`, 'is undefined');
    parts.push(encodeValue(item, `${path}[${index}]`, depth + 1));
  }
  return `[${parts.join(',')}]`;
}

function encodeObject(object: object, path: string, depth: number): string {
  const prototype: unknown = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    throw invalid(path, 'is not a plain object');
  }
  const record = object as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${encodeValue(item, `${path}.${key}`, depth + 1)}`);
  }
  return `{${parts.join(',')}}`;
}

function invalid(path: string, problem: string): E2EError {
  return new E2EError('INVALID_ARGUMENT', `canonical encoding: the value at ${path} ${problem}.`);
}

/**
 * Entry bytes: MessagePack via msgpackr with records, structured clone and extra types off.
 * Maps are written with keys sorted at every depth, so equal values give equal bytes, and
 * blobs are named by their content ({@link contentAddress}).
 *
 * Blob names are `<xxh64 hex>-<byte length>`. XXH64 is not cryptographic: the name guards
 * against torn, truncated, corrupted and mis-copied files, not against a forger with write
 * access to the cache (entries are reviewed like test code). With 10,000 blobs the chance
 * that two different contents share a 64-bit hash is about 10^8 / 2^65 ≈ 3·10^-12; the
 * length in the name narrows it further and lets a reader refuse a wrong-size file by
 * `stat` before reading it.
 */
import { Packr, Unpackr } from 'msgpackr';
import { E2EError } from '../errors/index.js';
import { hash64Hex } from './hashing.js';
import { RESERVED_NAMES } from './key.js';
import { scanMessagePack } from './msgpack-scan.js';

const packr = new Packr({
  useRecords: false,
  structuredClone: false,
  moreTypes: false,
  mapsAsObjects: true,
  bundleStrings: false,
  useFloat32: 0,
});

const unpackr = new Unpackr({
  useRecords: false,
  structuredClone: false,
  moreTypes: false,
  mapsAsObjects: true,
  bundleStrings: false,
  int64AsType: 'number',
});

/**
 * Encodes a plain value (objects, arrays, strings, finite numbers, booleans, null) as
 * MessagePack with map keys sorted at every depth: stable bytes for equal values.
 * `undefined` object properties are left out; lone UTF-16 surrogates become U+FFFD so every
 * string is valid UTF-8. Throws `INVALID_ARGUMENT` (a programmer error) for anything else,
 * including a reserved key (`__proto__`, `constructor`, `prototype`) the reader would refuse.
 */
export function encodeCanonical(value: unknown): Uint8Array {
  const packed: Uint8Array = packr.pack(toSortedTree(value, '$', 0));
  return Uint8Array.from(packed);
}

const MAX_ENCODE_DEPTH = 32;

/** Objects become Maps with sorted keys: a Map keeps insertion order, a plain object would put integer-like keys first. */
function toSortedTree(value: unknown, path: string, depth: number): unknown {
  if (depth > MAX_ENCODE_DEPTH) throw encodeError(path, `is nested deeper than ${MAX_ENCODE_DEPTH} levels`);
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'string') return toWellFormed(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw encodeError(path, 'is not a finite number');
    return value;
  }
  if (Array.isArray(value)) {
    return value.map((item: unknown, index) => {
      if (item === undefined) throw encodeError(`${path}[${index}]`, 'is undefined');
      return toSortedTree(item, `${path}[${index}]`, depth + 1);
    });
  }
  if (typeof value === 'object') {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) throw encodeError(path, 'is not a plain object');
    const record = value as Record<string, unknown>;
    const sorted = new Map<string, unknown>();
    for (const key of Object.keys(record).sort()) {
      if (RESERVED_NAMES.has(key)) throw encodeError(path, `uses the reserved key \`${key}\``);
      const item = record[key];
      if (item !== undefined) sorted.set(key, toSortedTree(item, `${path}.${key}`, depth + 1));
    }
    return sorted;
  }
  throw encodeError(path, `is a ${typeof value}, which cache entries do not carry`);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `String.prototype.toWellFormed` (ES2024, not in this project's lib). */
function toWellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

function encodeError(path: string, problem: string): E2EError {
  return new E2EError('INVALID_ARGUMENT', `Cannot encode a cache entry: the value at ${path} ${problem}.`);
}

/** The outcome of decoding untrusted bytes. `problem` never holds decoded content. */
export type DecodeResult = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * Decodes MessagePack bytes after the structural pre-scan (see `msgpack-scan.ts`).
 * Internal to the read pipeline: only `read-entry.ts` calls it (STYLE 7), and the barrel
 * does not export it. Never throws on bad bytes.
 */
export function decodeCanonical(bytes: Uint8Array): DecodeResult {
  const scan = scanMessagePack(bytes, RESERVED_NAMES);
  if (!scan.ok) return scan;
  try {
    return { ok: true, value: unpackr.unpack(bytes) as unknown };
  } catch {
    // msgpackr's messages can quote decoded data; say only that decoding failed.
    return { ok: false, problem: 'the MessagePack decoder refused the bytes' };
  }
}

const BLOB_NAME_PATTERN = /^([0-9a-f]{16})-(0|[1-9][0-9]{0,9})$/;

/** The content address of `bytes`: `<xxh64 hex>-<byte length>`. */
export async function contentAddress(bytes: Uint8Array): Promise<string> {
  return `${await hash64Hex(bytes)}-${bytes.length}`;
}

/** The parts of a blob name, or undefined when `name` is not one. */
export function parseBlobName(name: string): { hash: string; size: number } | undefined {
  const match = BLOB_NAME_PATTERN.exec(name);
  if (match === null) return undefined;
  return { hash: match[1]!, size: Number(match[2]) };
}

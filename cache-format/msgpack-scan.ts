/**
 * A structural pre-scan of MessagePack bytes, run before msgpackr ever sees them. msgpackr
 * registers its extensions (Set, Error, RegExp, typed arrays, records, bundled strings…)
 * globally and cannot switch them off per decoder, so the subset the cache allows is
 * enforced here instead: nil, booleans, integers up to 32 bits, floats, UTF-8 strings,
 * arrays, and maps with string keys. Refused: extension types, binary, 64-bit integers,
 * the reserved 0xc1 byte, nesting deeper than {@link MAX_NESTING_DEPTH}, lengths that run
 * past the end, trailing bytes, duplicate or reserved map keys, invalid UTF-8.
 * Problems name a byte offset and a type byte, never the decoded content.
 */

/** Deepest nesting of arrays and maps an entry may have (real entries use about 6). */
export const MAX_NESTING_DEPTH = 32;

/** The outcome of a scan. */
export type ScanResult = { ok: true } | { ok: false; problem: string };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

class ScanProblem {
  constructor(readonly problem: string) {}
}

/**
 * Checks that `bytes` hold exactly one MessagePack value within the cache's subset, with no
 * map key in `reservedKeys`. Never throws on bad bytes.
 */
export function scanMessagePack(bytes: Uint8Array, reservedKeys: ReadonlySet<string>): ScanResult {
  const scanner = new Scanner(bytes, reservedKeys);
  try {
    scanner.value(1);
    if (scanner.position !== bytes.length) {
      return { ok: false, problem: `${bytes.length - scanner.position} unexpected bytes follow the value at byte ${scanner.position}` };
    }
    return { ok: true };
  } catch (error) {
    if (error instanceof ScanProblem) return { ok: false, problem: error.problem };
    throw error;
  }
}

class Scanner {
  position = 0;
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly reservedKeys: ReadonlySet<string>,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  value(depth: number): void {
    const start = this.position;
    const token = this.takeByte('a type byte');
    if (token <= 0x7f || token >= 0xe0) return; // fixint
    if (token <= 0x8f) return this.map(token - 0x80, depth);
    if (token <= 0x9f) return this.array(token - 0x90, depth);
    if (token <= 0xbf) return void this.string(token - 0xa0);
    switch (token) {
      case 0xc0: // nil
      case 0xc2: // false
      case 0xc3: // true
        return;
      case 0xca: // float 32
        return void this.skip(4);
      case 0xcb: // float 64
        return void this.skip(8);
      case 0xcc: // uint 8
      case 0xd0: // int 8
        return void this.skip(1);
      case 0xcd: // uint 16
      case 0xd1: // int 16
        return void this.skip(2);
      case 0xce: // uint 32
      case 0xd2: // int 32
        return void this.skip(4);
      case 0xd9:
        return void this.string(this.length(1));
      case 0xda:
        return void this.string(this.length(2));
      case 0xdb:
        return void this.string(this.length(4));
      case 0xdc:
        return this.array(this.length(2), depth);
      case 0xdd:
        return this.array(this.length(4), depth);
      case 0xde:
        return this.map(this.length(2), depth);
      case 0xdf:
        return this.map(this.length(4), depth);
      default:
        throw new ScanProblem(`${describeToken(token)} (type byte 0x${token.toString(16)}) at byte ${start} is not allowed in a cache entry`);
    }
  }

  private array(count: number, depth: number): void {
    this.checkDepth(depth);
    if (count > this.remaining()) throw new ScanProblem(`an array at byte ${this.position} claims ${count} items but only ${this.remaining()} bytes remain`);
    for (let index = 0; index < count; index++) this.value(depth + 1);
  }

  private map(count: number, depth: number): void {
    this.checkDepth(depth);
    if (count * 2 > this.remaining()) throw new ScanProblem(`a map at byte ${this.position} claims ${count} entries but only ${this.remaining()} bytes remain`);
    const seen = new Set<string>();
    for (let index = 0; index < count; index++) {
      const keyStart = this.position;
      const key = this.key();
      if (this.reservedKeys.has(key)) throw new ScanProblem(`a map at byte ${keyStart} uses a reserved key`);
      if (seen.has(key)) throw new ScanProblem(`a map at byte ${keyStart} repeats a key`);
      seen.add(key);
      this.value(depth + 1);
    }
  }

  private key(): string {
    const start = this.position;
    const token = this.takeByte('a map key');
    if (token >= 0xa0 && token <= 0xbf) return this.string(token - 0xa0, true);
    if (token === 0xd9) return this.string(this.length(1), true);
    if (token === 0xda) return this.string(this.length(2), true);
    if (token === 0xdb) return this.string(this.length(4), true);
    throw new ScanProblem(`a map key at byte ${start} is not a string`);
  }

  /** Checks a string of `length` bytes; returns its text only for map keys (values need no copy). */
  private string(length: number, asKey = false): string {
    const start = this.position;
    this.skip(length);
    const bytes = this.bytes.subarray(start, start + length);
    if (isAscii(bytes)) {
      if (!asKey) return '';
      if (bytes.length <= 64) return String.fromCharCode.apply(null, bytes as unknown as number[]);
    }
    try {
      return strictUtf8.decode(bytes);
    } catch {
      throw new ScanProblem(`a string at byte ${start} is not valid UTF-8`);
    }
  }

  private checkDepth(depth: number): void {
    if (depth > MAX_NESTING_DEPTH) throw new ScanProblem(`nesting deeper than ${MAX_NESTING_DEPTH} levels at byte ${this.position}`);
  }

  private length(size: 1 | 2 | 4): number {
    const start = this.position;
    this.skip(size);
    if (size === 1) return this.view.getUint8(start);
    if (size === 2) return this.view.getUint16(start);
    return this.view.getUint32(start);
  }

  private takeByte(what: string): number {
    if (this.remaining() < 1) throw new ScanProblem(`the bytes end where ${what} was expected (byte ${this.position})`);
    return this.view.getUint8(this.position++);
  }

  private skip(size: number): void {
    if (size > this.remaining()) throw new ScanProblem(`a value at byte ${this.position} needs ${size} bytes but only ${this.remaining()} remain`);
    this.position += size;
  }

  private remaining(): number {
    return this.bytes.length - this.position;
  }
}

/** Plain ASCII is valid UTF-8 as it is (most keys and names are ASCII). */
function isAscii(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte >= 0x80) return false;
  return true;
}

function describeToken(token: number): string {
  if (token === 0xc1) return 'the reserved type';
  if (token >= 0xc4 && token <= 0xc6) return 'binary data';
  if ((token >= 0xc7 && token <= 0xc9) || (token >= 0xd4 && token <= 0xd8)) return 'an extension type';
  if (token === 0xcf || token === 0xd3) return 'a 64-bit integer';
  return 'an unknown type';
}

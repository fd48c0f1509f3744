import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { Packr } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blobPath,
  contentAddress,
  entrySchema,
  FileCacheStore,
  MAX_ENTRY_BYTES,
  readEntryBytes,
  type ActEntry,
  type ReadEntryResult,
} from '../../../cache-format/index.js';
import { FaultyFileSystem } from '../../support/faulty-file-system.js';
import { sampleActEntry, sampleKeyParts } from '../../support/sample-entries.js';
import { SeededRandom } from './support/seeded-random.js';

const CANARY = 'CANARY-c0ffee-never-echo';
const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

let directory: string;
let store: FileCacheStore;
let entry: ActEntry;
let blob: string;
let bytes: Uint8Array;
/** Every message of every refused read, scanned for the canary at the end. */
const messages: string[] = [];

/** An entry with the canary in free text, a typed value and a param. */
async function canaryEntry(): Promise<ActEntry> {
  const base = await sampleActEntry(sampleKeyParts({ params: { note: CANARY } }));
  return {
    ...base,
    summary: `${CANARY} summary`,
    actions: [...base.actions, { verb: 'typeText', value: { kind: 'literal', value: `${CANARY} typed` } }],
  };
}

function note(result: ReadEntryResult): ReadEntryResult {
  if (result.kind === 'invalid') messages.push(result.message);
  return result;
}

/** Reads corrupted bytes named by their own content, so they pass the hash check and reach the decoder and schema. */
async function readReaddressed(candidate: Uint8Array): Promise<ReadEntryResult> {
  return note(await readEntryBytes(candidate, { blob: await contentAddress(candidate), key: entry.key }));
}

/** Writes corrupted bytes over the real blob file (keeping its name) and reads the key through the store. */
async function readAsStoredFile(candidate: Uint8Array): Promise<ReadEntryResult> {
  await writeFile(blobPath(directory, blob), candidate);
  return note(await store.read(entry.key));
}

/** A hit from altered bytes is acceptable only when it is a complete, valid entry of the same key. */
function expectNoBadHit(result: ReadEntryResult): void {
  if (result.kind !== 'hit') return;
  expect(entrySchema.safeParse(result.entry).success).toBe(true);
  expect(result.entry.key).toBe(entry.key);
}

function withBitFlipped(source: Uint8Array, bit: number): Uint8Array {
  const copy = Uint8Array.from(source);
  copy[bit >> 3] = copy[bit >> 3]! ^ (1 << (bit & 7));
  return copy;
}

function indexOfBytes(haystack: Uint8Array, needle: Uint8Array): number {
  return Buffer.from(haystack).indexOf(Buffer.from(needle));
}

/** Packs `value` with arbitrary msgpackr options (to forge what our writer never writes). */
function forge(value: unknown, options: ConstructorParameters<typeof Packr>[0] = { useRecords: false }): Uint8Array {
  return Uint8Array.from(new Packr(options).pack(value));
}

function entryAsMap(extra: Array<[string, unknown]>): Map<string, unknown> {
  return new Map<string, unknown>([...Object.entries(entry), ...extra]);
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'e2e-corrupt-'));
  store = new FileCacheStore(directory);
  entry = await canaryEntry();
  blob = (await store.write(entry)).blob;
  bytes = Uint8Array.from(readFileSync(blobPath(directory, blob)));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('corrupted entry bytes', () => {
  it('read as a hit when intact (the baseline for every corruption below)', async () => {
    expect(await store.read(entry.key)).toMatchObject({ kind: 'hit', entry });
  });

  it('are refused for every prefix, whether stored under the old name or named by their own content', async () => {
    for (let length = 0; length < bytes.length; length++) {
      const prefix = bytes.subarray(0, length);
      expect((await readAsStoredFile(prefix)).kind).toBe('invalid');
      expect((await readReaddressed(prefix)).kind).toBe('invalid');
    }
    await writeFile(blobPath(directory, blob), bytes);
  });

  it('are refused after any of 1,000 seeded bit flips in the stored file, and never serve a broken entry when renamed to match', async () => {
    const random = new SeededRandom(0x5eed);
    console.log(`bit-flip seed: ${random.seed}`);
    for (let run = 0; run < 1000; run++) {
      const flipped = withBitFlipped(bytes, random.integer(0, bytes.length * 8 - 1));
      expect(await readAsStoredFile(flipped)).toMatchObject({ kind: 'invalid', reason: 'hash-mismatch' });
      expectNoBadHit(await readReaddressed(flipped));
    }
    await writeFile(blobPath(directory, blob), bytes);
  });

  it('are refused with junk appended', async () => {
    const junk = Uint8Array.from([...bytes, 0xc0, 0x91, 0x01, ...new TextEncoder().encode(CANARY)]);
    expect(await readAsStoredFile(junk)).toMatchObject({ kind: 'invalid', reason: 'hash-mismatch' });
    expect(await readReaddressed(junk)).toMatchObject({ kind: 'invalid', reason: 'undecodable' });
    await writeFile(blobPath(directory, blob), bytes);
  });

  it('are refused with a forged length header', async () => {
    const actionsKey = Uint8Array.from([0xa7, ...new TextEncoder().encode('actions')]);
    const at = indexOfBytes(bytes, actionsKey) + actionsKey.length;
    expect(bytes[at]! & 0xf0).toBe(0x90);
    const forgedArray = Uint8Array.from([...bytes.subarray(0, at), 0xdd, 0xff, 0xff, 0xff, 0xff, ...bytes.subarray(at + 1)]);
    expect(await readReaddressed(forgedArray)).toMatchObject({ kind: 'invalid', reason: 'undecodable' });
    const forgedMap = Uint8Array.from([0xdf, 0x7f, 0xff, 0xff, 0xff, ...bytes.subarray(1)]);
    expect(await readReaddressed(forgedMap)).toMatchObject({ kind: 'invalid', reason: 'undecodable' });
  });

  it.each([
    ['a __proto__ key at the top', () => entryAsMap([['__proto__', { polluted: CANARY }]])],
    ['a __proto__ key in the params', () => entryAsMap([['keyParts', new Map<string, unknown>([...Object.entries(entry.keyParts), ['params', new Map([['__proto__', CANARY]])]])]])],
    ['a constructor key', () => entryAsMap([['constructor', { prototype: { polluted: CANARY } }]])],
  ])('are refused with %s, and Object.prototype stays untouched', async (_label, build) => {
    expect(await readReaddressed(forge(build()))).toMatchObject({ kind: 'invalid', reason: 'undecodable' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['a Date', new Date(0)],
    ['a Set', new Set([CANARY])],
    ['a RegExp', new RegExp(CANARY, 'u')],
    ['an Error', new Error(CANARY)],
    ['binary data', Uint8Array.from([1, 2, 3])],
  ])('are refused when they carry %s as a MessagePack extension', async (_label, value) => {
    const forged = forge(entryAsMap([['summary', value]]), { useRecords: false, moreTypes: true, structuredClone: true });
    expect(await readReaddressed(forged)).toMatchObject({ kind: 'invalid', reason: 'undecodable' });
  });

  it('are refused when written with msgpackr records', async () => {
    expect(await readReaddressed(forge(entry, { useRecords: true }))).toMatchObject({ kind: 'invalid', reason: 'undecodable' });
  });

  it('are refused when nested too deeply, however deep', async () => {
    let nested: unknown = CANARY;
    for (let depth = 0; depth < 40; depth++) nested = [nested];
    expect(await readReaddressed(forge(entryAsMap([['summary', nested]])))).toMatchObject({ kind: 'invalid', reason: 'undecodable' });
    const abyss = Uint8Array.from([...new Array<number>(500_000).fill(0x91), 0xc0]);
    expect(await readReaddressed(abyss)).toMatchObject({ kind: 'invalid', reason: 'undecodable' });
  });

  it('are refused by size before a byte is read when the file is too large', async () => {
    const huge = new Uint8Array(MAX_ENTRY_BYTES + 1).fill(0x91);
    const hugeBlob = await contentAddress(huge);
    await mkdir(dirname(blobPath(directory, hugeBlob)), { recursive: true });
    await writeFile(blobPath(directory, hugeBlob), huge);
    const fileSystem = new FaultyFileSystem();
    const result = note(await new FileCacheStore(directory, { fileSystem }).readBlob(hugeBlob));
    expect(result).toMatchObject({ kind: 'invalid', reason: 'too-large' });
    expect(fileSystem.callsOf('readFile').filter((call) => call.path.endsWith('.msgpack'))).toEqual([]);
  });

  it('never make a hit from arbitrary bytes (property-based, seed printed)', async () => {
    const seed = Number(process.env.E2E_FUZZ_SEED ?? Date.now() % 2 ** 31);
    console.log(`arbitrary-bytes fuzz seed: ${seed} (rerun with E2E_FUZZ_SEED=${seed})`);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), async (candidate) => {
        expect((await readReaddressed(candidate)).kind).toBe('invalid');
      }),
      { seed, numRuns: 500 },
    );
  });

  it('never serve a broken entry after arbitrary edits of real bytes (property-based, seed printed)', async () => {
    const seed = Number(process.env.E2E_FUZZ_SEED ?? Date.now() % 2 ** 31);
    console.log(`edited-bytes fuzz seed: ${seed} (rerun with E2E_FUZZ_SEED=${seed})`);
    const edit = fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 8 }), fc.nat({ max: 64 }), fc.uint8Array({ maxLength: 16 }), async (edits, cut, tail) => {
        const edited = Uint8Array.from(bytes);
        for (const { at, value } of edits) edited[at % edited.length] = value;
        const candidate = Uint8Array.from([...edited.subarray(0, edited.length - cut), ...tail]);
        expectNoBadHit(await readReaddressed(candidate));
      }),
      { seed, numRuns: 500 },
    );
  });

  // Runs last (tests in a file run in order): a verdict over every refusal above.
  it('never quoted decoded content in any refusal above, and left Object.prototype as it was', () => {
    expect(messages.length).toBeGreaterThan(2000);
    expect(messages.filter((message) => message.includes(CANARY))).toEqual([]);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

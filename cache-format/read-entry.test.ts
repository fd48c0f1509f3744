import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaultyFileSystem } from '../tests/support/faulty-file-system.js';
import { sampleActEntry, sampleJudgmentEntry, sampleKeyParts } from '../tests/support/sample-entries.js';
import { contentAddress, encodeCanonical } from './codec.js';
import { encodeEntry } from './encode-entry.js';
import { MAX_ENTRY_BYTES } from './entry.js';
import { computeKey } from './key.js';
import { readEntryBytes, readEntryFile, type ReadEntryResult } from './read-entry.js';

const CANARY = 'CANARY-3b9e-do-not-echo';

/** Reads `value` as if it had been stored correctly: encoded and named by its own content. */
async function readAsStored(value: unknown, key?: string): Promise<ReadEntryResult> {
  const bytes = encodeCanonical(value);
  const blob = await contentAddress(bytes);
  return readEntryBytes(bytes, key === undefined ? { blob } : { blob, key });
}

function invalidOf(result: ReadEntryResult): Extract<ReadEntryResult, { kind: 'invalid' }> {
  if (result.kind !== 'invalid') throw new Error(`expected an invalid result, got ${result.kind}`);
  return result;
}

describe('readEntryBytes', () => {
  it('reads back an act entry exactly as it was written', async () => {
    const entry = await sampleActEntry();
    const { bytes, blob } = await encodeEntry(entry);
    const result = await readEntryBytes(bytes, { blob, key: entry.key });
    expect(result).toEqual({ kind: 'hit', entry, blob, bytes, storedVersion: 1 });
  });

  it('reads back a judgment entry exactly as it was written', async () => {
    const entry = await sampleJudgmentEntry();
    const { bytes, blob } = await encodeEntry(entry);
    expect(await readEntryBytes(bytes, { blob })).toMatchObject({ kind: 'hit', entry });
  });

  it('refuses bytes that do not match the blob name they were read as', async () => {
    const { bytes } = await encodeEntry(await sampleActEntry());
    const { blob: otherBlob } = await encodeEntry(await sampleJudgmentEntry());
    expect(invalidOf(await readEntryBytes(bytes, { blob: otherBlob })).reason).toBe('hash-mismatch');
  });

  it('refuses the entry of another key', async () => {
    const entry = await sampleActEntry();
    const { bytes, blob } = await encodeEntry(entry);
    const otherKey = await computeKey(sampleKeyParts({ occurrence: 7 }));
    expect(invalidOf(await readEntryBytes(bytes, { blob, key: otherKey })).reason).toBe('key-mismatch');
  });

  it('refuses an entry whose key parts were edited after its key was computed', async () => {
    const entry = await sampleActEntry();
    const edited = { ...entry, keyParts: { ...entry.keyParts, instruction: 'delete every todo' } };
    expect(invalidOf(await readAsStored(edited, entry.key)).reason).toBe('key-mismatch');
  });

  it('refuses a newer schema version by name, with advice to upgrade e2e', async () => {
    const entry = await sampleActEntry();
    const result = invalidOf(await readAsStored({ ...entry, version: 7, futureField: CANARY }));
    expect(result.reason).toBe('newer-version');
    expect(result.message).toContain('schema version 7');
    expect(result.message).toContain('upgrade e2e');
    expect(result.message).not.toContain(CANARY);
  });

  it.each([
    ['a missing version', { kind: 'act' }],
    ['a version that is not a number', { version: CANARY }],
    ['version 0', { version: 0 }],
    ['a list instead of a map', [CANARY]],
    ['a string', CANARY],
  ])('refuses %s as a schema problem', async (_label, value) => {
    const result = invalidOf(await readAsStored(value));
    expect(result.reason).toBe('schema');
    expect(result.message).not.toContain(CANARY);
  });

  it('names the failing field path but never its value', async () => {
    const entry = await sampleActEntry();
    const broken = { ...entry, actions: [entry.actions[0], { verb: 'tap', target: { role: 'button', name: 42, twinIndex: 0, twinCount: 1 } }] };
    const result = invalidOf(await readAsStored({ ...broken, summary: CANARY }));
    expect(result.reason).toBe('schema');
    expect(result.message).toContain('`actions[1].target.name`');
    expect(result.message).toContain('expected string');
    expect(result.message).not.toContain(CANARY);
  });

  it('refuses an unknown field without naming it', async () => {
    const entry = await sampleActEntry();
    const result = invalidOf(await readAsStored({ ...entry, [CANARY]: 'x' }));
    expect(result.reason).toBe('schema');
    expect(result.message).toContain('does not declare');
    expect(result.message).not.toContain(CANARY);
  });

  it('shows record keys (param names) as […] in a field path', async () => {
    const entry = await sampleActEntry();
    const result = invalidOf(await readAsStored({ ...entry, keyParts: { ...entry.keyParts, params: { [CANARY]: 5 } } }));
    expect(result.message).toContain('`keyParts.params[…]`');
    expect(result.message).not.toContain(CANARY);
  });

  it('refuses bytes over the size cap without decoding them', async () => {
    const bytes = new Uint8Array(MAX_ENTRY_BYTES + 1);
    expect(invalidOf(await readEntryBytes(bytes, { blob: await contentAddress(bytes) })).reason).toBe('too-large');
  });
});

describe('readEntryFile', () => {
  let directory: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'e2e-read-entry-'));
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('reads a verified entry from a file', async () => {
    const entry = await sampleActEntry();
    const { bytes, blob } = await encodeEntry(entry);
    const path = join(directory, `${blob}.msgpack`);
    await writeFile(path, bytes);
    expect(await readEntryFile(new FaultyFileSystem(), path, { blob, key: entry.key })).toMatchObject({ kind: 'hit', entry, blob });
  });

  it('reports a missing file as absent', async () => {
    const { blob } = await encodeEntry(await sampleActEntry());
    expect(await readEntryFile(new FaultyFileSystem(), join(directory, 'missing.msgpack'), { blob })).toEqual({ kind: 'absent' });
  });

  it('refuses a file over the size cap by its size, without reading a byte of it', async () => {
    const path = join(directory, 'huge.msgpack');
    await writeFile(path, Buffer.alloc(MAX_ENTRY_BYTES + 10, 0x91));
    const fileSystem = new FaultyFileSystem();
    const result = invalidOf(await readEntryFile(fileSystem, path, { blob: `0123456789abcdef-${MAX_ENTRY_BYTES + 10}` }));
    expect(result.reason).toBe('too-large');
    expect(fileSystem.callsOf('stat')).toHaveLength(1);
    expect(fileSystem.callsOf('readFile')).toHaveLength(0);
  });

  it('refuses a file whose size differs from its name, more than a line-ending rewrite explains, without reading it', async () => {
    const { bytes, blob } = await encodeEntry(await sampleActEntry());
    const path = join(directory, `${blob}.msgpack`);
    await writeFile(path, Buffer.concat([bytes, bytes, Buffer.from('junk')]));
    const fileSystem = new FaultyFileSystem();
    expect(invalidOf(await readEntryFile(fileSystem, path, { blob })).reason).toBe('hash-mismatch');
    expect(fileSystem.callsOf('readFile')).toHaveLength(0);
  });

  it('reports a file-system failure as unreadable, naming the error code', async () => {
    const { bytes, blob } = await encodeEntry(await sampleActEntry());
    const path = join(directory, `${blob}.msgpack`);
    await writeFile(path, bytes);
    const result = invalidOf(await readEntryFile(new FaultyFileSystem().fail({ operation: 'readFile', code: 'EIO' }), path, { blob }));
    expect(result.reason).toBe('unreadable');
    expect(result.message).toContain('EIO');
  });

  it('refuses a blob name that is not a content address', async () => {
    expect(invalidOf(await readEntryFile(new FaultyFileSystem(), join(directory, 'x'), { blob: '../x' })).reason).toBe('unreadable');
  });
});

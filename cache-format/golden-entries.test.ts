import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { contentAddress } from './codec.js';
import { encodeEntry } from './encode-entry.js';
import { OLDEST_WRITTEN_ENTRY_VERSION, SUPPORTED_ENTRY_VERSIONS, type Entry } from './entry.js';
import { upgradeEntry } from './migrate.js';
import { readEntryBytes } from './read-entry.js';

const folder = new URL('../golden/entries/', import.meta.url);
const samples = readdirSync(fileURLToPath(folder))
  .filter((name) => name.endsWith('.msgpack'))
  .map((name) => {
    const base = name.slice(0, -'.msgpack'.length);
    const version = Number(/^v(\d+)-/.exec(base)?.[1]);
    const twin = JSON.parse(readFileSync(new URL(`${base}.json`, folder), 'utf8')) as { blob: string; entry: Entry };
    return { base, version, bytes: new Uint8Array(readFileSync(new URL(name, folder))), twin };
  });

describe('golden entry samples', () => {
  it('include an act sample of every supported schema version', () => {
    for (const version of SUPPORTED_ENTRY_VERSIONS) {
      expect(samples.map((sample) => sample.base)).toContain(`v${version}-act`);
    }
  });

  it.each(samples.map((sample) => [sample.base, sample] as const))('%s still reads, as its readable twin says', async (_name, sample) => {
    expect(await contentAddress(sample.bytes)).toBe(sample.twin.blob);
    const result = await readEntryBytes(sample.bytes, { blob: sample.twin.blob, key: sample.twin.entry.key });
    expect(result.kind).toBe('hit');
    if (result.kind !== 'hit') return;
    expect(result.storedVersion).toBe(sample.version);
    const lifted = upgradeEntry(sample.twin.entry, sample.base);
    expect(lifted.ok && lifted.entry).toEqual(result.entry);
  });

  // Every version this build still writes: 1 (with a location) and 2 (without).
  it.each(samples.filter((sample) => sample.version >= OLDEST_WRITTEN_ENTRY_VERSION).map((sample) => [sample.base, sample] as const))(
    '%s is byte for byte what this build writes for its twin (stable encoding)',
    async (_name, sample) => {
      const encoded = await encodeEntry(sample.twin.entry);
      expect(encoded.blob).toBe(sample.twin.blob);
      expect(Buffer.from(encoded.bytes).equals(Buffer.from(sample.bytes))).toBe(true);
    },
  );
});

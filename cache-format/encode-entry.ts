/**
 * The write side of entry bytes: validate, check the key, encode canonically, name by
 * content. Everything that goes wrong here is the caller's bug (a programmer error) except
 * an entry too large to store.
 */
import { E2EError } from '../errors/index.js';
import { contentAddress, encodeCanonical } from './codec.js';
import { actEntrySchema, entryVersionFor, judgmentEntrySchema, MAX_ENTRY_BYTES, type Entry } from './entry.js';
import { computeKey } from './key.js';
import { declaredFieldNames, describeSchemaError } from './schema-problem.js';

/** An entry as stored: its canonical bytes and their content address (the blob name). */
export interface EncodedEntry {
  bytes: Uint8Array;
  blob: string;
}

const FIELD_NAMES = declaredFieldNames(actEntrySchema, judgmentEntrySchema);

/**
 * Validates `entry` against the current schema, checks that `entry.key` is the key of
 * `entry.keyParts`, and encodes it. Throws `INVALID_ARGUMENT` for an invalid entry or a key
 * that does not match its parts, and `CACHE_WRITE_FAILED` for an entry over
 * `MAX_ENTRY_BYTES`. Messages name the key and the failing field, never values.
 */
export async function encodeEntry(entry: Entry): Promise<EncodedEntry> {
  const label = typeof entry.key === 'string' ? entry.key : '(without a key)';
  const version = entryVersionFor(entry);
  if (entry.version !== version) {
    throw new E2EError('INVALID_ARGUMENT', `Cache entry ${label} has schema version ${String(entry.version)}; this e2e writes ${version === 1 ? 'an entry with a route as version 1' : 'an entry without a location as version 2'}.`);
  }
  const parsed = entry.kind === 'act' ? actEntrySchema.safeParse(entry) : judgmentEntrySchema.safeParse(entry);
  if (!parsed.success) {
    throw new E2EError('INVALID_ARGUMENT', `Cannot save cache entry ${label}: ${describeSchemaError(parsed.error, FIELD_NAMES)}.`);
  }
  const expectedKey = await computeKey(parsed.data.keyParts);
  if (expectedKey !== parsed.data.key) {
    throw new E2EError('INVALID_ARGUMENT', `Cannot save cache entry ${label}: its key does not match its key parts (computeKey gives ${expectedKey}).`);
  }
  const bytes = encodeCanonical(parsed.data);
  if (bytes.length > MAX_ENTRY_BYTES) {
    throw new E2EError(
      'CACHE_WRITE_FAILED',
      `Cache entry ${label} is ${bytes.length} bytes, over the ${MAX_ENTRY_BYTES}-byte limit; it was not saved (record fewer or shorter actions).`,
    );
  }
  return { bytes, blob: await contentAddress(bytes) };
}

/**
 * Schema versions, read in one place (STYLE 11). Each supported version has a reader that
 * validates the decoded value against that version's strict schema and lifts it to the
 * current {@link Entry}. A newer version is refused with advice to upgrade e2e; a version
 * older than the oldest reader is refused with advice to record again.
 *
 * Versions 1 and 2 are both current: an entry with a location (routes) is written as version 1,
 * one without (an engine without a location) as version 2 (`entryVersionFor`), so a web cache
 * recorded before version 2 keeps its bytes.
 *
 * To add version N+1: bump `ENTRY_SCHEMA_VERSION` in `entry.ts`, keep the version-N schema
 * as a frozen copy here, add a reader for N that parses with it and converts, add a golden
 * sample `golden/entries/vN+1-*.msgpack`, and keep the old samples (they must still read).
 * A conversion must keep `key` and `keyParts` hashing alike, or the entry never hits.
 */
import type { z } from 'zod';
import { actEntryV1Schema, actEntryV2Schema, ENTRY_SCHEMA_VERSION, judgmentEntryV1Schema, judgmentEntryV2Schema, SUPPORTED_ENTRY_VERSIONS, type Entry } from './entry.js';
import { declaredFieldNames, describePath, describeSchemaError } from './schema-problem.js';

/** The outcome of lifting a decoded value to the current entry shape. */
export type UpgradeResult =
  | { ok: true; entry: Entry; storedVersion: number }
  | { ok: false; reason: 'schema' | 'newer-version'; message: string };

type VersionReader = (value: Record<string, unknown>) => z.ZodSafeParseResult<Entry>;

/** Version 1 (with a location) is a current shape as it is: validate by kind (clearer problems than a union). */
const readVersion1: VersionReader = (value) => (value.kind === 'act' ? actEntryV1Schema.safeParse(value) : judgmentEntryV1Schema.safeParse(value));

/** Version 2 (no location: an engine without one) is a current shape as it is. */
const readVersion2: VersionReader = (value) => (value.kind === 'act' ? actEntryV2Schema.safeParse(value) : judgmentEntryV2Schema.safeParse(value));

const READERS: ReadonlyMap<number, VersionReader> = new Map([
  [1, readVersion1],
  [2, readVersion2],
]);

const FIELD_NAMES = declaredFieldNames(actEntryV1Schema, judgmentEntryV1Schema);

/**
 * Validates a decoded value and lifts it to the current entry shape. `label` names the
 * entry in messages (a key or blob name, never content). Never throws.
 */
export function upgradeEntry(value: unknown, label: string): UpgradeResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'schema', message: `Cache entry ${label} is invalid: it is not a map of fields.` };
  }
  const record = value as Record<string, unknown>;
  const version = record.version;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    return { ok: false, reason: 'schema', message: `Cache entry ${label} is invalid: ${describePath(['version'], FIELD_NAMES)} is not a schema version.` };
  }
  if (version > ENTRY_SCHEMA_VERSION) {
    return {
      ok: false,
      reason: 'newer-version',
      message: `Cache entry ${label} has schema version ${version}, newer than this e2e reads (${ENTRY_SCHEMA_VERSION}); upgrade e2e to replay it.`,
    };
  }
  const reader = READERS.get(version);
  if (reader === undefined || !(SUPPORTED_ENTRY_VERSIONS as readonly number[]).includes(version)) {
    return {
      ok: false,
      reason: 'schema',
      message: `Cache entry ${label} has schema version ${version}, which this e2e no longer reads; record the step again (\`e2e cache prune\` removes it).`,
    };
  }
  const parsed = reader(record);
  if (!parsed.success) {
    return { ok: false, reason: 'schema', message: `Cache entry ${label} is invalid: ${describeSchemaError(parsed.error, FIELD_NAMES)}.` };
  }
  return { ok: true, entry: parsed.data, storedVersion: version };
}

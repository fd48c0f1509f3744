/**
 * Schema versions, read in one place (STYLE 11). Each supported version has a reader that
 * validates the decoded value against that version's strict schema and lifts it to the
 * current {@link Entry}. A newer version is refused with advice to upgrade e2e; a version
 * older than the oldest reader is refused with advice to record again.
 *
 * To add version N+1: bump `ENTRY_SCHEMA_VERSION` in `entry.ts`, keep the version-N schema
 * as a frozen copy here, add a reader for N that parses with it and converts, add a golden
 * sample `golden/entries/vN+1-*.msgpack`, and keep the old samples (they must still read).
 * A conversion must keep `key` and `keyParts` hashing alike, or the entry never hits.
 */
import type { z } from 'zod';
import { actEntrySchema, ENTRY_SCHEMA_VERSION, judgmentEntrySchema, SUPPORTED_ENTRY_VERSIONS, type Entry } from './entry.js';
import { declaredFieldNames, describePath, describeSchemaError } from './schema-problem.js';

/** The outcome of lifting a decoded value to the current entry shape. */
export type UpgradeResult =
  | { ok: true; entry: Entry; storedVersion: number }
  | { ok: false; reason: 'schema' | 'newer-version'; message: string };

type VersionReader = (value: Record<string, unknown>) => z.ZodSafeParseResult<Entry>;

/** Version 1 is the current shape: validate by kind (clearer problems than a union). */
const readVersion1: VersionReader = (value) =>
  value.kind === 'act' ? actEntrySchema.safeParse(value) : judgmentEntrySchema.safeParse(value);

const READERS: ReadonlyMap<number, VersionReader> = new Map([[1, readVersion1]]);

const FIELD_NAMES = declaredFieldNames(actEntrySchema, judgmentEntrySchema);

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

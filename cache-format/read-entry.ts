/**
 * THE reading pipeline for cache bytes (STYLE 7); nothing else decodes them:
 * size cap (by `stat`, before reading) → content hash against the blob name → MessagePack
 * decode with extensions refused and nesting capped → strict schema of the stored version →
 * migration to the current shape → key check → the domain {@link Entry}.
 * Bad bytes never throw and never make a hit; messages name the entry, the failing step and
 * the field path, never decoded content.
 */
import { contentAddress, decodeCanonical, parseBlobName } from './codec.js';
import { MAX_ENTRY_BYTES, type Entry } from './entry.js';
import { errorCodeOf, type FileSystem } from './file-system.js';
import { computeKey } from './key.js';
import { upgradeEntry } from './migrate.js';

/** Why stored bytes were refused. */
export type InvalidEntryReason =
  | 'too-large'
  | 'hash-mismatch'
  | 'undecodable'
  | 'schema'
  | 'newer-version'
  | 'key-mismatch'
  | 'unreadable'
  /** A ref file with git conflict markers: two branches recorded the step (`ref-problem.ts`). */
  | 'merge-conflict';

/** The outcome of reading an entry. Handle it with an exhaustive switch on `kind`. */
export type ReadEntryResult =
  | {
      kind: 'hit';
      entry: Entry;
      /** The blob name (content address) the entry was read from. */
      blob: string;
      /** The verified bytes, as stored. */
      bytes: Uint8Array;
      /** The schema version the bytes were written with (older versions are migrated). */
      storedVersion: number;
    }
  | { kind: 'absent' }
  | {
      kind: 'invalid';
      reason: InvalidEntryReason;
      message: string;
      /** The blob the key pointed to, when that much was readable (pass it as `replacing` to overwrite). */
      blob?: string;
    };

/** What the caller expects the bytes to be: the blob they were named as, and the key they must carry. */
export interface ExpectedEntry {
  blob: string;
  /** When given, the entry must carry exactly this key. */
  key?: string;
}

type Invalid = Extract<ReadEntryResult, { kind: 'invalid' }>;

function invalid(reason: InvalidEntryReason, message: string, blob?: string): Invalid {
  return blob === undefined ? { kind: 'invalid', reason, message } : { kind: 'invalid', reason, message, blob };
}

function labelOf(expected: ExpectedEntry): string {
  return expected.key === undefined ? `blob ${expected.blob}` : `${expected.key} (blob ${expected.blob})`;
}

/**
 * Reads and verifies the blob file at `path`, named `expected.blob`. Refuses a file over
 * {@link MAX_ENTRY_BYTES} or of another size than its name says by `stat`, before reading.
 * A missing file is `absent`.
 */
export async function readEntryFile(fileSystem: FileSystem, path: string, expected: ExpectedEntry): Promise<ReadEntryResult> {
  const label = labelOf(expected);
  const named = parseBlobName(expected.blob);
  if (named === undefined) return invalid('unreadable', `Cache entry ${label}: the blob name is not a content address.`);
  let size: number;
  try {
    const info = await fileSystem.stat(path);
    if (!info.isFile) return invalid('unreadable', `Cache entry ${label}: the blob is not a regular file.`, expected.blob);
    size = info.size;
  } catch (error) {
    if (errorCodeOf(error) === 'ENOENT') return { kind: 'absent' };
    return invalid('unreadable', `Cache entry ${label}: the blob could not be read (${errorCodeOf(error) ?? 'unknown error'}).`, expected.blob);
  }
  if (size > MAX_ENTRY_BYTES) {
    return invalid('too-large', `Cache entry ${label} is ${size} bytes, over the ${MAX_ENTRY_BYTES}-byte limit; it was not read.`, expected.blob);
  }
  if (size > named.size && size <= 2 * named.size) {
    // Larger than named, at most twice: git may have turned LF bytes into CRLF on checkout, which only the bytes can show.
    const bytes = await readOrUndefined(fileSystem, path);
    if (bytes !== undefined && (await lineEndingsRewritten(bytes, expected.blob))) return invalid('hash-mismatch', lineEndingsMessage(label), expected.blob);
  }
  if (size !== named.size) {
    return invalid('hash-mismatch', `Cache entry ${label} is ${size} bytes but its name says ${named.size}; the file is damaged or misplaced.`, expected.blob);
  }
  let bytes: Uint8Array;
  try {
    bytes = await fileSystem.readFile(path, MAX_ENTRY_BYTES);
  } catch (error) {
    if (errorCodeOf(error) === 'ENOENT') return { kind: 'absent' };
    return invalid('unreadable', `Cache entry ${label}: the blob could not be read (${errorCodeOf(error) ?? 'unknown error'}).`, expected.blob);
  }
  return readEntryBytes(bytes, expected);
}

async function readOrUndefined(fileSystem: FileSystem, path: string): Promise<Uint8Array | undefined> {
  try {
    return await fileSystem.readFile(path, MAX_ENTRY_BYTES);
  } catch {
    return undefined;
  }
}

/** True when `bytes` are the blob `blob` with every LF turned into CRLF (git's `text`/`eol=crlf`/`autocrlf` on checkout). */
async function lineEndingsRewritten(bytes: Uint8Array, blob: string): Promise<boolean> {
  const restored: number[] = [];
  let rewritten = false;
  for (let index = 0; index < bytes.length; index++) {
    if (bytes[index] === 0x0d && bytes[index + 1] === 0x0a) {
      rewritten = true;
      continue;
    }
    restored.push(bytes[index]!);
  }
  return rewritten && (await contentAddress(Uint8Array.from(restored))) === blob;
}

function lineEndingsMessage(label: string): string {
  return (
    `Cache entry ${label}: git rewrote its line endings (LF to CRLF), so the bytes no longer match their name; ` +
    'mark cache files as bytes in .gitattributes (`.e2e/cache/**/*.msgpack -text diff=e2e-cache`, what `e2e init` writes), then check them out again (`git checkout -- .e2e/cache`).'
  );
}

/**
 * Verifies and decodes bytes that claim to be the blob `expected.blob` (from a file, a git
 * object, a proposal folder). Never throws on bad bytes.
 */
export async function readEntryBytes(bytes: Uint8Array, expected: ExpectedEntry): Promise<ReadEntryResult> {
  const label = labelOf(expected);
  const blob = expected.blob;
  if (bytes.length > MAX_ENTRY_BYTES) {
    return invalid('too-large', `Cache entry ${label} is over the ${MAX_ENTRY_BYTES}-byte limit; it was not decoded.`, blob);
  }
  if ((await contentAddress(bytes)) !== blob) {
    if (await lineEndingsRewritten(bytes, blob)) return invalid('hash-mismatch', lineEndingsMessage(label), blob);
    return invalid('hash-mismatch', `Cache entry ${label} does not match its content address; the file is damaged or was copied under another name.`, blob);
  }
  const decoded = decodeCanonical(bytes);
  if (!decoded.ok) return invalid('undecodable', `Cache entry ${label} could not be decoded: ${decoded.problem}.`, blob);
  const upgraded = upgradeEntry(decoded.value, label);
  if (!upgraded.ok) return invalid(upgraded.reason, upgraded.message, blob);
  const { entry } = upgraded;
  if (expected.key !== undefined && entry.key !== expected.key) {
    return invalid('key-mismatch', `Cache entry ${label} holds the entry of another key; it is never served under this one.`, blob);
  }
  let partsKey: string;
  try {
    partsKey = await computeKey(entry.keyParts);
  } catch {
    partsKey = '';
  }
  if (partsKey !== entry.key) {
    return invalid('key-mismatch', `Cache entry ${label}: its key parts do not hash to its key; it was edited or written by an incompatible e2e.`, blob);
  }
  return { kind: 'hit', entry, blob, bytes, storedVersion: upgraded.storedVersion };
}

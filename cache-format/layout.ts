/**
 * Where things live in a file cache folder (see README.md in this folder):
 *
 * ```
 * <dir>/refs/<key[0..2]>/<key>.ref            text: the blob name and a newline
 * <dir>/blobs/<blob[0..2]>/<blob>.msgpack     the entry bytes; <blob> = <xxh64 hex>-<length>
 * <dir>/…/.<name>.<pid>.<random>.tmp          a writer's temp file (ignored by readers)
 * ```
 */
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { parseBlobName } from './codec.js';

/** Folder of refs under a cache folder. */
export const REFS_FOLDER = 'refs';
/** Folder of blobs under a cache folder. */
export const BLOBS_FOLDER = 'blobs';
/**
 * The file that marks a proposal folder (`e2e run --propose <dir>`): `cache diff <cache> <dir>`
 * then shows what `cache accept` would do (entries the proposal lacks stay, nothing reads as removed).
 */
export const PROPOSAL_MARKER_FILE = 'PROPOSAL.txt';
/** What the proposal marker says to a reader who opens it. */
export const PROPOSAL_MARKER_TEXT =
  'A cache proposal written by `e2e run --propose`: new and healed recordings, to be reviewed with `e2e cache diff <cache> <this folder>` and merged with `e2e cache accept <this folder>`.\n';

/** Largest ref file read (a blob name and a newline are about 30 bytes). */
export const MAX_REF_BYTES = 128;

const REF_FILE_PATTERN = /^([0-9a-f]{16})\.ref$/;
const BLOB_FILE_PATTERN = /^(.+)\.msgpack$/;
const TEMP_FILE_PATTERN = /^\..+\.tmp$/;

/** Path of the ref of `key`. */
export function refPath(directory: string, key: string): string {
  return join(directory, REFS_FOLDER, key.slice(0, 2), `${key}.ref`);
}

/** Path of the blob `name`. */
export function blobPath(directory: string, name: string): string {
  return join(directory, BLOBS_FOLDER, name.slice(0, 2), `${name}.msgpack`);
}

/** A fresh temp path beside `path`: `.<name>.<pid>.<random>.tmp` in the same folder (so a rename is atomic). */
export function tempPathBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** True for a temp file name. */
export function isTempFileName(name: string): boolean {
  return TEMP_FILE_PATTERN.test(name);
}

/** The key of a ref file name, or undefined. */
export function keyOfRefFile(name: string): string | undefined {
  return REF_FILE_PATTERN.exec(name)?.[1];
}

/** The blob name of a blob file name, or undefined. */
export function blobOfBlobFile(name: string): string | undefined {
  const blob = BLOB_FILE_PATTERN.exec(name)?.[1];
  return blob !== undefined && parseBlobName(blob) !== undefined ? blob : undefined;
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: false });

/** The bytes of a ref naming `blob`. */
export function formatRef(blob: string): Uint8Array {
  return utf8.encode(`${blob}\n`);
}

/** The blob a ref file names, or undefined when it names none. */
export function parseRef(bytes: Uint8Array): string | undefined {
  if (bytes.length > MAX_REF_BYTES) return undefined;
  // Trimmed: a checkout with git's autocrlf turns the newline into CRLF.
  const blob = utf8Decoder.decode(bytes).trim();
  return parseBlobName(blob) === undefined ? undefined : blob;
}

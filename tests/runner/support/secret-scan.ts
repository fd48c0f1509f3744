/**
 * Looks for a secret in everything a run wrote: every file under a folder (zip archives such
 * as Playwright's HTML report data and traces are opened, nested ones too; symbolic links are
 * not followed), plus any extra texts (stdout, stderr). A value counts as found in every form
 * the leak detector of `tests/support/secret-leaks.ts` knows: raw in any letter case,
 * URL-encoded, base64 at any alignment, HTML/JSON-escaped, clipped, spaced or grouped.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { leakedForms } from '../../support/secret-leaks.js';

/** The forms a secret may leak in. */
export function leakForms(value: string): string[] {
  const base64 = Buffer.from(value, 'utf8').toString('base64');
  const forms = new Set([
    value,
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    encodeURI(value),
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(value, 'utf8').toString('base64url'),
    JSON.stringify(value).slice(1, -1),
    value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
  ]);
  return [...forms].map((form) => form.toLowerCase());
}

/** Entries of a zip archive (stored or deflated), by name. */
export function unzip(archive: Buffer): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) return entries;
  const count = archive.readUInt16LE(end + 10);
  let offset = archive.readUInt32LE(end + 16);
  for (let index = 0; index < count; index++) {
    const method = archive.readUInt16LE(offset + 10);
    const compressedSize = archive.readUInt32LE(offset + 20);
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    const commentLength = archive.readUInt16LE(offset + 32);
    const localOffset = archive.readUInt32LE(offset + 42);
    const name = archive.subarray(offset + 46, offset + 46 + nameLength).toString('utf8');
    const dataStart = localOffset + 30 + archive.readUInt16LE(localOffset + 26) + archive.readUInt16LE(localOffset + 28);
    const data = archive.subarray(dataStart, dataStart + compressedSize);
    entries.set(name, method === 8 ? inflateRawSync(data) : data);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The texts inside one file: the file itself, and the entries of any zip it is or embeds. */
function textsOf(path: string, content: Buffer): Array<{ where: string; text: string }> {
  // UTF-8 for what the tool and Playwright write (an ellipsis is three bytes); binary files decode lossily, which is fine for an ASCII canary.
  const texts = [{ where: path, text: content.toString('utf8') }];
  const archives: Buffer[] = [];
  if (content.subarray(0, 2).toString('latin1') === 'PK') archives.push(content);
  for (const match of content.toString('latin1').matchAll(/data:application\/zip;base64,([A-Za-z0-9+/=]+)/g)) {
    archives.push(Buffer.from(match[1]!, 'base64'));
  }
  for (const archive of archives) {
    for (const [name, entry] of unzip(archive)) texts.push(...textsOf(`${path}!${name}`, entry));
  }
  return texts;
}

/** Every file under `folder` (or `folder` itself when it is a file); symbolic links are skipped. */
export function filesUnder(folder: string): string[] {
  const stats = lstatSync(folder);
  if (stats.isSymbolicLink()) return [];
  if (!stats.isDirectory()) return [folder];
  const files: string[] = [];
  for (const name of readdirSync(folder)) files.push(...filesUnder(join(folder, name)));
  return files;
}

/** Every text under `folders`: each file, and each entry of every archive in it. */
export function textsUnder(folders: string[]): Array<{ where: string; text: string }> {
  return folders.flatMap((folder) => filesUnder(folder).flatMap((file) => textsOf(file, readFileSync(file))));
}

/** Where `value` leaked: file paths (or extra text labels) with the form found. Empty when it did not. */
export function findLeaks(value: string, folders: string[], extra: Record<string, string> = {}): string[] {
  const leaks: string[] = [];
  const check = (where: string, text: string) => {
    for (const form of leakedForms(value, text)) leaks.push(`${where} (${form})`);
  };
  for (const { where, text } of textsUnder(folders)) check(where, text);
  for (const [label, text] of Object.entries(extra)) check(label, text);
  return leaks;
}

/** How many texts (files and archive entries) a scan looked at, to show the scan was not empty. */
export function countScanned(folders: string[]): number {
  return textsUnder(folders).length;
}

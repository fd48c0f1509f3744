/**
 * Looks for a secret in everything a run wrote: every file under a folder (zip archives such
 * as Playwright's HTML report data are opened), plus any extra texts (stdout, stderr). A
 * value counts as found raw, URL-encoded, base64 (any variant) or HTML/JSON-escaped, in any
 * letter case.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';

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
  const texts = [{ where: path, text: content.toString('latin1') }];
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

/** Every file under `folder`. */
export function filesUnder(folder: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) files.push(...filesUnder(path));
    else files.push(path);
  }
  return files;
}

/** Where `value` leaked: file paths (or extra text labels). Empty when it did not. */
export function findLeaks(value: string, folders: string[], extra: Record<string, string> = {}): string[] {
  const forms = leakForms(value);
  const leaks: string[] = [];
  const check = (where: string, text: string) => {
    const lower = text.toLowerCase();
    for (const form of forms) if (lower.includes(form)) leaks.push(`${where} (as ${JSON.stringify(form)})`);
  };
  for (const folder of folders) {
    for (const file of filesUnder(folder)) for (const { where, text } of textsOf(file, readFileSync(file))) check(where, text);
  }
  for (const [label, text] of Object.entries(extra)) check(label, text);
  return leaks;
}

/** How many texts (files and archive entries) a scan looked at, to show the scan was not empty. */
export function countScanned(folders: string[]): number {
  let count = 0;
  for (const folder of folders) for (const file of filesUnder(folder)) count += textsOf(file, readFileSync(file)).length;
  return count;
}

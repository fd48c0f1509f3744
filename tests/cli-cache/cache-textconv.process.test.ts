import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobPath, encodeEntry, refPath, type ActEntry } from '../../cache-format/index.js';
import { textconvCacheFile } from '../../review/cache-textconv.js';
import { entryLines } from '../../review/entry-text.js';
import { initProject } from '../../cli/init-command.js';
import { actEntry, commitAll, control, git, stateControl, temporaryFolder, writeEntries, writeFile } from '../support/cache-fixtures.js';
import { CACHE_CLI } from './support/run-cli.js';

let folder: string;
let entry: ActEntry;
let blob: string;
let bytes: Uint8Array;

function coupon(button: string): Promise<ActEntry> {
  return actEntry({
    testId: 'tests/checkout.e2e.ts::checkout › applies a coupon',
    instruction: 'apply the coupon SAVE10',
    actions: [
      { verb: 'type', target: control('textbox', 'Coupon'), value: { kind: 'literal', value: 'SAVE10' }, replace: true },
      { verb: 'tap', target: control('button', button) },
    ],
    appeared: [stateControl('status', 'Coupon applied')],
  });
}

beforeAll(async () => {
  folder = await temporaryFolder('textconv');
  entry = await coupon('Apply');
  ({ blob, bytes } = await encodeEntry(entry));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('e2e cache show --textconv', () => {
  it('renders a blob file as the entry text, checked against the content address in its name', async () => {
    const path = join(folder, `${blob}.msgpack`);
    writeFile(path, bytes);
    expect(await textconvCacheFile(path)).toBe(entryLines(entry, { blob, storedVersion: 1 }).join('\n'));
  });

  it("reads git's temp file, whose name ends with the blob's name", async () => {
    const path = join(folder, `Xy12Ab_${blob}.msgpack`);
    writeFile(path, bytes);
    const text = await textconvCacheFile(path);
    expect(text).toContain('  2. tap button "Apply"');
    expect(text).not.toContain('not checked');
  });

  it('prints the reason for damaged bytes instead of throwing', async () => {
    const path = join(folder, 'damaged', `${blob}.msgpack`);
    const damaged = Uint8Array.from(bytes);
    damaged[10] = damaged[10]! ^ 0x55;
    writeFile(path, damaged);
    expect(await textconvCacheFile(path)).toMatch(new RegExp(`^Invalid cache entry ${blob} \\(hash-mismatch\\): `));
    const garbage = join(folder, 'garbage.bin');
    writeFile(garbage, Uint8Array.from([0xc1, 0xff, 0x00, 0x13]));
    expect(await textconvCacheFile(garbage)).toMatch(/^Invalid cache entry [0-9a-f]{16}-4 \(undecodable\): /);
    expect(await textconvCacheFile(join(folder, 'missing.msgpack'))).toBe('Cannot read missing.msgpack: ENOENT.');
  });

  it('renders a ref file as the blob it names', async () => {
    const path = refPath(join(folder, 'cache'), entry.key);
    writeFile(path, `${blob}\n`);
    expect(await textconvCacheFile(path)).toBe(`Cache ref ${entry.key} → blob ${blob}`);
    writeFile(path, 'nonsense');
    expect(await textconvCacheFile(path)).toBe(`Cache ref ${entry.key}: malformed (it names no blob).`);
  });

  it('makes `git diff` show cache entries as sentences once init and the textconv are set up', async () => {
    const repository = join(folder, 'repository');
    writeFile(join(repository, 'README.md'), 'shop\n');
    git(repository, 'init', '-q');
    await initProject(repository);
    git(repository, 'config', 'diff.e2e-cache.textconv', `${CACHE_CLI.join(' ')} cache show --textconv`);
    const cache = join(repository, '.e2e', 'cache');
    await writeEntries(cache, [entry]);
    commitAll(repository, 'record the coupon step');
    const healed = await coupon('Redeem');
    await rm(blobPath(cache, blob));
    await writeEntries(cache, [healed]);
    commitAll(repository, 'heal the coupon step');
    const diff = git(repository, 'diff', '-M', 'HEAD~1', 'HEAD', '--', '.e2e/cache');
    expect(diff).toContain('-  2. tap button "Apply"');
    expect(diff).toContain('+  2. tap button "Redeem"');
    expect(diff).toContain(`+Cache entry ${healed.key}`);
  });
});

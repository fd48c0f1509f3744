/**
 * Writes the golden entry samples (`v<version>-<kind>.msgpack` + a readable `.json` twin)
 * for the current schema version. Run only to add the samples of a new version:
 *
 *   node --import tsx golden/entries/update.ts --update
 *
 * Samples of older versions are never rewritten: they prove that bytes written by an older
 * e2e still read (cache-format/golden-entries.test.ts).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeEntry, ENTRY_SCHEMA_VERSION, type Entry } from '../../cache-format/index.js';
import { sampleActEntry, sampleJudgmentEntry } from '../../tests/support/sample-entries.js';

const folder = dirname(fileURLToPath(import.meta.url));

async function writeSample(name: string, entry: Entry): Promise<void> {
  const binaryPath = join(folder, `${name}.msgpack`);
  if (existsSync(binaryPath)) {
    process.stdout.write(`kept ${name} (samples of a released version are never rewritten; delete it first to regenerate)\n`);
    return;
  }
  const { bytes, blob } = await encodeEntry(entry);
  writeFileSync(binaryPath, bytes);
  writeFileSync(join(folder, `${name}.json`), `${JSON.stringify({ blob, entry }, null, 2)}\n`);
  process.stdout.write(`wrote ${name} (${blob})\n`);
}

if (!process.argv.includes('--update')) {
  process.stderr.write('Refusing to write golden files without --update.\n');
  process.exitCode = 2;
} else {
  await writeSample(`v${ENTRY_SCHEMA_VERSION}-act`, await sampleActEntry());
  await writeSample(`v${ENTRY_SCHEMA_VERSION}-assert`, await sampleJudgmentEntry());
}

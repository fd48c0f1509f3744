/**
 * Writes the golden entry samples (`v<version>-<kind>.msgpack` + a readable `.json` twin)
 * of each version this build writes. Run only to add the samples of a new version:
 *
 *   node --import tsx golden/entries/update.ts --update
 *
 * Samples of older versions are never rewritten: they prove that bytes written by an older
 * e2e still read (cache-format/golden-entries.test.ts).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeEntry, type ActEntry, type Entry } from '../../cache-format/index.js';
import { sampleActEntry, sampleJudgmentEntry, sampleTerminalActEntry, sampleTerminalJudgmentEntry } from '../../tests/support/sample-entries.js';

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

/**
 * The act sample with the additions to version 1 that end checks gained since: bases, the
 * outcomes the step produced (`producedBy`), the causes an audit found (`causedBy`), acted checks.
 */
async function producedActEntry(): Promise<ActEntry> {
  const entry = await sampleActEntry();
  return {
    ...entry,
    appeared: [
      { role: 'listitem', name: 'Buy milk 0', states: [], basis: 'typed', producedBy: [2] },
      { role: 'status', name: '1 item left', text: '1 item left', states: [], basis: 'announced', producedBy: [2, 5], causedBy: [5] },
      { role: 'link', name: 'All', states: [], basis: 'incidental', producedBy: [2] },
    ],
    gone: [{ role: 'text', name: '2 items left', states: [], basis: 'incidental', producedBy: [5] }],
    acted: [{ target: { role: 'checkbox', name: 'Toggle Todo', container: { role: 'listitem', name: 'Buy milk 0' }, twinIndex: 0, twinCount: 2 }, present: true, states: ['checked'], causedBy: [5] }],
  };
}

if (!process.argv.includes('--update')) {
  process.stderr.write('Refusing to write golden files without --update.\n');
  process.exitCode = 2;
} else {
  // Version 1: an entry with a location (routes), as the web engine records it.
  await writeSample('v1-act', await sampleActEntry());
  await writeSample('v1-assert', await sampleJudgmentEntry());
  await writeSample('v1-act-produced', await producedActEntry());
  // Version 2: an entry of an engine without a location (a terminal): no routes, no origins.
  await writeSample('v2-act', await sampleTerminalActEntry());
  await writeSample('v2-assert', await sampleTerminalJudgmentEntry());
}

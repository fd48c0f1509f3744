/** The cache key as another Node.js process computes it (moved from key.test.ts: the unit tier starts no process). */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sampleKeyParts } from '../tests/support/sample-entries.js';
import { computeKey } from './key.js';

const run = promisify(execFile);

describe('computeKey', () => {
  it('gives the same key in another process', async () => {
    const keyModule = fileURLToPath(new URL('./key.ts', import.meta.url));
    const script = `const { computeKey } = await import(${JSON.stringify(keyModule)});
process.stdout.write(await computeKey(${JSON.stringify(sampleKeyParts())}));`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
    });
    expect(stdout).toBe(await computeKey(sampleKeyParts()));
  });
});

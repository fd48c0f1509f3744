/**
 * Keeps a tier honest (vitest `setupFiles` of the `unit` and `browser` tiers, vitest.config.ts):
 * a test there starts no process. Any child process (the built binary, git, npm, a worker
 * script, a Chromium of its own) fails the test at once with where the file belongs instead.
 * The browser tier's Chromium comes from its global setup (`shared-chromium.ts`), in the
 * main vitest process, so a browser test needs none.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { expect } from 'vitest';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

function refuse(name: string): never {
  const file = expect.getState().testPath ?? 'this test file';
  throw new Error(
    `${file} started a process (child_process.${name}), which its tier forbids: a unit test starts neither a process nor a browser, ` +
      'and a browser test uses the shared Chromium (tests/support/test-browser.ts). Rename the file *.process.test.ts if it must start one.',
  );
}

const writable = childProcess as unknown as Record<string, unknown>;
for (const name of STARTERS) writable[name] = () => refuse(name);
// ESM named imports of node:child_process read the patched functions too.
syncBuiltinESMExports();

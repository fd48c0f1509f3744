import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { DEFAULT_TIMEOUT_MS, SUITE_LOAD_FACTOR, loadFactor, scaledTimeout } from './tests/support/load-scaled.js';
import { TierSequencer } from './tests/support/tier-sequencer.js';

const suiteLoad = loadFactor();
const LOAD_SCALED = 'tests/support/load-scaled-setup.ts';
const TIER_GUARD = 'tests/support/tier-guard.ts';
const EXCLUDE = ['node_modules/**', 'dist/**', '**/fixtures/**'];

/**
 * Four tiers, one Vitest project each, all run by `npm test` (tests/README.md, "Tiers"); a file's
 * tier is the word before `.test.ts`:
 * - `unit` (`x.test.ts`): no browser, no process (tier-guard.ts fails a test that starts one);
 * - `browser` (`x.browser.test.ts`): Chromium, one per worker, launched once (shared-chromium.ts);
 * - `process` (`x.process.test.ts`): the built binary and other processes (`dist/` built once),
 *   fixture projects on a Chromium per worker too, launched once (shared-chromium.ts);
 * - `install` (`x.install.test.ts`): the packed tarball in fresh projects (packed and installed once).
 */
export default defineConfig({
  test: {
    // A timeout bounds a hang, never speed: on a busy machine (load above the cores) it grows,
    // here by the load at the suite's start, and again per file (tests/support/load-scaled-setup.ts),
    // never past four minutes (HANG_LIMIT_MS), so a hang still shows.
    testTimeout: scaledTimeout(DEFAULT_TIMEOUT_MS),
    hookTimeout: scaledTimeout(DEFAULT_TIMEOUT_MS),
    env: { [SUITE_LOAD_FACTOR]: String(suiteLoad) },
    // One file more than the cores, the slow tiers first: a browser or process file spends much
    // of its time waiting (a replay waiting for an outcome, a settle, a child process starting),
    // so a file per core leaves cores idle (quiet, 2 workers on 2 cores kept 1.1 of them busy).
    maxWorkers: Math.max(2, availableParallelism() + 1),
    fileParallelism: true,
    sequence: { sequencer: TierSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['**/*.test.ts'],
          // The files of a worker share one module graph (the modules load once per worker, not per
          // file: 64 -> 34 CPU-s for the tier), so a unit test leaves no process-wide state behind.
          isolate: false,
          exclude: [...EXCLUDE, '**/*.browser.test.ts', '**/*.process.test.ts', '**/*.install.test.ts'],
          setupFiles: [LOAD_SCALED, TIER_GUARD],
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['**/*.browser.test.ts'],
          exclude: EXCLUDE,
          globalSetup: ['tests/support/shared-chromium.ts'],
          setupFiles: [LOAD_SCALED, TIER_GUARD],
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: ['**/*.process.test.ts'],
          exclude: EXCLUDE,
          // Fixture runs connect to their worker's Chromium (tests/runner/fixtures/shared/fixture-web.ts).
          globalSetup: ['tests/support/built-once.ts', 'tests/support/shared-chromium.ts'],
          setupFiles: [LOAD_SCALED],
        },
      },
      {
        extends: true,
        test: {
          name: 'install',
          include: ['**/*.install.test.ts'],
          exclude: EXCLUDE,
          globalSetup: ['tests/install/support/install-once.ts'],
          setupFiles: [LOAD_SCALED],
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';
import { DEFAULT_TIMEOUT_MS, SUITE_LOAD_FACTOR, loadFactor } from './tests/support/load-scaled.js';

const suiteLoad = loadFactor();

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**', '**/fixtures/**'],
    // A timeout bounds a hang, never speed: on a busy machine (load above the cores) it grows,
    // here by the load at the suite's start, and again per file (tests/support/load-scaled-setup.ts).
    testTimeout: Math.ceil(DEFAULT_TIMEOUT_MS * suiteLoad),
    hookTimeout: Math.ceil(DEFAULT_TIMEOUT_MS * suiteLoad),
    env: { [SUITE_LOAD_FACTOR]: String(suiteLoad) },
    setupFiles: ['tests/support/load-scaled-setup.ts'],
    // Two cores: browser-heavy files run one or two at a time.
    maxWorkers: 2,
    fileParallelism: true,
  },
});

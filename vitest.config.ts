import { defineConfig } from 'vitest/config';
import { scaledTimeout } from './tests/support/load-scaled.js';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**', '**/fixtures/**'],
    // A timeout bounds a hang, never speed: on a busy machine (load above the cores) it grows.
    testTimeout: scaledTimeout(60_000),
    hookTimeout: scaledTimeout(60_000),
    // Two cores: browser-heavy files run one or two at a time.
    maxWorkers: 2,
    fileParallelism: true,
  },
});

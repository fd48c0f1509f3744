import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**', '**/fixtures/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: browser-heavy files run one or two at a time.
    maxWorkers: 2,
    fileParallelism: true,
  },
});

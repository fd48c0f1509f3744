/**
 * Runs before each test file (`setupFiles` in vitest.config.ts): the file's default test and
 * hook timeouts scale with the load when the file starts, not only when the suite did, so a
 * machine that got busy halfway through a long suite still waits instead of failing.
 */
import { vi } from 'vitest';
import { DEFAULT_TIMEOUT_MS, scaledTimeout } from './load-scaled.js';

vi.setConfig({ testTimeout: scaledTimeout(DEFAULT_TIMEOUT_MS), hookTimeout: scaledTimeout(DEFAULT_TIMEOUT_MS) });

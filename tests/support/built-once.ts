/**
 * Global setup of the tiers that run the built binary (vitest.config.ts): `dist/` is built once,
 * before any of their files starts, when it is missing or older than the sources.
 */
import { ensureBuilt } from '../runner/support/build.js';

/** Build `dist/` unless it is fresh. */
export default function setup(): void {
  ensureBuilt();
}

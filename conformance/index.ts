/**
 * `e2e/conformance`: the engine conformance suite (DESIGN §8). Every engine passes it: `web()`,
 * `terminal()`, the in-memory test engine, and an engine of your own. It is a list of named
 * checks, each an async function that throws `ASSERTION_FAILED` on a violation, so any test
 * runner runs them:
 *
 * ```ts
 * for (const check of conformanceChecks(subject)) test(check.name, () => check.run());
 * ```
 */
import { cacheChecks } from './cache-checks.js';
import { engineChecks, type ConformanceCheck } from './engine-checks.js';
import type { ConformanceSubject } from './subject.js';

export type { ConformanceCheck } from './engine-checks.js';
export type { ConformanceApp, ConformanceControl, ConformanceSubject } from './subject.js';

/** Every check of the suite for `subject`: the engine contract, then the cache through it. */
export function conformanceChecks(subject: ConformanceSubject): ConformanceCheck[] {
  return [...engineChecks(subject), ...cacheChecks(subject)];
}

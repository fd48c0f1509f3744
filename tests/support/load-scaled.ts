/**
 * Timeouts that grow with the machine's load, so a suite on a busy machine (a load average
 * of 12 on two cores) waits longer instead of failing: a timeout bounds a hang, never speed.
 */
import { availableParallelism, loadavg } from 'node:os';

/** How much busier than its cores the machine is now: at least 1, at most 10. */
export function loadFactor(): number {
  const [oneMinute = 0] = loadavg();
  return Math.min(10, Math.max(1, oneMinute / Math.max(1, availableParallelism())));
}

/** `ms` scaled by the machine's load at the time of the call (for vitest test and hook timeouts). */
export function scaledTimeout(ms: number): number {
  return Math.ceil(ms * loadFactor());
}

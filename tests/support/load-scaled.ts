/**
 * Timeouts that grow with the machine's load, so a suite on a busy machine (a load average
 * of 12 on two cores) waits longer instead of failing: a timeout bounds a hang, never speed.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/** The variable `vitest.config.ts` hands its workers: the load factor when the suite started. */
export const SUITE_LOAD_FACTOR = 'E2E_SUITE_LOAD_FACTOR';

/**
 * How much busier than its cores the machine is now, and never less than when the suite
 * started: at least 1, at most 10. "Now" is the larger of the one-minute load average and the
 * processes runnable at this moment, which a CPU-heavy job that just started raises at once.
 */
export function loadFactor(): number {
  const [oneMinute = 0] = loadavg();
  const now = Math.max(oneMinute, runnableNow()) / Math.max(1, availableParallelism());
  const atStart = Number(process.env[SUITE_LOAD_FACTOR] ?? 1);
  return Math.min(10, Math.max(1, now, Number.isFinite(atStart) ? atStart : 1));
}

/**
 * The most a timeout grows to, however busy the machine: a hang is reported within four minutes.
 * A timeout asked for above it (a base already longer) is not scaled at all.
 */
export const HANG_LIMIT_MS = 240_000;

/** `ms` scaled by the machine's load at the time of the call (for vitest test and hook timeouts), at most {@link HANG_LIMIT_MS}. */
export function scaledTimeout(ms: number): number {
  return Math.min(Math.ceil(ms * loadFactor()), Math.max(ms, HANG_LIMIT_MS));
}

/** The default test and hook timeout before scaling. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** Processes runnable right now (the fourth field of Linux's /proc/loadavg); 0 where there is none. */
function runnableNow(): number {
  try {
    const running = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[3]?.split('/')[0]);
    return Number.isFinite(running) ? running : 0;
  } catch {
    return 0;
  }
}

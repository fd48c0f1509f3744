/**
 * Waiting after an action (DESIGN §4): engines answer one immediate query, so the runner
 * polls observations until the screen leaves the shape the action was resolved against,
 * then lets it go quiet briefly, all within `maxMs` (2 s). Ticking clocks do not count as
 * change because {@link shapeOf} masks them.
 */
import { E2EError } from '../errors/index.js';
import type { ScreenNode } from './engine.js';
import { shapeOf } from './screen-text.js';

/** Time source and sleeping, injectable so tests can run on a fake clock. */
export interface SettleClock {
  now(): number;
  /** Resolve after `milliseconds`, or reject with `CANCELLED` when `signal` aborts. */
  sleep(milliseconds: number, signal?: AbortSignal): Promise<void>;
}

/** Options of {@link settleAfterAction}. */
export interface SettleOptions<T> {
  /** Longest total wait. Default 2000 ms. */
  maxMs?: number;
  /** Cancels the wait (rejects with `CANCELLED`). */
  signal?: AbortSignal;
  /** How long a changed screen must hold still to count as settled. Default 100 ms. */
  quietMs?: number;
  /** Longest quiet phase after the first change. Default 500 ms. */
  maxQuietMs?: number;
  /** Pause between observations. Default 50 ms. */
  pollMs?: number;
  /** Shape of an observation. Default {@link shapeOf} of its tree and URL. */
  shape?: (observation: T) => string;
  clock?: SettleClock;
}

/** Anything with a screen tree (and a URL, which counts as part of the shape). */
export type Settleable = { root: ScreenNode; url?: string };

/** Defaults of {@link SettleOptions}. */
export const SETTLE_DEFAULTS = { maxMs: 2000, quietMs: 100, maxQuietMs: 500, pollMs: 50 } as const;

function cancelled(): E2EError {
  return new E2EError('CANCELLED', 'Waiting for the screen to settle was cancelled.');
}

/** The real clock. */
export const systemClock: SettleClock = {
  now: () => performance.now(),
  sleep: (milliseconds, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(cancelled());
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(cancelled());
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, milliseconds);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * Observe until the shape differs from `beforeShape` (then until it holds still for
 * `quietMs`, bounded) or `maxMs` passes; returns the last observation. An action that
 * changed nothing costs the full `maxMs`; one that changed the screen returns early.
 */
export async function settleAfterAction<T extends Settleable>(
  observe: (options: { signal?: AbortSignal }) => Promise<T>,
  beforeShape: string,
  options: SettleOptions<T> = {},
): Promise<T> {
  const clock = options.clock ?? systemClock;
  const shape = options.shape ?? ((observation: T) => shapeOf(observation));
  const maxMs = options.maxMs ?? SETTLE_DEFAULTS.maxMs;
  const quietMs = options.quietMs ?? SETTLE_DEFAULTS.quietMs;
  const pollMs = options.pollMs ?? SETTLE_DEFAULTS.pollMs;
  const signal = options.signal;
  const observeOptions = signal === undefined ? {} : { signal };
  const deadline = clock.now() + maxMs;
  if (signal?.aborted === true) throw cancelled();

  let observation = await observe(observeOptions);
  let current = shape(observation);
  // Phase one: wait for the screen to leave the shape the action was resolved against.
  while (current === beforeShape) {
    const left = deadline - clock.now();
    if (left <= 0) return observation;
    await clock.sleep(Math.min(pollMs, left), signal);
    observation = await observe(observeOptions);
    current = shape(observation);
  }
  // Phase two: let it stop changing, briefly.
  const quietDeadline = Math.min(deadline, clock.now() + (options.maxQuietMs ?? SETTLE_DEFAULTS.maxQuietMs));
  let stableSince = clock.now();
  for (;;) {
    const now = clock.now();
    if (now - stableSince >= quietMs || now >= quietDeadline) return observation;
    await clock.sleep(Math.min(pollMs, quietDeadline - now, quietMs - (now - stableSince)), signal);
    observation = await observe(observeOptions);
    const next = shape(observation);
    if (next !== current) {
      current = next;
      stableSince = clock.now();
    }
  }
}

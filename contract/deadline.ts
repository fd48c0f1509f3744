/**
 * The one deadline and cancellation primitive (STYLE 8). A `Deadline` couples an
 * `AbortSignal` with a point in time; children end no later than their parent, and every
 * wait in the runner races against one. The abort reason is always an `E2EError`, so a
 * stopped operation reports a stable code (`STEP_TIMEOUT`, `CANCELLED`, or a hard stop).
 */
import { E2EError, isE2EError } from '../errors/index.js';

/** A source of the current time in milliseconds (injectable for tests). */
export interface Clock {
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Options of {@link Deadline.start}. */
export interface DeadlineOptions {
  /** Milliseconds from now; `undefined` or `Infinity` for no time limit. */
  timeoutMs?: number | undefined;
  /** A parent: this deadline aborts when the parent does and never outlives it. */
  parent?: Deadline | AbortSignal | undefined;
  /** Builds the error reported when the time runs out. */
  onTimeout?: (() => E2EError) | undefined;
  clock?: Clock | undefined;
}

/** A signal plus a deadline. Call {@link Deadline.dispose} when the guarded work ends. */
export class Deadline {
  /** Aborts on timeout, on {@link Deadline.abort}, or when the parent aborts. */
  readonly signal: AbortSignal;
  /** Epoch milliseconds when time runs out (`Infinity` for none). */
  readonly expiresAt: number;
  readonly #controller: AbortController;
  readonly #clock: Clock;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timedOut = false;
  #detachParent: (() => void) | undefined;

  private constructor(controller: AbortController, expiresAt: number, clock: Clock) {
    this.#controller = controller;
    this.signal = controller.signal;
    this.expiresAt = expiresAt;
    this.#clock = clock;
  }

  /** Start a deadline. */
  static start(options: DeadlineOptions = {}): Deadline {
    const clock = options.clock ?? (options.parent instanceof Deadline ? options.parent.#clock : systemClock);
    const parent = options.parent;
    const parentExpiry = parent instanceof Deadline ? parent.expiresAt : Infinity;
    const ownExpiry =
      options.timeoutMs === undefined || !Number.isFinite(options.timeoutMs)
        ? Infinity
        : clock.now() + Math.max(0, options.timeoutMs);
    const expiresAt = Math.min(ownExpiry, parentExpiry);
    const deadline = new Deadline(new AbortController(), expiresAt, clock);
    const parentSignal = parent instanceof Deadline ? parent.signal : parent;
    if (parentSignal !== undefined) {
      if (parentSignal.aborted) {
        deadline.abort(asStopError(parentSignal.reason));
        return deadline;
      }
      const onParentAbort = () => {
        if (parent instanceof Deadline && parent.timeIsUp()) deadline.#timedOut = true;
        deadline.abort(asStopError(parentSignal.reason));
      };
      parentSignal.addEventListener('abort', onParentAbort, { once: true });
      deadline.#detachParent = () => parentSignal.removeEventListener('abort', onParentAbort);
    }
    if (ownExpiry <= parentExpiry && Number.isFinite(ownExpiry)) {
      const onTimeout =
        options.onTimeout ?? (() => new E2EError('STEP_TIMEOUT', `The operation did not finish within ${options.timeoutMs} ms.`));
      deadline.#timer = setTimeout(() => {
        deadline.#timedOut = true;
        deadline.abort(onTimeout());
      }, Math.max(0, ownExpiry - clock.now()));
    }
    return deadline;
  }

  /** A child deadline that ends after `timeoutMs` or with this one, whichever is first. */
  child(timeoutMs?: number, onTimeout?: () => E2EError): Deadline {
    return Deadline.start({ timeoutMs, parent: this, onTimeout, clock: this.#clock });
  }

  /** Milliseconds left (0 when passed, `Infinity` without a limit). */
  remainingMs(): number {
    if (this.signal.aborted) return 0;
    return Math.max(0, this.expiresAt - this.#clock.now());
  }

  /** True once the time has run out, whether or not the timer has fired yet. */
  timeIsUp(): boolean {
    return this.#timedOut || this.#clock.now() >= this.expiresAt;
  }

  /** The error this deadline stopped with, if it stopped. */
  reason(): E2EError | undefined {
    return this.signal.aborted ? asStopError(this.signal.reason) : undefined;
  }

  /** Stop now with `error` (first call wins). */
  abort(error: E2EError): void {
    if (this.signal.aborted) return;
    this.#clear();
    this.#controller.abort(error);
  }

  /** Throw the stop error when stopped. */
  throwIfStopped(): void {
    const reason = this.reason();
    if (reason !== undefined) throw reason;
  }

  /**
   * Settle with `work`, or reject with the stop error as soon as this deadline stops, even
   * when the work ignores the signal.
   */
  race<T>(work: Promise<T>): Promise<T> {
    const stopped = this.reason();
    if (stopped !== undefined) {
      work.catch(() => undefined);
      return Promise.reject(stopped);
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        reject(asStopError(this.signal.reason));
      };
      this.signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (value) => {
          this.signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          this.signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /** Release the timer and the parent link (the signal keeps its state). */
  dispose(): void {
    this.#clear();
  }

  #clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#detachParent?.();
    this.#detachParent = undefined;
  }
}

/**
 * The one cancellable wait: resolves after `milliseconds`, or rejects as soon as `stop`
 * aborts, with `stopError(reason)` (default: the stop's `E2EError`, else `CANCELLED`).
 */
export function sleep(milliseconds: number, stop?: Deadline | AbortSignal, stopError: (reason: unknown) => unknown = asStopError): Promise<void> {
  const signal = stop instanceof Deadline ? stop.signal : stop;
  if (signal?.aborted === true) return Promise.reject(stopError(signal.reason));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(stopError(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Normalize an abort reason into an `E2EError`. */
function asStopError(reason: unknown): E2EError {
  if (isE2EError(reason)) return reason;
  return new E2EError('CANCELLED', 'The operation was cancelled.');
}

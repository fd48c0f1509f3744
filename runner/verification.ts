/**
 * Verifications (DESIGN §6): a passing assertion on a locator or a page tells the current
 * attempt "a verification passed" after the latest step; the cache later records only `act`
 * steps that such a verification followed. Assertions on plain values are not counted.
 *
 * Normally the attempt observes Playwright's own `expect` steps (step-observer.ts), so
 * `expect` from `@playwright/test` and this one count alike. Where that observation is not
 * available, this wrapper is the fallback: its passing assertions (soft ones not) count.
 */
import { expect as playwrightExpect } from '@playwright/test';
import type { VerificationKind } from '../step/step-record.js';

/** Where verification events go: the running attempt. */
export interface VerificationSink {
  recordVerification(kind: VerificationKind, detail: string): void;
  /** What a passing assertion looked at (a locator or page), so a recording can rest on it; awaited before the assertion resolves. */
  lookedAt?(subject: unknown): Promise<void>;
}

let currentSink: VerificationSink | undefined;
/** False while the attempt counts `expect` steps itself: the wrapper then only reports what they looked at. */
let counting = true;

/**
 * Set (or clear, with undefined) the attempt that receives verifications in this worker.
 * `observed`: the attempt already sees every `expect` step, so the wrapper records nothing.
 */
export function setVerificationSink(sink: VerificationSink | undefined, options: { observed?: boolean } = {}): void {
  currentSink = sink;
  counting = options.observed !== true;
}

/** A Playwright `Locator` or `Page` (checked by shape: module copies may differ). */
function isScreenSubject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const subject = value as Record<string, unknown>;
  if (typeof subject['locator'] !== 'function') return false;
  return typeof subject['goto'] === 'function' || typeof subject['filter'] === 'function';
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

const CHAINS = new Set<PropertyKey>(['not', 'resolves', 'rejects']);

function wrapMatchers<T extends object>(matchers: T, negated: boolean, subject: unknown): T {
  return new Proxy(matchers, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (CHAINS.has(property) && typeof value === 'object' && value !== null) return wrapMatchers(value, negated || property === 'not', subject);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const matcher = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        // A negated assertion looked at what is not there: nothing to rest an end check on.
        const record = async (): Promise<void> => {
          const sink = currentSink;
          if (counting) sink?.recordVerification('expect', `${negated ? 'not.' : ''}${property}`);
          if (!negated) await sink?.lookedAt?.(subject);
        };
        const result = matcher.apply(target, args);
        if (isThenable(result)) {
          return Promise.resolve(result).then(async (resolved) => {
            await record();
            return resolved;
          });
        }
        void record();
        return result;
      };
    },
  });
}

/** Wrap an `expect` (and the ones `configure`/`extend` derive from it). */
function wrapExpect<T extends typeof playwrightExpect>(original: T): T {
  return new Proxy(original, {
    apply(target, thisArgument, args: unknown[]) {
      const assertion: unknown = Reflect.apply(target, thisArgument, args);
      if (!isScreenSubject(args[0]) || typeof assertion !== 'object' || assertion === null) return assertion;
      return wrapMatchers(assertion, false, args[0]);
    },
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if ((property === 'configure' || property === 'extend') && typeof value === 'function') {
        const derive = value as (...args: unknown[]) => T;
        return (...args: unknown[]) => wrapExpect(derive.apply(target, args));
      }
      return value;
    },
  });
}

/**
 * Playwright's `expect`; a passing assertion on a locator or page also counts as a
 * verification of the agent steps before it.
 */
export const expect: typeof playwrightExpect = wrapExpect(playwrightExpect);

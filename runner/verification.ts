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
import type { VerificationKind } from '../executor/step-record.js';

/** Where verification events go: the running attempt. */
export interface VerificationSink {
  recordVerification(kind: VerificationKind, detail: string): void;
}

let currentSink: VerificationSink | undefined;

/**
 * Set (or clear, with undefined) the attempt that receives verifications in this worker.
 * `observed`: the attempt already sees every `expect` step, so the wrapper records nothing.
 */
export function setVerificationSink(sink: VerificationSink | undefined, options: { observed?: boolean } = {}): void {
  currentSink = options.observed === true ? undefined : sink;
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

function wrapMatchers<T extends object>(matchers: T, negated: boolean): T {
  return new Proxy(matchers, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (CHAINS.has(property) && typeof value === 'object' && value !== null) return wrapMatchers(value, negated || property === 'not');
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const matcher = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const record = () => currentSink?.recordVerification('expect', `${negated ? 'not.' : ''}${property}`);
        const result = matcher.apply(target, args);
        if (isThenable(result)) {
          return Promise.resolve(result).then((resolved) => {
            record();
            return resolved;
          });
        }
        record();
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
      return wrapMatchers(assertion, false);
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

/**
 * The one place an attempt is put together: the step runner, the attempt's cache on its three
 * seams (`stepInterceptor`, `onAction`, `onVerification`), and the built-in agent. The fixtures use it, and so does every test that runs an
 * attempt without Playwright Test, so they cannot drift apart.
 */
import { createBuiltInAgent } from '../executor/built-in.js';
import type { WriteReport } from '../contract/cache-outcome.js';
import type { LookedAtWanted, StepInterceptor } from '../contract/step-seams.js';
import { silentLogger } from '../contract/logger.js';
import { E2EError } from '../errors/index.js';
import { Outbound } from '../secrets/outbound.js';
import { createAttemptRunner, type AttemptRunner, type AttemptRunnerOptions, type BuiltInAgent } from '../step/step-runner.js';
import { createAttemptCache, type AttemptCache, type AttemptCacheOptions, type AttemptEnd } from '../step-cache/attempt-cache.js';

/** Options of {@link wireAttempt}: the runner's, with the cache and the built-in agent wired here. */
export interface AttemptWiring extends Omit<AttemptRunnerOptions, 'stepInterceptor' | 'builtIn'> {
  /** The attempt's cache; none when the cache mode is `off`. */
  cache?: AttemptCacheOptions | undefined;
  /** Default: a fresh `createBuiltInAgent()`. */
  builtIn?: BuiltInAgent | undefined;
  /** A hand-made interceptor in place of the cache (tests that stand in for it). */
  stepInterceptor?: StepInterceptor | undefined;
}

/** A wired attempt. */
export interface WiredAttempt {
  runner: AttemptRunner;
  cache: AttemptCache | undefined;
  /**
   * Hand the cache the attempt's step records and let it write what its verifications (which
   * reached it on the `onVerification` seam) confirmed; each step's record gets its final
   * cache outcome. Returns the cache's reports (none without a cache). Call once.
   */
  finish(end: Omit<AttemptEnd, 'steps'>): Promise<WriteReport[]>;
}

/** Wire one attempt. */
export function wireAttempt(options: AttemptWiring & { cache: AttemptCacheOptions }): WiredAttempt & { cache: AttemptCache };
export function wireAttempt(options: AttemptWiring): WiredAttempt;
export function wireAttempt(options: AttemptWiring): WiredAttempt {
  const { cache: cacheOptions, builtIn, stepInterceptor, ...runnerOptions } = options;
  if (cacheOptions !== undefined && stepInterceptor !== undefined) {
    throw new E2EError('INVALID_ARGUMENT', 'wireAttempt takes a cache or a stand-in stepInterceptor, not both.');
  }
  // One outbound boundary for the attempt: the runner's records, transcripts and lines, and the cache's entries and lines.
  const outbound = runnerOptions.outbound ?? new Outbound(runnerOptions.secrets);
  const cache =
    cacheOptions === undefined
      ? undefined
      : createAttemptCache({ ...cacheOptions, cleanEntry: (text) => outbound.cleanEntry(text), logger: outbound.logger(cacheOptions.logger ?? silentLogger) });
  const runner = createAttemptRunner({
    ...runnerOptions,
    outbound,
    builtIn: builtIn ?? createBuiltInAgent(),
    onAction: composeListeners(cache?.listener, runnerOptions.onAction),
    onVerification: composeListeners(cache?.verificationListener, runnerOptions.onVerification),
    wantsLookedAt: anyWants(cache?.wantsLookedAt, runnerOptions.wantsLookedAt),
    stepInterceptor: cache?.interceptor ?? stepInterceptor,
  });
  return {
    runner,
    cache,
    finish: async (end) => {
      if (cache === undefined) return [];
      const reports = await cache.finishAttempt({ ...end, steps: runner.records });
      for (const report of reports) runner.annotateStep(report.stepIndex, report.outcome);
      return reports;
    },
  };
}

/** The cache's listener and the caller's, in that order. */
function composeListeners<Event>(first: ((event: Event) => void) | undefined, second: ((event: Event) => void) | undefined): ((event: Event) => void) | undefined {
  if (first === undefined || second === undefined) return first ?? second;
  return (event) => {
    first(event);
    second(event);
  };
}

/** Either wants what a verification looked at. */
function anyWants(first: LookedAtWanted | undefined, second: LookedAtWanted | undefined): LookedAtWanted | undefined {
  if (first === undefined || second === undefined) return first ?? second;
  return (afterStep) => first(afterStep) || second(afterStep);
}

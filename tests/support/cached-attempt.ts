/**
 * One attempt of the real step runner with the attempt cache plugged in, over a live page:
 * what the runner host does per test attempt (construct the cache, pass its interceptor and
 * listener to the runner, report verifications, finish the attempt with the runner's
 * records), without Playwright Test around it.
 */
import type { CacheStore } from '../../cache-format/index.js';
import type { AttemptCache, AttemptCacheOptions, CacheMode, WriteReport } from '../../step-cache/attempt-cache.js';
import type { VerificationKind } from '../../step/step-record.js';
import { SecretVault, type SecretRef, type UniqueValue } from '../../secrets/vault.js';
import type { StepExecutor } from '../../contract/step-contract.js';
import type { AttemptRunner, StepOutcome } from '../../step/step-runner.js';
import { wireAttempt } from '../../runner/wire-attempt.js';
import { nodeIdsOf } from '../../engines/web/locate-node.js';
import type { LiveScreen } from './live-screen.js';

/** Options of {@link cachedAttempt}. */
export interface CachedAttemptOptions {
  live: LiveScreen;
  store: CacheStore;
  /** Without one, no agent can run (a model-free run). */
  executor?: StepExecutor;
  mode?: CacheMode;
  strict?: boolean;
  retry?: number;
  secrets?: Record<string, string>;
  context?: string;
  proposalStore?: CacheStore;
  hitsEnabled?: boolean;
  /** Replay waits; short by default so a stopped replay costs little test time. */
  waitForTargetMs?: number;
}

/** A running attempt. */
export interface CachedAttempt {
  runner: AttemptRunner;
  cache: AttemptCache;
  act(instruction: string, params?: Record<string, string | SecretRef | UniqueValue>): Promise<StepOutcome>;
  /** A passing verification after the latest step (what `expect` reports). */
  verify(kind?: VerificationKind): void;
  /** A passing `expect` on `locator` after the latest step, with what it looked at (what the runner host reports). */
  verifyLocator(locator: unknown): Promise<void>;
  /** End the attempt as the fixture teardown does. */
  finish(passed?: boolean): Promise<WriteReport[]>;
}

/** The test id every cached attempt uses. */
export const CACHED_TEST_ID = 'todos.e2e.ts::todos › adds and completes';

/** The cache of an attempt on the live screen, as the tests open it (short replay waits). */
export function liveCacheOptions(
  options: Pick<CachedAttemptOptions, 'live' | 'store' | 'mode' | 'strict' | 'proposalStore' | 'hitsEnabled'> & { secrets: Record<string, string>; waitForTargetMs: number },
  vault: SecretVault,
): AttemptCacheOptions {
  return {
    store: options.store,
    mode: options.mode ?? 'read-write',
    strict: options.strict ?? false,
    projectId: 'web',
    appIdentity: options.live.server.origin,
    engine: { name: options.live.engine.name, contractVersion: options.live.engine.contractVersion },
    toolVersion: '0.1.0',
    secrets: options.secrets,
    redact: (text) => vault.redact(text),
    proposalStore: options.proposalStore,
    hitsEnabled: options.hitsEnabled ?? false,
    replay: { waitForTargetMs: options.waitForTargetMs, pollIntervalMs: 50 },
  };
}

/** Start an attempt with the cache wired in. */
export function cachedAttempt(options: CachedAttemptOptions): CachedAttempt {
  const secrets = options.secrets ?? {};
  const vault = new SecretVault(Object.fromEntries(Object.entries(secrets).map(([name, value]) => [name, { value }])));
  const { runner, cache, finish } = wireAttempt({
    cache: liveCacheOptions({ ...options, secrets, waitForTargetMs: options.waitForTargetMs ?? 400 }, vault),
    engine: options.live.instance,
    target: { name: 'web', platform: options.live.engine.platform, verbs: options.live.engine.verbs },
    secrets: vault,
    origins: [options.live.server.origin],
    projectRoot: process.cwd(),
    agents: { default: { ...(options.executor === undefined ? {} : { executor: options.executor }), context: options.context ?? 'A todo app.', limits: {} } },
    attempt: { testId: CACHED_TEST_ID, retry: options.retry ?? 0, titlePath: ['todos', 'adds and completes'] },
    evidence: false,
  });
  return {
    runner,
    cache,
    act: (instruction, params) => runner.runStep('act', instruction, params === undefined ? undefined : { params }),
    verify: (kind = 'expect') => runner.recordVerification(kind, 'toBeVisible'),
    verifyLocator: async (locator) => {
      // As the fixture's expect watch does: read what the locator matched only when the runner wants it.
      if (!runner.wantsLookedAt()) return runner.recordVerification('expect', 'toBeVisible');
      const observation = await options.live.instance.observe();
      runner.recordVerification('expect', 'toBeVisible', { tree: observation.root, url: observation.url, nodeIds: await nodeIdsOf(locator) });
    },
    finish: async (passed = true) => {
      const reports = await finish({ passed });
      runner.close();
      return reports;
    },
  };
}

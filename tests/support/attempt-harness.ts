/**
 * The one attempt harness: an attempt put together as the runner host does it
 * (`runner/wire-attempt.ts`, the same call the fixtures make), without Playwright Test around it.
 * The real step runner over any engine instance (a live page, the memory app, a policed page),
 * with the attempt cache on its seams when the test gives a store, or a stand-in interceptor;
 * everything the attempt hands out (logs, transcripts, screenshots) is kept, so a test can read
 * or scan it; `finish` ends the attempt as the fixture teardown does.
 */
import type { CacheStore } from '../../cache-format/index.js';
import type { Engine, EngineInstance } from '../../contract/engine.js';
import type { Logger } from '../../contract/logger.js';
import type { OpaqueLanguageModel, StepExecutor } from '../../contract/step-contract.js';
import type { ActionListener, StepInterceptor } from '../../contract/step-seams.js';
import { nodeIdsOf } from '../../engines/web/locate-node.js';
import { REPORT_VERSION, toReportStep, type AttemptPayload } from '../../runner/report.js';
import { wireAttempt } from '../../runner/wire-attempt.js';
import { SecretVault, type SecretRef, type UniqueValue } from '../../secrets/vault.js';
import type { AttemptCache, CacheMode, WriteReport } from '../../step-cache/attempt-cache.js';
import type { LimitOverrides } from '../../step/budgets.js';
import type { VerificationKind } from '../../step/step-record.js';
import type { AgentEntry, AttemptRunner, BuiltInAgent, StepOutcome } from '../../step/step-runner.js';
import type { LiveScreen } from './live-screen.js';

/** Where an attempt's steps run: an engine instance, what its engine declares, and the app's identity. */
export interface AttemptScreen {
  instance: EngineInstance;
  engine: Pick<Engine, 'name' | 'contractVersion' | 'platform' | 'verbs' | 'location'>;
  /** With the `url` location: the app's origin, allowed (unless `origins` says otherwise); in any case the cache's app identity. */
  origin: string;
}

/** The attempt cache of {@link startAttempt}, with the options the tests vary. */
export interface HarnessCache {
  store: CacheStore;
  mode?: CacheMode | undefined;
  strict?: boolean | undefined;
  proposalStore?: CacheStore | undefined;
  hitsEnabled?: boolean | undefined;
  /** How long a replay waits for a target; short by default so a stopped replay costs little test time. Default 400 ms. */
  waitForTargetMs?: number | undefined;
  /** How often a waiting replay looks again. Default 50 ms; a test whose replays wait long (planted regressions) passes the product's 100 ms. */
  pollIntervalMs?: number | undefined;
}

/** Options of {@link startAttempt}. */
export interface AttemptOptions {
  /** The `default` agent's executor; without one (and without a model) no agent can act. */
  executor?: StepExecutor | undefined;
  /** The `default` agent's model (the built-in agent and judgments). */
  model?: OpaqueLanguageModel | undefined;
  judge?: OpaqueLanguageModel | undefined;
  /** The `default` agent's context. Default `A todo app.` */
  context?: string | undefined;
  limits?: LimitOverrides | undefined;
  /** In place of the one `default` agent built from the fields above. */
  agents?: Record<string, AgentEntry> | undefined;
  /** The agent `act` steps go to. Default: the default agent. */
  actingAgent?: string | undefined;
  /** Configured secrets, by name. */
  secrets?: Record<string, string> | undefined;
  /** Allowed origins. Default: the screen's origin. */
  origins?: string[] | undefined;
  /** The attempt cache on its seams; none: no cache (or `stepInterceptor`). */
  cache?: HarnessCache | undefined;
  /** A hand-made interceptor standing in for the cache. */
  stepInterceptor?: StepInterceptor | undefined;
  onAction?: ActionListener | undefined;
  /** The runner's built-in agent; default a fresh `createBuiltInAgent()`. */
  builtIn?: BuiltInAgent | undefined;
  /** Also receives the runner's debug and warning lines (they are kept in `handouts.logs` anyway). */
  logger?: Logger | undefined;
  retry?: number | undefined;
  testTimeoutMs?: number | undefined;
  /** Keep transcripts (`--debug`). Default false. */
  debug?: boolean | undefined;
  /** A screenshot after every step. Default false (it costs test time). */
  evidence?: boolean | undefined;
}

/** Everything an attempt handed out. */
export interface Handouts {
  /** The runner's log lines (`debug …`, `warn …`), then the cache's as it said them (`cache debug …`). */
  logs: string[];
  /** String artifacts (transcripts) by name. */
  texts: Record<string, string>;
  /** Binary artifacts (screenshots) by name. */
  binaries: Record<string, Uint8Array>;
  /** The transcripts' bodies, in order. */
  transcripts: string[];
  /** How many screenshots were attached. */
  screenshots: number;
}

type Params = Record<string, string | SecretRef | UniqueValue>;

/** A running attempt. */
export interface AttemptHarness {
  runner: AttemptRunner;
  /** The attempt cache (undefined without `cache`). */
  cache: AttemptCache | undefined;
  handouts: Handouts;
  act(instruction: string, params?: Params, options?: { maxSteps?: number; maxModelCalls?: number; timeout?: number }): Promise<StepOutcome>;
  /** A judgment; a passed one verifies the steps before it, as the `agent` fixture reports it. */
  assert(question: string, params?: Params): Promise<StepOutcome>;
  /** Like {@link assert}. */
  waitFor(condition: string, options?: { timeout?: number; interval?: number }): Promise<StepOutcome>;
  extract(question: string, schema: unknown): Promise<StepOutcome>;
  /** A passing verification after the latest step (what `expect` reports). */
  verify(kind?: VerificationKind): void;
  /** A passing `expect` on `locator` after the latest step, with what it looked at when the runner wants it (the fixture's expect watch). */
  verifyLocator(locator: unknown): Promise<void>;
  /**
   * End the attempt as the fixture teardown does: the runner closes, the cache writes what the
   * verifications confirmed. `passed` defaults to every step having passed. Call once.
   */
  finish(passed?: boolean): Promise<WriteReport[]>;
  /** The attempt's report payload as the fixture attaches it (after `finish`). */
  payload(): string;
  /** The attempt's steps as the HTML report shows them. */
  reportSteps(): string;
}

/** The test every harnessed attempt is. */
export const HARNESS_TEST_ID = 'todos.e2e.ts::todos › adds and completes';

/** The screen of a live page (the shared fixture server). */
export function liveScreen(live: LiveScreen): AttemptScreen {
  return { instance: live.instance, engine: live.engine, origin: live.server.origin };
}

/** Start an attempt on `on` (a screen, or a live page); with `cache`, the attempt cache is on its seams. */
export function startAttempt(on: AttemptScreen | LiveScreen, options: AttemptOptions & { cache: HarnessCache }): AttemptHarness & { cache: AttemptCache };
export function startAttempt(on: AttemptScreen | LiveScreen, options?: AttemptOptions): AttemptHarness;
export function startAttempt(on: AttemptScreen | LiveScreen, options: AttemptOptions = {}): AttemptHarness {
  const screen = 'server' in on ? liveScreen(on) : on;
  const secrets = options.secrets ?? {};
  const vault = new SecretVault(Object.fromEntries(Object.entries(secrets).map(([name, value]) => [name, { value }])));
  const handouts: Handouts = { logs: [], texts: {}, binaries: {}, transcripts: [], screenshots: 0 };
  const cache = options.cache;
  const { runner, cache: attemptCache, finish } = wireAttempt({
    cache:
      cache === undefined
        ? undefined
        : {
            store: cache.store,
            mode: cache.mode ?? 'read-write',
            strict: cache.strict ?? false,
            projectId: 'web',
            appIdentity: screen.origin,
            engine: { name: screen.engine.name, contractVersion: screen.engine.contractVersion },
            located: screen.engine.location === 'url',
            toolVersion: '0.1.0',
            secrets,
            redact: (text) => vault.redact(text),
            proposalStore: cache.proposalStore,
            hitsEnabled: cache.hitsEnabled ?? false,
            // The raw collector: what the cache logs reaches it through the attempt's outbound boundary (wire-attempt), as in a run.
            logger: { debug: (message) => handouts.logs.push(`cache debug ${message}`), warn: (message) => handouts.logs.push(`cache warn ${message}`) },
            replay: { waitForTargetMs: cache.waitForTargetMs ?? 400, pollIntervalMs: cache.pollIntervalMs ?? 50 },
          },
    stepInterceptor: options.stepInterceptor,
    onAction: options.onAction,
    builtIn: options.builtIn,
    engine: screen.instance,
    target: { name: 'web', platform: screen.engine.platform, verbs: screen.engine.verbs, location: screen.engine.location },
    secrets: vault,
    origins: options.origins ?? [screen.origin],
    projectRoot: process.cwd(),
    agents: options.agents ?? { default: defaultAgent(options) },
    attempt: { testId: HARNESS_TEST_ID, retry: options.retry ?? 0, titlePath: ['todos', 'adds and completes'] },
    testTimeoutMs: options.testTimeoutMs,
    logger: {
      debug: (message) => {
        handouts.logs.push(`debug ${message}`);
        options.logger?.debug(message);
      },
      warn: (message) => {
        handouts.logs.push(`warn ${message}`);
        options.logger?.warn(message);
      },
    },
    debug: options.debug === true,
    evidence: options.evidence === true,
    artifacts: {
      attach: ({ name, body }) => {
        if (typeof body === 'string') {
          handouts.texts[name] = body;
          handouts.transcripts.push(body);
        } else {
          handouts.binaries[name] = body;
          handouts.screenshots++;
        }
        return Promise.resolve();
      },
    },
  });
  const judged = async (kind: 'assert' | 'waitFor', instruction: string, run: Promise<StepOutcome>): Promise<StepOutcome> => {
    const outcome = await run;
    if (outcome.verdict.status === 'passed') runner.recordVerification(kind, instruction);
    return outcome;
  };
  const acting = options.actingAgent === undefined ? {} : { agent: options.actingAgent };
  return {
    runner,
    cache: attemptCache,
    handouts,
    act: (instruction, params, stepOptions) => runner.runStep('act', instruction, { ...acting, ...stepOptions, ...(params === undefined ? {} : { params }) }),
    assert: (question, params) => judged('assert', question, runner.runStep('assert', question, params === undefined ? undefined : { params })),
    waitFor: (condition, waitOptions) => judged('waitFor', condition, runner.runStep('waitFor', condition, waitOptions)),
    extract: (question, schema) => runner.runStep('extract', question, { schema }),
    verify: (kind = 'expect') => runner.recordVerification(kind, 'toBeVisible'),
    verifyLocator: async (locator) => {
      // As the fixture's expect watch does: read what the locator matched only when the runner wants it.
      if (!runner.wantsLookedAt()) return runner.recordVerification('expect', 'toBeVisible');
      const observation = await screen.instance.observe();
      runner.recordVerification('expect', 'toBeVisible', { tree: observation.root, url: observation.url, nodeIds: await nodeIdsOf(locator) });
    },
    finish: async (passed) => {
      const allPassed = runner.records.every((record) => record.status === 'passed');
      runner.close();
      return finish({ passed: passed ?? allPassed });
    },
    payload: () => {
      const payload: AttemptPayload = { version: REPORT_VERSION, steps: [...runner.records], verifications: [...runner.verifications] };
      // As the fixture does: the records passed the attempt's outbound boundary as they were made.
      return JSON.stringify(payload);
    },
    reportSteps: () => JSON.stringify(runner.records.map(toReportStep)),
  };
}

function defaultAgent(options: AttemptOptions): AgentEntry {
  const entry: AgentEntry = { context: options.context ?? 'A todo app.', limits: options.limits ?? {} };
  if (options.executor !== undefined) entry.executor = options.executor;
  if (options.model !== undefined) entry.model = options.model;
  if (options.judge !== undefined) entry.judge = options.judge;
  return entry;
}

/** What {@link startPoliced} started: the engine instance, and `police` to hand its navigation hook to an attempt (which it returns). */
export interface PolicedStart {
  instance: EngineInstance;
  police<Attempt extends { runner: AttemptRunner }>(attempt: Attempt): Attempt;
}

/**
 * A fresh attempt of `engine` whose navigations the runner of the attempt given to `police`
 * decides (the runner host wires the hook so); until then every navigation is allowed, so the
 * test can open its page first.
 */
export async function startPoliced(engine: Engine, baseUrl: string): Promise<PolicedStart> {
  let runner: AttemptRunner | undefined;
  const instance = await engine.start({ baseUrl, allowNavigation: (url) => runner?.allowNavigation(url) ?? true });
  return {
    instance,
    police: (attempt) => {
      runner = attempt.runner;
      return attempt;
    },
  };
}

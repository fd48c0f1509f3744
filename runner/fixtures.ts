/**
 * The Playwright Test fixtures of e2e (DESIGN §2): `app`, `agent` and `screen`, over one
 * attempt-scoped step runner per test attempt with the replay cache plugged in (unless the
 * cache mode is `off`). At the end of the attempt the cache writes what the attempt verified,
 * and the step records (with each step's cache outcome) and verifications are attached to
 * the test result for the reporter (redacted).
 */
import { dirname, relative, sep } from 'node:path';
import { rm } from 'node:fs/promises';
import {
  test as base,
  type BrowserContext,
  type Page,
  type PlaywrightTestArgs,
  type PlaywrightTestOptions,
  type PlaywrightWorkerArgs,
  type PlaywrightWorkerOptions,
  type TestInfo,
  type TestType,
} from '@playwright/test';
import { createBuiltInAgent } from '../executor/built-in.js';
import type { AgentOptions } from '../executor/create-agent.js';
import { E2EError, cleanedCause, hasTrait, isE2EError, type ErrorCode, messageOf } from '../errors/index.js';
import type { AttemptCache } from '../step-cache/attempt-cache.js';
import type { EngineInstance } from '../contract/engine.js';
import type { HostServices, RecordedFile } from '../contract/host.js';
import { Outbound } from '../secrets/outbound.js';
import { SecretVault } from '../secrets/vault.js';
import type { AgentEntry, AttemptRunner, BuiltInAgent } from '../step/step-runner.js';
import { createAgentApi, createApp, RaisedErrors, type Agent, type App, type RunningStep } from './agent-api.js';
import { attemptCacheOptions, cacheTestId } from './attempt-cache-host.js';
import { AUDIT_STILL_MS, copiedTitlePath, copyRunsMutant, copyTestsOf, mutantOfTest, mutantVerdict, writeEndFacts, type EndFactsFile, type MutantVerdict, type PlannedMutant } from './audit-mutants.js';
import type { SourceLocation } from './caller-location.js';
import { consoleLogger, hostEnvironment, readRunEnvironment, runRequest, secretValuesFromEnvironment, withholdFailureSnapshot } from './environment.js';
import { ATTEMPT_ATTACHMENT, REPORT_VERSION, type AttemptPayload } from './report.js';
import { enterRun } from './run-entry.js';
import type { ProjectSettings, WorkerSettings } from './settings.js';
import { createScreenHandle, isPlaywrightPage } from './screen-handle.js';
import { StepDetails } from './step-details.js';
import { watchExpects } from './expect-verifications.js';
import { copyTestRegistrations, requirePlaywrightInternals, type TestCopy } from './playwright-internals.js';
import { capturesVideo, keepsVideo, videoSettingsOf } from './video-policy.js';
import type { WiredAttempt } from './wire-attempt.js';
import { workerBrowser, type WorkerBrowser } from './worker-browser.js';

/** The attempt behind the fixtures. */
export interface AttemptHandle {
  runner: AttemptRunner;
  /** The attempt's replay cache; undefined when the cache mode is `off`. */
  cache: AttemptCache | undefined;
  /** Lets the cache write what the attempt verified. */
  finish: WiredAttempt['finish'];
  engine: EngineInstance;
  app: App;
  agent: Agent;
  raised: RaisedErrors;
  /** Each agent step's call site in the test, by step index. */
  locations: Map<number, SourceLocation>;
  /** The agent calls in flight. */
  running: Set<RunningStep>;
  /** `e2e record --audit`: which recorded outcomes held at the end of each replayed `act` step. */
  endFacts: EndFactsFile['steps'];
  /** The video mode this attempt records under (`use.video`), when it records. */
  videoMode: string | undefined;
}

/** The attempt's screen as the engine's host delegate gives it (the page on the web), read anew each time (a restart replaces it). */
function screenOf(engine: EngineInstance): unknown {
  return engine.host?.screen;
}

/** The fixtures a test receives. */
export interface E2EFixtures {
  /** The app under test: `open(path)` relative to the target's `app.url`. */
  app: App;
  /** The agent: `act`, `assert`, `waitFor`, `extract`. */
  agent: Agent;
  /** The attempt's screen, as its engine gives it: on the web, the Playwright `Page` (every locator works). */
  screen: Page;
  /** Internal: the attempt's step runner. */
  e2eAttempt: AttemptHandle;
}

/** The fixture option each project sets (see `defineConfig`); its name is `PROJECT_OPTION`. */
export interface E2EOptions {
  e2eProject: ProjectSettings | undefined;
  /**
   * The test's own agent context (`test.use({ agentContext: '…' })`), added after the agent
   * entry's `context` in every step: it reaches `ctx.agentContext` and the cache key.
   */
  agentContext: string | undefined;
  /** Internal: the mutants this audit project replays, one per test or copy of a test (`e2e cache audit`, see audit-mutants.ts). */
  e2eMutants: PlannedMutant[] | undefined;
}

/** The agent entries of a project and the built-in agent serving them, made once per worker. */
interface ProjectAgents {
  entries: Record<string, AgentEntry>;
  builtIn: BuiltInAgent;
}

const projectAgents = new WeakMap<ProjectSettings, ProjectAgents>();

/**
 * The agent entries of a project. In a model-free run (`e2e replay`) an entry keeps only its
 * context (part of the cache key) and limits: no model, judge or custom executor, so nothing
 * but the cache can finish a step, and a step it cannot replay fails `REPLAY_STALE`.
 */
function agentsOf(settings: ProjectSettings): ProjectAgents {
  const known = projectAgents.get(settings);
  if (known !== undefined) return known;
  const entries: Record<string, AgentEntry> = {};
  const builtInOptions = new Map<AgentEntry, AgentOptions>();
  for (const [name, agent] of Object.entries(settings.agents)) {
    const { builtIn, ...entry } = agent;
    const used: AgentEntry = settings.modelFree ? { context: entry.context, limits: entry.limits } : entry;
    entries[name] = used;
    // The config load checked every tool with isProjectTool (defineTool).
    builtInOptions.set(used, builtIn as AgentOptions);
  }
  const made: ProjectAgents = { entries, builtIn: createBuiltInAgent({ agentOptions: (entry) => builtInOptions.get(entry) ?? {} }) };
  projectAgents.set(settings, made);
  return made;
}

function projectRootOf(testInfo: TestInfo): string {
  return testInfo.config.configFile === undefined ? testInfo.config.rootDir : dirname(testInfo.config.configFile);
}

function attemptErrorCode(testInfo: TestInfo, raised: RaisedErrors): AttemptPayload['errorCode'] {
  if (testInfo.status === 'passed' || testInfo.status === 'skipped') return undefined;
  return raised.codeFor(testInfo.errors) ?? (testInfo.status === 'timedOut' ? 'TEST_TIMEOUT' : undefined);
}

const noModelAnswered = (code: ErrorCode | undefined): boolean => hasTrait(code, 'noModel');

/** What the test sets for its attempt besides the project's settings. */
interface TestOptions {
  agentContext: string | undefined;
  actionTimeout: number | undefined;
  mutant: PlannedMutant | undefined;
  /** The test's title path without the file (Playwright's starts with it); for a mutant's copy of a test (`· audit n`), the test's own. */
  titlePath: string[];
}

/** What the host hands the attempt's engine: the worker's browser when the engine asks for one, a video request when the test records. */
function hostServicesOf(settings: ProjectSettings, browser: WorkerBrowser, video: unknown, testInfo: TestInfo): { services: HostServices; videoMode: string | undefined } {
  const services: HostServices = { environment: hostEnvironment() };
  if (settings.target.engine.host?.browser !== undefined) services.browser = () => browser.get();
  const { mode, size } = videoSettingsOf(video);
  if (!capturesVideo(mode, testInfo.retry)) return { services, videoMode: undefined };
  services.recording = { dir: testInfo.outputPath('e2e-recordings'), ...(size === undefined ? {} : { size }) };
  return { services, videoMode: mode };
}

async function startAttempt(host: { services: HostServices; videoMode: string | undefined }, settings: ProjectSettings, testInfo: TestInfo, options: TestOptions): Promise<AttemptHandle> {
  // The run's E2E_SECRET_* values no config names are redacted too: what leaves the attempt is clean of every value the run knows.
  const alsoRedact = Object.entries(secretValuesFromEnvironment()).map(([name, value]) => [`env:${name}`, value] as const);
  const vault = new SecretVault(Object.fromEntries(settings.secrets.entries()), { alsoRedact });
  // The attempt's one outbound boundary, from the engine's start on (its runner and cache take it too).
  const outbound = new Outbound(vault);
  const toTest = (text: string): string => outbound.text('test', text);
  const { target } = settings;
  const logger = consoleLogger(settings.debug);
  let runner: AttemptRunner | undefined;
  let engine: EngineInstance;
  try {
    engine = await target.engine.start({
      ...(target.app.url === undefined ? {} : { baseUrl: target.app.url, allowNavigation: (url: string) => runner?.allowNavigation(url) ?? true }),
      app: target.app.config,
      host: host.services,
    });
  } catch (error) {
    const cause = { cause: cleanedCause(error, toTest) };
    if (isE2EError(error)) throw new E2EError(error.code, toTest(error.message), cause);
    throw new E2EError('ENGINE_FAILURE', toTest(`The ${target.engine.name} engine did not start: ${messageOf(error)}`), cause);
  }
  const details = new StepDetails();
  const cacheOptions = attemptCacheOptions({
    settings,
    configDir: projectRootOf(testInfo),
    file: testInfo.file,
    // A mutant's copy of a test replays the test's own entries.
    titlePath: options.titlePath,
    redact: (text) => vault.redact(text),
    logger,
  });
  const mutation = options.mutant?.mutation;
  if (cacheOptions !== undefined && options.mutant !== undefined && mutation !== undefined && mutation.kind !== 'none') {
    const surface = engine.host?.mutations;
    if (surface === undefined && mutation.kind !== 'skip-action') {
      await engine.close();
      testInfo.skip(true, `e2e cache audit: the ${target.engine.name} engine offers no mutation surface, so a ${mutation.kind} mutant cannot run on it`);
    }
    cacheOptions.mutant = { entry: options.mutant.entry, mutation, surface: surface ?? NO_MUTATIONS };
  }
  // Every attempt of an audit (control runs too) ends a still screen's end-state wait early, by one rule.
  if (cacheOptions !== undefined && options.mutant !== undefined) cacheOptions.replay = { ...cacheOptions.replay, stopWhenStillMs: AUDIT_STILL_MS };
  const endFacts: EndFactsFile['steps'] = [];
  if (cacheOptions !== undefined && options.mutant?.facts !== undefined) cacheOptions.onEndFacts = (report) => endFacts.push(report);
  // Loaded by the first attempt: Playwright's main process loads the fixtures to list the tests and never runs one.
  const { wireAttempt } = await import('./wire-attempt.js');
  const wired = wireAttempt({
    cache: cacheOptions,
    engine,
    target: { name: target.name, platform: target.engine.platform, verbs: target.engine.verbs, tapModifiers: target.engine.tapModifiers === true, location: target.engine.location },
    secrets: vault,
    outbound,
    origins: settings.origins,
    screenBudget: settings.screen,
    projectRoot: projectRootOf(testInfo),
    agents: agentsOf(settings).entries,
    builtIn: agentsOf(settings).builtIn,
    defaultAgent: settings.defaultAgent,
    attempt: { testId: testInfo.testId, retry: testInfo.retry, titlePath: [testInfo.titlePath[0]!, ...options.titlePath], id: `${testInfo.testId}:${testInfo.retry}` },
    testTimeoutMs: testInfo.timeout > 0 ? testInfo.timeout : undefined,
    actionTimeoutMs: options.actionTimeout !== undefined && options.actionTimeout > 0 ? options.actionTimeout : undefined,
    testContext: options.agentContext,
    logger,
    debug: settings.debug,
    onAction: (event) => details.onAction(event),
    artifacts: {
      // Named by what they show (`after agent.act "add two todos"`), as the HTML report lists them.
      attach: async ({ name, contentType, body, label }) => {
        await testInfo.attach(label ?? name, { body: typeof body === 'string' ? body : Buffer.from(body), contentType });
      },
    },
  });
  runner = wired.runner;
  const raised = new RaisedErrors();
  const locations = new Map<number, SourceLocation>();
  const running = new Set<RunningStep>();
  const screen = screenOf(engine);
  const agent = createAgentApi(runner, raised, {
    // The engine's own Playwright calls run as internal calls of the page (see playwright-internals.ts).
    host: isPlaywrightPage(screen) ? screen : undefined,
    details,
    locations,
    running,
  });
  return { runner, cache: wired.cache, finish: wired.finish, engine, raised, locations, running, endFacts, app: createApp(engine, target.app.url, runner, raised), agent, videoMode: host.videoMode };
}

/** The attempt's screen when its locators take Playwright's matchers (they answer `_expect`): a Playwright page, or an engine's own screen such as the terminal's. */
function locatorScreenOf(screen: unknown): { locator(selector: string): unknown } | undefined {
  if (typeof screen !== 'object' || screen === null || typeof (screen as { locator?: unknown }).locator !== 'function') return undefined;
  const candidate = screen as { locator(selector: string): unknown };
  try {
    const root = candidate.locator(':root') as { _expect?: unknown } | null;
    return typeof root?._expect === 'function' ? candidate : undefined;
  } catch {
    return undefined;
  }
}

/** Stands in where an engine has no mutation surface and the mutant needs none (`skip-action`). */
const NO_MUTATIONS = {
  silenceHandlers: () => Promise.reject(new E2EError('UNSUPPORTED_CAPABILITY', 'This engine cannot silence the app\'s handlers.')),
  hideNodes: () => Promise.reject(new E2EError('UNSUPPORTED_CAPABILITY', 'This engine cannot hide nodes.')),
};

/** Attach the attempt's recordings when the video mode keeps them (withheld later after a secret fill), else delete them. */
async function settleRecordings(handle: AttemptHandle, testInfo: TestInfo): Promise<void> {
  if (handle.videoMode === undefined || handle.engine.host?.recordings === undefined) return;
  const files: readonly RecordedFile[] = await handle.engine.host.recordings().catch(() => []);
  const kept = keepsVideo(handle.videoMode, { failed: testInfo.status !== testInfo.expectedStatus, retry: testInfo.retry });
  for (const file of files) {
    if (kept) testInfo.attachments.push({ name: file.name, path: file.path, contentType: file.contentType });
    else await rm(file.path, { force: true });
  }
}

/** The mutant's verdict as an annotation, so the HTML report shows it on the test; returns the verdict. */
function annotateMutant(testInfo: TestInfo, mutant: PlannedMutant, runner: AttemptRunner): MutantVerdict {
  const firstError = testInfo.errors[0]?.message?.split('\n')[0];
  const verdict = mutantVerdict(runner.records, mutant.entry, firstError, testInfo.status === 'passed' && testInfo.errors.length === 0);
  const text =
    verdict.kind === 'caught'
      ? `caught: ${verdict.detail}`
      : verdict.kind === 'survived'
        ? `survived, a real blind spot: the mutated step still passed, then the test failed (${verdict.then ?? 'after it'})`
        : verdict.kind === 'equivalent'
          ? "equivalent: the mutated step and the test's own checks after it still passed"
          : `not run: ${verdict.reason}`;
  // The annotation leaves the attempt by the report: redacted there, once.
  const description = `${mutant.mutation.kind}${'action' in mutant.mutation ? ` of action ${mutant.mutation.action + 1}` : ''}, entry ${mutant.entry}: ${text}`;
  testInfo.annotations.push({ type: 'e2e audit', description: runner.outbound.text('report', description) });
  return verdict;
}

/**
 * Why a step still running when its test ended was cancelled: in a test that did not time out
 * that is almost always a forgotten `await`, so the message names the call and its line.
 */
function endedWhileRunning(running: ReadonlySet<RunningStep>, root: string): string {
  const step = [...running][0];
  if (step === undefined) return 'The test ended while the step was running.';
  const where = step.location === undefined ? '' : ` (${relative(root, step.location.file).split(sep).join('/')}:${step.location.line})`;
  return `The test ended while ${step.title}${where} was still running: \`await\` it (\`await agent.${step.kind}(…)\`); a call that is not awaited is cancelled when the test ends.`;
}

async function finishAttempt(handle: AttemptHandle, testInfo: TestInfo, mutant: PlannedMutant | undefined): Promise<void> {
  const { runner } = handle;
  withholdFailureSnapshot(runner.secretFilled());
  runner.close(
    testInfo.status === 'timedOut'
      ? new E2EError('TEST_TIMEOUT', 'The test timed out while the step was running.')
      : new E2EError('CANCELLED', endedWhileRunning(handle.running, projectRootOf(testInfo))),
  );
  const errorCode = attemptErrorCode(testInfo, handle.raised);
  await handle.finish({
    passed: testInfo.status === 'passed',
    interrupted: testInfo.status === 'interrupted',
    noModelAnswered: noModelAnswered(errorCode) || runner.records.some((record) => noModelAnswered(record.errorCode)),
  });
  const root = projectRootOf(testInfo);
  const payload: AttemptPayload = {
    version: REPORT_VERSION,
    steps: runner.records.map((record) => {
      const location = handle.locations.get(record.index);
      return location === undefined ? { ...record } : { ...record, location: `${relative(root, location.file)}:${location.line}` };
    }),
    verifications: [...runner.verifications],
  };
  if (errorCode !== undefined) payload.errorCode = errorCode;
  if (runner.secretFilled()) payload.secretFilled = true;
  if (mutant !== undefined && mutant.mutation.kind !== 'none') {
    const verdict = annotateMutant(testInfo, mutant, runner);
    // A caught mutant (or a real blind spot) fails its test by design: as an expected failure the
    // worker goes on with the project's next mutant, where a failure would cost a new worker and browser.
    if (testInfo.status === 'failed' && (verdict.kind === 'caught' || verdict.kind === 'survived')) testInfo.fail(true, `e2e cache audit: the mutant's test fails by design (${verdict.kind})`);
  }
  // Positions and flags only: nothing of the screen's text leaves the attempt.
  if (mutant?.facts !== undefined) writeEndFacts(mutant.facts, handle.endFacts);
  // Its records passed the attempt's outbound boundary as they were made (step records, verifications): nothing is redacted twice.
  const body = JSON.stringify(payload);
  await testInfo.attach(ATTEMPT_ATTACHMENT, { body, contentType: 'application/json' });
  await handle.engine.close();
  await settleRecordings(handle, testInfo);
}

/** The engine of the running attempt in this worker (one test runs at a time per worker), whose screen `screen` forwards to. */
let attemptEngine: EngineInstance | undefined;

/** The type of the e2e `test`: Playwright's, with `screen` being the page instead of the screen-size option. */
export type E2ETestType = TestType<
  Omit<PlaywrightTestArgs & PlaywrightTestOptions, 'screen'> & E2EFixtures & E2EOptions,
  PlaywrightWorkerArgs & PlaywrightWorkerOptions & E2EWorkerOptions
>;

/** The worker options e2e sets per project. */
export interface E2EWorkerOptions {
  /** What the project's workers need before the first test (see `WorkerSettings`). */
  e2eWorker: WorkerSettings | undefined;
}

// `e2e cache audit`: each test the run's mutants name declares a copy of itself per mutant beyond the first, so
// one worker runs them all (audit-mutants.ts); installed before e2e's `test` is made, so it and every extension of it copy.
// A title filter (`--grep`) selects a copy that runs a mutant exactly when it selects the test.
let requestMutants: PlannedMutant[] | undefined | null = null;
function mutantsOfRequest(): PlannedMutant[] | undefined {
  if (requestMutants === null) {
    requestMutants = undefined;
    try {
      requestMutants = runRequest().mutants;
    } catch {
      // An unusable request fails the config load, which reports it.
    }
  }
  return requestMutants;
}
let copiesOfTest: ((declaration: { file: string; titlePath: readonly string[] }) => string[]) | undefined;
let copyGreppedAsTest: ((copy: TestCopy) => boolean) | undefined;
copyTestRegistrations(
  base,
  (declaration) => {
    const mutants = mutantsOfRequest();
    copiesOfTest ??= mutants === undefined ? () => [] : copyTestsOf(mutants);
    return copiesOfTest(declaration);
  },
  (copy) => {
    const mutants = mutantsOfRequest();
    copyGreppedAsTest ??= mutants === undefined ? () => false : copyRunsMutant(mutants);
    return copyGreppedAsTest(copy);
  },
);

const extended = base.extend<Omit<E2EFixtures, 'screen'> & E2EOptions, E2EWorkerOptions & { e2eWorkerEntry: void; e2eBrowser: WorkerBrowser }>({
  // Playwright reads fixture names from the source text, so the option is spelled out here.
  e2eWorker: [undefined, { option: true, scope: 'worker' }],
  // The worker's side of the runner entry, before its first test.
  e2eWorkerEntry: [async ({ e2eWorker }, use) => {
    if (e2eWorker !== undefined) enterRun({ process: 'worker', secrets: e2eWorker.secrets });
    await use();
  }, { scope: 'worker', auto: true }],
  // The worker's browser, started only when an engine's host delegate or the test asks for it (worker-browser.ts).
  e2eBrowser: [async ({ playwright, browserName, launchOptions, connectOptions, headless, e2eWorker }, use) => {
    const browser = workerBrowser({ playwright, browserName, launchOptions, connectOptions, headless }, e2eWorker?.engine, readRunEnvironment().browser);
    await use(browser);
    await browser.close();
  }, { scope: 'worker', timeout: 0 }],
  browser: [async ({ e2eBrowser }, use) => {
    await use(await e2eBrowser.get());
  }, { scope: 'worker', timeout: 0 }],
  e2eProject: [undefined, { option: true }],
  agentContext: [undefined, { option: true }],
  e2eMutants: [undefined, { option: true }],
  e2eAttempt: [async ({ e2eBrowser, video, e2eProject: settings, agentContext, actionTimeout, e2eMutants: mutants }, use, testInfo) => {
    let handle: AttemptHandle;
    let mutant: PlannedMutant | undefined;
    try {
      if (settings === undefined) {
        throw new E2EError(
          'INVALID_CONFIG',
          'This test has no e2e settings. Run it through a config made with defineConfig() from e2e (`e2e run`, or `playwright test -c e2e.config.ts`).',
        );
      }
      withholdFailureSnapshot(false);
      requirePlaywrightInternals({ testInfo, failureSnapshot: true });
      if (agentContext !== undefined && typeof agentContext !== 'string') {
        throw new E2EError('INVALID_CONFIG', 'test.use({ agentContext }) takes a string: what the agent should know for these tests.');
      }
      // An audit project selects its tests (and their copies) by file and title; the exact test id decides which mutant runs.
      let titlePath = testInfo.titlePath.slice(1);
      if (mutants !== undefined) {
        const found = mutantOfTest(mutants, cacheTestId(projectRootOf(testInfo), testInfo.file, titlePath));
        if (found === undefined) testInfo.skip(true, 'e2e cache audit: no mutant of this test in this project');
        mutant = found?.mutant;
        if (found !== undefined) titlePath = copiedTitlePath(titlePath, found.slot);
      }
      handle = await startAttempt(hostServicesOf(settings, e2eBrowser, video, testInfo), settings, testInfo, { agentContext, actionTimeout, mutant, titlePath });
    } catch (error) {
      // The attempt never started: its code still reaches the report (and the exit code).
      if (isE2EError(error)) {
        const payload: AttemptPayload = { version: REPORT_VERSION, errorCode: error.code, steps: [], verifications: [] };
        await testInfo.attach(ATTEMPT_ATTACHMENT, { body: JSON.stringify(payload), contentType: 'application/json' });
      }
      throw error;
    }
    let watch;
    try {
      const screen = screenOf(handle.engine);
      if (isPlaywrightPage(screen)) requirePlaywrightInternals({ page: screen, locator: screen.locator(':root') });
      // The attempt's own verifications, handed to its own runner: nothing outlives the attempt.
      watch = watchExpects({ testInfo, page: isPlaywrightPage(screen) ? screen : undefined, locatorScreen: locatorScreenOf(screen), runner: handle.runner, engine: handle.engine });
    } catch (error) {
      await finishAttempt(handle, testInfo, mutant);
      throw error;
    }
    attemptEngine = handle.engine;
    try {
      await use(handle);
    } finally {
      attemptEngine = undefined;
      watch.stop();
      await finishAttempt(handle, testInfo, mutant);
    }
  }, { auto: true }],
  app: async ({ e2eAttempt }, use) => {
    await use(e2eAttempt.app);
  },
  agent: async ({ e2eAttempt }, use) => {
    await use(e2eAttempt.agent);
  },
  // Playwright's own `context` and `page` are the attempt's on a web-based engine (one page, as
  // `screen`); elsewhere a test that takes them gets a browser of its own, started then.
  context: async ({ e2eAttempt, e2eBrowser }, use) => {
    const screen = screenOf(e2eAttempt.engine);
    if (isPlaywrightPage(screen)) {
      await use(screen.context());
      return;
    }
    const context: BrowserContext = await (await e2eBrowser.get()).newContext();
    await use(context);
    await context.close();
  },
  page: async ({ e2eAttempt, context }, use) => {
    const screen = screenOf(e2eAttempt.engine);
    await use(isPlaywrightPage(screen) && screen.context() === context ? screen : await context.newPage());
  },
});

/** Playwright's `test`, extended with the e2e fixtures. */
export const test: E2ETestType = (extended as unknown as TestType<Record<string, unknown>, Record<string, unknown>>).extend({
  // Overrides Playwright's `screen` option; see screen-handle.ts for why it is a handle.
  screen: [
    async ({ viewport, contextOptions }: { viewport: { width: number; height: number } | null; contextOptions: { screen?: { width: number; height: number } } }, use: (value: Page) => Promise<void>) => {
      await use(createScreenHandle(contextOptions.screen ?? viewport, () => (attemptEngine === undefined ? undefined : { engine: attemptEngine, screen: screenOf(attemptEngine) })));
    },
    { box: true },
  ],
}) as unknown as E2ETestType;

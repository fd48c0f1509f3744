/**
 * The `app` and `agent` fixture objects (DESIGN §2). Each `agent.*` call is one step of the
 * attempt's step runner, shown as a Playwright test step at the user's line, with its
 * actions, cache outcome and model use nested inside (step-details.ts); a failed or blocked
 * step throws `AgentError` with its code. Every E2E error raised here is remembered so the
 * attempt can report its code.
 */
import { test as playwrightTest } from '@playwright/test';
import type { z } from 'zod';
import { AgentError, E2EError, cleanedCause, exitClassOf, isE2EError, messageOf } from '../errors/index.js';
import type { EngineInstance } from '../contract/engine.js';
import type { AttemptRunner, StepOutcome } from '../step/step-runner.js';
import type { StepKind } from '../contract/step-contract.js';
import { stepTitle } from '../step/step-title.js';
import type { ParamValue } from '../step/instruction.js';
import { callerLocation, type SourceLocation } from './caller-location.js';
import { turnLines } from './report.js';
import { cacheStepTitle, modelStepTitle, type StepDetails } from './step-details.js';
import type { CacheOutcome } from '../contract/cache-outcome.js';
import { clipLine } from '../contract/text.js';
import { visibleLines, visibleText } from '../semantics/visible-text.js';
import { asInternalCall } from './playwright-internals.js';

/** Options of `agent.act`. */
export interface ActOptions {
  /** Values for `{name}` placeholders (and secrets/unique values the step may use). */
  params?: Record<string, ParamValue>;
  /** Agent entry to use. Default: `default`. */
  agent?: string;
  /** Context this step adds for the agent, after the agent entry's and the test's (`test.use({ agentContext })`); part of the cache key. */
  agentContext?: string;
  /** Actions allowed in this step. Default: the entry's `maxSteps` (25). */
  maxSteps?: number;
  /** Model calls allowed in this step. Default: the entry's `maxModelCalls` (25). */
  maxModelCalls?: number;
  /** Milliseconds for this step. Default: the entry's `timeout`, else the test timeout. */
  timeout?: number;
}

/** Options of `agent.assert`. */
export interface AssertOptions {
  params?: Record<string, ParamValue>;
  agent?: string;
  /** Context this step adds for the agent, after the agent entry's and the test's (`test.use({ agentContext })`); part of the cache key. */
  agentContext?: string;
  /** Judge with a masked screenshot too (`'only'`: the screenshot alone). Default false. */
  vision?: boolean | 'only';
  /** Milliseconds. Default 30 s, or Playwright's `use.actionTimeout` when larger (the test timeout with a custom executor). */
  timeout?: number;
}

/** Options of `agent.waitFor`. */
export interface WaitForOptions {
  params?: Record<string, ParamValue>;
  agent?: string;
  /** Context this step adds for the agent, after the agent entry's and the test's (`test.use({ agentContext })`); part of the cache key. */
  agentContext?: string;
  /** Milliseconds to wait. Default 30 s, or Playwright's `use.actionTimeout` when larger. */
  timeout?: number;
  /** Milliseconds between checks of an unchanged screen. Default: the judgment's own. */
  interval?: number;
  vision?: boolean | 'only';
}

/** Options of `agent.extract`. */
export interface ExtractOptions {
  params?: Record<string, ParamValue>;
  agent?: string;
  /** Context this step adds for the agent, after the agent entry's and the test's (`test.use({ agentContext })`); part of the cache key. */
  agentContext?: string;
  /** Milliseconds. Default 30 s, or Playwright's `use.actionTimeout` when larger. */
  timeout?: number;
}

/** What `agent.act` returns. */
export interface ActResult {
  summary: string;
  modelCalls: number;
  /** Committed actions as sentences (`tap button "Apply"`). */
  actions: string[];
  /** The cache outcome, when the cache took part. */
  cache?: CacheOutcome;
}

/** What `agent.assert` and `agent.waitFor` return. */
export interface JudgmentResult {
  summary: string;
  modelCalls: number;
}

/** The `agent` fixture. */
export interface Agent {
  /** Carry out `instruction` on the live screen. Throws `AgentError` when the step fails or is blocked. */
  act(instruction: string, options?: ActOptions): Promise<ActResult>;
  /** Check `question` against the screen. Throws `AgentError` (`ASSERTION_FAILED`…) when it does not hold. */
  assert(question: string, options?: AssertOptions): Promise<JudgmentResult>;
  /** Wait until `condition` holds. Throws `AgentError` when it does not within the timeout. */
  waitFor(condition: string, options?: WaitForOptions): Promise<JudgmentResult>;
  /** Read an answer off the screen, validated by `schema`. */
  extract<Schema extends z.ZodType>(question: string, schema: Schema, options?: ExtractOptions): Promise<z.output<Schema>>;
}

/** The `app` fixture. */
export interface App {
  /** The target's `app.url` (engines with the `url` location); `''` for an engine without a location. */
  readonly baseUrl: string;
  /**
   * Open `path` relative to `app.url` (`'/'` is the app's root). On an engine without a location
   * (a terminal) it starts the app, and starts it again when it runs; it takes no path there.
   */
  open(path?: string): Promise<void>;
}

/** An error as Playwright Test keeps it in `testInfo.errors`. */
export interface SerializedError {
  message?: string | undefined;
  cause?: SerializedError | undefined;
}

/** Remembers the E2E errors raised to the test, to report the failing code. */
export class RaisedErrors {
  readonly #errors: E2EError[] = [];

  /** Remember `error` and return it (for `throw raised.note(error)`). */
  note<T>(error: T): T {
    if (isE2EError(error)) this.#errors.push(error);
    return error;
  }

  /**
   * The code of the raised error that failed the test, if any: a test error (as Playwright
   * serializes it, `Name: message`, with its `cause` chain) that is exactly one of the raised
   * errors, or wraps one as its cause. Never found by a part of a message.
   */
  codeFor(errors: readonly SerializedError[]): E2EError['code'] | undefined {
    for (const top of errors) {
      for (let error: SerializedError | undefined = top, depth = 0; error !== undefined && depth < 10; error = error.cause, depth++) {
        const message = error.message;
        const found = this.#errors.find((raised) => message === `${raised.name}: ${raised.message}`);
        if (found !== undefined) return found.code;
      }
    }
    return undefined;
  }
}

/** The agent step's title: `agent.act "add two todos"` (redacted, shortened). */
function agentStepTitle(kind: StepKind, instruction: unknown, redact: (text: string) => string): string {
  return typeof instruction === 'string' ? stepTitle(kind, redact(instruction)) : `agent.${kind}`;
}

/** Options of {@link createAgentApi}. */
export interface AgentApiOptions {
  /** The engine's host object (the Playwright page on the web). */
  host?: unknown;
  /** Nested steps of the running agent step; fed by the runner's action listener. */
  details?: StepDetails | undefined;
  /** Each step's call site in the user's code, by step index (for the report). */
  locations?: Map<number, SourceLocation> | undefined;
  /** The agent calls in flight, so an attempt that ends under one can name it (a forgotten `await`). */
  running?: Set<RunningStep> | undefined;
}

/** An agent call that has not settled yet. */
export interface RunningStep {
  kind: StepKind;
  /** `agent.act "add two todos"` (redacted). */
  title: string;
  location: SourceLocation | undefined;
}

/** Build the `agent` fixture over an attempt's runner. */
export function createAgentApi(runner: AttemptRunner, raised: RaisedErrors, apiOptions: AgentApiOptions = {}): Agent {
  const { host, details, locations, running } = apiOptions;
  async function step(kind: StepKind, instruction: unknown, options: unknown): Promise<StepOutcome> {
    const title = agentStepTitle(kind, instruction, (text) => runner.outbound.text('test', text));
    const location = callerLocation();
    const inFlight: RunningStep = { kind, title, location };
    running?.add(inFlight);
    try {
      return await playwrightStep(kind, instruction, options, title, location);
    } finally {
      running?.delete(inFlight);
    }
  }

  function playwrightStep(kind: StepKind, instruction: unknown, options: unknown, title: string, location: SourceLocation | undefined): Promise<StepOutcome> {
    const quoted = typeof instruction === 'string' ? visibleText(JSON.stringify(clipLine(runner.outbound.text('test', instruction), 80))) : '';
    return playwrightTest.step(
      title,
      async () => {
        let outcome: StepOutcome;
        details?.open(location);
        try {
          outcome = await asInternalCall(host, () => runner.runStep(kind, instruction, options));
        } catch (error) {
          await details?.close();
          const toTest = (text: string): string => runner.outbound.text('test', text);
          if (isE2EError(error)) throw raised.note(new E2EError(error.code, visibleLines(toTest(error.message)), { cause: cleanedCause(error, toTest) }));
          throw error;
        }
        if (location !== undefined) locations?.set(outcome.index, location);
        if (outcome.cache !== undefined) details?.add(cacheStepTitle(outcome.cache, outcome.verdict.errorCode));
        details?.add(modelStepTitle(outcome.modelCalls, outcome.tokens));
        await details?.close();
        const { verdict } = outcome;
        if (verdict.status !== 'passed') {
          const code = verdict.errorCode ?? 'ACTION_FAILED';
          const status = verdict.status === 'blocked' ? 'blocked' : 'failed';
          const turns = turnLines(outcome.turns);
          // A test failure (exit class 1) reads like a failed Playwright expectation, so JUnit reports it as a <failure>, not an <error>.
          const subject = exitClassOf(code) === 1 ? `expect(agent).${kind}(${quoted})` : `agent.${kind}`;
          // The summary and turns quote the page and the model: the console and the HTML report show them spelled out.
          throw raised.note(new AgentError(code, visibleLines([`${subject} ${status} (${code}): ${verdict.summary}`, ...turns].join('\n')), status));
        }
        // The verification is a record of the report: it leaves by the outbound boundary, redacted there.
        if (kind === 'assert' || kind === 'waitFor') runner.recordVerification(kind, String(instruction));
        return outcome;
      },
      location === undefined ? { box: true } : { box: true, location },
    );
  }

  return {
    act: async (instruction, options) => {
      const outcome = await step('act', instruction, options);
      const result: ActResult = { summary: outcome.verdict.summary, modelCalls: outcome.modelCalls, actions: outcome.actions };
      if (outcome.cache !== undefined) result.cache = outcome.cache;
      return result;
    },
    assert: async (question, options) => {
      const outcome = await step('assert', question, options);
      return { summary: outcome.verdict.summary, modelCalls: outcome.modelCalls };
    },
    waitFor: async (condition, options) => {
      const outcome = await step('waitFor', condition, options);
      return { summary: outcome.verdict.summary, modelCalls: outcome.modelCalls };
    },
    extract: async <Schema extends z.ZodType>(question: string, schema: Schema, options?: ExtractOptions) => {
      const outcome = await step('extract', question, { ...(options ?? {}), schema });
      return schema.parse(outcome.verdict.value);
    },
  };
}

/** What to change when the app does not answer: start it, have the run start it, or point at where it runs. */
export function appUnreachableFix(baseUrl: string): string {
  return `Start the app, or have each run start it with \`webServer: { command, url }\` in the config, or set \`targets[].app.url\` (now ${baseUrl}) to where it runs.`;
}

/**
 * Build the `app` fixture: `open(path)` resolves against `baseUrl` for an engine with the `url`
 * location; with no `baseUrl` (an engine without a location) `open()` starts the app.
 */
export function createApp(engine: EngineInstance, baseUrl: string | undefined, runner: AttemptRunner, raised: RaisedErrors): App {
  const root = baseUrl === undefined ? undefined : baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  const openAt = async (url: string | undefined, what: string): Promise<void> => {
    try {
      await runner.opening(() => engine.session.open(url));
    } catch (error) {
      // The engine knows the URL, not the config: the fix names the settings that make the app reachable.
      const fix = isE2EError(error) && error.code === 'APP_UNREACHABLE' && baseUrl !== undefined ? ` ${appUnreachableFix(baseUrl)}` : '';
      const toTest = (text: string): string => runner.outbound.text('test', text);
      const cause = { cause: cleanedCause(error, toTest) };
      if (isE2EError(error)) throw raised.note(new E2EError(error.code, toTest(error.message + fix), cause));
      throw raised.note(new E2EError('ENGINE_FAILURE', toTest(`app.open could not open ${what}: ${messageOf(error)}`), cause));
    }
  };
  return {
    baseUrl: baseUrl ?? '',
    open: async (path?: string) => {
      if (root === undefined) {
        if (path !== undefined) throw raised.note(new E2EError('INVALID_ARGUMENT', "app.open() takes no path on this target: its engine has no location (it starts the app); call app.open()."));
        return openAt(undefined, 'the app');
      }
      if (typeof (path ?? '/') !== 'string') throw raised.note(new E2EError('INVALID_ARGUMENT', 'app.open(path) takes a path relative to app.url, e.g. app.open("/todos").'));
      const url = new URL((path ?? '/').replace(/^\/+/, ''), root).href;
      return openAt(url, url);
    },
  };
}

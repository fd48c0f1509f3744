/**
 * Budgets: the built-in agent on a scripted mock model over real Chromium, with the
 * attempt cache in read-write mode. `maxSteps` and `maxModelCalls` exhausted end the step
 * with STEP_BUDGET_EXHAUSTED; a model slower than the step timeout (honouring the abort signal or
 * not) ends it STEP_TIMEOUT. Each time the cache folder stays empty (no ref, no blob, no temp
 * file) even when the test goes on to pass, and the engine attempt and browser end closed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import type { Browser, Page } from '@playwright/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../executor/create-agent.js';
import { FileCacheStore } from '../../cache-format/index.js';
import type { Engine, EngineInstance } from '../../contract/engine.js';
import type { StepOutcome } from '../../step/step-runner.js';
import { testWeb } from '../support/test-browser.js';
import { filesUnder } from '../support/directory-snapshot.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { serveStatic, type StaticServer } from '../support/static-server.js';
import { callTools, findId, repeatingModel, throwScriptErrors } from '../executor/support/scripted-model.js';
import { startAttempt, startPoliced, type AttemptHarness, type PolicedStart } from '../support/attempt-harness.js';

const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));

let server: StaticServer;
const folders: string[] = [];
const engines: Engine[] = [];

beforeAll(async () => {
  server = await serveStatic(FIXTURES);
});
afterEach(async () => {
  throwScriptErrors();
  for (const engine of engines.splice(0)) await engine.dispose?.();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
afterAll(async () => {
  await server.close();
});

interface Ended {
  outcome: StepOutcome;
  cacheFiles: string[];
  write: unknown;
  page: Page;
  browser: Browser;
  instance: EngineInstance;
  engine: Engine;
  attempt: AttemptHarness;
}

/** The counter page in a browser of its own. */
async function openCounter(): Promise<{ engine: Engine; instance: EngineInstance; page: Page; browser: Browser; police: PolicedStart['police'] }> {
  const engine = testWeb();
  engines.push(engine);
  const { instance, police } = await startPoliced(engine, server.url);
  const page = (instance as unknown as { page: Page }).page;
  const browser = page.context().browser()!;
  await instance.session.open(`${server.url}counter.html`);
  return { engine, instance, page, browser, police };
}

/**
 * Run one act step with `model`, then go on as a test that caught the failure and passed
 * anyway would: a passing check after the step, and the attempt finished as passed. The
 * fixture teardown closes the engine attempt; the worker's end disposes the engine.
 */
async function runBudgeted(
  model: MockLanguageModelV3,
  step: { maxSteps?: number; maxModelCalls?: number; timeout?: number },
  beforeFinish?: (page: Page) => Promise<void>,
): Promise<Ended> {
  const root = mkdtempSync(join(tmpdir(), 'e2e-budgets-'));
  folders.push(root);
  const cacheDir = join(root, 'cache');
  const store = new FileCacheStore(cacheDir, { hitsDirectory: join(root, 'hits') });
  const opened = await openCounter();
  const attempt = opened.police(
    startAttempt(
      { instance: opened.instance, engine: opened.engine, origin: server.origin },
      { cache: { store, waitForTargetMs: 2000 }, executor: createAgent({ model, windDownMs: 0 }), context: 'A small test app.', debug: true, evidence: true },
    ),
  );
  const outcome = await attempt.act('add one to the counter until it reads 10', undefined, step);
  attempt.verify();
  await beforeFinish?.(opened.page);
  const reports = await attempt.finish(true);
  await opened.instance.close();
  await opened.engine.dispose?.();
  return {
    outcome,
    cacheFiles: filesUnder(cacheDir),
    write: reports.find((report) => report.stepIndex === outcome.index)?.outcome,
    page: opened.page,
    browser: opened.browser,
    instance: opened.instance,
    engine: opened.engine,
    attempt,
  };
}

/** A tap on "Add one", read off the screen the model was shown. */
const tapAdd = ({ text }: { text: string }) => callTools(['tap', { target: findId(text, 'button', 'Add one') }]);

function expectClosed(ended: Ended): void {
  expect(ended.cacheFiles).toEqual([]);
  expect((ended.instance as unknown as { isClosed: boolean }).isClosed).toBe(true);
  expect(ended.page.isClosed()).toBe(true);
  expect(ended.browser.isConnected()).toBe(false);
}

describe('step budgets with the built-in agent', () => {
  it('maxSteps exhausted ends the step STEP_BUDGET_EXHAUSTED, writes no entry, closes the browser', async () => {
    const model = repeatingModel(tapAdd);
    let count: string | null = null;
    const ended = await runBudgeted(model, { maxSteps: 2 }, async (page) => {
      count = await page.locator('#count').textContent();
    });
    // The agent winds down once no action is left; a model that will not conclude still ends on the spent budget.
    expect(ended.outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'STEP_BUDGET_EXHAUSTED' });
    expect(ended.outcome.verdict.summary).toContain('spent its budget (actions)');
    expect(ended.outcome.actions).toEqual(['tap button "Add one"', 'tap button "Add one"']);
    expect(count).toBe('Count 2');
    expect(ended.write).not.toMatchObject({ write: 'saved' });
    expectClosed(ended);
  });

  it('maxModelCalls exhausted ends the step STEP_BUDGET_EXHAUSTED, writes no entry, closes the browser', async () => {
    const model = repeatingModel(tapAdd);
    const ended = await runBudgeted(model, { maxModelCalls: 2 });
    expect(ended.outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'STEP_BUDGET_EXHAUSTED' });
    expect(ended.outcome.verdict.summary).toContain('spent its budget (model calls)');
    expect(ended.outcome.modelCalls).toBe(2);
    expect(model.prompts).toHaveLength(2);
    expect(ended.write).not.toMatchObject({ write: 'saved' });
    expectClosed(ended);
  });

  for (const honoursAbort of [true, false]) {
    it(`a model slower than the step timeout (${honoursAbort ? 'honouring' : 'ignoring'} the abort signal) ends STEP_TIMEOUT, writes no entry, closes the browser`, async () => {
      // Long enough for the step's first look on a busy machine; the model answers well after the deadline.
      const timeout = scaledTimeout(1_000);
      const lateMs = timeout + scaledTimeout(1_500);
      let answered!: () => void;
      const lateAnswer = new Promise<void>((resolve) => (answered = resolve));
      let sawAbort = false;
      const model = new MockLanguageModelV3({
        doGenerate: (options) =>
          new Promise<LanguageModelV3GenerateResult>((resolve, reject) => {
            const text = JSON.stringify(options.prompt);
            const id = /#(\S+) button \\"Add one\\"/.exec(text)?.[1] ?? 'n2';
            const timer = setTimeout(() => {
              answered();
              // A late tap: it must never reach the page once the step has ended.
              resolve(callTools(['tap', { target: id }]));
            }, lateMs);
            options.abortSignal?.addEventListener('abort', () => {
              sawAbort = true;
              if (!honoursAbort) return;
              clearTimeout(timer);
              answered();
              reject(options.abortSignal!.reason instanceof Error ? options.abortSignal!.reason : new Error('aborted'));
            });
          }),
      });
      let count: string | null = null;
      const ended = await runBudgeted(model, { timeout }, async (page) => {
        // Wait for the slow model's answer (or its abort), then a little more: no late action lands.
        await lateAnswer;
        await new Promise((resolve) => setTimeout(resolve, 300));
        count = await page.locator('#count').textContent();
      });
      expect(ended.outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'STEP_TIMEOUT' });
      // It ended at its deadline, before the model answered (the model was called after the step started).
      expect(ended.outcome.durationMs).toBeGreaterThanOrEqual(timeout - 100);
      expect(ended.outcome.durationMs).toBeLessThan(lateMs);
      expect(ended.outcome.actions).toEqual([]);
      expect(count).toBe('Count 0');
      expect(sawAbort).toBe(true);
      expect(ended.write).not.toMatchObject({ write: 'saved' });
      expectClosed(ended);
    });
  }
});

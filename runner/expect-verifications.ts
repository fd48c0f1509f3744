/**
 * The runner's side of the `onVerification` seam for one attempt: every passing web-first
 * `expect` becomes one `runner.recordVerification('expect', matcher, lookedAt)`, whichever
 * module it was imported from. e2e's `expect` is Playwright's own (verification.ts), so both
 * go through the same two hooks and deliver the same event:
 *
 * - `TestInfo._addStep` (step-observer.ts): a passed `expect` step names its matcher;
 * - `Locator._expect`: when the runner wants what a positive assertion looked at (the step
 *   before it is being recorded), the nodes its locator matches are read from the screen right
 *   after the page confirmed it, before the assertion resolves.
 *
 * Everything is attempt-scoped: the watch is started by the attempt's fixture with its own
 * runner and engine, and stopped when the attempt ends; nothing is kept in a module.
 */
import type { TestInfo } from '@playwright/test';
import type { EngineInstance } from '../contract/engine.js';
import type { LookedAtScreen } from '../contract/step-seams.js';
import type { AttemptRunner } from '../step/step-runner.js';
import { asInternalCall, replaceLocatorExpect } from './playwright-internals.js';
import { observeSteps } from './step-observer.js';

/** What {@link watchExpects} needs: the attempt's own pieces. */
export interface ExpectWatchOptions {
  testInfo: TestInfo;
  /** The attempt's Playwright page, when its engine's screen is one (the engine's reads then run as its internal calls). */
  page: { locator(selector: string): unknown } | undefined;
  /**
   * The attempt's screen when its locators take Playwright's matchers (a Playwright page, or an
   * engine's own screen whose locators answer `_expect`, as the terminal's do): locator
   * assertions on it tell what they looked at. Default: `page`.
   */
  locatorScreen?: { locator(selector: string): unknown } | undefined;
  runner: AttemptRunner;
  engine: EngineInstance;
}

/** A running watch; `stop()` puts Playwright's own methods back. */
export interface ExpectWatch {
  stop(): void;
}

/** The nodes `subject` matches on the current screen (raw: the runner redacts), or undefined when none; the engine's host delegate names them. */
async function lookedAtOf(subject: unknown, options: ExpectWatchOptions): Promise<LookedAtScreen | undefined> {
  const { engine } = options;
  const lookedAt = engine.host?.lookedAt;
  if (lookedAt === undefined) return undefined;
  try {
    // Internal, so the reads stay out of the expect's step in the report and the trace.
    return await asInternalCall(options.page, async () => {
      const observation = await engine.observe();
      const nodeIds = await lookedAt.call(engine.host, subject);
      return nodeIds === undefined || nodeIds.length === 0 ? undefined : { tree: observation.root, url: observation.url, nodeIds };
    });
  } catch {
    // What the verification looked at only sharpens the recording; without it the entry rests on its own checks.
    return undefined;
  }
}

/**
 * Start delivering the attempt's passing `expect`s to its runner.
 * @throws E2EError `UNSUPPORTED_CAPABILITY` when this Playwright lacks `TestInfo._addStep` or `Locator._expect`.
 */
export function watchExpects(options: ExpectWatchOptions): ExpectWatch {
  const { runner } = options;
  // What the latest positive locator assertion looked at, until its step completes (the next thing Playwright does).
  let pending: LookedAtScreen | undefined;
  // Only screens whose locators take Playwright's matchers say what an assertion looked at; other screens' assertions verify without it.
  const screen = options.locatorScreen ?? options.page;
  const restoreExpect =
    screen === undefined
      ? () => undefined
      : replaceLocatorExpect(screen.locator(':root'), (original) => async function watched(this: unknown, expression, expectOptions) {
          const result = await original.call(this, expression, expectOptions);
          // A negated assertion looked at what is not there: nothing to rest an end check on.
          if (expectOptions.isNot !== true && result.matches === true && runner.wantsLookedAt()) pending = await lookedAtOf(this, options);
          return result;
        });
  let observation;
  try {
    observation = observeSteps(options.testInfo, {
      expectPassed: (matcher) => {
        const negated = matcher.startsWith('not.');
        const lookedAt = negated ? undefined : pending;
        if (!negated) pending = undefined;
        runner.recordVerification('expect', matcher, lookedAt);
      },
    });
  } catch (error) {
    restoreExpect();
    throw error;
  }
  return {
    stop: () => {
      observation.stop();
      restoreExpect();
    },
  };
}

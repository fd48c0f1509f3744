/**
 * Watches the steps Playwright Test records for one attempt, so that:
 *
 * - a passing `expect` on a locator or page counts as a verification whichever module it
 *   was imported from (`e2e` re-exports Playwright's): its matchers record a step of category
 *   `expect` (expect-verifications.ts delivers it on the runner's `onVerification` seam);
 * - every step's stack starts at the user's line, not inside this package (the `agent.*`
 *   steps would otherwise point into `node_modules/e2e`).
 *
 * Playwright has no public hook for its steps, so this wraps the private
 * `TestInfo._addStep(data, parent)` and the `complete(result)` of the step it returns
 * (`playwright-internals.ts`, which probes for it): a Playwright without it fails the attempt
 * `UNSUPPORTED_CAPABILITY` rather than counting fewer verifications.
 */
import type { TestInfo } from '@playwright/test';
import { isOwnFile, userFrames, type SourceLocation } from './caller-location.js';
import { replaceAddStep, type AddStep, type PlaywrightStepData as StepData, type PlaywrightStepResult as StepResult } from './playwright-internals.js';

/** The web-first matchers: each takes a Locator or a Page (not `toBeOK`: a response; not `toPass`: a function). */
const SCREEN_MATCHERS: ReadonlySet<string> = new Set([
  'toBeAttached',
  'toBeChecked',
  'toBeDisabled',
  'toBeEditable',
  'toBeEmpty',
  'toBeEnabled',
  'toBeFocused',
  'toBeHidden',
  'toBeInViewport',
  'toBeVisible',
  'toContainClass',
  'toContainText',
  'toHaveAccessibleDescription',
  'toHaveAccessibleErrorMessage',
  'toHaveAccessibleName',
  'toHaveAttribute',
  'toHaveClass',
  'toHaveCount',
  'toHaveCSS',
  'toHaveId',
  'toHaveJSProperty',
  'toHaveRole',
  'toHaveScreenshot',
  'toHaveText',
  'toHaveTitle',
  'toHaveURL',
  'toHaveValue',
  'toHaveValues',
  'toMatchAriaSnapshot',
]);

/** What the observer reports. */
export interface StepObserverHandlers {
  /** A web-first assertion passed; `matcher` is its name, with `not.` when negated. */
  expectPassed(matcher: string): void;
}

/** A running observation; `stop()` restores Playwright's own method. */
export interface StepObservation {
  stop(): void;
}

function isFrameList(value: unknown): value is SourceLocation[] {
  return Array.isArray(value) && value.every((frame) => typeof frame === 'object' && frame !== null && typeof (frame as { file?: unknown }).file === 'string');
}

/** The stack without this package's frames; unchanged when nothing else would remain. */
function withoutOwnFrames(stack: SourceLocation[]): SourceLocation[] {
  const kept = stack.filter((frame) => !isOwnFile(frame.file));
  return kept.length === 0 ? stack : kept;
}

/** The user's frames of the current stack. */
function currentUserFrames(): SourceLocation[] {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const stack = new Error().stack;
  Error.stackTraceLimit = limit;
  return userFrames(stack);
}

/** Drop this package's frames in place: `expect` builds its failure's stack from the same array. */
function dropOwnFrames(stack: SourceLocation[]): void {
  const kept = withoutOwnFrames(stack);
  if (kept !== stack) stack.splice(0, stack.length, ...kept);
}

/** `Expect "not toHaveCount"` → `not.toHaveCount`; the result's `name` wins when there is one (a custom message replaces the title). */
function matcherOf(data: StepData, result: StepResult): { name: string; negated: boolean } | undefined {
  const title = typeof data.title === 'string' ? data.title : '';
  const parsed = /^Expect "(?:poll )?(?:soft )?(not )?([A-Za-z]+)/.exec(title);
  const name = typeof result.name === 'string' ? result.name : parsed?.[2];
  if (name === undefined) return undefined;
  return { name, negated: parsed?.[1] !== undefined };
}

/**
 * Start observing `testInfo`'s steps.
 * @throws E2EError `UNSUPPORTED_CAPABILITY` when this Playwright has no `TestInfo._addStep`.
 */
export function observeSteps(testInfo: TestInfo, handlers: StepObserverHandlers): StepObservation {
  const stop = replaceAddStep(testInfo, (addStep) => function observed(this: unknown, data, parent) {
    if (isFrameList(data?.stack)) dropOwnFrames(data.stack);
    // Without a stack Playwright takes one here, whose first frame would be this wrapper.
    else if (data !== undefined && data !== null && data.stack === undefined && data.box !== true) data = { ...data, stack: currentUserFrames() };
    const step = addStep.call(this, data, parent);
    if (typeof step !== 'object' || step === null) return step;
    // A boxed step's error shows the stack Playwright computed itself, which may hold only our
    // frames or none (it is taken after an await); start it at the user's line instead.
    if (isFrameList(step.boxedStack)) {
      const boxed = withoutOwnFrames(step.boxedStack);
      const userFound = boxed.some((frame) => !isOwnFile(frame.file));
      step.boxedStack = !userFound && isFrameList(step.stack) && step.stack.length > 0 ? step.stack : boxed;
    }
    const complete = step.complete;
    if (data?.category === 'expect' && typeof complete === 'function') {
      step.complete = (result: StepResult) => {
        const passed = result !== undefined && result !== null && result.error === undefined && result.softError === undefined;
        const matcher = passed ? matcherOf(data, result) : undefined;
        if (matcher !== undefined && SCREEN_MATCHERS.has(matcher.name)) {
          try {
            handlers.expectPassed(`${matcher.negated ? 'not.' : ''}${matcher.name}`);
          } catch {
            // Recording a verification must never break the user's assertion.
          }
        }
        return complete.call(step, result);
      };
    }
    return step;
  } as AddStep);
  return { stop };
}

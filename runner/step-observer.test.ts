/**
 * The step observer over a stand-in for Playwright's TestInfo (its private `_addStep`, the
 * process edge): which passing `expect` steps count as verifications, how stacks lose this
 * package's frames, and that stopping restores Playwright's method. The real thing runs in
 * tests/runner/playwright-habits.process.test.ts.
 */
import { fileURLToPath } from 'node:url';
import type { TestInfo } from '@playwright/test';
import { describe, expect, it } from 'vitest';
import { observeSteps } from './step-observer.js';

const OWN_FILE = fileURLToPath(new URL('./verification.ts', import.meta.url));
const USER_FILE = '/project/tests/todos.e2e.ts';

interface FakeStep {
  data: { category: string; title: string; stack?: Array<{ file: string; line: number; column: number }> };
  stack: Array<{ file: string; line: number; column: number }>;
  completed: unknown[];
  complete(result: unknown): void;
}

function fakeTestInfo(): { info: TestInfo; steps: FakeStep[] } {
  const steps: FakeStep[] = [];
  const info = {
    _addStep(data: FakeStep['data']): FakeStep {
      const step: FakeStep = { data, stack: data.stack ?? [], completed: [], complete: (result) => step.completed.push(result) };
      steps.push(step);
      return step;
    },
  };
  return { info: info as unknown as TestInfo, steps };
}

function expectStep(info: TestInfo, title: string, result: unknown): void {
  const addStep = (info as unknown as { _addStep(data: unknown): { complete(result: unknown): void } })._addStep;
  addStep.call(info, { category: 'expect', title, stack: [{ file: USER_FILE, line: 3, column: 1 }] }).complete(result);
}

describe('observeSteps', () => {
  it('counts passing web-first assertions, negated ones by their title, and a custom message by the result name', () => {
    const { info } = fakeTestInfo();
    const passed: string[] = [];
    const observation = observeSteps(info, { expectPassed: (matcher) => passed.push(matcher) });
    expectStep(info, 'Expect "toHaveText"', { pass: true, name: 'toHaveText' });
    expectStep(info, 'Expect "not toHaveCount"', { pass: false, name: 'toHaveCount' });
    expectStep(info, 'the list shows one todo', { pass: true, name: 'toBeVisible' });
    expectStep(info, 'Expect "soft toHaveURL"', { pass: true });
    observation.stop();
    expect(passed).toEqual(['toHaveText', 'not.toHaveCount', 'toBeVisible', 'toHaveURL']);
  });

  it('does not count failing assertions, plain values, responses or toPass', () => {
    const { info, steps } = fakeTestInfo();
    const passed: string[] = [];
    observeSteps(info, { expectPassed: (matcher) => passed.push(matcher) });
    expectStep(info, 'Expect "toHaveText"', { error: new Error('no') });
    expectStep(info, 'Expect "soft toBeVisible"', { softError: new Error('no') });
    expectStep(info, 'Expect "toBe"', { pass: true, name: 'toBe' });
    expectStep(info, 'Expect "toBeOK"', { pass: true, name: 'toBeOK' });
    expectStep(info, 'Expect "toPass"', {});
    expect(passed).toEqual([]);
    expect(steps.every((step) => step.completed.length === 1)).toBe(true);
  });

  it("drops this package's frames from a step's stack in place, keeping the user's", () => {
    const { info, steps } = fakeTestInfo();
    observeSteps(info, { expectPassed: () => undefined });
    const stack = [
      { file: OWN_FILE, line: 45, column: 9 },
      { file: USER_FILE, line: 7, column: 3 },
    ];
    (info as unknown as { _addStep(data: unknown): unknown })._addStep({ category: 'expect', title: 'Expect "toHaveText"', stack });
    expect(stack).toEqual([{ file: USER_FILE, line: 7, column: 3 }]);
    expect(steps[0]?.stack).toBe(stack);
  });

  it("restores Playwright's method when stopped, and refuses a TestInfo without one by name", () => {
    const { info } = fakeTestInfo();
    const original = (info as unknown as { _addStep: unknown })._addStep;
    const observation = observeSteps(info, { expectPassed: () => undefined });
    expect((info as unknown as { _addStep: unknown })._addStep).not.toBe(original);
    observation.stop();
    expect((info as unknown as { _addStep: unknown })._addStep).toBe(original);
    expect(() => observeSteps({} as TestInfo, { expectPassed: () => undefined })).toThrow(
      expect.objectContaining({ code: 'UNSUPPORTED_CAPABILITY', message: expect.stringContaining('TestInfo._addStep') }),
    );
  });
});

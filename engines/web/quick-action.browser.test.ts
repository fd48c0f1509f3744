import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Frame } from '@playwright/test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isEngineError, type EngineAction, type EngineInstance, type EngineObservation } from '../../contract/engine.js';
import { scaledTimeout } from '../../tests/support/load-scaled.js';
import { nodeNamed } from '../../tests/support/screen-tree.js';
import { webEngineOnFolder } from '../../tests/support/web-engine-on-folder.js';
import { surfaceOf } from './index.js';

const live = webEngineOnFolder(join(dirname(fileURLToPath(import.meta.url)), 'fixtures'));

async function open(): Promise<{ instance: EngineInstance; screen: EngineObservation }> {
  const instance = await live.start();
  await instance.session.open(live.url + 'quick.html');
  await surfaceOf(live.engine).page().waitForLoadState('load');
  return { instance, screen: await instance.observe() };
}

/** Counts the element handles the engine asks Playwright for (locate-node.ts resolves ids with `evaluateHandle`). */
function countHandles(): { count: () => number } {
  const frame: Frame = surfaceOf(live.engine).page().mainFrame();
  const spy = vi.spyOn(frame, 'evaluateHandle');
  return { count: () => spy.mock.calls.length };
}

afterEach(() => {
  vi.restoreAllMocks();
});

async function act(instance: EngineInstance, screen: EngineObservation, role: string, name: string, action: EngineAction, timeoutMs = scaledTimeout(5000)): Promise<void> {
  await instance.perform(nodeNamed(screen.root, role, name), action, { timeoutMs });
}

async function log(): Promise<string> {
  return surfaceOf(live.engine).page().locator('#log').innerText();
}

describe('the quick path of node actions (no ElementHandle)', () => {
  it('taps, double-taps, right-clicks, hovers, fills, selects and checks a ready element without a handle, with the events Playwright would cause', async () => {
    const { instance, screen } = await open();
    const handles = countHandles();
    await act(instance, screen, 'button', 'Tap me', { verb: 'tap' });
    await act(instance, screen, 'button', 'Double me', { verb: 'doubleTap' });
    await act(instance, screen, 'button', 'Right me', { verb: 'secondaryTap' });
    await act(instance, screen, 'button', 'Hover me', { verb: 'hover' });
    await act(instance, screen, 'textbox', 'Name', { verb: 'type', value: 'Grace', replace: true });
    await act(instance, screen, 'textbox', 'Name', { verb: 'type', value: '', replace: true });
    await act(instance, screen, 'textbox', 'Notes', { verb: 'type', value: 'new words', replace: true });
    await act(instance, screen, 'combobox', 'Size', { verb: 'select', value: 'medium' });
    await act(instance, screen, 'checkbox', 'Agree', { verb: 'check', checked: true });
    await act(instance, screen, 'checkbox', 'Agree', { verb: 'check', checked: true });
    expect(handles.count()).toBe(0);
    expect(await log()).toBe('tap double context hover focus input:Grace input: change: notes:new words select-input:m select-change:m agree');
    const after = await instance.observe();
    expect(nodeNamed(after.root, 'textbox', 'Notes').value).toBe('new words');
    expect(nodeNamed(after.root, 'combobox', 'Size').value).toBe('Medium');
    expect(nodeNamed(after.root, 'checkbox', 'Agree').states).toContain('checked');
  });

  it('names the choices and refuses a non-select as before, without a handle', async () => {
    const { instance, screen } = await open();
    const handles = countHandles();
    const missing = await act(instance, screen, 'combobox', 'Size', { verb: 'select', value: 'Huge' }).catch((error: unknown) => error);
    expect(isEngineError(missing) && missing.engineCode).toBe('NOT_ACTIONABLE');
    expect(String((missing as Error).message)).toContain('"Small", "Medium", "Large"');
    const notSelect = await act(instance, screen, 'button', 'Tap me', { verb: 'select', value: 'Small' }).catch((error: unknown) => error);
    expect(isEngineError(notSelect) && notSelect.engineCode).toBe('NOT_ACTIONABLE');
    expect(handles.count()).toBe(0);
  });

  it('leaves to Playwright what is not ready now: a read-only field, a disabled option or fieldset, an aria-disabled shadow host, a date field', async () => {
    const { instance, screen } = await open();
    const handles = countHandles();
    for (const [role, name, action] of [
      ['textbox', 'Read only', { verb: 'type', value: 'x', replace: true }],
      ['combobox', 'Size', { verb: 'select', value: 'Large' }],
      ['combobox', 'Closed size', { verb: 'select', value: 'Two' }],
      ['textbox', 'Shadow field', { verb: 'type', value: 'x', replace: true }],
    ] as const) {
      const before = handles.count();
      const error = await act(instance, screen, role, name, action, 1500).catch((caught: unknown) => caught);
      expect({ name, code: isEngineError(error) ? error.engineCode : String(error), handled: handles.count() > before }).toEqual({ name, code: expect.stringMatching(/NOT_ACTIONABLE|OPERATION_TIMEOUT/), handled: true });
    }
    const before = handles.count();
    await act(instance, screen, 'textbox', 'Day', { verb: 'type', value: '2026-12-02', replace: true });
    expect(handles.count()).toBeGreaterThan(before);
    expect(await surfaceOf(live.engine).page().locator('input[type=date]').inputValue()).toBe('2026-12-02');
    expect(await surfaceOf(live.engine).page().locator('select').first().inputValue()).toBe('s');
  });
});

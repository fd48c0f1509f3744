import { describe, expect, it } from 'vitest';
import { E2EError } from '../../errors/index.js';
import { isEngineError } from '../../contract/engine.js';
import { obstructionOf, toEngineError } from './action-errors.js';

/** An error shaped like Playwright's: headline, then a coloured call log. */
function playwrightError(headline: string, log: string[], name = 'Error'): Error {
  const error = new Error([headline, 'Call log:', ...log.map((line) => `\u001b[2m  - ${line}\u001b[22m`)].join('\n'));
  error.name = name;
  return error;
}

function codeOf(error: Error): string | undefined {
  return isEngineError(error) ? error.engineCode : undefined;
}

describe('what takes the pointer, as a typed detail', () => {
  it('reads the intercepting element out of Playwright\'s reason, once, with its role and label', () => {
    expect(obstructionOf('<div id="veil" class="backdrop"></div> intercepts pointer events')).toEqual({ kind: 'obstructed', by: { description: '<div id="veil" class="backdrop"></div>' } });
    expect(obstructionOf('not actionable in time (Timeout 100ms exceeded).')).toBeUndefined();
    expect(obstructionOf('<div role="dialog" aria-label="Cookie consent" class="cc">…</div> intercepts pointer events')).toEqual({
      kind: 'obstructed',
      by: { description: '<div role="dialog" aria-label="Cookie consent" class="cc">…</div>', role: 'dialog', name: 'Cookie consent' },
    });
    expect(obstructionOf('<dialog open="" aria-label="Tips">…</dialog> intercepts pointer events')?.by).toMatchObject({ role: 'dialog', name: 'Tips' });
  });

  it('carries it on the NOT_ACTIONABLE a blocked tap ends with, beside the words for the model', () => {
    const error = toEngineError(
      playwrightError('elementHandle.click: Timeout 500ms exceeded.', ['attempting click action', 'waiting for element to be visible, enabled and stable', '<div class="cookie-banner">…</div> intercepts pointer events', 'retrying click action'], 'TimeoutError'),
      { what: 'tap #n4' },
    );
    expect(codeOf(error)).toBe('NOT_ACTIONABLE');
    expect(error.message).toContain('<div class="cookie-banner">…</div> intercepts pointer events');
    expect((error as { detail?: unknown }).detail).toEqual({ kind: 'obstructed', by: { description: '<div class="cookie-banner">…</div>' } });
  });
});

describe('toEngineError', () => {
  it('says ACTION_MAY_HAVE_COMMITTED when the call log shows the input was already sent', () => {
    const error = toEngineError(
      playwrightError('elementHandle.click: Timeout 15000ms exceeded.', ['attempting click action', 'element is visible, enabled and stable', 'performing click action', 'click action done', 'waiting for scheduled navigations to finish'], 'TimeoutError'),
      { what: 'tap #n4' },
    );
    expect(codeOf(error)).toBe('ACTION_MAY_HAVE_COMMITTED');
    expect(error.message).toContain('may have taken effect');
  });

  it('says NOT_ACTIONABLE with the last reason when the element never became ready', () => {
    const error = toEngineError(
      playwrightError('elementHandle.click: Timeout 500ms exceeded.', ['attempting click action', '2 × waiting for element to be visible, enabled and stable', 'element is not visible', 'retrying click action'], 'TimeoutError'),
      { what: 'tap #n4' },
    );
    expect(codeOf(error)).toBe('NOT_ACTIONABLE');
    expect(error.message).toContain('Last check: element is not visible.');
  });

  it('recognises detached elements, closed browsers and unfit verbs', () => {
    expect(codeOf(toEngineError(new Error('elementHandle.click: Element is not attached to the DOM'), { what: 'tap #n1' }))).toBe('NODE_STALE');
    expect(codeOf(toEngineError(new Error('page.evaluate: Target page, context or browser has been closed'), { what: 'observe' }))).toBe('ENGINE_FAILURE');
    expect(codeOf(toEngineError(new Error('elementHandle.setChecked: Error: Not a checkbox or radio button'), { what: 'check #n1' }))).toBe('NOT_ACTIONABLE');
    expect(codeOf(toEngineError(new Error('something unexpected'), { what: 'tap #n1' }))).toBe('ENGINE_FAILURE');
  });

  it('never repeats a typed value and passes our own errors through', () => {
    const error = toEngineError(playwrightError('elementHandle.fill: Timeout 500ms exceeded.', ['fill("pa55-word")', 'element is not enabled'], 'TimeoutError'), {
      what: 'type #n2',
      sensitive: 'pa55-word',
    });
    expect(error.message).not.toContain('pa55-word');
    const own = new E2EError('POLICY_DENIED', 'refused');
    expect(toEngineError(own, { what: 'navigate' })).toBe(own);
  });
});

/**
 * The titles of the steps nested in an agent step: actions, the cache outcome and model use.
 */
import { describe, expect, it } from 'vitest';
import { actionStepTitle, cacheStepTitle, modelStepTitle } from './step-details.js';

describe('nested step titles', () => {
  it('show an action as its sentence, a failed one with its code', () => {
    expect(actionStepTitle({ sentence: 'tap button "Save"', outcome: 'ok' })).toBe('tap button "Save"');
    expect(actionStepTitle({ sentence: 'tap button "Save"', outcome: 'LOCATOR_NOT_FOUND' })).toBe('tap button "Save" (failed: LOCATOR_NOT_FOUND)');
    expect(actionStepTitle({ sentence: `type "${'x'.repeat(300)}"`, outcome: 'ok' })).toHaveLength(200);
  });

  it('say how the cache took part and why', () => {
    expect(cacheStepTitle({ mode: 'self-finalized', entry: 'k' })).toBe('cache: replayed, no model call');
    expect(cacheStepTitle({ mode: 'agent-concluded', reason: 'target-not-found', detail: 'at action 2 of 3, tap button "Apply": not found' })).toBe(
      'cache: handed off to the agent (target-not-found: at action 2 of 3, tap button "Apply": not found)',
    );
    expect(cacheStepTitle({ mode: 'missed', reason: 'no-entry' })).toBe('cache: missed, the agent ran (no-entry)');
    expect(cacheStepTitle(undefined)).toBe('cache: not used');
  });

  it('never say the agent ran when the cache ended the step with no model call', () => {
    const regression = { mode: 'missed', reason: 'end-mismatch', classification: 'regression', detail: 'after all 4 actions, listitem "Buy oat milk" did not appear' };
    expect(cacheStepTitle(regression, 'ASSERTION_FAILED')).toBe(
      'cache: regression, replayed but the recorded outcome did not appear (end-mismatch: after all 4 actions, listitem "Buy oat milk" did not appear)',
    );
    expect(cacheStepTitle({ mode: 'missed', reason: 'target-not-found', classification: 'drift' }, 'REPLAY_STALE')).toBe('cache: stale, no agent ran (target-not-found)');
    expect(cacheStepTitle({ mode: 'missed', reason: 'no-entry' }, 'MODEL_UNAVAILABLE')).toBe('cache: missed, no agent to run it (no-entry)');
  });

  it('count model calls and tokens', () => {
    expect(modelStepTitle(0, { input: 0, output: 0, cached: 0 })).toBe('model: no call');
    expect(modelStepTitle(1, { input: 700, output: 12, cached: 0 })).toBe('model: 1 call · 712 tokens (700 in, 12 out)');
    expect(modelStepTitle(2, { input: 3000, output: 1100, cached: 800 })).toBe('model: 2 calls · 4.1k tokens (3k in, 1.1k out, 800 cached)');
  });
});

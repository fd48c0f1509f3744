/**
 * The failing code of an attempt: the raised error Playwright's serialized test error is, or
 * wraps as its cause; never one whose message merely contains another's.
 */
import { describe, expect, it } from 'vitest';
import { AgentError, E2EError } from '../errors/index.js';
import { RaisedErrors } from './agent-api.js';

/** As Playwright's worker serializes an error into `testInfo.errors`. */
function serialized(error: Error): { message: string; cause?: { message: string } } {
  const cause = error.cause instanceof Error ? serialized(error.cause) : undefined;
  return { message: `${error.name}: ${error.message}`, ...(cause === undefined ? {} : { cause }) };
}

describe('RaisedErrors.codeFor', () => {
  it('finds the raised error the test failed with, also as the cause of a re-wrap', () => {
    const raised = new RaisedErrors();
    const stale = raised.note(new AgentError('REPLAY_STALE', 'expect(agent).act("add a todo") failed: the entry no longer replays', 'failed'));
    expect(raised.codeFor([serialized(stale)])).toBe('REPLAY_STALE');
    expect(raised.codeFor([serialized(new Error('the helper gave up', { cause: stale }))])).toBe('REPLAY_STALE');
  });

  it('finds no code by a part of a message', () => {
    const raised = new RaisedErrors();
    raised.note(new E2EError('APP_UNREACHABLE', 'app.open could not open /'));
    expect(raised.codeFor([{ message: 'Error: retrying after E2EError: app.open could not open / and more' }])).toBeUndefined();
    expect(raised.codeFor([{ message: 'app.open could not open /' }])).toBeUndefined();
    expect(raised.codeFor([{}])).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { callSignature, LoopGuards, stableJson, TEXT_REPLY_NUDGE } from './loop-guards.js';

describe('loop guards', () => {
  it('gives a change-of-approach notice at three failures in a row and concludes at five', () => {
    const guards = new LoopGuards();
    for (let index = 0; index < 2; index++) guards.recordCall(callSignature('tap', { target: `n${index}` }), `failed ${index}`, true);
    expect(guards.review()).toEqual({ notices: [] });
    guards.recordCall(callSignature('tap', { target: 'n2' }), 'failed 2', true);
    const third = guards.review();
    expect(third.notices[0]).toMatch(/^3 actions in a row failed/);
    expect(third.conclude).toBeUndefined();
    guards.recordCall(callSignature('tap', { target: 'n3' }), 'failed 3', true);
    expect(guards.review().conclude).toBeUndefined();
    guards.recordCall(callSignature('tap', { target: 'n4' }), 'failed 4', true);
    expect(guards.review().conclude).toBe('5 actions in a row failed.');
  });

  it('resets the failure streak after a success', () => {
    const guards = new LoopGuards();
    guards.recordCall('a', 'x', true);
    guards.recordCall('b', 'x', true);
    guards.recordCall('c', 'ok', false);
    guards.recordCall('d', 'y', true);
    guards.recordCall('e', 'y', true);
    expect(guards.review()).toEqual({ notices: [] });
  });

  it('concludes when the same call gives the same result three times, ignoring screen revisions', () => {
    const guards = new LoopGuards();
    const signature = callSignature('tap', { target: 'n5' });
    guards.recordCall(signature, 'Nothing changed (revision 3)', false);
    guards.recordCall(signature, 'Nothing changed (revision 4)', false);
    expect(guards.review().conclude).toBeUndefined();
    guards.recordCall(signature, 'Nothing changed (revision 5)', false);
    expect(guards.review().conclude).toMatch(/same result 3 times/);
  });

  it('lets a repeated call through while its results differ (a counter going up)', () => {
    const guards = new LoopGuards();
    for (let count = 1; count <= 4; count++) guards.recordCall(callSignature('tap', { target: 'n5' }), `changed #n6 status "Count: ${count}"`, false);
    expect(guards.review().conclude).toBeUndefined();
  });

  it('concludes on a short cycle A, B, A, B', () => {
    const guards = new LoopGuards();
    for (let round = 0; round < 2; round++) {
      guards.recordCall(callSignature('check', { target: 'n5', checked: true }), 'changed [checked]', false);
      guards.recordCall(callSignature('check', { target: 'n5', checked: false }), 'changed (unchecked)', false);
    }
    expect(guards.review().conclude).toMatch(/went in a circle twice/);
  });

  it('concludes on a three-step cycle repeated twice', () => {
    const guards = new LoopGuards();
    for (let round = 0; round < 2; round++) for (const name of ['a', 'b', 'c']) guards.recordCall(name, `${name} result`, false);
    expect(guards.review().conclude).toMatch(/circle/);
  });

  it('nudges text replies and concludes at the third in a row', () => {
    const guards = new LoopGuards();
    guards.recordTextReply();
    expect(guards.review().notices).toEqual([TEXT_REPLY_NUDGE]);
    guards.recordTextReply();
    guards.review();
    guards.recordTextReply();
    expect(guards.review().conclude).toBe('3 replies in a row called no tool.');
  });

  it('signs inputs with sorted keys so equal inputs match', () => {
    expect(stableJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(callSignature('type', { text: 'x', target: 'n1' })).toBe(callSignature('type', { target: 'n1', text: 'x' }));
  });
});

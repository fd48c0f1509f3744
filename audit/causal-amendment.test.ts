import { describe, expect, it } from 'vitest';
import type { ActEntry } from '../cache-format/entry.js';
import { causalLinks, hasCausalChecks } from '../semantics/causal-outcomes.js';
import { amendCausally } from './causal-amendment.js';

const route = { origin: 'http://127.0.0.1:4173', path: '/', query: '' };
const field = { role: 'textbox', name: 'What needs to be done?', twinIndex: 0, twinCount: 1 };
const toggle = { role: 'checkbox', name: '', container: { role: 'listitem', name: 'Buy milk' }, twinIndex: 0, twinCount: 1 };

const entry: ActEntry = {
  version: 1,
  kind: 'act',
  key: '0123456789abcdef',
  keyParts: {
    projectId: 'web',
    testId: 'tests/todos.e2e.ts::adds a done todo',
    target: 'web',
    engine: 'web',
    engineContract: 1,
    kind: 'act',
    instruction: 'add todo "Buy milk" and complete it',
    params: {},
    occurrence: 0,
    appIdentity: route.origin,
    agent: 'default',
    contextDigest: 'd',
    replayPolicy: 1,
  },
  actions: [
    { verb: 'type', target: field, value: { kind: 'literal', value: 'Buy milk' }, replace: true },
    { verb: 'press', target: field, key: 'Enter' },
    { verb: 'check', target: toggle, checked: true },
  ],
  startRoute: route,
  endRoute: route,
  origins: [route.origin],
  appeared: [
    { role: 'listitem', name: 'Buy milk', states: [], basis: 'typed' },
    { role: 'link', name: 'All', states: [], basis: 'incidental' },
    { role: 'text', name: '', text: '0 items left', states: [], basis: 'incidental' },
  ],
  gone: [{ role: 'text', name: '', text: '1 item left', states: [], basis: 'incidental', causedBy: [0] }],
  acted: [{ target: toggle, present: true, states: ['checked'] }],
  summary: 'Added Buy milk and completed it.',
  provenance: { verifiedBy: 'expect', executor: 'scripted', toolVersion: '0.1.0', recordedAt: '2026-12-01T00:00:00.000Z' },
};

const held = { route: true, appeared: [true, true, true], gone: [true], acted: [true] };

describe('amendCausally', () => {
  it('ties an outcome to every action whose mutant removed it, and counts those the heuristics weighed incidental', () => {
    const amendment = amendCausally(entry, held, [
      // A broken handler on the tick: the box still ticks, the counter does not move.
      { action: 2, facts: { ...held, appeared: [true, true, false], gone: [false] } },
      // The tick skipped: the box stays clear too.
      { action: 2, facts: { ...held, appeared: [true, true, false], gone: [false], acted: [false] } },
      { action: 0, facts: { ...held, appeared: [false, true, false] } },
    ]);
    expect(amendment).toBeDefined();
    expect(amendment!.entry.appeared.map((control) => control.causedBy)).toEqual([[0], undefined, [0, 2]]);
    // The earlier mark (action 1) is replaced by today's facts.
    expect(amendment!.entry.gone[0]!.causedBy).toEqual([2]);
    expect(amendment!.entry.acted![0]!.causedBy).toEqual([2]);
    // The counter went from incidental to required; the typed todo and the gone counter were strong or marked already.
    expect(amendment).toMatchObject({ caused: 4, newlyRequired: 1 });
    expect(amendment!.entry.appeared[1]).toEqual(entry.appeared[1]);
  });

  it('counts nothing newly required that the step produced: a plain recording already requires it', () => {
    const produced: ActEntry = { ...entry, appeared: entry.appeared.map((control) => (control.basis === 'incidental' ? { ...control, producedBy: [2] } : control)) };
    const amendment = amendCausally(produced, held, [{ action: 2, facts: { ...held, appeared: [true, true, false], gone: [false] } }]);
    expect(amendment).toMatchObject({ caused: 2, newlyRequired: 0 });
    expect(amendment!.entry.appeared[2]).toMatchObject({ producedBy: [2], causedBy: [2] });
  });

  it('ties nothing to an outcome the unmutated replay did not show either', () => {
    const amendment = amendCausally(entry, { ...held, appeared: [true, true, false] }, [{ action: 2, facts: { ...held, appeared: [true, true, false] } }]);
    expect(amendment!.entry.appeared[2]!.causedBy).toBeUndefined();
    expect(amendment!.caused).toBe(0);
  });

  it('refuses facts taken on an entry of another shape, and ignores a mutant of an action the entry does not have', () => {
    expect(amendCausally(entry, { ...held, appeared: [true] }, [])).toBeUndefined();
    const amendment = amendCausally(entry, held, [
      { action: 7, facts: { ...held, appeared: [false, false, false] } },
      { action: 2, facts: { ...held, appeared: [false] } },
    ]);
    expect(amendment!.caused).toBe(0);
  });
});

describe('causalLinks', () => {
  it('lists per action the outcomes it is proven by', () => {
    const amended = amendCausally(entry, held, [{ action: 2, facts: { ...held, appeared: [true, true, false], acted: [false] } }])!.entry;
    expect(hasCausalChecks(amended)).toBe(true);
    expect(causalLinks(amended)).toEqual([
      [],
      [],
      [
        { list: 'appeared', control: amended.appeared[2] },
        { list: 'acted', check: amended.acted![0] },
      ],
    ]);
    expect(hasCausalChecks({ ...entry, gone: [] })).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import type { ActEntry } from '../cache-format/entry.js';
import { endEvidenceOf } from './end-purpose.js';

const field = { role: 'textbox', name: 'New todo', twinIndex: 0, twinCount: 1 };
const base: Pick<ActEntry, 'actions' | 'appeared' | 'gone'> = {
  actions: [
    { verb: 'type', target: field, value: { kind: 'literal', value: 'Buy milk' }, replace: true },
    { verb: 'press', target: field, key: 'Enter' },
  ],
  appeared: [],
  gone: [],
};

describe('endEvidenceOf', () => {
  it('counts what the step produced as strong, apart from what an audit found caused', () => {
    const entry = {
      ...base,
      appeared: [
        { role: 'listitem', name: 'Buy milk', states: [], basis: 'typed' as const, producedBy: [1] },
        { role: 'text', name: '1 item left', states: [], basis: 'incidental' as const, producedBy: [1] },
        { role: 'link', name: 'All', states: [], basis: 'incidental' as const, producedBy: [1], causedBy: [1] },
        { role: 'text', name: 'Saved', states: [], basis: 'incidental' as const },
      ],
    };
    expect(endEvidenceOf(entry)).toEqual({ strength: 'strong', restsOn: '1 typed, 1 caused, 1 produced, 1 incidental' });
  });

  it('reads an end proven by produced incidental controls alone as strong, and by unproduced ones as weak', () => {
    const produced = { ...base, appeared: [{ role: 'text', name: '1 item left', states: [], basis: 'incidental' as const, producedBy: [1] }] };
    expect(endEvidenceOf(produced)).toEqual({ strength: 'strong', restsOn: '1 produced' });
    const unproduced = { ...base, appeared: [{ role: 'text', name: '1 item left', states: [], basis: 'incidental' as const }] };
    expect(endEvidenceOf(unproduced)).toEqual({ strength: 'weak', restsOn: 'only 1 incidental control' });
  });
});

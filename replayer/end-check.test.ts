import { describe, expect, it } from 'vitest';
import type { ActEntry } from '../cache-format/entry.js';
import { node, screen } from '../tests/support/hand-built-tree.js';
import { checkEndState } from './end-check.js';

const ORIGIN = 'http://127.0.0.1:4173';
const route = (path: string) => ({ origin: ORIGIN, path, query: '' });

function todos(items: { title: string; done?: boolean }[], footer?: string) {
  return screen(
    node('list', '', items.map((item) => node('listitem', item.title, [node('checkbox', 'Toggle', { states: item.done === true ? ['checked'] : [] })]))),
    ...(footer === undefined ? [] : [node('status', '', { text: footer })]),
  );
}

const addMilk: Pick<ActEntry, 'startRoute' | 'endRoute' | 'appeared' | 'gone'> = {
  startRoute: route('/'),
  endRoute: route('/'),
  appeared: [
    { role: 'status', name: '', text: '1 item left', states: [] },
    { role: 'listitem', name: 'Buy milk', states: [] },
  ],
  gone: [{ role: 'status', name: '', text: '0 items left', states: [] }],
};

describe('checkEndState', () => {
  it('accepts an end state that the replay produced', () => {
    const result = checkEndState({
      entry: addMilk,
      replayStart: { tree: todos([], '0 items left'), url: `${ORIGIN}/` },
      end: { tree: todos([{ title: 'Buy milk' }], '1 item left'), url: `${ORIGIN}/#/` },
    });
    expect(result).toEqual({ ok: true });
  });

  it('rejects an outcome that was already on the screen when the replay started', () => {
    const already = todos([{ title: 'Buy milk' }]);
    const entry = { ...addMilk, appeared: [{ role: 'listitem', name: 'Buy milk', states: [] }], gone: [] };
    expect(checkEndState({ entry, replayStart: { tree: already, url: `${ORIGIN}/` }, end: { tree: already, url: `${ORIGIN}/` } })).toEqual({
      ok: false,
      reason: 'end-mismatch',
      detail: 'no recorded change happened during the replay: listitem "Buy milk" was already on the screen when the replay started',
    });
  });

  it('catches a changed count even though numbers elsewhere are volatile', () => {
    const result = checkEndState({
      entry: addMilk,
      replayStart: { tree: todos([], '0 items left'), url: `${ORIGIN}/` },
      end: { tree: todos([{ title: 'Buy milk' }], '2 items left'), url: `${ORIGIN}/` },
    });
    expect(result).toEqual({ ok: false, reason: 'end-mismatch', detail: 'status with text "1 item left" did not appear' });
  });

  it('checks states, and says which states the control has instead', () => {
    const appeared: ActEntry['appeared'] = [{ role: 'checkbox', name: 'Toggle', states: ['checked'] }];
    const entry = { ...addMilk, appeared, gone: [] };
    const result = checkEndState({ entry, replayStart: { tree: todos([{ title: 'A' }]), url: `${ORIGIN}/` }, end: { tree: todos([{ title: 'A' }]), url: `${ORIGIN}/` } });
    expect(result).toEqual({ ok: false, reason: 'end-mismatch', detail: 'checkbox "Toggle" [checked] did not appear (present as [no state])' });
  });

  it('requires gone controls to be absent', () => {
    const result = checkEndState({
      entry: addMilk,
      replayStart: { tree: todos([], '0 items left'), url: `${ORIGIN}/` },
      end: { tree: screen(node('list', '', [node('listitem', 'Buy milk')]), node('status', '', { text: '1 item left' }), node('status', '', { text: '0 items left' })), url: `${ORIGIN}/` },
    });
    expect(result).toEqual({ ok: false, reason: 'end-mismatch', detail: 'status with text "0 items left" is still on the screen' });
  });

  it('checks the end route with placeholders', () => {
    const entry = { startRoute: route('/orders/new'), endRoute: route('/orders/123'), appeared: [], gone: [] };
    const start = screen(node('button', 'Place order'));
    expect(checkEndState({ entry, replayStart: { tree: start, url: `${ORIGIN}/orders/new` }, end: { tree: start, url: `${ORIGIN}/orders/987` } })).toEqual({ ok: true });
    expect(checkEndState({ entry, replayStart: { tree: start, url: `${ORIGIN}/orders/new` }, end: { tree: start, url: `${ORIGIN}/orders/new` } })).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^end route path differs/),
    });
  });

  it('fills unique() placeholders with this run’s values', () => {
    const entry = { startRoute: route('/'), endRoute: route('/'), appeared: [{ role: 'listitem', name: 'Invited {unique:email}', states: [] }], gone: [] };
    const end = screen(node('listitem', 'Invited run-two@example.test'));
    expect(checkEndState({ entry, replayStart: { tree: screen(), url: `${ORIGIN}/` }, end: { tree: end, url: `${ORIGIN}/` }, uniqueValues: { email: 'run-two@example.test' } })).toEqual({ ok: true });
    expect(checkEndState({ entry, replayStart: { tree: screen(), url: `${ORIGIN}/` }, end: { tree: end, url: `${ORIGIN}/` }, uniqueValues: { email: 'other@example.test' } }).ok).toBe(false);
  });
});

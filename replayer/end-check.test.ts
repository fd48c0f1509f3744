import { describe, expect, it } from 'vitest';
import type { ActEntry } from '../cache-format/entry.js';
import { node, screen } from '../tests/support/hand-built-tree.js';
import { allHold, checkEndState, endFacts } from './end-check.js';

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

  describe('weighing checks by what proves the step', () => {
    const field = { role: 'textbox', name: 'New todo', twinIndex: 0, twinCount: 1 };
    const toggle = { role: 'checkbox', name: '', container: { role: 'listitem', name: 'Buy milk' }, twinIndex: 0, twinCount: 1 };
    const addTwo: Parameters<typeof checkEndState>[0]['entry'] = {
      startRoute: route('/'),
      endRoute: route('/'),
      actions: [
        { verb: 'type', target: field, value: { kind: 'literal', value: 'Buy milk' }, replace: true },
        { verb: 'press', target: field, key: 'Enter' },
      ],
      appeared: [
        { role: 'listitem', name: 'Buy milk', states: [], basis: 'typed' },
        { role: 'checkbox', name: 'Mark all as complete', states: [], basis: 'incidental' },
        { role: 'link', name: 'All', states: [], basis: 'incidental' },
        { role: 'text', name: '', text: '1 item left', states: [], basis: 'incidental' },
      ],
      gone: [],
    };
    const todoScreen = (titles: string[], extras: ReturnType<typeof node>[] = []) =>
      screen(node('textbox', 'New todo'), node('list', '', titles.map((title) => node('listitem', title, [node('checkbox', '')]))), ...extras);

    it('tolerates an incidental control that another implementation does not have, and says so', () => {
      const end = todoScreen(['Buy milk'], [node('link', 'All'), node('text', '', { text: '1 item left' })]);
      expect(checkEndState({ entry: addTwo, replayStart: { tree: todoScreen([]), url: `${ORIGIN}/` }, end: { tree: end, url: `${ORIGIN}/` } })).toEqual({
        ok: true,
        tolerated: ['checkbox "Mark all as complete" did not appear'],
      });
    });

    it('refuses when the purpose did not show, however many incidental controls hold', () => {
      const end = todoScreen(['-'], [node('checkbox', 'Mark all as complete'), node('link', 'All'), node('text', '', { text: '1 item left' })]);
      expect(checkEndState({ entry: addTwo, replayStart: { tree: todoScreen([]), url: `${ORIGIN}/` }, end: { tree: end, url: `${ORIGIN}/` } })).toMatchObject({
        ok: false,
        detail: 'listitem "Buy milk" did not appear',
      });
    });

    it('refuses when most incidental controls fail even though the purpose showed', () => {
      const end = todoScreen(['Buy milk']);
      expect(checkEndState({ entry: addTwo, replayStart: { tree: todoScreen([]), url: `${ORIGIN}/` }, end: { tree: end, url: `${ORIGIN}/` } })).toMatchObject({
        ok: false,
        detail: 'checkbox "Mark all as complete" did not appear (and 2 more of 3 incidental checks)',
      });
    });

    it('requires every incidental check when no strong check changed during the replay', () => {
      const entry = { ...addTwo, appeared: [{ role: 'heading', name: 'Done', states: [], basis: 'incidental' as const }, { role: 'link', name: 'All', states: [], basis: 'incidental' as const }] };
      const end = screen(node('link', 'All'));
      expect(checkEndState({ entry, replayStart: { tree: screen(), url: `${ORIGIN}/` }, end: { tree: end, url: `${ORIGIN}/` } })).toMatchObject({ ok: false, detail: 'heading "Done" did not appear' });
    });

    it('checks a control the step acted on in the state the step left it, found by its description', () => {
      const entry = { ...addTwo, actions: [{ verb: 'check' as const, target: toggle, checked: true }], appeared: [], acted: [{ target: toggle, present: true, states: ['checked' as const] }] };
      const row = (states: ('checked')[]) => screen(node('list', '', [node('listitem', 'Buy milk', [node('checkbox', '', { states })])]));
      expect(checkEndState({ entry, replayStart: { tree: row([]), url: `${ORIGIN}/` }, end: { tree: row(['checked']), url: `${ORIGIN}/` } })).toEqual({ ok: true });
      expect(checkEndState({ entry, replayStart: { tree: row([]), url: `${ORIGIN}/` }, end: { tree: row([]), url: `${ORIGIN}/` } })).toMatchObject({
        ok: false,
        detail: 'unnamed checkbox in listitem "Buy milk", which the step acted on, is not [checked] (it is [no state])',
      });
    });

    it('requires what the verification looked at to still be there', () => {
      const entry = {
        ...addTwo,
        actions: [{ verb: 'tap' as const, target: { role: 'button', name: 'Clear completed', twinIndex: 0, twinCount: 1 } }],
        appeared: [],
        gone: [{ role: 'listitem', name: 'Buy milk', states: [], basis: 'incidental' as const }],
        verified: [{ role: 'listitem', name: 'Walk the dog', states: [] }],
      };
      const start = todoScreen(['Buy milk', 'Walk the dog'], [node('button', 'Clear completed')]);
      expect(checkEndState({ entry, replayStart: { tree: start, url: `${ORIGIN}/` }, end: { tree: todoScreen(['Walk the dog']), url: `${ORIGIN}/` } })).toEqual({ ok: true });
      expect(checkEndState({ entry, replayStart: { tree: start, url: `${ORIGIN}/` }, end: { tree: todoScreen([]), url: `${ORIGIN}/` } })).toMatchObject({
        ok: false,
        detail: 'listitem "Walk the dog", which the verification after the step looked at, is not on the screen',
      });
    });

    it('requires an incidental control the audit found caused by an action, where churn would have let it go', () => {
      const end = todoScreen(['Buy milk'], [node('link', 'All'), node('text', '', { text: '1 item left' })]);
      const start = { tree: todoScreen([]), url: `${ORIGIN}/` };
      const caused = { ...addTwo, appeared: addTwo.appeared.map((control) => (control.name === 'Mark all as complete' ? { ...control, causedBy: [1] } : control)) };
      expect(checkEndState({ entry: addTwo, replayStart: start, end: { tree: end, url: `${ORIGIN}/` } })).toMatchObject({ ok: true });
      expect(checkEndState({ entry: caused, replayStart: start, end: { tree: end, url: `${ORIGIN}/` } })).toEqual({ ok: false, reason: 'end-mismatch', detail: 'checkbox "Mark all as complete" did not appear' });
    });

    it('reports which recorded outcomes hold on the end screen, one flag per check, the tolerated ones too', () => {
      const end = todoScreen(['Buy milk'], [node('link', 'All'), node('text', '', { text: '1 item left' })]);
      const entry = { ...addTwo, gone: [{ role: 'link', name: 'All', states: [] }], acted: [{ target: toggle, present: true, states: ['checked' as const] }] };
      const input = { entry, replayStart: { tree: todoScreen([]), url: `${ORIGIN}/` }, end: { tree: end, url: `${ORIGIN}/` } };
      expect(endFacts(input)).toEqual({ route: true, appeared: [true, false, true, true], gone: [false], acted: [false] });
      expect(allHold(endFacts(input))).toBe(false);
      expect(endFacts({ ...input, end: { tree: end, url: `${ORIGIN}/elsewhere` } }).route).toBe(false);
      expect(allHold(endFacts({ ...input, entry: { ...addTwo, appeared: [addTwo.appeared[0]!] } }))).toBe(true);
    });

    it('derives the bases of an entry recorded before they existed from its own actions', () => {
      const { appeared, ...rest } = addTwo;
      const legacy = { ...rest, appeared: appeared.map(({ basis: _basis, ...control }) => control) };
      const end = todoScreen(['Buy milk'], [node('link', 'All'), node('text', '', { text: '1 item left' })]);
      expect(checkEndState({ entry: legacy, replayStart: { tree: todoScreen([]), url: `${ORIGIN}/` }, end: { tree: end, url: `${ORIGIN}/` } })).toMatchObject({ ok: true });
    });
  });
});

describe('checkEndState on what the step produced', () => {
  const field = { role: 'textbox', name: 'New todo', twinIndex: 0, twinCount: 1 };
  const toggle = { role: 'checkbox', name: '', container: { role: 'listitem', name: 'Buy milk' }, twinIndex: 0, twinCount: 1 };
  /** "add todo Buy milk and complete it": type, Enter, tick; the counter, "Clear completed" and "toggle all" changed right after the tick. */
  const addAndComplete: Parameters<typeof checkEndState>[0]['entry'] = {
    startRoute: route('/'),
    endRoute: route('/'),
    actions: [
      { verb: 'type', target: field, value: { kind: 'literal', value: 'Buy milk' }, replace: true },
      { verb: 'press', target: field, key: 'Enter' },
      { verb: 'check', target: toggle, checked: true },
    ],
    appeared: [
      { role: 'listitem', name: 'Buy milk', states: [], basis: 'typed', producedBy: [1] },
      { role: 'checkbox', name: 'Mark all as complete', states: ['checked'], basis: 'incidental', producedBy: [2] },
      { role: 'link', name: 'All', states: [], basis: 'incidental', producedBy: [1] },
      { role: 'link', name: 'Active', states: [], basis: 'incidental', producedBy: [1] },
      { role: 'button', name: 'Clear completed (1)', states: [], basis: 'incidental', producedBy: [2] },
      { role: 'text', name: '0 items left', states: [], basis: 'incidental', producedBy: [2] },
    ],
    gone: [],
    acted: [{ target: toggle, present: true, states: ['checked'] }],
  };
  type Options = { done?: boolean; toggleAll?: 'named' | 'unnamed' | 'none'; toggleAllChecked?: boolean; counter?: ReturnType<typeof node>; clear?: boolean };
  const app = (titles: string[], options: Options = {}) => {
    const toggleAll = options.toggleAll ?? 'named';
    const allStates = options.toggleAllChecked === false ? [] : (['checked'] as const);
    return screen(
      node('textbox', 'New todo'),
      ...(titles.length === 0 || toggleAll === 'none' ? [] : [node('checkbox', toggleAll === 'named' ? 'Mark all as complete' : '', { states: [...allStates] })]),
      node('list', '', titles.map((title) => node('listitem', title, [node('checkbox', '', { states: options.done === false ? [] : ['checked'] })]))),
      ...(titles.length === 0 ? [] : [options.counter ?? node('text', '0 items left'), node('link', 'All'), node('link', 'Active')]),
      ...(titles.length === 0 || options.clear === false ? [] : [node('button', 'Clear completed (1)')]),
    );
  };
  const check = (end: ReturnType<typeof screen>, entry = addAndComplete) => checkEndState({ entry, replayStart: { tree: app([]), url: `${ORIGIN}/` }, end: { tree: end, url: `${ORIGIN}/` } });

  it('passes the recorded app as recorded', () => {
    expect(check(app(['Buy milk']))).toEqual({ ok: true });
  });

  it('never tolerates a produced outcome that is missing, although it was weighed incidental: the counter that no longer follows the state', () => {
    expect(check(app(['Buy milk'], { counter: node('text', '1 item left') }))).toEqual({
      ok: false,
      reason: 'end-mismatch',
      detail: 'text "0 items left" did not appear (text "1 item left" shows another count)',
    });
  });

  it('never tolerates a broken tick handler whose native box still ticks', () => {
    const broken = app(['Buy milk'], { toggleAllChecked: false, counter: node('text', '1 item left'), clear: false });
    expect(check(broken)).toMatchObject({ ok: false, detail: 'checkbox "Mark all as complete" [checked] did not appear (present as [no state])' });
  });

  it('still tolerates an incidental outcome the step did not produce', () => {
    const unproduced = (control: (typeof addAndComplete.appeared)[number]) => (control.name === 'Active' || control.name === '0 items left' ? { ...control, producedBy: undefined } : control);
    const entry = { ...addAndComplete, appeared: addAndComplete.appeared.map(unproduced) };
    const end = app(['Buy milk'], { counter: node('text', 'nothing left to do') });
    expect(check(end, entry)).toEqual({ ok: true, tolerated: ['text "0 items left" did not appear'] });
  });

  it('meets a produced count in other words, and says so', () => {
    expect(check(app(['Buy milk'], { counter: node('text', '0 item left') }))).toEqual({ ok: true, changedForms: ['text "0 items left" as text "0 item left"'] });
  });

  it('meets produced text in another element', () => {
    expect(check(app(['Buy milk'], { counter: node('status', '0 items left') }))).toEqual({ ok: true, changedForms: ['text "0 items left" as status "0 items left"'] });
  });

  it('meets a count that moved the same way from another start', () => {
    const entry = {
      ...addAndComplete,
      appeared: [{ role: 'text', name: '1 item left', states: [], basis: 'incidental' as const, producedBy: [2] }],
      gone: [{ role: 'text', name: '2 items left', states: [], basis: 'incidental' as const, producedBy: [2] }],
    };
    const withCount = (text: string, checked: boolean) => screen(node('list', '', [node('listitem', 'Buy milk', [node('checkbox', '', { states: checked ? ['checked'] : [] })])]), node('text', text));
    const replay = (start: string, end: string) => checkEndState({ entry, replayStart: { tree: withCount(start, false), url: `${ORIGIN}/` }, end: { tree: withCount(end, true), url: `${ORIGIN}/` } });
    expect(replay('3 items left', '2 items left')).toEqual({
      ok: true,
      changedForms: ['text "1 item left" as text "2 items left", moved the same way', 'text "2 items left" went away as the count moved on from where this replay started'],
    });
    expect(replay('3 items left', '3 items left')).toMatchObject({ ok: false, detail: 'text "1 item left" did not appear (text "3 items left" shows another count)' });
  });

  it('meets a control that lost its label elsewhere, but never through the box the step ticked', () => {
    expect(check(app(['Buy milk'], { toggleAll: 'unnamed' }))).toEqual({ ok: true, changedForms: ['checkbox "Mark all as complete" [checked] as an unlabelled checkbox [checked]'] });
    // No "toggle all" at all: only the ticked todo's own box is checked, and it proves the click, not the app.
    expect(check(app(['Buy milk'], { toggleAll: 'none' }))).toMatchObject({ ok: false, detail: 'checkbox "Mark all as complete" [checked] did not appear' });
  });

  it("names the step's purpose first when several required outcomes are missing", () => {
    // Enter added nothing: the typed todo is missing, and so is everything the step produced after it.
    expect(check(screen(node('textbox', 'New todo')))).toMatchObject({ ok: false, detail: 'listitem "Buy milk" did not appear' });
  });

  it('reads an entry recorded before produced outcomes existed as before', () => {
    const legacy = { ...addAndComplete, appeared: addAndComplete.appeared.map(({ producedBy: _producedBy, ...control }) => control) };
    expect(check(app(['Buy milk'], { counter: node('text', '1 item left') }), legacy)).toMatchObject({ ok: true, tolerated: ['text "0 items left" did not appear'] });
  });
});

describe('checkEndState after a skipped dismissal', () => {
  const consent = { role: 'dialog', name: 'Cookie consent' };
  const accept = { role: 'button', name: 'Accept cookies', container: consent, twinIndex: 0, twinCount: 1 };
  const entry: Parameters<typeof checkEndState>[0]['entry'] = {
    startRoute: route('/'),
    endRoute: route('/'),
    actions: [{ verb: 'tap', target: accept, dismisses: consent }],
    appeared: [{ role: 'status', name: '', text: 'Added Oat milk', states: [] }],
    gone: [
      { role: 'dialog', name: 'Cookie consent', states: [] },
      { role: 'button', name: 'Accept cookies', container: consent, states: [] },
    ],
    acted: [{ target: accept, present: false, states: [] }],
  };
  const app = (status: string, withBanner: boolean) =>
    screen(node('status', '', { text: status }), ...(withBanner ? [node('dialog', 'Cookie consent', [node('button', 'Accept cookies')])] : []));
  const start = { tree: app('', false), url: `${ORIGIN}/` };

  it('does not demand that a dialog the replay never dismissed went away', () => {
    // The banner rendered only after its dismissal was skipped.
    const end = { tree: app('Added Oat milk', true), url: `${ORIGIN}/` };
    expect(checkEndState({ entry, replayStart: start, end, skipped: [{ container: consent, target: accept }] })).toEqual({ ok: true });
    expect(checkEndState({ entry, replayStart: start, end })).toMatchObject({ ok: false, detail: 'button "Accept cookies" in dialog "Cookie consent" is still on the screen' });
  });

  it('still demands everything else', () => {
    const end = { tree: app('', false), url: `${ORIGIN}/` };
    expect(checkEndState({ entry, replayStart: start, end, skipped: [{ container: consent, target: accept }] })).toEqual({
      ok: false,
      reason: 'end-mismatch',
      detail: 'status with text "Added Oat milk" did not appear',
    });
  });
});

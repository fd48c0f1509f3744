import { describe, expect, it } from 'vitest';
import { node, screen } from '../tests/support/hand-built-tree.js';
import { producedChanges, producingActions } from './produced-outcomes.js';
import { stateControlKey } from './state-controls.js';
import { indexTree } from './tree-index.js';

const key = (role: string, name: string, states: ('checked' | 'selected')[] = [], container?: { role: string; name: string }) =>
  stateControlKey({ role, name, states, ...(container === undefined ? {} : { container }) });

describe('producedChanges', () => {
  const todo = (checked: boolean, footer: string, allDone: boolean) =>
    screen(
      node('checkbox', 'Mark all as complete', { id: 'all', states: allDone ? ['checked'] : [] }),
      node('list', '', [node('listitem', 'Buy milk', { id: 'item' }, [node('checkbox', '', { id: 'tick', states: checked ? ['checked'] : [] })])]),
      node('text', footer, { id: 'count' }),
    );

  it("takes what the app changed right after a tick, and leaves out the ticked box's own state", () => {
    const changes = producedChanges(indexTree(todo(false, '1 item left', false)), indexTree(todo(true, '0 items left', true)), ['tick']);
    expect([...changes.appeared].sort()).toEqual([key('checkbox', 'Mark all as complete', ['checked']), key('text', '0 items left')].sort());
    expect([...changes.gone].sort()).toEqual([key('checkbox', 'Mark all as complete'), key('text', '1 item left')].sort());
  });

  it('leaves out the whole change when only the browser ticked the box (a broken handler)', () => {
    const changes = producedChanges(indexTree(todo(false, '1 item left', false)), indexTree(todo(true, '1 item left', false)), ['tick']);
    expect(changes).toEqual({ appeared: new Set(), gone: new Set() });
  });

  it("leaves out a radio group's switch, which the browser makes", () => {
    const choice = (picked: 'Standard' | 'Express', total: string) =>
      screen(
        node('radiogroup', 'Delivery', [
          node('radio', 'Standard', { id: 'standard', states: picked === 'Standard' ? ['checked'] : [] }),
          node('radio', 'Express', { id: 'express', states: picked === 'Express' ? ['checked'] : [] }),
        ]),
        node('text', total),
      );
    const changes = producedChanges(indexTree(choice('Standard', 'Total $10')), indexTree(choice('Express', 'Total $15')), ['express']);
    expect([...changes.appeared]).toEqual([key('text', 'Total $15')]);
    expect([...changes.gone]).toEqual([key('text', 'Total $10')]);
  });

  it("leaves out a select's own options", () => {
    const select = (chosen: string) =>
      screen(node('combobox', 'Size', { id: 'size' }, [node('option', 'S', { states: chosen === 'S' ? ['selected'] : [] }), node('option', 'M', { states: chosen === 'M' ? ['selected'] : [] })]));
    expect(producedChanges(indexTree(select('S')), indexTree(select('M')), ['size'])).toEqual({ appeared: new Set(), gone: new Set() });
  });

  it('counts a twin of the ticked box that changed with it as the app’s (a second box the handler ticked)', () => {
    const two = (first: boolean, second: boolean) =>
      screen(node('list', '', [node('checkbox', '', { id: 'a', states: first ? ['checked'] : [] }), node('checkbox', 'Done', { id: 'b', states: second ? ['checked'] : [] })]));
    const changes = producedChanges(indexTree(two(false, false)), indexTree(two(true, true)), ['a']);
    expect([...changes.appeared]).toEqual([key('checkbox', 'Done', ['checked'])]);
  });
});

describe('producingActions', () => {
  it('names the actions after which an outcome changed, in order', () => {
    const produced = new Map([
      [2, { appeared: new Set([key('text', '0 items left')]), gone: new Set<string>() }],
      [0, { appeared: new Set([key('text', '0 items left')]), gone: new Set([key('text', '0 items left')]) }],
    ]);
    expect(producingActions({ role: 'text', name: '0 items left', states: [] }, 'appeared', produced)).toEqual([0, 2]);
    expect(producingActions({ role: 'text', name: '0 items left', states: [] }, 'gone', produced)).toEqual([0]);
    expect(producingActions({ role: 'link', name: 'All', states: [] }, 'appeared', produced)).toEqual([]);
  });
});

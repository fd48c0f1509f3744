import { describe, expect, it } from 'vitest';
import { node, screen } from '../tests/support/hand-built-tree.js';
import { countStateControl, diffStateControls } from './state-controls.js';
import { copyTree, deepTree, nodeById, PIN_EVERY, wideTree, WIDE_SIBLINGS } from '../tests/support/page-sized-trees.js';
import { childLabelOf, contentNameOf, indexTree } from './tree-index.js';

function todoList(items: { title: string; done: boolean }[], extra: ReturnType<typeof node>[] = []) {
  return screen(
    node('heading', 'todos'),
    node('textbox', 'What needs to be done?'),
    node(
      'list',
      '',
      items.map((item) => node('listitem', item.title, [node('checkbox', 'Toggle', { states: item.done ? ['checked'] : [] }), node('button', 'Delete')])),
    ),
    node('generic', '', { text: `${items.filter((item) => !item.done).length} items left` }),
    ...extra,
  );
}

describe('diffStateControls', () => {
  it('lists the new item before its nested controls and the changed counter', () => {
    const start = indexTree(todoList([]));
    const end = indexTree(todoList([{ title: 'Buy milk', done: false }]));
    const { appeared, gone } = diffStateControls(start, end);
    expect(appeared.map((control) => `${control.role} ${control.name || control.text}`)).toEqual([
      'listitem Buy milk',
      'checkbox Toggle',
      'button Delete',
      'generic 1 items left',
    ]);
    expect(appeared[1]?.container).toEqual({ role: 'listitem', name: 'Buy milk' });
    expect(gone).toEqual([{ role: 'generic', name: '', text: '0 items left', states: [] }]);
  });

  it('puts alerts first and counts a state change as appeared (new states) and gone (old states)', () => {
    const start = indexTree(todoList([{ title: 'Buy milk', done: false }]));
    const end = indexTree(todoList([{ title: 'Buy milk', done: true }], [node('alert', 'Saved')]));
    const { appeared, gone } = diffStateControls(start, end);
    expect(appeared[0]).toEqual({ role: 'alert', name: 'Saved', states: [] });
    expect(appeared[1]).toEqual({ role: 'checkbox', name: 'Toggle', states: ['checked'], container: { role: 'listitem', name: 'Buy milk' } });
    expect(gone[0]).toEqual({ role: 'checkbox', name: 'Toggle', states: [], container: { role: 'listitem', name: 'Buy milk' } });
  });

  it('ignores a ticking clock', () => {
    const start = indexTree(screen(node('timer', '', { text: 'Updated 10:31' }), node('button', 'Refresh')));
    const end = indexTree(screen(node('timer', '', { text: 'Updated 10:32' }), node('button', 'Refresh')));
    expect(diffStateControls(start, end)).toEqual({ appeared: [], gone: [] });
  });

  it('records a second copy of an existing control as appeared', () => {
    const start = indexTree(todoList([{ title: 'Buy milk', done: false }]));
    const end = indexTree(todoList([{ title: 'Buy milk', done: false }, { title: 'Buy milk', done: false }]));
    expect(diffStateControls(start, end).appeared[0]).toMatchObject({ role: 'listitem', name: 'Buy milk' });
  });

  it('keeps at most the limit of each', () => {
    const start = indexTree(screen());
    const end = indexTree(screen(...Array.from({ length: 12 }, (_, position) => node('button', `Button ${position}`))));
    expect(diffStateControls(start, end, 8).appeared).toHaveLength(8);
  });
});

describe('countStateControl', () => {
  it('counts by role, label, container and exact states', () => {
    const tree = indexTree(todoList([{ title: 'A', done: true }, { title: 'B', done: false }]));
    expect(countStateControl(tree, { role: 'checkbox', name: 'Toggle', states: ['checked'] })).toBe(1);
    expect(countStateControl(tree, { role: 'checkbox', name: 'Toggle', states: [] })).toBe(1);
    expect(countStateControl(tree, { role: 'button', name: 'delete', states: [] })).toBe(2);
    expect(countStateControl(tree, { role: 'button', name: 'Delete', states: [], container: { role: 'listitem', name: 'B' } })).toBe(1);
  });
});

describe('indexing and diffing page-sized trees', () => {
  it('indexes and diffs a list of 200,000 siblings', () => {
    const tree = wideTree();
    const index = indexTree(tree);
    expect(index.nodes).toHaveLength(5 + WIDE_SIBLINGS + WIDE_SIBLINGS / PIN_EVERY);
    expect(index.byId.get('p150000')?.container).toEqual({ role: 'listitem', name: 'Item 150,000' });
    // An unnamed item names itself by its first words that hold no control, looking through 200,000 children.
    const unnamed = copyTree(tree);
    const log = nodeById(unnamed, 'log');
    log.role = 'listitem';
    log.name = '';
    expect(contentNameOf(log)).toBe('Item 1');
    // A child label, looked for breadth first (a queue of 200,000): only the last item has words.
    for (const item of log.children) item.name = '';
    const last = log.children[log.children.length - 1]!;
    last.name = 'The last words';
    last.children = [];
    expect(contentNameOf(log)).toBe('The last words');
    last.role = 'button';
    expect(contentNameOf(log)).toBe('');
    expect(childLabelOf(log)).toBe('The last words');
    const after = copyTree(tree);
    nodeById(after, 'last').states = ['pressed'];
    expect(diffStateControls(index, indexTree(after)).appeared).toEqual([{ role: 'button', name: 'Last', states: ['pressed'] }]);
  });

  it('indexes and diffs a chain nested 5,000 deep', () => {
    const tree = deepTree();
    const index = indexTree(tree);
    expect(index.nodes).toHaveLength(2 + 5_000 + 1);
    expect(index.byId.get('deepest')?.container).toEqual({ role: 'group', name: 'Level 5000' });
    // The top group, unnamed, looks through the whole chain for words that hold no control.
    const unnamed = copyTree(tree);
    const top = nodeById(unnamed, 'g1');
    top.role = 'listitem';
    top.name = '';
    expect(contentNameOf(top)).toBe('');
    const after = copyTree(tree);
    nodeById(after, 'deepest').states = ['pressed'];
    expect(diffStateControls(index, indexTree(after)).appeared).toEqual([{ role: 'button', name: 'Deepest', states: ['pressed'], container: { role: 'group', name: 'Level 5000' } }]);
  });
});

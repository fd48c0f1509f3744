import { describe, expect, it } from 'vitest';
import type { NodeState, ScreenNode } from '../contract/engine.js';
import { maskTickingText } from '../semantics/volatile-text.js';
import { copyTree, deepTree, DEEP_LEVELS, nodeById, PIN_EVERY, wideTree, WIDE_SIBLINGS } from '../tests/support/page-sized-trees.js';
import { diffScreens, elideHref, escapeQuoted, renderScreen, screenPathOf, shapeOf } from './screen-text.js';

/** A node with defaults, children at the right depth. */
function node(id: string, role: string, name: string, extra: Partial<Omit<ScreenNode, 'children'>> = {}, children: ScreenNode[] = []): ScreenNode {
  const built: ScreenNode = { id, role, name, states: [], depth: 0, children, ...extra };
  const setDepth = (current: ScreenNode, depth: number): void => {
    current.depth = depth;
    for (const child of current.children) setDepth(child, depth + 1);
  };
  setDepth(built, 0);
  return built;
}

const states = (...list: NodeState[]): { states: NodeState[] } => ({ states: list });

function todoScreen(): ScreenNode {
  return node('root', 'document', 'Todos', {}, [
    node('n3', 'textbox', 'What needs to be done?', { ...states('focused'), placeholder: 'What needs to be done?' }),
    node('n9', 'listitem', 'Buy milk', {}, [node('n10', 'checkbox', 'Toggle', states('checked')), node('n11', 'button', 'Delete')]),
  ]);
}

describe('renderScreen', () => {
  it('renders the DESIGN §4 example exactly', () => {
    const text = renderScreen({ root: todoScreen(), url: 'http://127.0.0.1:4173/' }, { revision: 3 });
    expect(text).toBe(
      [
        'Screen (revision 3, path /, 5 nodes):',
        '#root document "Todos"',
        ' #n3 textbox "What needs to be done?" [focused]',
        ' #n9 listitem "Buy milk"',
        '  #n10 checkbox "Toggle" [checked]',
        '  #n11 button "Delete"',
      ].join('\n'),
    );
  });

  it('orders optional fields text, testid, value, href and lists true states in contract order', () => {
    const root = node('root', 'document', 'Shop', {}, [
      node('n1', 'button', 'Close', { text: '×', testId: 'close', ...states('focused', 'pressed', 'disabled') }),
      node('n2', 'textbox', 'Email', { value: 'ada@example.com' }),
      node('n3', 'link', 'Orders', { href: 'http://127.0.0.1:4173/orders?page=2#top' }),
      node('n4', 'link', 'Help', { href: 'https://example.com/help?q=1' }),
    ]);
    const lines = renderScreen({ root, url: 'http://127.0.0.1:4173/a?b=1' }, { revision: 1 }).split('\n');
    expect(lines[0]).toBe('Screen (revision 1, path /a, 5 nodes):');
    expect(lines[2]).toBe(' #n1 button "Close" text="×" testid="close" [disabled pressed focused]');
    expect(lines[3]).toBe(' #n2 textbox "Email" value="ada@example.com"');
    expect(lines[4]).toBe(' #n3 link "Orders" href="/orders"');
    expect(lines[5]).toBe(' #n4 link "Help" href="https://example.com/help"');
  });

  it('shows a secure field as value=<secure> even if a value slipped into the tree', () => {
    const root = node('root', 'document', '', {}, [node('n5', 'textbox', 'Password', { value: 'hunter2', ...states('secure') })]);
    const text = renderScreen({ root, url: 'http://x.test/' }, { revision: 1 });
    expect(text).toContain('#n5 textbox "Password" value=<secure> [secure]');
    expect(text).not.toContain('hunter2');
  });

  it('escapes quotes, backslashes and newlines inside quoted fields', () => {
    const root = node('root', 'document', 'A "quoted"\ntitle \\ end');
    const text = renderScreen({ root, url: 'http://x.test/' }, { revision: 1 });
    expect(text.split('\n')[1]).toBe('#root document "A \\"quoted\\"\\ntitle \\\\ end"');
    expect(text.split('\n')).toHaveLength(2);
  });

  it('replaces secret values, also URL-encoded, in every field and in the header path', () => {
    const secrets = new Map([['apiToken', 'tok 123/456']]);
    const root = node('root', 'document', 'Token tok 123/456', {}, [
      node('n1', 'text', 'Your token is tok 123/456.'),
      node('n2', 'link', 'Share', { href: 'http://x.test/share?t=tok%20123%2F456' }),
      node('n3', 'textbox', 'Token', { value: 'tok 123/456' }),
    ]);
    const text = renderScreen({ root, url: 'http://x.test/t/tok%20123%2F456' }, { revision: 2, secrets });
    expect(text).not.toContain('123');
    expect(text).toContain('path /t/<secret:apiToken>,');
    expect(text).toContain('#n1 text "Your token is <secret:apiToken>."');
    expect(text).toContain('#n3 textbox "Token" value="<secret:apiToken>"');
  });
});

describe('helpers', () => {
  it('elides query and fragment from links, keeping other origins whole', () => {
    expect(elideHref('http://a.test/x/y?z=1#f', 'http://a.test/')).toBe('/x/y');
    expect(elideHref('http://b.test/x?z=1', 'http://a.test/')).toBe('http://b.test/x');
    expect(elideHref('mailto:ada@example.com?subject=hi', 'http://a.test/')).toBe('mailto:ada@example.com');
  });

  it('keeps hash routes in the header path but not other fragments', () => {
    expect(screenPathOf('http://a.test/app?x=1#/active')).toBe('/app#/active');
    expect(screenPathOf('http://a.test/page#section')).toBe('/page');
    expect(screenPathOf('about:blank')).toBe('about:blank');
  });

  it('escapes control characters as unicode escapes', () => {
    expect(escapeQuoted('a\u0001b\tc')).toBe('a\\u0001b\\tc');
  });

  it('escapes NEL and every other character a reader may split lines at, so no name can forge a node line', () => {
    // The separators Python's str.splitlines() and Unicode-aware readers break lines at, besides LF.
    const separators = ['\u000b', '\u000c', '\u001c', '\u001d', '\u001e', '\u0085', '\u2028', '\u2029', '\r'];
    for (const separator of separators) {
      const root = node('root', 'document', 'Log', {}, [node('n1', 'text', `ok${separator}#n99 button "Pay now"`)]);
      const text = renderScreen({ root, url: 'http://x.test/' }, { revision: 1 });
      const lines = text.split(/\r\n|[\n\r\u000b\u000c\u001c-\u001e\u0085\u2028\u2029]/);
      expect(lines).toHaveLength(3);
      expect(lines.some((line) => line.trimStart().startsWith('#n99'))).toBe(false);
    }
    expect(escapeQuoted('a\u0085b\u009fc')).toBe('a\\u0085b\\u009fc');
  });

  it('reads clock times and durations as placeholders', () => {
    expect(maskTickingText('Saved at 12:34:56')).toBe('Saved at #:#');
    expect(maskTickingText('updated 3s ago, next in 10 minutes')).toBe('updated # ago, next in #');
    expect(maskTickingText('2024-01-02T09:15:00.123Z')).toBe('2024-01-02T#:#Z');
    expect(maskTickingText('3 items left')).toBe('3 items left');
  });
});

describe('diffScreens', () => {
  const url = 'http://x.test/';
  const before = renderScreen({ root: todoScreen(), url }, { revision: 1 });

  it('reports added, changed and removed lines keyed by node id', () => {
    const next = node('root', 'document', 'Todos', {}, [
      node('n3', 'textbox', 'What needs to be done?', { value: 'Walk' }),
      node('n9', 'listitem', 'Buy milk', {}, [node('n10', 'checkbox', 'Toggle', states('checked'))]),
      node('n12', 'listitem', 'Walk the dog'),
    ]);
    const diff = diffScreens(before, renderScreen({ root: next, url }, { revision: 2 }));
    expect(diff.lines).toEqual([
      // The old line leaves out what it shares with the new one: the id, the role and the same name.
      'changed #n3 textbox "What needs to be done?" value="Walk" (was: [focused])',
      'added #n12 listitem "Walk the dog"',
      'removed #n11 button "Delete"',
    ]);
    expect({ added: diff.added, changed: diff.changed, removed: diff.removed, mostlyChanged: diff.mostlyChanged, unchanged: diff.unchanged }).toEqual({
      added: 1,
      changed: 1,
      removed: 1,
      mostlyChanged: false,
      unchanged: false,
    });
  });

  it('says which named row, list, dialog or form an added or changed line sits in', () => {
    const todos = (items: ScreenNode[]): ScreenNode =>
      node('root', 'document', 'Todos', {}, [node('n3', 'textbox', 'What needs to be done?'), node('n5', 'list', '', {}, items)]);
    const item = (id: string, title: string, checked: boolean): ScreenNode =>
      node(id, 'listitem', title, {}, [node(`${id}c`, 'checkbox', 'Toggle', checked ? states('checked') : states()), node(`${id}b`, 'button', 'Delete')]);
    const one = renderScreen({ root: todos([item('n9', 'Buy milk', false)]), url }, { revision: 1 });
    const two = renderScreen({ root: todos([item('n9', 'Buy milk', true), item('n12', 'Walk the dog', false)]), url }, { revision: 2 });
    expect(diffScreens(one, two).lines).toEqual([
      'changed #n9c checkbox "Toggle" [checked] in listitem "Buy milk" (was: no value or states)',
      // An unnamed list says nothing; the item itself is the container of its controls.
      'added #n12 listitem "Walk the dog"',
      'added #n12c checkbox "Toggle" in listitem "Walk the dog"',
      'added #n12b button "Delete" in listitem "Walk the dog"',
    ]);
    expect(diffScreens(two, one).lines).toContain('removed #n12c checkbox "Toggle"');
  });

  it('counts a bare unnamed wrapper that came or went without listing it, but lists an unnamed control', () => {
    const screen = (extra: ScreenNode[]): string => renderScreen({ root: node('root', 'document', 'App', {}, [node('x0', 'heading', 'Todos'), ...extra]), url }, { revision: 1 });
    const diff = diffScreens(screen([]), screen([node('x1', 'list', '', {}, [node('x2', 'button', ''), node('x3', 'link', 'All')])]));
    expect(diff.lines).toEqual(['added #x2 button ""', 'added #x3 link "All"']);
    expect(diff.added).toBe(3);
  });

  it('keeps the whole old line when the role changed too', () => {
    const screen = (role: string): string => renderScreen({ root: node('root', 'document', 'App', {}, [node('x1', role, 'Menu')]), url }, { revision: 1 });
    expect(diffScreens(screen('button'), screen('link')).lines).toEqual(['changed #x1 link "Menu" (was: #x1 button "Menu")']);
  });

  it('names the nearest named container, past unnamed ones, and clips a long name', () => {
    const long = 'A very long dialog title that goes on and on past the limit';
    const screen = (value: string): string =>
      renderScreen(
        {
          root: node('root', 'document', 'App', {}, [
            node('d1', 'dialog', long, {}, [node('f1', 'form', 'Sign "in"', {}, [node('g1', 'group', '', {}, [node('t1', 'textbox', 'Email', { value })])])]),
            node('d2', 'dialog', long, {}, [node('t2', 'textbox', 'Note', { value })]),
          ]),
          url,
        },
        { revision: 1 },
      );
    const lines = diffScreens(screen(''), screen('a')).lines;
    expect(lines[0]).toBe('changed #t1 textbox "Email" value="a" in form "Sign \\"in\\"" (was: no value or states)');
    expect(lines[1]).toBe(`changed #t2 textbox "Note" value="a" in dialog "${long.slice(0, 40)}…" (was: no value or states)`);
  });

  it('flags a screen that mostly changed so the caller sends it whole', () => {
    const other = node('root', 'document', 'Other page', {}, [node('n20', 'heading', 'Welcome'), node('n21', 'button', 'Start')]);
    const diff = diffScreens(before, renderScreen({ root: other, url }, { revision: 2 }));
    expect(diff.mostlyChanged).toBe(true);
  });

  it('finds nothing between equal screens, whatever the revision', () => {
    const diff = diffScreens(before, renderScreen({ root: todoScreen(), url }, { revision: 9 }));
    expect(diff.unchanged).toBe(true);
    expect(diff.text).toBe('');
  });
});

describe('shapeOf', () => {
  const withClock = (clock: string, counter: string): ScreenNode =>
    node('root', 'document', 'Dash', {}, [node('n1', 'text', `Now ${clock}`), node('n2', 'timer', counter), node('n3', 'status', '', { text: 'synced 4s ago' })]);

  it('ignores ticking clocks, timers and durations', () => {
    expect(shapeOf(withClock('12:00:01', '1'))).toBe(shapeOf(withClock('12:00:02', '2')));
  });

  it('ignores a clock whose text run got a new id because the page replaced its text node', () => {
    const ticked = withClock('12:00:02', '2');
    const clock = ticked.children[0];
    if (clock === undefined) throw new Error('fixture shape changed');
    clock.id = 'n9';
    expect(shapeOf(ticked)).toBe(shapeOf(withClock('12:00:01', '1')));
  });

  it('changes with names, values, states, structure and the URL', () => {
    const base = shapeOf({ root: todoScreen(), url: 'http://x.test/' });
    const renamed = todoScreen();
    renamed.name = 'Todos (1)';
    const unchecked = todoScreen();
    const checkbox = unchecked.children[1]?.children[0];
    if (checkbox === undefined) throw new Error('fixture shape changed');
    checkbox.states = [];
    const shorter = todoScreen();
    shorter.children.pop();
    expect(shapeOf({ root: renamed, url: 'http://x.test/' })).not.toBe(base);
    expect(shapeOf({ root: unchecked, url: 'http://x.test/' })).not.toBe(base);
    expect(shapeOf({ root: shorter, url: 'http://x.test/' })).not.toBe(base);
    expect(shapeOf({ root: todoScreen(), url: 'http://x.test/other' })).not.toBe(base);
    expect(shapeOf({ root: todoScreen(), url: 'http://x.test/' })).toBe(base);
  });
});

describe('page-sized screens', () => {
  const url = 'http://x.test/log';

  it('renders, diffs and shapes a list of 200,000 siblings', () => {
    const root = wideTree();
    const text = renderScreen({ root, url }, { revision: 1 });
    expect(text.split('\n')).toHaveLength(1 + 5 + WIDE_SIBLINGS + WIDE_SIBLINGS / PIN_EVERY);
    expect(text).toContain('  #i200000 listitem "Item 200,000"');
    const changed = copyTree(root);
    nodeById(changed, 'i150000').name = 'Item 150,000 (pinned)';
    const diff = diffScreens(text, renderScreen({ root: changed, url }, { revision: 2 }));
    expect(diff.lines).toEqual(['changed #i150000 listitem "Item 150,000 (pinned)" in list "Log" (was: "Item 150,000")']);
    expect(shapeOf({ root: changed, url })).not.toBe(shapeOf({ root, url }));
  });

  it('renders, diffs and shapes a chain nested 5,000 deep', () => {
    const root = deepTree();
    const text = renderScreen({ root, url }, { revision: 1 });
    const lines = text.split('\n');
    expect(lines).toHaveLength(1 + 2 + DEEP_LEVELS + 1);
    expect(lines[lines.length - 1]).toBe(`${' '.repeat(DEEP_LEVELS + 1)}#deepest button "Deepest"`);
    const changed = copyTree(root);
    nodeById(changed, 'deepest').states = ['pressed'];
    const diff = diffScreens(text, renderScreen({ root: changed, url }, { revision: 2 }));
    expect(diff.lines).toEqual([`changed #deepest button "Deepest" [pressed] in group "Level ${DEEP_LEVELS}" (was: no value or states)`]);
    expect(shapeOf({ root: changed, url })).not.toBe(shapeOf({ root, url }));
  });
});

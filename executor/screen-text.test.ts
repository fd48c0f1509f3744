import { describe, expect, it } from 'vitest';
import type { NodeState, ScreenNode } from '../contract/engine.js';
import { maskTickingText } from '../contract/volatile-text.js';
import { createRedactor, diffScreens, elideHref, escapeQuoted, redactText, renderScreen, screenPathOf, shapeOf } from './screen-text.js';

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

describe('redactText', () => {
  it('prefers the longest secret and never re-scans a replacement', () => {
    const secrets = new Map([
      ['short', 'secret'],
      ['long', 'my-secret-value'],
    ]);
    expect(redactText('a my-secret-value and a secret', secrets)).toBe('a <secret:long> and a <secret:short>');
    // A secret whose value is another secret's name must not touch the placeholder.
    const tricky = new Map([
      ['abc', 'zzzzzz'],
      ['other', 'abc'],
    ]);
    expect(redactText('zzzzzz abc', tricky)).toBe('<secret:abc> <secret:other>');
  });

  it('treats regular-expression characters in a secret literally', () => {
    expect(redactText('pay $1.00 (now)', new Map([['price', '$1.00 (now)']]))).toBe('pay <secret:price>');
    expect(redactText('pay $1x00', new Map([['price', '$1.00']]))).toBe('pay $1x00');
  });

  it('hides the start of a secret cut off by the engine clipping a long text', () => {
    const redact = createRedactor(new Map([['key', 'abcdef123456']]));
    expect(redact('the key is abcdef…')).toBe('the key is <secret:key>…');
    expect(redact('nothing secret here…')).toBe('nothing secret here…');
  });

  it('leaves text alone when no secrets are configured or values are empty', () => {
    expect(redactText('plain', undefined)).toBe('plain');
    expect(redactText('plain', new Map([['empty', '']]))).toBe('plain');
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
      'changed #n3 textbox "What needs to be done?" value="Walk" (was: #n3 textbox "What needs to be done?" [focused])',
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

import { describe, expect, it } from 'vitest';
import { OMITTED_ROLE, type ScreenNode } from '../contract/engine.js';
import { node, screen } from '../tests/support/hand-built-tree.js';
import { deepTree, wideTree } from '../tests/support/page-sized-trees.js';
import { DEFAULT_SCREEN_BUDGET, renderBoundedScreen } from './screen-budget.js';
import { renderScreen } from './screen-text.js';

const url = 'http://x.test/log';

/** A log page: a heading, a search box, a list of `count` items and a Last button after it. */
function logPage(count: number, extra: ScreenNode[] = []): ScreenNode {
  const items = Array.from({ length: count }, (_, index) => node('listitem', `Item ${index + 1}`, { id: `i${index + 1}` }));
  return screen(node('heading', 'Log', { id: 'title' }), node('searchbox', 'Search', { id: 'search' }), node('list', 'Log', { id: 'log' }, items), node('button', 'Last', { id: 'last' }), ...extra);
}

describe('renderBoundedScreen', () => {
  it('renders a screen within the budget exactly as the whole screen', () => {
    const root = logPage(5);
    const bounded = renderBoundedScreen({ root, url }, { revision: 2, budget: DEFAULT_SCREEN_BUDGET });
    expect(bounded.text).toBe(renderScreen({ root, url }, { revision: 2 }));
    expect(bounded.leftOut).toBe(0);
    expect(bounded.shownIds).toBeUndefined();
  });

  it('keeps the outline, the first and last items of a long run, and says what it left out', () => {
    const bounded = renderBoundedScreen({ root: logPage(500), url }, { revision: 3, budget: { maxNodes: 40, maxChars: 100_000 } });
    const lines = bounded.text.split('\n');
    expect(lines[0]).toBe(`Screen (revision 3, path /log, ${bounded.shown} nodes shown, ${bounded.leftOut} left out):`);
    expect(bounded.shown).toBeLessThanOrEqual(41);
    expect(bounded.text).toContain(' #search searchbox "Search"');
    expect(bounded.text).toContain(' #last button "Last"');
    expect(bounded.text).toContain('  #i1 listitem "Item 1"');
    expect(bounded.text).toContain('  #i500 listitem "Item 500"');
    const omission = lines.find((line) => line.trimStart().startsWith('…'));
    expect(omission).toMatch(/^ {2}… \d+ more listitem in list "Log" \("Item \d+" … "Item 49\d"\) — use find to reach one$/);
    expect(bounded.leftOut + bounded.shown).toBe(1 + 4 + 500);
  });

  it('keeps what it was asked to keep, the focus and the insides of a dialog, whatever else fits', () => {
    const dialog = node('dialog', 'Confirm', { id: 'dialog' }, [node('button', 'Delete everything', { id: 'confirm' })]);
    const root = logPage(500, [dialog]);
    const focused = root.children[2]!.children[300]!;
    focused.states = ['focused'];
    const bounded = renderBoundedScreen({ root, url }, { revision: 1, budget: { maxNodes: 12, maxChars: 100_000 }, keep: new Set(['i250']) });
    expect(bounded.text).toContain('#i250 listitem "Item 250"');
    expect(bounded.text).toContain('#i301 listitem "Item 301" [focused]');
    expect(bounded.text).toContain('#confirm button "Delete everything"');
  });

  it('keeps controls in the viewport before the rest of the page', () => {
    const items = Array.from({ length: 300 }, (_, index) => ({
      ...node('button', `Row ${index}`, { id: `b${index}` }),
      rect: { x: 0, y: index * 40 - 4000, width: 100, height: 30 },
    }));
    const bounded = renderBoundedScreen({ root: screen(...items), url }, { revision: 1, budget: { maxNodes: 40, maxChars: 100_000 }, viewport: { width: 800, height: 600 } });
    // Rows 100 to 114 are on screen (y 0 to 600).
    for (let row = 100; row < 115; row++) expect(bounded.text).toContain(`#b${row} button "Row ${row}"`);
  });

  it('bounds the characters too, and writes the placeholders of an engine that left nodes out', () => {
    const placeholder: ScreenNode = { id: 'o1', role: OMITTED_ROLE, name: '', states: [], depth: 0, children: [], omitted: { count: 199_975, role: 'listitem', first: 'Item 21', last: 'Item 199,995' } };
    const root = screen(node('list', 'Log', { id: 'log' }, [node('listitem', 'Item 1', { id: 'i1' }), placeholder, node('listitem', 'Item 200,000', { id: 'i200000' })]));
    const bounded = renderBoundedScreen({ root, url }, { revision: 1, budget: DEFAULT_SCREEN_BUDGET });
    expect(bounded.text.split('\n').slice(1)).toEqual([
      '#root document "Test page"',
      ' #log list "Log"',
      '  #i1 listitem "Item 1"',
      '  … 199,975 more listitem in list "Log" ("Item 21" … "Item 199,995") — use find to reach one',
      '  #i200000 listitem "Item 200,000"',
    ]);
    expect(bounded.leftOut).toBe(199_975);
    const long = renderBoundedScreen({ root: logPage(2_000), url }, { revision: 1, budget: { maxNodes: 10_000, maxChars: 3_000 } });
    expect(long.text.length).toBeLessThan(3_000 + 400);
  });

  it('bounds a list of 200,000 siblings and a chain nested 5,000 deep', () => {
    for (const root of [wideTree(), deepTree()]) {
      const bounded = renderBoundedScreen({ root, url }, { revision: 1, budget: DEFAULT_SCREEN_BUDGET });
      expect(bounded.shown).toBeLessThanOrEqual(DEFAULT_SCREEN_BUDGET.maxNodes + 10);
      expect(bounded.text.length).toBeLessThan(DEFAULT_SCREEN_BUDGET.maxChars + 2_000);
      expect(bounded.text).toContain('— use find to reach one');
    }
  });
});

import { describe, expect, it } from 'vitest';
import { describeTarget } from '../semantics/describe-target.js';
import { find, node, screen } from '../tests/support/hand-built-tree.js';
import type { TargetDescription } from '../cache-format/entry.js';
import { deepTree, wideTree } from '../tests/support/page-sized-trees.js';
import { matchTarget } from './match-target.js';

function recorded(tree: ReturnType<typeof screen>, id: string): TargetDescription {
  const description = describeTarget(tree, id);
  if (description === undefined) throw new Error(`no #${id}`);
  return description;
}

describe('matchTarget', () => {
  it('prefers the test id over the name: a renamed button with the same test id is found', () => {
    const before = screen(node('button', 'Apply', { id: 'a', testId: 'apply-coupon' }));
    const after = screen(node('button', 'Apply', { id: 'decoy' }), node('button', 'Redeem', { id: 'b', testId: 'apply-coupon' }));
    expect(matchTarget(recorded(before, 'a'), after)).toEqual({ kind: 'found', id: 'b', evidence: 'test id + role' });
  });

  it('finds by role and name, then by role and name within the recorded container', () => {
    const before = screen(node('listitem', 'Walk the dog', [node('button', 'Delete', { id: 'old' })]));
    const after = screen(
      node('listitem', 'Buy milk', [node('button', 'Delete', { id: 'other' })]),
      node('listitem', 'Walk the dog', [node('button', 'Delete', { id: 'new' })]),
    );
    expect(matchTarget(recorded(before, 'old'), after)).toEqual({ kind: 'found', id: 'new', evidence: 'role + name + container' });
    expect(matchTarget({ role: 'button', name: 'Delete', twinIndex: 0, twinCount: 1 }, screen(node('button', 'Delete', { id: 'only' })))).toEqual({
      kind: 'found',
      id: 'only',
      evidence: 'role + name',
    });
  });

  it('never substitutes a control from another container', () => {
    const before = screen(node('listitem', 'Walk the dog', [node('button', 'Delete', { id: 'old', testId: 'delete' })]));
    const after = screen(node('listitem', 'Buy milk', [node('button', 'Delete', { id: 'other', testId: 'delete' })]));
    expect(matchTarget(recorded(before, 'old'), after)).toMatchObject({ kind: 'not-found' });
  });

  it('finds a control whose role changed within its family by name within its container', () => {
    const before = screen(node('form', 'Checkout', [node('button', 'Pay now', { id: 'pay' })]));
    const after = screen(node('form', 'Checkout', [node('link', 'Pay now', { id: 'pay-link' })]));
    expect(matchTarget(recorded(before, 'pay'), after)).toEqual({ kind: 'found', id: 'pay-link', evidence: 'name within container' });
  });

  it('uses the twin position when the twins are still all there', () => {
    const rows = () => screen(...['Milk', 'Milk', 'Milk'].map((name, position) => node('row', name, [node('button', 'Add to cart', { id: `add-${position}` })])));
    const before = rows();
    expect(matchTarget(recorded(before, 'add-1'), rows())).toEqual({ kind: 'found', id: 'add-1', evidence: 'position among twins' });
  });

  it('reports a removed button as not found, naming the nearest one', () => {
    const before = screen(node('button', 'Apply', { id: 'a' }));
    const after = screen(node('button', 'Apply now', { id: 'b' }), node('button', 'Cancel'));
    expect(matchTarget(recorded(before, 'a'), after)).toEqual({ kind: 'not-found', detail: 'no button "Apply" on the screen (nearest: button "Apply now")' });
  });

  it('reports two identical buttons without a container as ambiguous when the recording saw one', () => {
    const before = screen(node('button', 'Save', { id: 'a' }));
    const after = screen(node('button', 'Save', { id: 'b' }), node('button', 'Save', { id: 'c' }));
    expect(matchTarget(recorded(before, 'a'), after)).toEqual({ kind: 'ambiguous', detail: '2 controls match button "Save", recorded as 1 of 1' });
  });

  it('reads volatile text in names as placeholders and prefers a literal match', () => {
    const before = screen(node('row', 'Order 1234567', [node('button', 'Open', { id: 'a' })]));
    const changed = screen(node('row', 'Order 7654321', [node('button', 'Open', { id: 'b' })]));
    expect(matchTarget(recorded(before, 'a'), changed)).toMatchObject({ kind: 'found', id: 'b' });
    const both = screen(node('row', 'Order 7654321', [node('button', 'Open', { id: 'b' })]), node('row', 'Order 1234567', [node('button', 'Open', { id: 'c' })]));
    expect(matchTarget(recorded(before, 'a'), both)).toMatchObject({ kind: 'found', id: 'c' });
  });

  it('matches names regardless of case', () => {
    const tree = screen(node('button', 'ADD TO CART', { id: 'x' }));
    expect(matchTarget({ role: 'button', name: 'Add to cart', twinIndex: 0, twinCount: 1 }, tree)).toMatchObject({ kind: 'found', id: 'x' });
    expect(find(tree, 'button', 'ADD TO CART').id).toBe('x');
  });

  describe('across markup churn', () => {
    const recordedToggle = (): TargetDescription => recorded(screen(node('listitem', 'Buy milk', [node('checkbox', '', { id: 'old' })])), 'old');

    it('finds a todo whose title became a button, and the checkbox inside it', () => {
      const after = screen(
        node('list', '', [
          node('listitem', '', [node('button', 'Walk the dog'), node('checkbox', '', { id: 'other' })]),
          node('listitem', '', { id: 'item' }, [node('button', 'Buy milk'), node('checkbox', '', { id: 'new' })]),
        ]),
      );
      expect(matchTarget(recordedToggle(), after)).toEqual({ kind: 'found', id: 'new', evidence: 'despite markup churn' });
      const item = recorded(screen(node('listitem', 'Buy milk', { id: 'row' })), 'row');
      expect(matchTarget(item, after)).toEqual({ kind: 'found', id: 'item', evidence: 'despite markup churn' });
    });

    it('finds an unnamed checkbox that is now named, in its row', () => {
      const after = screen(node('listitem', 'Buy milk', [node('checkbox', 'Toggle Buy milk', { id: 'new' })]), node('listitem', 'Walk the dog', [node('checkbox', 'Toggle Walk the dog')]));
      expect(matchTarget(recordedToggle(), after)).toEqual({ kind: 'found', id: 'new', evidence: 'despite markup churn' });
    });

    it('finds a control a wrapper element now sits around', () => {
      const before = screen(node('listitem', 'Buy milk', [node('button', 'Delete', { id: 'old' })]));
      const after = screen(node('listitem', 'Buy milk', [node('group', 'Actions', [node('button', 'Delete', { id: 'new' })])]), node('listitem', 'Walk the dog', [node('group', 'Actions', [node('button', 'Delete')])]));
      expect(matchTarget(recorded(before, 'old'), after)).toEqual({ kind: 'found', id: 'new', evidence: 'despite markup churn' });
    });

    it('still refuses when two controls fit', () => {
      const twins = screen(node('listitem', 'Buy milk', [node('checkbox', 'Done'), node('checkbox', 'Starred')]));
      expect(matchTarget(recordedToggle(), twins)).toMatchObject({ kind: 'ambiguous', detail: '2 controls match unnamed checkbox in listitem "Buy milk", recorded as 1 of 1' });
      const twoItems = screen(node('listitem', '', [node('button', 'Buy milk'), node('checkbox', '')]), node('listitem', '', [node('button', 'Buy milk'), node('checkbox', '')]));
      expect(matchTarget(recordedToggle(), twoItems)).toMatchObject({ kind: 'ambiguous' });
    });

    it('never re-finds an unlabelled control outside any container', () => {
      const before = screen(node('checkbox', '', { id: 'old' }));
      expect(matchTarget(recorded(before, 'old'), screen(node('checkbox', 'Subscribe')))).toMatchObject({ kind: 'not-found' });
    });
  });

  describe('never a lookalike', () => {
    it('refuses a single live match of a control recorded as the 3rd of 3: its position proves nothing', () => {
      const before = screen(node('button', 'Authorize', { id: 'page' }), node('button', 'Authorize', { id: 'lock' }), node('button', 'Authorize', { id: 'modal' }));
      const after = screen(node('button', 'Authorize', { id: 'page-only' }));
      const match = matchTarget(recorded(before, 'modal'), after);
      expect(match).toEqual({ kind: 'not-found', detail: 'only 1 of the 3 twins button "Authorize" (3rd of 3) on the screen: a position among fewer twins proves nothing' });
    });

    it('counts a twin that was renamed but still shows the recorded label, so the position decides again', () => {
      const before = screen(node('button', 'Authorize', { id: 'page' }), node('button', 'Authorize', { id: 'modal' }));
      const after = screen(node('button', 'Authorize', { id: 'page-now' }), node('button', 'Apply credentials', { id: 'apply', text: 'Authorize' }));
      expect(matchTarget(recorded(before, 'modal'), after)).toEqual({ kind: 'found', id: 'apply', evidence: 'position among twins' });
    });

    it('never matches an unnamed field recorded 2nd of 2 to the only other unnamed field (the URL field in the banner)', () => {
      const before = screen(node('textbox', '', { id: 'url' }), node('textbox', '', { id: 'body' }));
      const bannerOnly = screen(node('banner', '', [node('textbox', '', { id: 'url-now' })]), node('main', '', [node('button', 'Execute')]));
      expect(matchTarget(recorded(before, 'body'), bannerOnly)).toMatchObject({ kind: 'not-found' });
      const both = screen(node('banner', '', [node('textbox', '', { id: 'url-now' })]), node('main', '', [node('tabpanel', 'Edit Value', [node('textbox', '', { id: 'body-now' })])]));
      expect(matchTarget(recorded(before, 'body'), both)).toEqual({ kind: 'found', id: 'body-now', evidence: 'position among twins' });
    });

    it('uses an unnamed landmark as the container: a button recorded in the banner is not the one in main', () => {
      const before = screen(node('banner', '', [node('button', 'Explore', { id: 'top' })]), node('main', '', [node('button', 'Execute')]));
      expect(recorded(before, 'top').container).toEqual({ role: 'banner', name: '' });
      const moved = screen(node('main', '', [node('button', 'Explore', { id: 'elsewhere' })]));
      expect(matchTarget(recorded(before, 'top'), moved)).toMatchObject({ kind: 'not-found' });
      const kept = screen(node('banner', '', [node('button', 'Explore', { id: 'top-now' })]), node('main', '', [node('button', 'Explore', { id: 'elsewhere' })]));
      expect(matchTarget(recorded(before, 'top'), kept)).toEqual({ kind: 'found', id: 'top-now', evidence: 'role + name + container' });
    });

    it('tells a summary button from a same-named expand arrow by the text it showed', () => {
      const before = screen(node('button', 'post /pets', { id: 'summary', text: 'POST /pets Add a pet' }), node('button', 'post /adoptions', { text: 'POST /adoptions Adopt a pet' }));
      const after = screen(node('button', 'POST /pets Add a pet', { id: 'summary-now' }), node('button', 'post /pets', { id: 'arrow' }));
      expect(matchTarget(recorded(before, 'summary'), after)).toEqual({ kind: 'found', id: 'summary-now', evidence: 'role + name' });
    });
  });
});

describe('matchTarget on a screen the engine read in part', () => {
  /** A list of "Order N" rows read in part: the engine left out rows that hold `holding`, as it says on their placeholder. */
  const partlyRead = (holding: string[] | undefined) => {
    const tree = screen(node('list', 'Orders', [node('listitem', 'Order 7', { id: 'seven' }), node('listitem', 'Order 70', { id: 'seventy' }), node('omitted', '', { id: 'gap' })]));
    const gap = find(tree, 'omitted', '');
    gap.omitted = { count: 9_000, role: 'listitem', first: 'Order 71', last: 'Order 79,999', ...(holding === undefined ? {} : { holding }) };
    return tree;
  };
  const order7 = (): TargetDescription => recorded(screen(node('list', 'Orders', [node('listitem', 'Order 7', { id: 'seven' })])), 'seven');

  it('calls a target ambiguous when rows left out hold its words: any of them may be a twin it never read', () => {
    expect(matchTarget(order7(), partlyRead(['order 7']))).toEqual({
      kind: 'ambiguous',
      detail: 'listitem "Order 7" in list "Orders" cannot be told apart: more nodes hold "order 7" than a screen reads, and 9,000 left out unread may hold it',
    });
    // A part of its words counts too: rows holding "order" may hold "order 7".
    expect(matchTarget(order7(), partlyRead(['order']))).toMatchObject({ kind: 'ambiguous' });
  });

  it('still finds the target when the rows left out hold none of its words', () => {
    expect(matchTarget(order7(), partlyRead(undefined))).toEqual({ kind: 'found', id: 'seven', evidence: 'role + name + container' });
    expect(matchTarget(order7(), partlyRead(['archived']))).toEqual({ kind: 'found', id: 'seven', evidence: 'role + name + container' });
  });
});

describe('matchTarget on page-sized trees', () => {
  it('re-finds a control among 200,000 siblings and 5,000 levels deep', () => {
    const wide = wideTree();
    expect(matchTarget(recorded(wide, 'p150000'), wideTree())).toEqual({ kind: 'found', id: 'p150000', evidence: 'role + name + container' });
    expect(matchTarget(recorded(wide, 'last'), wideTree())).toEqual({ kind: 'found', id: 'last', evidence: 'role + name' });
    const deep = deepTree();
    expect(matchTarget(recorded(deep, 'deepest'), deepTree())).toEqual({ kind: 'found', id: 'deepest', evidence: 'role + name + container' });
  });
});

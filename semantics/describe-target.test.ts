import { describe, expect, it } from 'vitest';
import { find, node, screen } from '../tests/support/hand-built-tree.js';
import { describeTarget, hrefPath } from './describe-target.js';
import { indexTree } from './tree-index.js';

function shop(rowNames: string[]) {
  return screen(
    node(
      'table',
      'Products',
      rowNames.map((rowName) => node('row', rowName, [node('cell', rowName), node('cell', 'Add to cart', [node('button', 'Add to cart')])])),
    ),
  );
}

describe('describeTarget', () => {
  it('tells "Add to cart" in three named rows apart by their row, not by position', () => {
    const tree = shop(['Milk $2', 'Eggs $3', 'Bread $4']);
    const target = describeTarget(tree, find(tree, 'button', 'Add to cart', 1).id);
    expect(target).toEqual({ role: 'button', name: 'Add to cart', container: { role: 'row', name: 'Eggs $3' }, twinIndex: 0, twinCount: 1 });
  });

  it('counts twins in document order when the rows are alike', () => {
    const tree = shop(['Milk', 'Milk', 'Milk']);
    const target = describeTarget(tree, find(tree, 'button', 'Add to cart', 2).id);
    expect(target?.twinIndex).toBe(2);
    expect(target?.twinCount).toBe(3);
    expect(target?.container).toEqual({ role: 'row', name: 'Milk' });
  });

  it('counts twins without a container across the page', () => {
    const tree = screen(node('button', 'Apply'), node('generic', '', [node('button', 'Apply')]));
    const second = describeTarget(tree, find(tree, 'button', 'Apply', 1).id);
    expect(second).toMatchObject({ twinIndex: 1, twinCount: 2 });
    expect(second?.container).toBeUndefined();
  });

  it('keeps test id, text, placeholder and the link path without query or fragment', () => {
    const tree = screen(
      node('form', 'Sign in', [
        node('textbox', '', { id: 'email', placeholder: 'you@example.com', testId: 'email-field' }),
        node('link', 'Forgot password?', { id: 'forgot', href: 'http://127.0.0.1/reset?token=abc#top', text: 'Forgot password? (opens a page)' }),
      ]),
    );
    expect(describeTarget(tree, 'email')).toEqual({
      role: 'textbox',
      name: '',
      testId: 'email-field',
      placeholder: 'you@example.com',
      container: { role: 'form', name: 'Sign in' },
      twinIndex: 0,
      twinCount: 1,
    });
    expect(describeTarget(tree, 'forgot')).toMatchObject({ href: 'http://127.0.0.1/reset', text: 'Forgot password? (opens a page)' });
  });

  it('skips unnamed containers and cells for the nearest named one', () => {
    const tree = screen(node('dialog', 'Confirm delete', [node('group', '', [node('cell', 'x', [node('button', 'Delete', { id: 'delete' })])])]));
    expect(describeTarget(tree, 'delete')?.container).toEqual({ role: 'dialog', name: 'Confirm delete' });
  });

  it('answers undefined for an id the tree does not hold, and accepts a prebuilt index', () => {
    const tree = screen(node('button', 'Apply', { id: 'apply' }));
    expect(describeTarget(tree, 'missing')).toBeUndefined();
    expect(describeTarget(indexTree(tree), 'apply')?.name).toBe('Apply');
  });

  it('cuts hrefs at the query or fragment', () => {
    expect(hrefPath('/a/b?c=d')).toBe('/a/b');
    expect(hrefPath('/a#b')).toBe('/a');
    expect(hrefPath('/plain')).toBe('/plain');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScreenNode } from '../contract/engine.js';
import { startLiveScreen, type LiveScreen } from '../tests/support/live-screen.js';
import { describeTarget } from '../semantics/describe-target.js';

let live: LiveScreen;
beforeAll(async () => {
  live = await startLiveScreen();
});
afterAll(async () => {
  await live.close();
});

function all(tree: ScreenNode, role: string, name: string): ScreenNode[] {
  const found: ScreenNode[] = [];
  const visit = (node: ScreenNode): void => {
    if (node.role === role && node.name === name) found.push(node);
    node.children.forEach(visit);
  };
  visit(tree);
  return found;
}

describe('describeTarget on a real page', () => {
  it('names each "Add to cart" by its row, the row named by its key cell', async () => {
    const { root } = await live.open('shop.html');
    const buttons = all(root, 'button', 'Add to cart');
    expect(buttons).toHaveLength(3);
    const descriptions = buttons.map((button) => describeTarget(root, button.id));
    expect(descriptions.map((description) => description?.container)).toEqual([
      { role: 'row', name: 'Milk' },
      { role: 'row', name: 'Eggs' },
      { role: 'row', name: 'Bread' },
    ]);
    expect(descriptions[1]).toEqual({ role: 'button', name: 'Add to cart', testId: 'add-to-cart', container: { role: 'row', name: 'Eggs' }, twinIndex: 0, twinCount: 1 });
  });

  it('tells two identical buttons without a container apart by position', async () => {
    const { root } = await live.open('shop.html');
    const [first, second] = all(root, 'button', 'Save');
    expect(describeTarget(root, first!.id)).toMatchObject({ twinIndex: 0, twinCount: 2 });
    expect(describeTarget(root, second!.id)).toMatchObject({ twinIndex: 1, twinCount: 2 });
  });

  it('keeps a field’s label, placeholder and region', async () => {
    const { root } = await live.open('shop.html');
    const [field] = all(root, 'textbox', 'Coupon code');
    expect(describeTarget(root, field!.id)).toEqual({
      role: 'textbox',
      name: 'Coupon code',
      placeholder: 'e.g. SPRING',
      container: { role: 'region', name: 'Coupons' },
      twinIndex: 0,
      twinCount: 1,
    });
  });
});

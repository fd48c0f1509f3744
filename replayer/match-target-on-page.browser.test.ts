import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScreenNode } from '../contract/engine.js';
import { describeTarget } from '../semantics/describe-target.js';
import { startLiveScreen, type LiveScreen } from '../tests/support/live-screen.js';
import { matchTarget } from './match-target.js';

let live: LiveScreen;
beforeAll(async () => {
  live = await startLiveScreen();
});
afterAll(async () => {
  await live.close();
});

function idOf(tree: ScreenNode, role: string, name: string, nth = 0): string {
  const found: ScreenNode[] = [];
  const visit = (node: ScreenNode): void => {
    if (node.role === role && node.name === name) found.push(node);
    node.children.forEach(visit);
  };
  visit(tree);
  const node = found[nth];
  if (node === undefined) throw new Error(`no ${role} "${name}" #${nth}`);
  return node.id;
}

async function recordOn(path: string, role: string, name: string, nth = 0) {
  const { root } = await live.open(path);
  const description = describeTarget(root, idOf(root, role, name, nth));
  if (description === undefined) throw new Error('not described');
  return description;
}

describe('matchTarget on a real page', () => {
  it('re-finds a renamed button by its test id', async () => {
    const apply = await recordOn('shop.html', 'button', 'Apply');
    const { root } = await live.open('shop.html?apply=Redeem');
    expect(matchTarget(apply, root)).toEqual({ kind: 'found', id: idOf(root, 'button', 'Redeem'), evidence: 'test id + role' });
  });

  it('reports a removed button as not found', async () => {
    const apply = await recordOn('shop.html', 'button', 'Apply');
    const { root } = await live.open('shop.html?apply=none');
    expect(matchTarget(apply, root)).toEqual({ kind: 'not-found', detail: 'no button "Apply" in region "Coupons" on the screen' });
  });

  it('re-finds "Add to cart" in the recorded row although every row has one with the same test id', async () => {
    const eggs = await recordOn('shop.html', 'button', 'Add to cart', 1);
    const { root } = await live.open('shop.html');
    expect(matchTarget(eggs, root)).toEqual({ kind: 'found', id: idOf(root, 'button', 'Add to cart', 1), evidence: 'test id + role' });
  });

  it('re-finds the second of two identical buttons by position', async () => {
    const second = await recordOn('shop.html', 'button', 'Save', 1);
    const { root } = await live.open('shop.html');
    expect(matchTarget(second, root)).toEqual({ kind: 'found', id: idOf(root, 'button', 'Save', 1), evidence: 'position among twins' });
  });
});

/**
 * The audit's `hide-evidence` on a terminal: the nodes it hid are left out of every later
 * observation while their ids stay (while the program draws the same thing in the same place),
 * as a hidden element stays hidden on the web until the page redraws it.
 */
import type { Rect, ScreenNode } from '../../contract/engine.js';

/** The tree without the nodes of `hidden` (and what they hold), its node count, and where the hidden nodes are drawn. */
export function withoutHidden(root: ScreenNode, nodeCount: number, hidden: ReadonlySet<string>): { root: ScreenNode; nodeCount: number; hiddenRects: Rect[] } {
  if (hidden.size === 0) return { root, nodeCount, hiddenRects: [] };
  const hiddenRects: Rect[] = [];
  let removed = 0;
  const count = (node: ScreenNode): number => {
    let total = 0;
    const stack = [node];
    while (stack.length > 0) {
      total++;
      stack.push(...stack.pop()!.children);
    }
    return total;
  };
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const kept: ScreenNode[] = [];
    for (const child of node.children) {
      if (!hidden.has(child.id)) {
        kept.push(child);
        continue;
      }
      removed += count(child);
      if (child.rect !== undefined) hiddenRects.push(child.rect);
    }
    node.children = kept;
    stack.push(...kept);
  }
  return { root, nodeCount: nodeCount - removed, hiddenRects };
}

/** Searches over observed screen trees, for tests. */
import type { ScreenNode } from '../../contract/engine.js';

/** Every node of a tree, depth-first. */
export function allNodes(root: ScreenNode): ScreenNode[] {
  const nodes: ScreenNode[] = [];
  // A stack, in pre-order: trees may nest thousands deep.
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    nodes.push(node);
    for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index]!);
  }
  return nodes;
}

/** The one node with `role` and `name`; throws with the roles present when there is none. */
export function nodeNamed(root: ScreenNode, role: string, name: string): ScreenNode {
  const found = allNodes(root).filter((node) => node.role === role && node.name === name);
  const first = found[0];
  if (first === undefined) throw new Error(`no ${role} "${name}" on screen: ${allNodes(root).map((node) => `${node.role} "${node.name}"`).join(', ')}`);
  if (found.length > 1) throw new Error(`${found.length} nodes ${role} "${name}" on screen`);
  return first;
}

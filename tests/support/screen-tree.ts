/** Searches over observed screen trees, for tests. */
import { allNodes } from '../../conformance/engine-session.js';
import type { ScreenNode } from '../../contract/engine.js';

/** Every node of a tree, depth-first, with a stack (trees may nest thousands deep): the conformance suite's own walk. */
export { allNodes };

/** The one node with `role` and `name`; throws with the roles present when there is none. */
export function nodeNamed(root: ScreenNode, role: string, name: string): ScreenNode {
  const found = allNodes(root).filter((node) => node.role === role && node.name === name);
  const first = found[0];
  if (first === undefined) throw new Error(`no ${role} "${name}" on screen: ${allNodes(root).map((node) => `${node.role} "${node.name}"`).join(', ')}`);
  if (found.length > 1) throw new Error(`${found.length} nodes ${role} "${name}" on screen`);
  return first;
}

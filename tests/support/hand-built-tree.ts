/**
 * Hand-built observation trees for tests of pure edge cases: `screen(node('button', 'Apply'))`.
 * Ids default to `n1`, `n2`… in creation order; depths are filled in by {@link screen}.
 */
import type { NodeState, ScreenNode } from '../../contract/engine.js';

/** Optional fields of a test node. */
export interface NodeOptions {
  id?: string;
  text?: string;
  value?: string;
  testId?: string;
  href?: string;
  placeholder?: string;
  states?: NodeState[];
}

let counter = 0;

/** One node; `children` may follow the options or replace them. */
export function node(role: string, name: string, options: NodeOptions | ScreenNode[] = {}, children: ScreenNode[] = []): ScreenNode {
  const fields = Array.isArray(options) ? {} : options;
  const kids = Array.isArray(options) ? options : children;
  counter++;
  const result: ScreenNode = { id: fields.id ?? `n${counter}`, role, name, states: fields.states ?? [], depth: 0, children: kids };
  if (fields.text !== undefined) result.text = fields.text;
  if (fields.value !== undefined) result.value = fields.value;
  if (fields.testId !== undefined) result.testId = fields.testId;
  if (fields.href !== undefined) result.href = fields.href;
  if (fields.placeholder !== undefined) result.placeholder = fields.placeholder;
  return result;
}

function setDepth(tree: ScreenNode, depth: number): void {
  tree.depth = depth;
  for (const child of tree.children) setDepth(child, depth + 1);
}

/** A document root holding `children`, with depths filled in. */
export function screen(...children: ScreenNode[]): ScreenNode {
  const root = node('document', 'Test page', { id: 'root' }, children);
  setDepth(root, 0);
  return root;
}

/** The `nth` node (pre-order) with this role and name; throws when there is none. */
export function find(tree: ScreenNode, role: string, name: string, nth = 0): ScreenNode {
  const found: ScreenNode[] = [];
  const visit = (current: ScreenNode): void => {
    if (current.role === role && current.name === name) found.push(current);
    current.children.forEach(visit);
  };
  visit(tree);
  const result = found[nth];
  if (result === undefined) throw new Error(`no ${role} "${name}" #${nth} in the test tree`);
  return result;
}

/**
 * Targets of policed actions: finding a node in an observation (by id or under a point), and
 * checking the shape of the arguments a caller passed.
 */
import { E2EError } from '../errors/index.js';
import type { NodeRef, Point, ScreenNode } from '../contract/engine.js';
import { EDITABLE_ROLES } from '../contract/roles.js';

/** The node with `id` in the tree, if any. */
export function findNode(root: ScreenNode, id: string): ScreenNode | undefined {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.id === id) return node;
    for (const child of node.children) stack.push(child);
  }
  return undefined;
}

/** The deepest listed control whose rectangle holds `point`. */
export function nodeAtPoint(root: ScreenNode, point: Point): ScreenNode | undefined {
  let best: ScreenNode | undefined;
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const rect = node.rect;
    if (rect !== undefined && node !== root) {
      const inside = point.x >= rect.x && point.x <= rect.x + rect.width && point.y >= rect.y && point.y <= rect.y + rect.height;
      if (inside && (best === undefined || node.depth >= best.depth)) best = node;
    }
    for (const child of node.children) stack.push(child);
  }
  return best;
}

/** A target `{ id }` (a leading `#` dropped), or `INVALID_ARGUMENT`. */
export function normalizeRef(ref: unknown, what: string): NodeRef {
  if (typeof ref !== 'object' || ref === null || typeof (ref as NodeRef).id !== 'string' || (ref as NodeRef).id === '') {
    throw new E2EError('INVALID_ARGUMENT', `${what} takes a target { id } from the latest observation, e.g. { id: 'n12' }.`);
  }
  return { id: (ref as NodeRef).id.replace(/^#/, '') };
}

/** `value` as a string, or `INVALID_ARGUMENT` naming `what`. */
export function requireString(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new E2EError('INVALID_ARGUMENT', `${what} must be a string.`);
  return value;
}

/** `value` as a point, or `INVALID_ARGUMENT` naming `what`. */
export function requirePoint(value: unknown, what: string): Point {
  const point = value as Point;
  if (typeof point !== 'object' || point === null || !Number.isFinite(point.x) || !Number.isFinite(point.y)) {
    throw new E2EError('INVALID_ARGUMENT', `${what} takes a point { x, y } in CSS pixels.`);
  }
  return { x: point.x, y: point.y };
}

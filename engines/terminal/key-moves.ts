/**
 * A tap or a check done with the keys a person would press, for engines that declare it
 * (`terminal({ tap: 'keys' })`, the default): to a list row with the arrow keys, then Enter
 * (a menu) or Space (a check mark); to a button or field with Tab, then Enter on the button.
 * Each move is watched on a fresh screen, so the final key lands on the control that was
 * asked for, by its id, or not at all.
 */
import { EngineError, type ScreenNode } from '../../contract/engine.js';
import type { ScreenElement } from './screen-elements.js';

/** What the moves need from the attempt. */
export interface MoveHost {
  /** Send a key (a name of `key-codes.ts`) and wait for the screen to settle; true when the screen changed. */
  pressAndSettle(key: string): Promise<boolean>;
  /** Read the screen afresh; the element now behind node `id`, if it is still there. */
  find(id: string): ScreenElement | undefined;
  /** The node of `id` in the latest reading (for messages). */
  describe(id: string): string;
}

/** How many moves a tap may take before it gives up. */
const MAX_MOVES = 60;

/** Bring the list row `id` to be the current row with the arrow keys. */
export async function moveToRow(host: MoveHost, id: string): Promise<ScreenElement> {
  let stuck = 0;
  for (let moves = 0; moves <= MAX_MOVES; moves++) {
    const target = host.find(id);
    if (target === undefined) throw new EngineError('NODE_STALE', `${host.describe(id)} is no longer on the screen.`);
    const list = target.list;
    if (list === undefined) throw new EngineError('NOT_ACTIONABLE', `${host.describe(id)} is not a row of a list.`);
    const current = list.current;
    if (current === target) return target;
    if (current === undefined) throw new EngineError('NOT_ACTIONABLE', `The list around ${host.describe(id)} shows no current row, so no arrow key is known to reach it.`);
    const changed = await host.pressAndSettle(target.row > current.row ? 'ArrowDown' : 'ArrowUp');
    stuck = changed ? 0 : stuck + 1;
    if (stuck >= 2) throw new EngineError('NOT_ACTIONABLE', `The arrow keys do not move the current row toward ${host.describe(id)}.`);
  }
  throw new EngineError('NOT_ACTIONABLE', `${host.describe(id)} was not reached within ${MAX_MOVES} arrow keys.`);
}

/** Bring focus to the button or field `id` with Tab. */
export async function tabTo(host: MoveHost, id: string, focusables: number): Promise<ScreenElement> {
  for (let presses = 0; presses <= Math.min(focusables + 1, MAX_MOVES); presses++) {
    const target = host.find(id);
    if (target === undefined) throw new EngineError('NODE_STALE', `${host.describe(id)} is no longer on the screen.`);
    if (target.states.has('focused')) return target;
    if (presses === Math.min(focusables + 1, MAX_MOVES)) break;
    await host.pressAndSettle('Tab');
  }
  throw new EngineError('NOT_ACTIONABLE', `Tab never brought focus to ${host.describe(id)}.`);
}

/** A node as a message names it: `button "OK"`. */
export function describeNode(node: ScreenNode | undefined, id: string): string {
  return node === undefined ? `#${id}` : `${node.role} "${node.name}"`;
}

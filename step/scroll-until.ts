/**
 * `ctx.actions.scrollUntil`: policed `scroll` actions, one screen at a time, until a condition
 * holds for the screen after a scroll (checked on the current screen first).
 */
import { E2EError } from '../errors/index.js';
import type { NodeRef, ScrollDirection } from '../contract/engine.js';
import type { ActionOutcome, Observation, ScrollUntilOptions } from '../contract/step-contract.js';
import { normalizeRef } from './action-targets.js';
import { shapeOf } from './screen-text.js';
import type { PolicedScope } from './policed-scope.js';

/** Default most scrolls of `scrollUntil`. */
export const DEFAULT_MAX_SCROLLS = 10;

/** Scroll with `scroll` (the policed verb) until `until` holds, at most `options.maxScrolls` times. */
export async function scrollUntil(
  scope: PolicedScope,
  scroll: (direction: ScrollDirection, target?: NodeRef) => Promise<ActionOutcome>,
  direction: ScrollDirection,
  until: unknown,
  options: ScrollUntilOptions | undefined,
): Promise<ActionOutcome> {
  const { host, session } = scope;
  const label = 'ctx.actions.scrollUntil';
  if (!['up', 'down', 'left', 'right'].includes(direction)) throw new E2EError('INVALID_ARGUMENT', `${label} takes a direction: up, down, left or right.`);
  if (typeof until !== 'function') throw new E2EError('INVALID_ARGUMENT', `${label}(direction, until) needs a function (observation) => boolean as \`until\`.`);
  const maxScrolls = options?.maxScrolls ?? DEFAULT_MAX_SCROLLS;
  if (!Number.isInteger(maxScrolls) || maxScrolls < 1 || maxScrolls > 100) throw new E2EError('INVALID_ARGUMENT', `${label}: maxScrolls must be a whole number from 1 to 100.`);
  const target = options?.target === undefined ? undefined : normalizeRef(options.target, label);
  if (!host.verbs.has('scroll')) throw scope.unsupported('scrollUntil');
  const holds = until as (observation: Observation) => boolean;
  session.assertUsable(label);
  const start = await session.serialize(async () => {
    const screen = await scope.capture();
    session.latest = screen;
    return screen;
  });
  let observation = host.present(start, { tree: true });
  if (holds(observation)) return { changes: `${label}: the condition already holds; nothing was scrolled.`, observation };
  for (let scrolled = 1; scrolled <= maxScrolls; scrolled++) {
    // A signature, not JSON: a tree may nest deeper than JSON.stringify can go.
    const signature = (shown: Observation): string => (shown.tree === undefined ? shown.text : shapeOf({ root: shown.tree, url: shown.url }, { rects: true }));
    const previous = signature(observation);
    observation = (await scroll(direction, target)).observation;
    const changes = session.latest === undefined ? observation.text : host.observer.changes(start, session.latest);
    if (holds(observation)) return { changes, observation };
    if (signature(observation) === previous) {
      throw new E2EError('ACTION_FAILED', `${label}: scrolling ${direction} no longer changes the screen after ${scrolled} scroll(s), and the condition does not hold.\n${observation.text}`);
    }
  }
  throw new E2EError('ACTION_FAILED', `${label}: the condition does not hold after ${maxScrolls} scrolls ${direction}; raise maxScrolls or scroll another way.\n${observation.text}`);
}

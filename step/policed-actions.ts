/**
 * `ctx.actions` (DESIGN §3): one policed call per row of the verb table (`contract/verbs.ts`),
 * each checked, authorized, counted, serialized, bounded, settled and reported; plus
 * `scrollUntil` and `hitTest`. The steps: step/README.md, "Policed actions".
 */
import type { NodeRef, Point } from '../contract/engine.js';
import type { StepActions } from '../contract/step-contract.js';
import { POLICED_VERBS, type PolicedVerb } from '../contract/verbs.js';
import { nodeAtPoint, requirePoint } from './action-targets.js';
import { PolicedScope, type ActionHost } from './policed-scope.js';
import { scrollUntil } from './scroll-until.js';
import type { SettleMode } from './settle.js';
import type { StepSession } from './step-session.js';
import { callVerb } from './verb-call.js';

export type { ActionHost } from './policed-scope.js';
export { DEFAULT_MAX_SCROLLS } from './scroll-until.js';

/** Options of {@link createPolicedActions}. */
export interface PolicedActionsOptions {
  /** How far each action settles before it returns. Default `full`. */
  settle?: SettleMode;
}

/** `ctx.actions.hitTest`: the engine's answer, or the listed control under the point on the newest screen. */
function hitTest(scope: PolicedScope, point: unknown): Promise<NodeRef | undefined> {
  const where: Point = requirePoint(point, 'ctx.actions.hitTest');
  scope.session.assertUsable('ctx.actions.hitTest');
  return scope.session.serialize(async () => {
    if (scope.host.engine.hitTest !== undefined) return scope.host.engine.hitTest(where);
    const under = nodeAtPoint((await scope.latest()).tree, where);
    return under === undefined ? undefined : { id: under.id };
  });
}

/** Build `ctx.actions` for one step. */
export function createPolicedActions(host: ActionHost, session: StepSession, options: PolicedActionsOptions = {}): StepActions {
  const scope = new PolicedScope(host, session, options.settle ?? 'full');
  // Every row is a method of StepActions (Pick fails to compile otherwise), and the literal below needs every method.
  const verbs = Object.fromEntries(POLICED_VERBS.map((verb) => [verb, (...args: unknown[]) => callVerb(scope, verb, args)])) as unknown as Pick<StepActions, PolicedVerb>;
  return {
    ...verbs,
    scrollUntil: (direction, until, scrollOptions) => scrollUntil(scope, verbs.scroll, direction, until, scrollOptions),
    hitTest: (point) => hitTest(scope, point),
  };
}

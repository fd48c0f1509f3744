/**
 * Point actions (`tapAt`, `hoverAt`, `dragAt`): the engine's coordinate action when it has one,
 * otherwise the row's fallback verb on the listed control(s) under the point(s).
 */
import { E2EError } from '../errors/index.js';
import type { EngineAction, Point, PointAction } from '../contract/engine.js';
import type { ActionOutcome } from '../contract/step-contract.js';
import type { PolicedVerb, VerbRow } from '../contract/verbs.js';
import { nodeAtPoint } from './action-targets.js';
import { performPoliced } from './perform-policed.js';
import type { PolicedScope } from './policed-scope.js';

/** Run a point verb whose arguments were checked (`values`, by parameter name). */
export async function pointCall(scope: PolicedScope, verb: PolicedVerb, fallback: 'tap' | 'hover' | 'drag', row: VerbRow, values: ReadonlyMap<string, unknown>): Promise<ActionOutcome> {
  const { host, session } = scope;
  const pointParams = row.params.filter((param) => param.kind === 'point');
  const args = Object.fromEntries(pointParams.map((param) => [param.name, values.get(param.name)]));
  const [where, to] = pointParams.map((param) => values.get(param.name) as Point) as [Point, Point | undefined];
  const sentence = to === undefined ? { point: where } : { point: where, to };
  if (host.engine.performAt !== undefined && (host.verbs as ReadonlySet<string>).has(verb)) {
    const performAt = host.engine.performAt.bind(host.engine);
    // The listed control under a single point, when known, becomes the event's target for the recorder.
    const under = to === undefined && session.latest !== undefined ? nodeAtPoint(session.latest.tree, where) : undefined;
    const action = (to === undefined ? { verb } : { verb, to }) as PointAction;
    return performPoliced(scope, { verb, needs: verb, target: under === undefined ? undefined : { id: under.id }, args, sentence, run: (options) => performAt(where, action, options) });
  }
  if (!host.verbs.has(fallback)) throw scope.unsupported(verb);
  if (to === undefined) {
    const under = await session.serialize(async () => {
      session.assertUsable(`ctx.actions.${verb}`);
      const screen = await scope.latest();
      const found = nodeAtPoint(screen.tree, where);
      if (found === undefined) throw new E2EError('ACTION_FAILED', `ctx.actions.${verb}: no listed control at (${where.x}, ${where.y}).\n${screen.text}`);
      return found;
    });
    const ref = { id: under.id };
    return performPoliced(scope, { verb, needs: fallback, target: ref, args, sentence, run: (options) => host.engine.perform(ref, { verb: fallback } as EngineAction, options) });
  }
  const screen = session.latest;
  const source = screen === undefined ? undefined : nodeAtPoint(screen.tree, where);
  const target = screen === undefined ? undefined : nodeAtPoint(screen.tree, to);
  if (source === undefined || target === undefined || source.id === target.id) {
    throw scope.unsupported(verb, 'the points must land on two different listed controls of the latest observation');
  }
  const ref = { id: source.id };
  const destination = { id: target.id };
  return performPoliced(scope, { verb, needs: fallback, target: ref, destination, args, sentence, run: (options) => host.engine.perform(ref, { verb: fallback, destination } as EngineAction, options) });
}

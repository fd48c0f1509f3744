/**
 * The one way a policed action runs (step/README.md, "Policed actions"): checked against the
 * engine's verbs, resolved against the newest screen, authorized, counted, bounded, settled and
 * reported to the action listener, answered with what changed.
 */
import { E2EError, hasTrait, isE2EError, type ErrorCode, messageOf } from '../errors/index.js';
import { isEngineError, type NodeRef, type ScreenNode } from '../contract/engine.js';
import { ActionError, engineDetailOf } from '../contract/action-failure.js';
import type { ActionOutcome } from '../contract/step-contract.js';
import type { ActionEvent, ActionVerb, RunnerObservation, ValueOrigin } from '../contract/step-seams.js';
import { describeSentence, type SentenceInput, type SentenceNoun } from '../semantics/action-sentence.js';
import { targetNeedles } from '../semantics/target-needles.js';
import { findNode } from './action-targets.js';
import { ACTION_TIMEOUT_MS, engineTimeoutFor } from './budgets.js';
import type { PolicedScope } from './policed-scope.js';
import { actionOutcome } from './screen-observer.js';

/** Everything one call needs. */
export interface ActionSpec {
  verb: ActionVerb;
  /** The engine verb the call needs. */
  needs: string;
  target?: NodeRef | undefined;
  destination?: NodeRef | undefined;
  args: Record<string, unknown>;
  value?: ValueOrigin | undefined;
  sentence: Omit<SentenceInput, 'verb' | 'target' | 'destination'>;
  /** Checks that need the authorized node (policies); throw to refuse. */
  authorize?: ((node: ScreenNode | undefined) => Promise<void> | void) | undefined;
  run(options: { timeoutMs: number; signal: AbortSignal }): Promise<void>;
}

/** A live node as a sentence names it (its states are not part of what the action did). */
function nounOf(node: ScreenNode | undefined): SentenceNoun | undefined {
  return node === undefined ? undefined : { role: node.role, name: node.name, text: node.text, placeholder: node.placeholder, testId: node.testId };
}

/** The runtime code of a failed action, and whether it may still have changed the app. */
function failureCode(error: unknown): { code: ErrorCode; mayHaveCommitted: boolean } {
  if (isEngineError(error)) {
    return { code: error.code, mayHaveCommitted: error.engineCode === 'ACTION_MAY_HAVE_COMMITTED' || error.engineCode === 'OPERATION_TIMEOUT' };
  }
  if (isE2EError(error)) return { code: error.code, mayHaveCommitted: hasTrait(error.code, 'mayHaveCommitted') };
  return { code: 'ENGINE_FAILURE', mayHaveCommitted: true };
}

/** The target and destination nodes on the screen the action is authorized against; a stale id fails. */
async function resolveNodes(scope: PolicedScope, spec: ActionSpec, label: string, before: RunnerObservation): Promise<{ node: ScreenNode | undefined; destination: ScreenNode | undefined }> {
  if (before.treeUnavailable === true && (spec.target !== undefined || spec.destination !== undefined)) {
    const id = (spec.target ?? spec.destination)!.id;
    throw new E2EError(
      'ACTION_FAILED',
      `${label}: #${id} cannot be used: the latest screen (revision ${before.revision}) has no tree, so node ids from earlier screens are invalid. Act on a point of a screenshot (tapAt), or observe again.`,
    );
  }
  const node = spec.target === undefined ? undefined : findNode(before.tree, spec.target.id);
  const destination = spec.destination === undefined ? undefined : findNode(before.tree, spec.destination.id);
  const missing = (spec.target !== undefined && node === undefined) || (spec.destination !== undefined && destination === undefined);
  if (missing) {
    const id = node === undefined ? spec.target!.id : spec.destination!.id;
    const screen = await scope.currentScreen();
    throw new E2EError('ACTION_FAILED', `${label}: #${id} is not on the latest screen; act only on ids from the newest observation.${screen === undefined ? '' : `\n${screen.text}`}`);
  }
  return { node, destination };
}

/**
 * The screen an action on a node is authorized against. When the engine left part of the
 * latest screen unread (a list of 200,000 rows), it is read again with the target, and every
 * node that could be taken for it, in full: the recorder then describes the target on the same
 * nodes a replay will match it on. Otherwise, or when the latest screen was read with those
 * words in full already, the latest screen, as it is.
 */
async function targetScreen(scope: PolicedScope, spec: ActionSpec, latest: RunnerObservation): Promise<RunnerObservation> {
  const ids = [spec.target?.id, spec.destination?.id].filter((id): id is string => id !== undefined);
  if (ids.length === 0 || latest.treeUnavailable === true) return latest;
  const { observer } = scope.host;
  // What was acted on stays on the screens after it.
  observer.pin(ids);
  if (!observer.partial(latest)) return latest;
  const nodes = ids.map((id) => findNode(latest.tree, id)).filter((node): node is ScreenNode => node !== undefined);
  if (nodes.length === 0) return latest;
  const needles = nodes.map((node) => targetNeedles(node));
  const include = needles.flatMap((words) => words ?? []);
  // Read with these words already (`find`, a replay's held words): a second read would read the same nodes.
  if (!needles.includes(undefined) && observer.readsInFull(latest, include)) return latest;
  const view = await scope.session.timed('observeMs', () =>
    observer.capture(scope.session.deadline.signal, needles.includes(undefined) ? { unbounded: true } : { include }),
  );
  scope.session.latest = view;
  return view;
}

/** Run the engine call within the action bound; a failure is reported and rethrown with the current screen. */
async function runBounded(scope: PolicedScope, spec: ActionSpec, sentence: string, report: (event: Partial<ActionEvent> & Pick<ActionEvent, 'outcome' | 'mayHaveCommitted'>) => void): Promise<void> {
  const { session } = scope;
  const bound = session.deadline.child(ACTION_TIMEOUT_MS, () => new E2EError('ACTION_FAILED', `${sentence} did not finish within ${ACTION_TIMEOUT_MS / 1000} s.`));
  try {
    await session.timed('actionMs', () => bound.race(spec.run({ timeoutMs: engineTimeoutFor(bound.remainingMs()), signal: bound.signal })));
  } catch (error) {
    const { code, mayHaveCommitted } = failureCode(error);
    const screen = await scope.currentScreen();
    report({ ...(screen === undefined ? {} : { after: screen }), outcome: code, mayHaveCommitted });
    if (isE2EError(error) && session.hardStop === error) throw error;
    // The engine's typed detail goes on (its texts redacted), so the replayer names an obstruction without reading the message.
    const detail = engineDetailOf(error);
    const redactedDetail = detail === undefined ? undefined : { ...detail, by: { ...detail.by, description: scope.redact(detail.by.description), ...(detail.by.name === undefined ? {} : { name: scope.redact(detail.by.name) }) } };
    throw new ActionError(code, scope.redact(`${sentence} failed: ${messageOf(error)}${screen === undefined ? '' : `\nCurrent screen:\n${screen.text}`}`), redactedDetail);
  } finally {
    bound.dispose();
  }
}

/** Settle after the action; a hard stop meanwhile is reported and thrown. */
async function settleAfter(scope: PolicedScope, before: RunnerObservation, report: (event: Partial<ActionEvent> & Pick<ActionEvent, 'outcome' | 'mayHaveCommitted'>) => void): Promise<RunnerObservation> {
  const { session, host } = scope;
  let after: RunnerObservation;
  try {
    after = await session.timed('observeMs', () => host.observer.settle(before, session.deadline.signal, { mode: scope.settleMode }));
  } catch (error) {
    const stop = session.hardStop ?? session.deadline.reason();
    if (stop !== undefined) {
      report({ outcome: stop.code, mayHaveCommitted: true });
      throw stop;
    }
    throw error;
  }
  if (session.hardStop !== undefined) {
    report({ after, outcome: session.hardStop.code, mayHaveCommitted: true });
    throw session.hardStop;
  }
  return after;
}

/** Run one policed action. */
export async function performPoliced(scope: PolicedScope, spec: ActionSpec): Promise<ActionOutcome> {
  const { host, session } = scope;
  const label = `ctx.actions.${spec.verb}`;
  session.assertUsable(label);
  if (!(host.verbs as ReadonlySet<string>).has(spec.needs)) throw scope.unsupported(spec.verb);
  return session.serialize(async () => {
    session.assertUsable(label);
    const before = await targetScreen(scope, spec, await scope.latest());
    const { node, destination } = await resolveNodes(scope, spec, label, before);
    await spec.authorize?.(node);
    try {
      session.budget.takeActionSlot(label);
    } catch (error) {
      if (isE2EError(error)) session.stop(error);
      throw error;
    }
    const sentence = scope.redact(describeSentence({ ...spec.sentence, verb: spec.verb, target: nounOf(node), destination: nounOf(destination) }));
    const event = {
      step: { index: session.info.index, kind: session.info.kind, instruction: session.info.instruction },
      verb: spec.verb,
      args: spec.args,
      sentence,
      before,
      ...(spec.target === undefined ? {} : { ref: spec.target }),
      ...(node === undefined ? {} : { node }),
      ...(spec.value === undefined ? {} : { value: spec.value }),
    };
    const report = (ending: Partial<ActionEvent> & Pick<ActionEvent, 'outcome' | 'mayHaveCommitted'>): void => {
      if (!session.ended) host.emit({ ...event, ...ending });
    };
    await runBounded(scope, spec, sentence, report);
    const after = await settleAfter(scope, before, report);
    session.latest = after;
    session.sentences.push(sentence);
    report({ after, outcome: 'ok', mayHaveCommitted: true });
    return actionOutcome(() => host.observer.changes(before, after), host.present(after, { tree: true }));
  });
}

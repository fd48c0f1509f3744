/**
 * Replay one recorded `act` step with no model (DESIGN §6); a divergence stops it with a reason
 * and the prefix that ran. See replayer/README.md, "Replaying a step".
 */
import type { ActEntry, RecordedAction, TargetDescription, TypedValue } from '../cache-format/entry.js';
import type { NodeRef, ScreenNode } from '../contract/engine.js';
import { isEngineError } from '../contract/engine.js';
import type { ReplayClassification } from '../contract/cache-outcome.js';
import type { MutationSurface, StepMutation } from '../contract/mutation.js';
import type { ActionOutcome, Observation, ReplayedPrefix, StepActions } from '../contract/step-contract.js';
import { sleep } from '../contract/deadline.js';
import { E2EError, hasTrait, isE2EError, type ErrorCode, messageOf } from '../errors/index.js';
import { describeAction } from '../semantics/describe-action.js';
import { canDismiss, containerOnScreen } from '../semantics/dismissal.js';
import { originOf } from '../semantics/route-of.js';
import { indexTree, type ContainerInfo, type TreeIndex } from '../semantics/tree-index.js';
import { fillUniquePlaceholders, mapTextFields } from '../semantics/unique-placeholders.js';
import { checkEndState, type SkippedDismissal } from './end-check.js';
import { matchTarget } from './match-target.js';
import { coveringOverlay, interceptingSnippet, knownContainers, nameObstruction } from './obstruction.js';
import { matchRoute } from './route-match.js';

/** Why a replay stopped (the cache reasons a replay itself can produce). */
export type ReplayStopReason = 'wrong-context' | 'target-not-found' | 'target-ambiguous' | 'gap' | 'action-failed' | 'end-mismatch';

/** The outcome of a replay. */
export type ReplayOutcome =
  /** `notes`: what the end check tolerated or the replay skipped, for the outcome's detail. */
  | { kind: 'finished'; actions: string[]; notes?: string[] }
  /** `classification`: `regression` when every action ran and only the recorded outcome is missing, else `drift`. */
  | { kind: 'stopped'; reason: ReplayStopReason; classification: ReplayClassification; detail: string; prefix: ReplayedPrefix };

/** Default bounded wait for a missing control, and for the end state to settle. */
export const DEFAULT_WAIT_FOR_TARGET_MS = 5_000;
/** Default pause between observations while waiting. */
export const DEFAULT_POLL_INTERVAL_MS = 100;
/**
 * How long a dismissal's container (a consent banner…) is looked for before the action is
 * skipped as having nothing to dismiss: such UI often renders a moment after the page, but a
 * missing banner must not cost the full target wait. Capped by the target wait.
 */
export const DISMISSAL_LOOK_MS = 1_000;


/** What a replay needs. */
export interface ReplayStepOptions {
  entry: ActEntry;
  /** The step's policed actions (the same surface the agent gets); the last action runs through them. */
  actions: StepActions;
  /**
   * The same actions with a brief settle (they return once the screen changed, without a quiet
   * wait), for every action but the last: each next target is waited for anyway, and the last
   * action settles fully before the end check. Default: `actions`.
   */
  briefActions?: StepActions;
  /** A fresh observation with its tree (`ctx.observe({ tree: true })`). */
  observe: () => Promise<Observation>;
  /** This run's `unique()` values by param name. */
  uniqueValues?: Readonly<Record<string, string>>;
  /** Names of the secrets this step may type. */
  secretsAvailable?: Iterable<string>;
  /** How long to wait for a missing control, and for the end state. Default 5 s. */
  waitForTargetMs?: number;
  /** How long to look for a dismissal's container before skipping it. Default {@link DISMISSAL_LOOK_MS}, at most `waitForTargetMs`. */
  dismissalLookMs?: number;
  /** Pause between observations while waiting. Default 100 ms. */
  pollIntervalMs?: number;
  signal?: AbortSignal;
  /** `e2e cache audit`: an action of the step skipped or made ineffective, with the page-side tools it needs. */
  mutation?: { mutation: StepMutation; surface: MutationSurface } | undefined;
}

interface Screen {
  tree: ScreenNode;
  url: string;
}

/** A stop raised inside the replay loop and turned into a {@link ReplayOutcome}. */
class ReplayStop {
  constructor(
    readonly reason: ReplayStopReason,
    readonly message: string,
    readonly mayHaveCommitted = false,
  ) {}
}

function formatDuration(milliseconds: number): string {
  return milliseconds >= 1000 ? `${Number((milliseconds / 1000).toFixed(1))} s` : `${milliseconds} ms`;
}

/** A stopped replay wait rejects with the signal's own reason (the step's stop error). */
const passReason = (reason: unknown): unknown => reason;

/** Verbs whose (first) target must be enabled; a disabled one is waited for like a missing one. */
const NEEDS_ENABLED: ReadonlySet<RecordedAction['verb']> = new Set([
  'tap', 'doubleTap', 'longPress', 'secondaryTap', 'type', 'press', 'select', 'check', 'upload', 'drag', 'tapAt',
]);

/** Verbs that point at their target; something covering it takes the pointer. */
const POINTER_VERBS: ReadonlySet<RecordedAction['verb']> = new Set(['tap', 'doubleTap', 'longPress', 'secondaryTap', 'hover', 'check', 'drag', 'tapAt']);

/**
 * Whether a failed action may still have changed the app: the error's own
 * `mayHaveCommitted` when it carries one, false for failures raised before anything was
 * sent, true otherwise (the agent then looks before it repeats the action).
 */
function mayHaveCommitted(error: unknown): boolean {
  const flag = typeof error === 'object' && error !== null ? (error as { mayHaveCommitted?: unknown }).mayHaveCommitted : undefined;
  if (typeof flag === 'boolean') return flag;
  if (isEngineError(error)) return error.engineCode === 'ACTION_MAY_HAVE_COMMITTED' || error.engineCode === 'OPERATION_TIMEOUT';
  // Failures raised before anything reached the app (the `preFlight` trait) changed nothing.
  return !(isE2EError(error) && hasTrait(error.code, 'preFlight'));
}

/**
 * One line for a failed action: the runner's message without its echo of the action
 * (`tap button "Apply" failed: `) and without the screen it appends after a newline.
 */
function failureLine(error: unknown): string {
  const firstLine = messageOf(error).split('\n')[0] ?? '';
  const marker = firstLine.indexOf(' failed: ');
  return marker === -1 ? firstLine : firstLine.slice(marker + ' failed: '.length);
}

/** `url` resolved against `base`; left as is when it does not parse (the action then fails visibly). */
function resolveUrl(url: string, base: string): string {
  try {
    return new URL(url, base).href;
  } catch {
    return url;
  }
}

function targetsOf(action: RecordedAction): TargetDescription[] {
  switch (action.verb) {
    case 'drag':
      return [action.target, action.destination];
    case 'press':
    case 'scroll':
    case 'tapAt':
      return action.target === undefined ? [] : [action.target];
    case 'navigate':
    case 'back':
    case 'typeText':
    case 'pressKey':
    case 'gap':
      return [];
    default:
      return [action.target];
  }
}

/** Replay a recorded step. Throws only for cancellation and runtime hard stops. */
export async function replayStep(options: ReplayStepOptions): Promise<ReplayOutcome> {
  const { entry, actions, signal } = options;
  const uniqueValues = options.uniqueValues ?? {};
  const secrets = new Set(options.secretsAvailable ?? []);
  const waitMs = options.waitForTargetMs ?? DEFAULT_WAIT_FOR_TARGET_MS;
  const pollMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const lookMs = Math.min(options.dismissalLookMs ?? DISMISSAL_LOOK_MS, waitMs);
  const total = entry.actions.length;
  const sentences = entry.actions.map(describeAction);
  const ran: string[] = [];
  const skipped: SkippedDismissal[] = [];
  const notes: string[] = [];
  let known: Set<string> | undefined;

  const stopped = (stop: ReplayStop, actionIndex: number | undefined): ReplayOutcome => {
    const where = actionIndex === undefined ? '' : `at action ${actionIndex + 1} of ${total}, ${sentences[actionIndex]}: `;
    const detail = `${where}${stop.message}`;
    // Only an end check after actions that really ran blames the app; every other stop is the screen's.
    const regression = stop.reason === 'end-mismatch' && actionIndex === undefined && skipped.length < total;
    return {
      kind: 'stopped',
      reason: stop.reason,
      classification: regression ? 'regression' : 'drift',
      detail,
      prefix: { actions: [...ran], total, reason: stop.reason, detail, lastMayHaveCommitted: stop.mayHaveCommitted },
    };
  };

  const observe = async (): Promise<Screen> => {
    const observation = await options.observe();
    if (observation.tree === undefined) throw new E2EError('INVALID_STATE', 'replayStep needs observations with a tree (observe({ tree: true }))');
    return { tree: observation.tree, url: observation.url };
  };

  const valueOf = (value: TypedValue): string => {
    if (value.kind === 'literal') return value.value;
    if (value.kind === 'unique') {
      if (!Object.hasOwn(uniqueValues, value.param)) throw new ReplayStop('action-failed', `the unique() param ${value.param} has no value in this run`);
      return uniqueValues[value.param]!;
    }
    throw new ReplayStop('action-failed', `a secret (${value.name}) can only be typed into a field`);
  };

  let current = await observe();
  const start = matchRoute(entry.startRoute, current.url);
  if (start.kind === 'mismatch') return stopped(new ReplayStop('wrong-context', `start route ${start.detail}`), undefined);
  for (const [actionIndex, action] of entry.actions.entries()) {
    const value = action.verb === 'type' || action.verb === 'select' || action.verb === 'typeText' ? action.value : undefined;
    if (value?.kind === 'secret' && !secrets.has(value.name)) {
      return stopped(new ReplayStop('action-failed', `the secret ${value.name} is not available to this step`), actionIndex);
    }
    if (value?.kind === 'unique' && !Object.hasOwn(uniqueValues, value.param)) {
      return stopped(new ReplayStop('action-failed', `the unique() param ${value.param} has no value in this run`), actionIndex);
    }
  }
  // A screen is indexed once, however many looks (find, dismissal, covering dialog) it gets.
  const indexes = new WeakMap<ScreenNode, TreeIndex>();
  const indexOf = (tree: ScreenNode): TreeIndex => {
    let index = indexes.get(tree);
    if (index === undefined) indexes.set(tree, (index = indexTree(tree)));
    return index;
  };
  const replayStart = { tree: indexOf(current.tree), url: current.url };

  /**
   * Re-find a target, waiting up to `waitMs` while it is missing or, for an action that needs
   * an enabled control, disabled (the engine would otherwise wait its full action timeout).
   */
  const find = async (target: TargetDescription, needsEnabled: boolean): Promise<NodeRef> => {
    const wanted = mapTextFields(target, (text) => fillUniquePlaceholders(text, uniqueValues));
    const deadline = Date.now() + waitMs;
    for (;;) {
      const index = indexOf(current.tree);
      const match = matchTarget(wanted, index);
      if (match.kind === 'ambiguous') throw new ReplayStop('target-ambiguous', match.detail);
      const disabled = match.kind === 'found' && needsEnabled && index.byId.get(match.id)?.node.states.includes('disabled') === true;
      if (match.kind === 'found' && !disabled) return { id: match.id };
      if (Date.now() >= deadline) {
        if (disabled) throw new ReplayStop('action-failed', `stayed disabled for ${formatDuration(waitMs)}`);
        throw new ReplayStop('target-not-found', `not found within ${formatDuration(waitMs)} (${match.kind === 'not-found' ? match.detail : ''})`);
      }
      await sleep(pollMs, signal, passReason);
      current = await observe();
    }
  };

  /** Whether a dismissal's container or target shows within {@link lookMs}. */
  const dismissalShows = async (container: ContainerInfo, target: TargetDescription): Promise<boolean> => {
    const wantedContainer = { role: container.role, name: fillUniquePlaceholders(container.name, uniqueValues) };
    const wantedTarget = mapTextFields(target, (text) => fillUniquePlaceholders(text, uniqueValues));
    const deadline = Date.now() + lookMs;
    for (;;) {
      const index = indexOf(current.tree);
      if (containerOnScreen(index, wantedContainer) || matchTarget(wantedTarget, index).kind !== 'not-found') return true;
      if (Date.now() >= deadline) return false;
      await sleep(pollMs, signal, passReason);
      current = await observe();
    }
  };

  /** Stop before a pointer action when a dialog the recording never had covers its target. */
  const refuseCovered = (action: RecordedAction, target: NodeRef | undefined): void => {
    if (target === undefined || !POINTER_VERBS.has(action.verb)) return;
    known ??= knownContainers(entry);
    const overlay = coveringOverlay(indexOf(current.tree), target.id, known);
    if (overlay !== undefined) throw new ReplayStop('action-failed', `${overlay} is in the way`);
  };

  /** After the engine said another element takes the pointer: a stop that names it. */
  const obstructed = async (failure: string, target: NodeRef | undefined): Promise<ReplayStop | undefined> => {
    const snippet = interceptingSnippet(failure);
    if (snippet === undefined || target === undefined) return undefined;
    const before = current;
    current = await observe();
    const index = indexOf((indexOf(current.tree).byId.has(target.id) ? current : before).tree);
    known ??= knownContainers(entry);
    // The engine gives up before sending any input, so nothing reached the app.
    return new ReplayStop('action-failed', `${nameObstruction(index, target.id, snippet, known)} is in the way`);
  };

  const perform = async (action: RecordedAction, refs: NodeRef[], surface: StepActions): Promise<ActionOutcome> => {
    const [target, destination] = refs;
    switch (action.verb) {
      case 'tap':
      case 'doubleTap':
      case 'longPress':
      case 'secondaryTap':
      case 'hover':
      case 'scrollTo':
        return surface[action.verb](target!);
      case 'type':
        return action.value.kind === 'secret'
          ? surface.typeSecret(target!, action.value.name)
          : surface.type(target!, valueOf(action.value), { replace: action.replace });
      case 'press':
        return surface.press(target, action.key);
      case 'select':
        return surface.select(target!, valueOf(action.value));
      case 'check':
        return surface.check(target!, action.checked);
      case 'scroll':
        return surface.scroll(action.direction, target);
      case 'upload':
        return surface.upload(target!, action.paths);
      case 'drag':
        return surface.drag(target!, destination!);
      case 'navigate':
        return surface.navigate(fillUniquePlaceholders(action.url, uniqueValues));
      case 'back':
        return surface.back();
      case 'typeText':
        return surface.typeText(valueOf(action.value));
      case 'pressKey':
        return surface.pressKey(action.key);
      case 'tapAt':
        // A re-found control is tapped as itself; a bare point is tapped where it was.
        return target === undefined ? surface.tapAt(action.point) : surface.tap(target);
      case 'gap':
        throw new ReplayStop('gap', 'cannot be repeated; the agent takes over here');
    }
  };

  const mutation = options.mutation?.mutation;
  for (const [actionIndex, action] of entry.actions.entries()) {
    signal?.throwIfAborted();
    if (mutation?.kind === 'skip-action' && mutation.action === actionIndex) continue;
    try {
      if (action.verb === 'gap') throw new ReplayStop('gap', 'cannot be repeated; the agent takes over here');
      const origin = originOf(current.url);
      if (origin !== undefined && !entry.origins.includes(origin)) {
        throw new ReplayStop('wrong-context', `the page is on ${origin}, which the recording never visited`);
      }
      if (action.verb === 'navigate') {
        const destinationOrigin = originOf(resolveUrl(fillUniquePlaceholders(action.url, uniqueValues), current.url));
        if (destinationOrigin !== undefined && !entry.origins.includes(destinationOrigin)) {
          throw new ReplayStop('action-failed', `refused: ${destinationOrigin} is an origin the recording never visited`);
        }
      }
      if (canDismiss(action) && action.dismisses !== undefined && !(await dismissalShows(action.dismisses, action.target))) {
        skipped.push({ container: action.dismisses, target: action.target });
        // The sentence already names the container: it is the target's own.
        notes.push(`skipped: action ${actionIndex + 1} of ${total}, ${sentences[actionIndex]!}: its ${action.dismisses.role} was absent`);
        continue;
      }
      const refs: NodeRef[] = [];
      for (const [position, target] of targetsOf(action).entries()) refs.push(await find(target, position === 0 && NEEDS_ENABLED.has(action.verb)));
      refuseCovered(action, refs[0]);
      let outcome: ActionOutcome;
      const silenced = mutation?.kind === 'break-handlers' && mutation.action === actionIndex ? await options.mutation!.surface.silenceHandlers() : undefined;
      try {
        outcome = await perform(action, refs, actionIndex < total - 1 ? (options.briefActions ?? actions) : actions);
      } catch (error) {
        if (error instanceof ReplayStop) throw error;
        // These end the step rather than the replay (the `endsReplay` trait); they propagate to the runner.
        if (signal?.aborted === true || (isE2EError(error) && hasTrait(error.code, 'endsReplay'))) throw error;
        const failure = failureLine(error);
        throw (await obstructed(failure, refs[0])) ?? new ReplayStop('action-failed', failure, mayHaveCommitted(error));
      } finally {
        await silenced?.();
      }
      ran.push(sentences[actionIndex]!);
      current = outcome.observation.tree === undefined ? await observe() : { tree: outcome.observation.tree, url: outcome.observation.url };
    } catch (error) {
      if (error instanceof ReplayStop) return stopped(error, actionIndex);
      throw error;
    }
  }

  if (skipped.length === total) {
    return stopped(new ReplayStop('end-mismatch', `every action was skipped (${notes.map((note) => note.replace(/^skipped: /, '')).join('; ')}), so nothing the replay did proves the step`), undefined);
  }
  const deadline = Date.now() + waitMs;
  for (;;) {
    const check = checkEndState({ entry, replayStart, end: current, uniqueValues, skipped });
    if (check.ok) {
      const lines = [...notes, ...(check.tolerated ?? []).map((line) => `tolerated: ${line}`)];
      return lines.length === 0 ? { kind: 'finished', actions: ran } : { kind: 'finished', actions: ran, notes: lines };
    }
    if (Date.now() >= deadline) return stopped(new ReplayStop('end-mismatch', `after all ${total} actions, ${check.detail}`), undefined);
    await sleep(pollMs, signal, passReason);
    current = await observe();
  }
}

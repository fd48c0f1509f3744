/**
 * The step recorder: fed every action a step performs, it keeps the recorded actions and,
 * at step end, the start and end routes, the controls that appeared and went away, and the
 * origins visited; {@link buildActEntry} turns that into a validated `act` entry. The entry
 * holds no prompt, transcript, screenshot, tree or secret value.
 */
import {
  MAX_ACTIONS,
  MAX_STATE_CONTROLS,
  actEntrySchema,
  entryVersionFor,
  type ActEntry,
  type ActedCheck,
  type EndControl,
  type KeyParts,
  type RecordedAction,
  type Route,
  type StateControl,
} from '../cache-format/entry.js';
import type { ScreenNode } from '../contract/engine.js';
import { describeAction } from '../semantics/describe-action.js';
import { canDismiss, recognizeDismissals, type PerformedAction } from '../semantics/dismissal.js';
import { actedChecks, basisOf, keepLookedAt, lookedAtIdentities, verifiedControls, type ActedTarget } from '../semantics/end-purpose.js';
import { ACTION_GAP_RULES, readEvent, recordAction, type ActionEventLike, type EventReading, type ScreenSnapshot } from './record-action.js';
import { formatRoute, routeOf, sameRouteShape } from '../semantics/route-of.js';
import { diffStateControls, stateControlKey } from '../semantics/state-controls.js';
import { indexTree, type TreeIndex } from '../semantics/tree-index.js';
import { producedChanges, producingActions, type ProducedChanges } from '../semantics/produced-outcomes.js';
import { MAX_SUMMARY_CHARS, validateEntry, type EntryResult } from './validate-entry.js';
import { mapTextFields, maskUniqueValues } from '../semantics/unique-placeholders.js';
import { clip } from '../contract/text.js';

/** An event read by its verb's row. */
type Read = Extract<EventReading, { kind: 'read' }>;

/** Most verifications of one step whose looked-at nodes are kept. */
const MAX_LOOKS = 8;

/** Most origins an entry lists (the entry schema's cap). */
export const MAX_ORIGINS = 20;

/** What the recorder knows about the step before it starts. */
export interface StepRecorderOptions {
  /** The instruction with params filled in (secrets as `<secret:name>`). */
  instruction: string;
  /** Params that are neither secrets nor `unique()`, by name. */
  literalParams?: Readonly<Record<string, string>>;
  /** This run's `unique()` values, by param name. */
  uniqueValues?: Readonly<Record<string, string>>;
  /** The name of the configured secret whose value equals or occurs in `value`, if any. */
  secretNameOf?: (value: string) => string | undefined;
  /**
   * False for an engine without a location (a terminal): its screens have no URL, so the
   * recording keeps no routes and no origins (an entry of version 2). Default true.
   */
  located?: boolean;
}

/** A finished recording, ready to become an entry. */
export interface StepRecording {
  actions: RecordedAction[];
  /** Where the step started and ended and the origins it visited; absent for an engine without a location. */
  startRoute?: Route;
  endRoute?: Route;
  origins?: string[];
  appeared: EndControl[];
  gone: EndControl[];
  /** The controls the step acted on, as it left them. */
  acted?: ActedCheck[];
  /** Unchanged controls the verification after the step looked at. */
  verified?: StateControl[];
}

/** What the verification after a step looked at: nodes of the screen it passed on. */
export interface LookedAt {
  screen: ScreenSnapshot;
  nodeIds: readonly string[];
}

/** The end of a recording: ready, or why the step cannot be cached. */
export type StepRecordingResult = { kind: 'recorded'; recording: StepRecording } | { kind: 'not-cacheable'; reason: string };

/** Records one step. Create one per `act` step; feed it every action; call {@link finish} once. */
export class StepRecorder {
  readonly #options: StepRecorderOptions;
  readonly #actions: RecordedAction[] = [];
  readonly #origins = new Set<string>();
  readonly #indexes = new WeakMap<ScreenNode, TreeIndex>();
  #start: ScreenSnapshot | undefined;
  #last: ScreenSnapshot | undefined;
  #performed = 0;
  #problem: string | undefined;
  readonly #acted: ActedTarget[] = [];
  readonly #typed: string[] = [];
  readonly #lookedAt: LookedAt[] = [];
  readonly #performedActions: PerformedAction[] = [];
  /** What changed right after each recorded action (by its index), the browser's own effects left out. */
  readonly #produced = new Map<number, ProducedChanges>();

  constructor(options: StepRecorderOptions) {
    this.#options = options;
  }

  /** The actions recorded so far. */
  get actions(): readonly RecordedAction[] {
    return this.#actions;
  }

  /** Record one action the step performed, successful or not: a runner action event (the `onAction` seam). */
  recordEvent(event: ActionEventLike): void {
    this.#performed++;
    const reading = readEvent(event);
    if (reading.kind === 'unreadable') {
      this.#problem ??= `action ${this.#performed} (${event.verb}): ${reading.reason}`;
      return;
    }
    this.#start ??= event.before;
    this.#visit(event.before.url);
    if (event.after !== undefined) this.#visit(event.after.url);
    this.#last = event.after ?? event.before;
    if (this.#problem !== undefined) return;
    if (event.outcome !== 'ok') {
      if (event.mayHaveCommitted) this.#push({ verb: 'gap', rule: ACTION_GAP_RULES.uncertainAction });
      return;
    }
    const conversion = recordAction(event, reading, { ...this.#options, before: event.before, beforeIndex: this.#index(event.before.tree) });
    if (conversion.kind === 'action') {
      this.#push(conversion.action);
      this.#notePurpose(reading, conversion.action);
      this.#notePerformed(event, reading, conversion.action);
    } else if (conversion.kind === 'not-cacheable') this.#problem = `action ${this.#performed} (${event.verb}): ${conversion.reason}`;
  }

  /** What a verification after the step looked at (each verification before the next step adds to it). */
  lookedAt(lookedAt: LookedAt): void {
    if (this.#lookedAt.length < MAX_LOOKS) this.#lookedAt.push(lookedAt);
  }

  #notePurpose(reading: Read, action: RecordedAction): void {
    if (reading.row === 'tool') return;
    for (const param of reading.row.params) {
      const value = reading.values.get(param.name);
      if ((param.kind === 'typed' || param.kind === 'choice') && typeof value === 'string' && value.trim() !== '') this.#typed.push(value.trim());
    }
    // What the step only looked at or moved around (a hover, a scroll, a key on it) is no control it acted on.
    if (reading.target !== undefined && 'target' in action && action.target !== undefined && reading.row.inspects !== true) {
      this.#acted.push({ id: reading.target.id, target: action.target });
    }
  }

  #notePerformed(event: ActionEventLike, reading: Read, action: RecordedAction): void {
    const others = reading.row === 'tool' ? [] : reading.row.params.filter((param) => param.kind === 'node' && param.name !== 'target').map((param) => (reading.values.get(param.name) as { id: string }).id);
    const targetIds = [...(reading.target === undefined ? [] : [reading.target.id]), ...others];
    const beforeRoute = routeOf(event.before.url);
    const afterRoute = event.after === undefined ? undefined : routeOf(event.after.url);
    if (event.after !== undefined) this.#produced.set(this.#actions.length - 1, producedChanges(this.#index(event.before.tree), this.#index(event.after.tree), targetIds));
    this.#performedActions.push({
      actionIndex: this.#actions.length - 1,
      action,
      targetIds,
      before: this.#index(event.before.tree),
      after: event.after?.tree,
      sameRoute: beforeRoute !== undefined && afterRoute !== undefined && sameRouteShape(beforeRoute, afterRoute),
    });
  }

  /** Close the recording; `end` is the screen at step end (default: the last action's `after`). */
  finish(end?: ScreenSnapshot): StepRecordingResult {
    if (this.#problem !== undefined) return { kind: 'not-cacheable', reason: this.#problem };
    const start = this.#start;
    const last = end ?? this.#last;
    if (end !== undefined) this.#visit(end.url);
    if (this.#actions.length === 0 || start === undefined || last === undefined) {
      return { kind: 'not-cacheable', reason: 'the step took no action that can be recorded' };
    }
    if (this.#actions.every((action) => action.verb === 'gap')) {
      return { kind: 'not-cacheable', reason: `every action is a gap (${describeAction(this.#actions[0]!)})` };
    }
    const located = this.#options.located !== false;
    const startRoute = located ? routeOf(start.url) : undefined;
    const endRoute = located ? routeOf(last.url) : undefined;
    if (located && startRoute === undefined) return { kind: 'not-cacheable', reason: 'the step started on a page without an origin' };
    if (located && endRoute === undefined) return { kind: 'not-cacheable', reason: 'the step ended on a page without an origin' };
    if (located && this.#origins.size > MAX_ORIGINS) {
      return { kind: 'not-cacheable', reason: `the step visited ${this.#origins.size} origins (at most ${MAX_ORIGINS} are recorded)` };
    }
    const uniqueValues = this.#options.uniqueValues ?? {};
    const mask = <T extends StateControl>(control: T): T => mapTextFields(control, (text) => maskUniqueValues(text, uniqueValues));
    const endIndex = this.#index(last.tree);
    // Every change first: the ones the verification looked at are kept past the cap (keepLookedAt).
    const changes = diffStateControls(this.#index(start.tree), endIndex, Number.POSITIVE_INFINITY);
    const routeChanged = startRoute !== undefined && endRoute !== undefined && !sameRouteShape(startRoute, endRoute);
    if (changes.appeared.length === 0 && changes.gone.length === 0 && !routeChanged) {
      return { kind: 'not-cacheable', reason: `the step changed nothing a replay could check${endRoute === undefined ? '' : ` (still on ${formatRoute(endRoute)})`}` };
    }
    const lookedAt = new Set<string>();
    const verifiedByKey = new Map<string, StateControl>();
    for (const looked of this.#lookedAt) {
      const lookedIndex = this.#index(looked.screen.tree);
      for (const identity of lookedAtIdentities(lookedIndex, looked.nodeIds)) lookedAt.add(identity);
      for (const control of verifiedControls(lookedIndex, looked.nodeIds, [...changes.appeared, ...changes.gone], this.#typed)) verifiedByKey.set(stateControlKey(control), control);
    }
    const context = { actedTargets: this.#acted.map((item) => item.target), typedValues: this.#typed, lookedAt };
    // What changed right after one of the step's actions (not by the browser alone) is required at replay.
    const withBasis = (list: 'appeared' | 'gone') => (control: StateControl): EndControl => {
      const producedBy = producingActions(control, list, this.#produced);
      return { ...mask(control), basis: basisOf(control, context), ...(producedBy.length === 0 ? {} : { producedBy }) };
    };
    const verified = [...verifiedByKey.values()].slice(0, MAX_STATE_CONTROLS);
    const appeared = keepLookedAt(changes.appeared, lookedAt).map(withBasis('appeared'));
    const gone = keepLookedAt(changes.gone, lookedAt).map(withBasis('gone'));
    const acted = actedChecks(this.#acted, endIndex, (target) => mapTextFields(target, (text) => maskUniqueValues(text, uniqueValues)));
    const dismissals = recognizeDismissals(this.#performedActions, {
      start: this.#index(start.tree),
      appeared,
      gone,
      acted,
      routeChanged,
      lookedAt: this.#lookedAt.map((looked) => ({ index: this.#index(looked.screen.tree), nodeIds: looked.nodeIds })),
    });
    const actions = this.#actions.map((action, position): RecordedAction => {
      const container = dismissals.get(position);
      if (container === undefined || !canDismiss(action)) return action;
      return { ...action, dismisses: mapTextFields(container, (text) => maskUniqueValues(text, uniqueValues)) };
    });
    return {
      kind: 'recorded',
      recording: {
        actions,
        ...(startRoute === undefined || endRoute === undefined ? {} : { startRoute, endRoute, origins: [...this.#origins].sort() }),
        appeared,
        gone,
        acted,
        verified: verified.map(mask),
      },
    };
  }

  #push(action: RecordedAction): void {
    if (this.#actions.length >= MAX_ACTIONS) {
      this.#problem = `the step took more than ${MAX_ACTIONS} recordable actions`;
      return;
    }
    this.#actions.push(action);
  }

  #visit(url: string): void {
    const origin = routeOf(url)?.origin;
    if (origin !== undefined) this.#origins.add(origin);
  }

  #index(tree: ScreenNode): TreeIndex {
    let index = this.#indexes.get(tree);
    if (index === undefined) {
      index = indexTree(tree);
      this.#indexes.set(tree, index);
    }
    return index;
  }
}

/** What an entry carries besides the recording. */
export interface ActEntryMetadata {
  key: string;
  keyParts: KeyParts;
  /** The step's verdict summary (clipped to 1,024 characters). */
  summary: string;
  provenance: ActEntry['provenance'];
  /** True when the entry's text holds no secret value (the outbound boundary); an entry it refuses is not written. */
  clean?: (text: string) => boolean;
  /** This run's `unique()` values; the summary shows them as `{unique:<param>}`. */
  uniqueValues?: Readonly<Record<string, string>>;
}

/** The entry, or why it cannot be written. */
export type ActEntryResult = EntryResult<ActEntry>;

/** Build and validate an `act` entry from a recording. Never throws on bad input. */
export function buildActEntry(recording: StepRecording, metadata: ActEntryMetadata): ActEntryResult {
  const candidate = {
    // Version 1 with a location (its format unchanged), version 2 without (an engine that has none).
    version: entryVersionFor(recording),
    kind: 'act',
    key: metadata.key,
    keyParts: metadata.keyParts,
    actions: recording.actions,
    ...(recording.startRoute === undefined ? {} : { startRoute: recording.startRoute }),
    ...(recording.endRoute === undefined ? {} : { endRoute: recording.endRoute }),
    ...(recording.origins === undefined ? {} : { origins: recording.origins }),
    appeared: recording.appeared,
    gone: recording.gone,
    ...(recording.acted === undefined || recording.acted.length === 0 ? {} : { acted: recording.acted }),
    ...(recording.verified === undefined || recording.verified.length === 0 ? {} : { verified: recording.verified }),
    summary: clip(maskUniqueValues(metadata.summary, metadata.uniqueValues ?? {}), MAX_SUMMARY_CHARS),
    provenance: metadata.provenance,
  };
  return validateEntry(actEntrySchema, candidate, metadata.clean);
}

/**
 * The live screen a replay acts on: observed with its tree, each tree indexed once however many
 * looks it gets (find, dismissal, covering dialog), and the bounded waits for a target.
 */
import type { ActEntry, RecordedAction, TargetDescription } from '../cache-format/entry.js';
import { OMITTED_ROLE, type NodeRef, type ScreenNode } from '../contract/engine.js';
import type { Observation } from '../contract/step-contract.js';
import type { ServiceObserveOptions } from '../contract/step-seams.js';
import { verbRow } from '../contract/verbs.js';
import { sleep } from '../contract/deadline.js';
import { E2EError } from '../errors/index.js';
import { containerOnScreen } from '../semantics/dismissal.js';
import { indexTree, type ContainerInfo, type TreeIndex } from '../semantics/tree-index.js';
import { fillUniquePlaceholders, mapTextFields } from '../semantics/unique-placeholders.js';
import { targetNeedles, type NeedleSource } from '../semantics/target-needles.js';
import { matchTarget } from './match-target.js';
import { engineDetailOf } from '../contract/action-failure.js';
import { coveringOverlay, knownContainers, nameObstruction } from './obstruction.js';
import { ReplayStop } from './replay-stop.js';

/** A screen as the replay reads it. */
export interface Screen {
  tree: ScreenNode;
  url: string;
}

/** A target re-found, or the stop that says why not. */
export type FoundTarget = { kind: 'found'; ref: NodeRef } | { kind: 'stop'; stop: ReplayStop };

function formatDuration(milliseconds: number): string {
  return milliseconds >= 1000 ? `${Number((milliseconds / 1000).toFixed(1))} s` : `${milliseconds} ms`;
}

/**
 * True when a screen read with `read` already reads what `wanted` asks for in full: it read
 * everything, or each wanted word holds one it read (a node holding the longer word holds the
 * shorter one, so it was read).
 */
function covers(read: ReadInFull | undefined, wanted: ReadInFull): boolean {
  if (read?.unbounded === true) return true;
  if (wanted.unbounded === true) return false;
  const asked = read?.include ?? [];
  return (wanted.include ?? []).every((word) => asked.some((part) => word.toLowerCase().includes(part.toLowerCase())));
}

/** A stopped replay wait rejects with the signal's own reason (the step's stop error). */
const passReason = (reason: unknown): unknown => reason;

/** What an observation must read in full: the nodes holding these words, or all of them; `hold`: on the screens after actions too. */
export type ReadInFull = Pick<ServiceObserveOptions, 'include' | 'unbounded' | 'hold'>;

/**
 * What to read in full so that every node that could be taken for one of `sources` is on the
 * screen: their words ({@link targetNeedles}), or everything when one has none to ask for.
 */
export function readInFull(sources: readonly NeedleSource[]): ReadInFull {
  const include: string[] = [];
  for (const source of sources) {
    const needles = targetNeedles(source);
    if (needles === undefined) return { unbounded: true };
    include.push(...needles);
  }
  return { include: [...new Set(include)] };
}

/** True when the engine left nodes of this tree unread (it holds a placeholder). */
function partialTree(root: ScreenNode): boolean {
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.role === OMITTED_ROLE && node.omitted !== undefined) return true;
    for (const child of node.children) stack.push(child);
  }
  return false;
}

/**
 * What a replay holds for reading in full on every screen of its step: the words of every control
 * it may match (targets, destinations, dismissals' containers, what the end check counts) that
 * have words. One engine read then serves every look; a control without words still reads all.
 */
export function heldReading(sources: readonly NeedleSource[]): ReadInFull {
  const include = new Set<string>();
  for (const source of sources) for (const needle of targetNeedles(source) ?? []) include.add(needle);
  return { include: [...include], hold: true };
}

/** The replay's view of the live screen. */
export class ReplayScreen {
  current!: Screen;
  readonly #indexes = new WeakMap<ScreenNode, TreeIndex>();
  readonly #partial = new WeakMap<ScreenNode, boolean>();
  #known: Set<string> | undefined;
  /** What the current screen was read with in full, when anything. */
  #reading: ReadInFull | undefined;

  constructor(
    private readonly options: {
      entry: ActEntry;
      observe: (options?: ReadInFull) => Promise<Observation>;
      uniqueValues: Readonly<Record<string, string>>;
      waitMs: number;
      lookMs: number;
      pollMs: number;
      signal?: AbortSignal | undefined;
      /** Words read in full on every screen of the step ({@link heldReading}), the actions' screens too. */
      held?: ReadInFull | undefined;
      /** An audit's replay: a target wait also ends once the screen held still `quietMs` with no request in flight (see `ReplayStepOptions.stopWhenStillMs`). */
      still?: { quietMs: number; holds: (quietMs: number, maxMs: number) => Promise<boolean | undefined> } | undefined;
    },
  ) {}

  /**
   * Observe the screen afresh, reading the held words in full; with `reading`, also those nodes
   * (or every node) even where the engine would leave nodes out.
   */
  async refresh(reading?: ReadInFull): Promise<Screen> {
    const asked = this.#withHeld(reading);
    const observation = await (asked === undefined ? this.options.observe() : this.options.observe(asked));
    if (observation.tree === undefined) throw new E2EError('INVALID_STATE', 'replayStep needs observations with a tree (observe({ tree: true }))');
    this.current = { tree: observation.tree, url: observation.url };
    this.#reading = asked;
    return this.current;
  }

  /** `reading` with the held words added. */
  #withHeld(reading: ReadInFull | undefined): ReadInFull | undefined {
    const held = this.options.held;
    if (held === undefined) return reading;
    if (reading === undefined) return held;
    const include = [...new Set([...(held.include ?? []), ...(reading.include ?? [])])];
    return reading.unbounded === true ? { include, hold: true, unbounded: true } : { include, hold: true };
  }

  /** True when the engine left nodes of the current screen unread. */
  partial(): boolean {
    const tree = this.current.tree;
    let partial = this.#partial.get(tree);
    if (partial === undefined) this.#partial.set(tree, (partial = partialTree(tree)));
    return partial;
  }

  /**
   * Make sure every node that could be taken for `sources` is on the current screen: when the
   * engine left nodes out, observe again reading theirs in full (matching then sees what a
   * whole screen would show). Returns what to keep reading on later looks.
   */
  async readFully(sources: readonly NeedleSource[]): Promise<ReadInFull | undefined> {
    if (!this.partial()) return undefined;
    const reading = readInFull(sources);
    if (!covers(this.#reading, reading)) await this.refresh(reading);
    return reading;
  }

  /** The screen an action left (read with the held words), observed again when the action's answer has no tree. */
  async after(observation: Observation): Promise<void> {
    if (observation.tree === undefined) {
      await this.refresh();
      return;
    }
    this.current = { tree: observation.tree, url: observation.url };
    this.#reading = this.options.held;
  }

  indexOf(tree: ScreenNode): TreeIndex {
    let index = this.#indexes.get(tree);
    if (index === undefined) this.#indexes.set(tree, (index = indexTree(tree)));
    return index;
  }

  async #pause(reading?: ReadInFull): Promise<void> {
    await sleep(this.options.pollMs, this.options.signal, passReason);
    await this.refresh(reading);
  }

  /**
   * Until the next look at a wanted target: true when the screen, unchanged since the latest
   * look, held still for the audit's still time (waiting on changes nothing); else it looks again.
   */
  async #awaitChange(reading: ReadInFull | undefined, deadline: number): Promise<boolean> {
    const held = await this.options.still?.holds(this.options.still.quietMs, Math.max(0, deadline - Date.now()));
    if (held === true) return true;
    if (held === undefined) await this.#pause(reading);
    else await this.refresh(reading);
    return false;
  }

  /**
   * Re-find a target, waiting up to the target wait while it is missing or, for an action that
   * needs an enabled control, disabled (the engine would otherwise wait its full action timeout).
   */
  async find(target: TargetDescription, needsEnabled: boolean): Promise<FoundTarget> {
    const { uniqueValues, waitMs } = this.options;
    const wanted = mapTextFields(target, (text) => fillUniquePlaceholders(text, uniqueValues));
    const deadline = Date.now() + waitMs;
    let reading: ReadInFull | undefined;
    let still = false;
    for (;;) {
      reading = (await this.readFully([wanted])) ?? reading;
      const index = this.indexOf(this.current.tree);
      const match = matchTarget(wanted, index);
      if (match.kind === 'ambiguous') return { kind: 'stop', stop: new ReplayStop('target-ambiguous', match.detail) };
      const disabled = match.kind === 'found' && needsEnabled && index.byId.get(match.id)?.node.states.includes('disabled') === true;
      if (match.kind === 'found' && !disabled) return { kind: 'found', ref: { id: match.id } };
      if (still || Date.now() >= deadline) {
        const within = still ? `while the screen held still for ${formatDuration(this.options.still!.quietMs)}` : `for ${formatDuration(waitMs)}`;
        if (disabled) return { kind: 'stop', stop: new ReplayStop('action-failed', `stayed disabled ${within}`) };
        return { kind: 'stop', stop: new ReplayStop('target-not-found', `not found ${still ? within : `within ${formatDuration(waitMs)}`} (${match.kind === 'not-found' ? match.detail : ''})`) };
      }
      still = await this.#awaitChange(reading, deadline);
    }
  }

  /** Re-find every recorded target of an action (the target, then the destination), or the first stop. */
  async findAll(action: RecordedAction): Promise<{ kind: 'found'; refs: NodeRef[] } | { kind: 'stop'; stop: ReplayStop }> {
    const row = verbRow(action.verb);
    const fields = action as { target?: TargetDescription; destination?: TargetDescription };
    const targets = [fields.target, fields.destination].filter((description): description is TargetDescription => description !== undefined);
    const refs: NodeRef[] = [];
    for (const [position, target] of targets.entries()) {
      const found = await this.find(target, position === 0 && row?.needsEnabled === true);
      if (found.kind === 'stop') return found;
      refs.push(found.ref);
    }
    return { kind: 'found', refs };
  }

  /** Whether a dismissal's container or target shows within the dismissal look. */
  async dismissalShows(container: ContainerInfo, target: TargetDescription): Promise<boolean> {
    const { uniqueValues, lookMs } = this.options;
    const wantedContainer = { role: container.role, name: fillUniquePlaceholders(container.name, uniqueValues) };
    const wantedTarget = mapTextFields(target, (text) => fillUniquePlaceholders(text, uniqueValues));
    const deadline = Date.now() + lookMs;
    let reading: ReadInFull | undefined;
    for (;;) {
      reading = (await this.readFully([wantedTarget, { name: wantedContainer.name }])) ?? reading;
      const index = this.indexOf(this.current.tree);
      if (containerOnScreen(index, wantedContainer) || matchTarget(wantedTarget, index).kind !== 'not-found') return true;
      if (Date.now() >= deadline) return false;
      await this.#pause(reading);
    }
  }

  #knownContainers(): Set<string> {
    return (this.#known ??= knownContainers(this.options.entry));
  }

  /** The stop before a pointer action when a dialog the recording never had covers its target. */
  covered(action: RecordedAction, target: NodeRef | undefined): ReplayStop | undefined {
    if (target === undefined || verbRow(action.verb)?.pointer !== true) return undefined;
    const overlay = coveringOverlay(this.indexOf(this.current.tree), target.id, this.#knownContainers());
    return overlay === undefined ? undefined : new ReplayStop('action-failed', `${overlay} is in the way`);
  }

  /** After the engine said (as a typed detail of `error`) that another element takes the pointer: a stop that names it. */
  async obstructed(error: unknown, target: NodeRef | undefined): Promise<ReplayStop | undefined> {
    const detail = engineDetailOf(error);
    if (detail?.kind !== 'obstructed' || target === undefined) return undefined;
    const before = this.current;
    const current = await this.refresh();
    const index = this.indexOf((this.indexOf(current.tree).byId.has(target.id) ? current : before).tree);
    // The engine gives up before sending any input, so nothing reached the app.
    return new ReplayStop('action-failed', `${nameObstruction(index, target.id, detail.by, this.#knownContainers())} is in the way`);
  }
}

/**
 * The live screen a replay acts on: observed with its tree, each tree indexed once however many
 * looks it gets (find, dismissal, covering dialog), and the bounded waits for a target.
 */
import type { ActEntry, RecordedAction, TargetDescription } from '../cache-format/entry.js';
import type { NodeRef, ScreenNode } from '../contract/engine.js';
import type { Observation } from '../contract/step-contract.js';
import { verbRow } from '../contract/verbs.js';
import { sleep } from '../contract/deadline.js';
import { E2EError } from '../errors/index.js';
import { containerOnScreen } from '../semantics/dismissal.js';
import { indexTree, type ContainerInfo, type TreeIndex } from '../semantics/tree-index.js';
import { fillUniquePlaceholders, mapTextFields } from '../semantics/unique-placeholders.js';
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

/** A stopped replay wait rejects with the signal's own reason (the step's stop error). */
const passReason = (reason: unknown): unknown => reason;

/** The replay's view of the live screen. */
export class ReplayScreen {
  current!: Screen;
  readonly #indexes = new WeakMap<ScreenNode, TreeIndex>();
  #known: Set<string> | undefined;

  constructor(
    private readonly options: {
      entry: ActEntry;
      observe: () => Promise<Observation>;
      uniqueValues: Readonly<Record<string, string>>;
      waitMs: number;
      lookMs: number;
      pollMs: number;
      signal?: AbortSignal | undefined;
    },
  ) {}

  /** Observe the screen afresh. */
  async refresh(): Promise<Screen> {
    const observation = await this.options.observe();
    if (observation.tree === undefined) throw new E2EError('INVALID_STATE', 'replayStep needs observations with a tree (observe({ tree: true }))');
    this.current = { tree: observation.tree, url: observation.url };
    return this.current;
  }

  /** The screen an action left, observed again when the action's answer has no tree. */
  async after(observation: Observation): Promise<void> {
    if (observation.tree === undefined) await this.refresh();
    else this.current = { tree: observation.tree, url: observation.url };
  }

  indexOf(tree: ScreenNode): TreeIndex {
    let index = this.#indexes.get(tree);
    if (index === undefined) this.#indexes.set(tree, (index = indexTree(tree)));
    return index;
  }

  async #pause(): Promise<void> {
    await sleep(this.options.pollMs, this.options.signal, passReason);
    await this.refresh();
  }

  /**
   * Re-find a target, waiting up to the target wait while it is missing or, for an action that
   * needs an enabled control, disabled (the engine would otherwise wait its full action timeout).
   */
  async find(target: TargetDescription, needsEnabled: boolean): Promise<FoundTarget> {
    const { uniqueValues, waitMs } = this.options;
    const wanted = mapTextFields(target, (text) => fillUniquePlaceholders(text, uniqueValues));
    const deadline = Date.now() + waitMs;
    for (;;) {
      const index = this.indexOf(this.current.tree);
      const match = matchTarget(wanted, index);
      if (match.kind === 'ambiguous') return { kind: 'stop', stop: new ReplayStop('target-ambiguous', match.detail) };
      const disabled = match.kind === 'found' && needsEnabled && index.byId.get(match.id)?.node.states.includes('disabled') === true;
      if (match.kind === 'found' && !disabled) return { kind: 'found', ref: { id: match.id } };
      if (Date.now() >= deadline) {
        if (disabled) return { kind: 'stop', stop: new ReplayStop('action-failed', `stayed disabled for ${formatDuration(waitMs)}`) };
        return { kind: 'stop', stop: new ReplayStop('target-not-found', `not found within ${formatDuration(waitMs)} (${match.kind === 'not-found' ? match.detail : ''})`) };
      }
      await this.#pause();
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
    for (;;) {
      const index = this.indexOf(this.current.tree);
      if (containerOnScreen(index, wantedContainer) || matchTarget(wantedTarget, index).kind !== 'not-found') return true;
      if (Date.now() >= deadline) return false;
      await this.#pause();
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

/**
 * Observations as the runner hands them out: the engine's tree with every configured secret
 * redacted, rendered as the text screen of DESIGN §4, numbered by revision; settling after
 * an action (≤ 2 s); and the change report between two screens.
 */
import { E2EError, isE2EError } from '../errors/index.js';
import { SETTLE_TIMEOUT_MS } from './budgets.js';
import type { ChangeMark, EngineInstance, EngineObservation, ScreenNode } from '../contract/engine.js';
import { diffScreens, renderScreen, screenPathOf, shapeOf } from './screen-text.js';
import { redactDeep, type SecretVault } from './secrets.js';
import { settleAfterAction, type SettleMode } from './settle.js';
import type { Observation } from '../contract/step-contract.js';
import type { RunnerObservation } from '../contract/step-seams.js';

/** Observes the screen for one attempt. */
export interface ScreenObserver {
  /** A fresh, redacted observation with the next revision. */
  capture(signal?: AbortSignal): Promise<RunnerObservation>;
  /**
   * Wait (at most `maxMs`, default 2 s) for the screen to leave the shape of `before` (and, in
   * `full` mode, the default, to hold still), then return it.
   */
  settle(before: RunnerObservation, signal: AbortSignal, options?: { mode?: SettleMode; maxMs?: number }): Promise<RunnerObservation>;
  /** The screen once nothing changed for {@link END_QUIET_MS} (at most {@link END_SETTLE_MS}), starting from `latest`. */
  quiet(latest: RunnerObservation, signal: AbortSignal): Promise<RunnerObservation>;
  /** What changed from `before` to `after`, as the caller should read it. */
  changes(before: RunnerObservation | undefined, after: RunnerObservation): string;
}

/** The executor's view of an observation: the tree only when asked for. */
export function presentObservation(observation: RunnerObservation, options: { tree?: boolean | undefined }): Observation {
  const presented: Observation = {
    text: observation.text,
    revision: observation.revision,
    url: observation.url,
    path: observation.path,
    nodeCount: observation.nodeCount,
  };
  if (options.tree === true) presented.tree = observation.tree;
  return presented;
}

/** How long the screen must hold still before a step's end screen is taken. */
export const END_QUIET_MS = 300;
/** Longest wait for a step's end screen. */
export const END_SETTLE_MS = 2_000;

/** Create the observer of one attempt. */
export function createScreenObserver(engine: EngineInstance, vault: SecretVault): ScreenObserver {
  let revision = 0;
  const shapes = new WeakMap<RunnerObservation, string>();
  // Engines that wait for change in the page mark their observations; settling starts from the mark.
  const marks = new WeakMap<RunnerObservation, ChangeMark>();
  const waitForChange = engine.waitForChange?.bind(engine);
  const redact = (text: string) => vault.redact(text);

  function failure(error: unknown): E2EError {
    if (isE2EError(error)) return new E2EError(error.code, redact(error.message));
    return new E2EError('ENGINE_FAILURE', redact(`Observing the screen failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  function build(observation: EngineObservation): RunnerObservation {
    revision += 1;
    const tree: ScreenNode = redactDeep(observation.root, redact);
    const url = redact(observation.url);
    const result: RunnerObservation = {
      text: renderScreen({ root: tree, url }, { revision }),
      revision,
      url,
      path: screenPathOf(url),
      nodeCount: observation.nodeCount,
      tree,
    };
    shapes.set(result, shapeOf(observation));
    if (observation.mark !== undefined) marks.set(result, observation.mark);
    return result;
  }

  return {
    async capture(signal) {
      try {
        return build(await engine.observe(signal === undefined ? {} : { signal }));
      } catch (error) {
        throw failure(error);
      }
    },
    async settle(before, signal, { mode = 'full', maxMs = SETTLE_TIMEOUT_MS } = {}) {
      const beforeShape = shapes.get(before) ?? shapeOf({ root: before.tree, url: before.url });
      try {
        const changes = waitForChange === undefined ? {} : { waitForChange, beforeMark: marks.get(before) };
        return build(await settleAfterAction((options) => engine.observe(options), beforeShape, { maxMs, signal, mode, ...changes }));
      } catch (error) {
        throw failure(error);
      }
    },
    async quiet(latest, signal) {
      const started = Date.now();
      let current = latest;
      try {
        // Each round waits for the page to hold still; a change since `current` means another look.
        while (Date.now() - started < END_SETTLE_MS) {
          const remaining = END_SETTLE_MS - (Date.now() - started);
          const mark = marks.get(current);
          if (waitForChange !== undefined && mark !== undefined) {
            const waited = await waitForChange(mark, { until: 'quiet', quietMs: END_QUIET_MS, maxMs: remaining, signal });
            if (!waited.changed) return current;
            current = build(await engine.observe({ signal }));
            continue;
          }
          await new Promise<void>((resolve) => setTimeout(resolve, Math.min(END_QUIET_MS, remaining)));
          const next = build(await engine.observe({ signal }));
          if (shapes.get(next) === (shapes.get(current) ?? shapeOf({ root: current.tree, url: current.url }))) return next;
          current = next;
        }
        return current;
      } catch (error) {
        throw failure(error);
      }
    },
    changes(before, after) {
      if (before === undefined) return after.text;
      const diff = diffScreens(before.text, after.text);
      if (diff.mostlyChanged) return after.text;
      const header = `Screen (revision ${after.revision}, path ${after.path}, ${after.nodeCount} nodes)`;
      if (diff.unchanged) return `${header}: no change since revision ${before.revision}.`;
      return `${header}, changes since revision ${before.revision}:\n${diff.text}`;
    },
  };
}

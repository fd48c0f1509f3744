/**
 * Observations as the runner hands them out: the engine's tree with every configured secret
 * redacted, rendered as the text screen of DESIGN §4, numbered by revision; settling after
 * an action (≤ 2 s); and the change report between two screens.
 */
import { E2EError, cleanedCause, isE2EError, messageOf } from '../errors/index.js';
import { SETTLE_TIMEOUT_MS } from './budgets.js';
import { emptyScreenRoot, type ChangeMark, type EngineInstance, type EngineObservation, type ScreenNode } from '../contract/engine.js';
import { diffScreens, renderScreen, screenPathOf, shapeOf } from './screen-text.js';
import { redactDeep } from '../secrets/redactor.js';
import type { SecretVault } from '../secrets/vault.js';
import { settleAfterAction, type SettleMode } from './settle.js';
import type { ActionOutcome, Observation } from '../contract/step-contract.js';
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
  /**
   * The first screen of a step: once the document shows interactive content, held still for
   * {@link MOUNT_QUIET_MS} and has no request in flight (at most {@link MOUNT_WAIT_MS}), so a
   * client-rendered app has mounted. Engines without a change wait only wait for interactive
   * content.
   */
  mounted(signal: AbortSignal): Promise<RunnerObservation>;
  /** The screen once nothing changed for {@link END_QUIET_MS} (at most {@link END_SETTLE_MS}), starting from `latest`. */
  quiet(latest: RunnerObservation, signal: AbortSignal): Promise<RunnerObservation>;
  /** What changed from `before` to `after`, as the caller should read it. */
  changes(before: RunnerObservation | undefined, after: RunnerObservation): string;
}

/** The executor's view of an observation: the tree only when asked for. */
export function presentObservation(observation: RunnerObservation, options: { tree?: boolean | undefined }): Observation {
  const presented: Observation = withLazyText(
    { revision: observation.revision, url: observation.url, path: observation.path, nodeCount: observation.nodeCount },
    () => observation.text,
  );
  if (observation.treeUnavailable === true) presented.treeUnavailable = true;
  else if (options.tree === true) presented.tree = observation.tree;
  if (observation.keyboardVisible !== undefined) presented.keyboardVisible = observation.keyboardVisible;
  return presented;
}

/**
 * `fields` with a `text` rendered on first read and kept (an ordinary enumerable property from
 * then on): a replay reads the tree of every screen but the text of almost none, and rendering
 * a large screen costs more than indexing it.
 */
function withLazyText<T extends object>(fields: T, render: () => string): T & { text: string } {
  return withLazy('text', render, fields);
}

/**
 * `fields` with `key` computed on first read and kept, placed first (where such keys always
 * stood, so printed objects keep their key order); assigning it replaces the value.
 */
function withLazy<K extends string, T extends object>(key: K, compute: () => string, fields: T): T & Record<K, string> {
  let value: string | undefined;
  const target = Object.defineProperty({}, key, {
    enumerable: true,
    configurable: true,
    get: () => (value ??= compute()),
    set: (next: string) => {
      value = next;
    },
  });
  return Object.assign(target, fields) as T & Record<K, string>;
}

/**
 * An action's outcome whose change report is diffed on first read: a replay reads the new
 * tree after every action but the report of none.
 */
export function actionOutcome(changes: () => string, observation: Observation): ActionOutcome {
  return withLazy('changes', changes, { observation });
}

/** The text of a screen whose tree could not be read: what happened and what still works. */
export function unavailableScreenText(revision: number, path: string, reason: string): string {
  return (
    `Screen (revision ${revision}, ${path === '' ? '' : `path ${path}, `}no tree): the page could not be read as text (${reason}). ` +
    'Node ids from earlier screens are no longer valid, and a control missing here may still be on the page. ' +
    'Look at a screenshot and act on points, observe again, or conclude the step.'
  );
}

/** How long the screen must hold still before a step's end screen is taken. */
export const END_QUIET_MS = 300;
/** Longest wait for a step's end screen. */
export const END_SETTLE_MS = 2_000;

/** Longest wait for a step's first screen (a client-rendered app mounting). */
export const MOUNT_WAIT_MS = 2_000;
/** How long the document must hold still before a step's first screen is taken. */
export const MOUNT_QUIET_MS = 150;
/** Roles that make a screen worth acting on: until one shows up, the app has not mounted. */
const INTERACTIVE_ROLES = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'combobox',
  'spinbutton',
  'checkbox',
  'radio',
  'switch',
  'slider',
  'listbox',
  'option',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'treeitem',
]);

/** True when the tree holds a control a user could act on. */
function hasInteractiveContent(root: ScreenNode): boolean {
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (INTERACTIVE_ROLES.has(node.role)) return true;
    // One push per child: spreading a page-sized list of children overflows the call stack.
    for (const child of node.children) stack.push(child);
  }
  return false;
}

/** Create the observer of one attempt. */
export function createScreenObserver(engine: EngineInstance, vault: SecretVault): ScreenObserver {
  let revision = 0;
  const shapes = new WeakMap<RunnerObservation, string>();
  // Engines that wait for change in the page mark their observations; settling starts from the mark.
  const marks = new WeakMap<RunnerObservation, ChangeMark>();
  const waitForChange = engine.waitForChange?.bind(engine);
  const redact = (text: string) => vault.redact(text);
  const noSecrets = vault.names().length === 0;

  function failure(error: unknown): E2EError {
    const cause = { cause: cleanedCause(error, redact) };
    if (isE2EError(error)) return new E2EError(error.code, redact(error.message), cause);
    return new E2EError('ENGINE_FAILURE', redact(`Observing the screen failed: ${messageOf(error)}`), cause);
  }

  function build(observation: EngineObservation): RunnerObservation {
    revision += 1;
    const url = redact(observation.url);
    const unavailable = observation.treeUnavailable === true;
    // The engine clips long texts without knowing the secrets; no piece of one may survive the clip.
    // With no secret configured, redaction is the identity: the engine's fresh tree is kept as it is.
    const tree: ScreenNode = unavailable ? emptyScreenRoot() : noSecrets ? observation.root : redactDeep(observation.root, redact);
    const shown = revision;
    const fields = { revision, url, path: screenPathOf(url), nodeCount: unavailable ? 0 : observation.nodeCount, tree };
    const result: RunnerObservation = unavailable
      ? { ...fields, text: unavailableScreenText(revision, fields.path, redact(observation.unavailableReason ?? 'the capture failed')) }
      : withLazyText(fields, () => renderScreen({ root: tree, url }, { revision: shown }));
    if (unavailable) result.treeUnavailable = true;
    if (observation.keyboardVisible !== undefined) result.keyboardVisible = observation.keyboardVisible;
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
        const screen = { root: before.tree, url: before.url };
        return build(await settleAfterAction((options) => engine.observe(options), beforeShape, { maxMs, signal, mode, before: screen, ...changes }));
      } catch (error) {
        throw failure(error);
      }
    },
    async mounted(signal) {
      const started = Date.now();
      const remaining = (): number => MOUNT_WAIT_MS - (Date.now() - started);
      try {
        let current = await engine.observe({ signal });
        // Only the screen handed out is built: the waiting costs no revisions.
        while (remaining() > 0) {
          const ready = hasInteractiveContent(current.root);
          if (waitForChange === undefined || current.mark === undefined) {
            if (ready) break;
            await new Promise<void>((resolve) => setTimeout(resolve, Math.min(MOUNT_QUIET_MS, Math.max(0, remaining()))));
          } else {
            const waited = ready
              ? await waitForChange(current.mark, { until: 'quiet', quietMs: MOUNT_QUIET_MS, requests: 'all', maxMs: remaining(), signal })
              : await waitForChange(current.mark, { until: 'change', maxMs: remaining(), signal });
            if (ready && !waited.changed) break;
          }
          current = await engine.observe({ signal });
        }
        return build(current);
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
      // Without a tree on either side there is nothing to compare line by line.
      if (before === undefined || before.treeUnavailable === true || after.treeUnavailable === true) return after.text;
      const diff = diffScreens(before.text, after.text);
      if (diff.mostlyChanged) return after.text;
      // Short, since every later request repeats it; the path only when it changed.
      const header = `Screen revision ${after.revision}${after.path === before.path ? '' : ` (path ${after.path})`}`;
      // "revision N" throughout: the loop guards mask exactly that to compare results.
      if (diff.unchanged) return `${header}: no change since revision ${before.revision}.`;
      return `${header}, changes since revision ${before.revision}:\n${diff.text}`;
    },
  };
}

/**
 * Observations as the runner hands them out: the engine's tree with every configured secret
 * redacted, rendered as the text screen of DESIGN §4, numbered by revision; settling after
 * an action (≤ 2 s); and the change report between two screens.
 */
import { E2EError, cleanedCause, isE2EError, messageOf } from '../errors/index.js';
import { SETTLE_TIMEOUT_MS } from './budgets.js';
import { emptyScreenRoot, OMITTED_ROLE, type ChangeMark, type EngineInstance, type EngineObservation, type ObserveRequest, type ScreenNode } from '../contract/engine.js';
import { DEFAULT_SCREEN_BUDGET, renderBoundedScreen, type BoundedScreen, type ScreenBudget } from './screen-budget.js';
import { findKey, foundOn, MAX_FIND_CHARS } from './screen-find.js';
import { diffScreens, screenPathOf, shapeOf, type DiffContext } from './screen-text.js';
import { redactDeep } from '../secrets/redactor.js';
import type { SecretVault } from '../secrets/vault.js';
import { settleAfterAction, type SettleMode } from './settle.js';
import type { ActionOutcome, Observation } from '../contract/step-contract.js';
import type { RunnerObservation } from '../contract/step-seams.js';
import { INTERACTIVE_ROLES } from '../contract/roles.js';

/** What a capture may ask for beyond the screen as it is. */
export interface CaptureRequest {
  /** `find`: nodes whose words contain this text are read, shown, listed in `found` and pinned. */
  find?: string | undefined;
  /** Nodes whose words contain one of these are read in full, even inside runs the engine would leave out. */
  include?: readonly string[] | undefined;
  /** Ask the engine to read every node (nothing left out), when no words can narrow what must be read. */
  unbounded?: boolean | undefined;
}

/** Most nodes kept pinned: what `find` found last and what was acted on. */
const MAX_PINNED = 30;
/** Most of a find's matches pinned for the later screens of a step. */
const PINNED_PER_FIND = 20;

/** Observes the screen for one attempt. */
export interface ScreenObserver {
  /** How much of a screen the text shows. */
  readonly budget: ScreenBudget;
  /** A fresh, redacted observation with the next revision. */
  capture(signal?: AbortSignal, request?: CaptureRequest): Promise<RunnerObservation>;
  /** Keep showing these nodes on later screens (the engine reads them, the text shows them) while they live. */
  pin(ids: readonly string[]): void;
  /**
   * Read the nodes holding these words in full on every later screen, those taken while acting
   * and settling too, until the next `hold` (each step starts with none): a replay asks once for
   * the words of every control it will match, and the screens its actions leave read them.
   */
  hold(words: readonly string[]): void;
  /** True when the engine left nodes of this screen unread (its tree holds placeholders). */
  partial(observation: RunnerObservation): boolean;
  /**
   * True when every node holding one of `words` is on this screen as a whole read would show
   * it: nothing was left out, or the engine was asked to read those words (or a part of each) in full.
   */
  readsInFull(observation: RunnerObservation, words: readonly string[]): boolean;
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
  /**
   * True once the screen, unchanged since `latest`, has held still for `quietMs` with no request
   * in flight; false as soon as it changed, or when `maxMs` ran out first; undefined at once
   * when the engine has no change wait (or `latest` no mark).
   */
  still(latest: RunnerObservation, quietMs: number, maxMs: number, signal: AbortSignal): Promise<boolean | undefined>;
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
  Object.defineProperty(presented, 'leftOut', { enumerable: true, configurable: true, get: () => observation.leftOut ?? 0 });
  if (observation.found !== undefined) presented.found = { ...observation.found, ids: [...observation.found.ids] };
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

/** What an engine observation was asked to read in full: the words (as {@link findKey} gives them), or everything. */
interface ReadRequest {
  text: readonly string[];
  unbounded: boolean;
}

/** Every id of a tree, and the ids of the nodes holding a placeholder of the engine. */
interface TreeIds {
  ids: Set<string>;
  omitting: Set<string>;
}

function treeIdsOf(root: ScreenNode): TreeIds {
  const ids = new Set<string>();
  const omitting = new Set<string>();
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    ids.add(node.id);
    for (const child of node.children) {
      if (child.role === OMITTED_ROLE && child.omitted !== undefined) omitting.add(node.id);
      stack.push(child);
    }
  }
  return { ids, omitting };
}

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

/** A settle's likely screen, made ready while the engine waited for quiet. */
interface PreparedScreen {
  tree: ScreenNode;
  /** The revision its text was rendered for, and the pinned ids it kept. */
  revision: number;
  pinned: string;
  screen: BoundedScreen;
}

/** Options of {@link createScreenObserver}. */
export interface ScreenObserverOptions {
  /** How much of a screen the text shows; default {@link DEFAULT_SCREEN_BUDGET}. */
  budget?: ScreenBudget | undefined;
  /** Told, once per screen whose text is rendered (read by an executor, a transcript, a message), how many nodes that text left out, when it left any out. */
  onLeftOut?: ((leftOut: number) => void) | undefined;
}

/** Create the observer of one attempt. */
export function createScreenObserver(engine: EngineInstance, vault: SecretVault, options: ScreenObserverOptions = {}): ScreenObserver {
  const budget = options.budget ?? DEFAULT_SCREEN_BUDGET;
  let revision = 0;
  let pinned: string[] = [];
  let held: string[] = [];
  const rendered = new WeakMap<RunnerObservation, BoundedScreen>();
  const treeIds = new WeakMap<RunnerObservation, TreeIds>();
  const idsOf = (observation: RunnerObservation): TreeIds => {
    let ids = treeIds.get(observation);
    if (ids === undefined) treeIds.set(observation, (ids = treeIdsOf(observation.tree)));
    return ids;
  };
  /** What each engine observation was asked to read in full, then each screen built from one. */
  const requested = new WeakMap<EngineObservation, ReadRequest>();
  const readOf = new WeakMap<RunnerObservation, ReadRequest>();
  /** The engine asked for one screen: bounded, with what is pinned, held or looked for read in full. */
  const observeEngine = async (signal: AbortSignal | undefined, looked: readonly string[] = [], unbounded = false): Promise<EngineObservation> => {
    const request: ObserveRequest = unbounded ? {} : { bounds: { maxRun: budget.maxNodes } };
    if (signal !== undefined) request.signal = signal;
    const text = held.length === 0 ? [...looked] : [...new Set([...held, ...looked])];
    if (pinned.length > 0 || text.length > 0) request.include = { ids: [...pinned], text };
    const observation = await engine.observe(request);
    requested.set(observation, { text, unbounded });
    return observation;
  };
  const shapes = new WeakMap<RunnerObservation, string>();
  /** Shapes of engine observations a settle already computed, for the screen built from one. */
  const engineShapes = new WeakMap<EngineObservation, string>();
  const engineShape = (observation: EngineObservation): string => {
    let shape = engineShapes.get(observation);
    if (shape === undefined) engineShapes.set(observation, (shape = shapeOf(observation)));
    return shape;
  };
  /** A settle's likely result, made ready while the engine waited for quiet (see `prepare`). */
  const prepared = new WeakMap<EngineObservation, PreparedScreen>();
  /** The change report prepared with it, by the screen it reports against. */
  const preparedChanges = new WeakMap<RunnerObservation, { screen: BoundedScreen; diff: ReturnType<typeof diffScreens> }>();
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

  function pin(ids: readonly string[]): void {
    pinned = [...pinned.filter((id) => !ids.includes(id)), ...ids].slice(-MAX_PINNED);
  }

  function build(observation: EngineObservation, find?: string): RunnerObservation {
    revision += 1;
    const url = redact(observation.url);
    const unavailable = observation.treeUnavailable === true;
    // The engine clips long texts without knowing the secrets; no piece of one may survive the clip.
    // With no secret configured, redaction is the identity: the engine's fresh tree is kept as it is.
    const ready = prepared.get(observation);
    const tree: ScreenNode = unavailable ? emptyScreenRoot() : (ready?.tree ?? (noSecrets ? observation.root : redactDeep(observation.root, redact)));
    const shown = revision;
    const fields = { revision, url, path: screenPathOf(url), nodeCount: unavailable ? 0 : observation.nodeCount, tree };
    const found = find === undefined || unavailable ? undefined : foundOn(tree, find, observation.includePartial === true);
    if (found !== undefined) pin(found.ids.slice(0, PINNED_PER_FIND));
    // What the text must show is fixed now; it is rendered on first read (a replay reads trees, not texts).
    const keep = new Set(pinned);
    const viewport = observation.viewport;
    // Rendered while the engine waited, for this very revision and these pins: the same text.
    const early = ready !== undefined && find === undefined && ready.revision === shown && ready.pinned === pinned.join('\n') ? ready.screen : undefined;
    let result: RunnerObservation;
    if (unavailable) {
      result = { ...fields, text: unavailableScreenText(revision, fields.path, redact(observation.unavailableReason ?? 'the capture failed')), leftOut: 0, treeUnavailable: true };
    } else {
      const render = (): BoundedScreen => {
        let screen = rendered.get(result);
        if (screen === undefined) {
          rendered.set(result, (screen = early ?? renderBoundedScreen({ root: tree, url }, { revision: shown, budget, keep, viewport })));
          if (screen.leftOut > 0) options.onLeftOut?.(screen.leftOut);
        }
        return screen;
      };
      result = withLazyText(fields, () => render().text);
      Object.defineProperty(result, 'leftOut', { enumerable: true, configurable: true, get: () => render().leftOut });
    }
    if (found !== undefined) result.found = found;
    const read = requested.get(observation);
    if (read !== undefined) readOf.set(result, read);
    if (observation.keyboardVisible !== undefined) result.keyboardVisible = observation.keyboardVisible;
    shapes.set(result, engineShapes.get(observation) ?? shapeOf(observation));
    if (observation.mark !== undefined) marks.set(result, observation.mark);
    return result;
  }

  /** What a diff needs to tell a node now left out, or never read, from a removed one. */
  function diffContext(before: RunnerObservation, after: RunnerObservation): DiffContext | undefined {
    const complete = (observation: RunnerObservation): boolean => (observation.leftOut ?? 0) === 0;
    if (complete(before) && complete(after)) return undefined;
    const previous = idsOf(before);
    const next = idsOf(after);
    return { previousIds: previous.ids, nextIds: next.ids, nextOmitting: next.omitting };
  }

  const partial = (observation: RunnerObservation): boolean => idsOf(observation).omitting.size > 0;

  /** Make ready the tree and the text `observation` is built into next (the next revision, with the pins of now). */
  function prepareScreen(observation: EngineObservation): PreparedScreen | undefined {
    if (observation.treeUnavailable === true) return undefined;
    const tree = noSecrets ? observation.root : redactDeep(observation.root, redact);
    const next = revision + 1;
    const screen = renderBoundedScreen({ root: tree, url: redact(observation.url) }, { revision: next, budget, keep: new Set(pinned), viewport: observation.viewport });
    const ready = { tree, revision: next, pinned: pinned.join('\n'), screen };
    prepared.set(observation, ready);
    return ready;
  }

  /**
   * While the engine waits for the screen to hold still after an action, make ready what the
   * screen it settles on will be read as: its tree, its text (for the revision it will get) and
   * its change report against `before`. Only when `before` was read as text (an agent reads every
   * screen; a replay reads trees, and must not pay for texts it never reads).
   */
  function prepare(before: RunnerObservation, observation: EngineObservation): void {
    if (before.treeUnavailable === true || !rendered.has(before)) return;
    const ready = prepareScreen(observation);
    if (ready === undefined) return;
    const { tree, screen } = ready;
    const complete = (before.leftOut ?? 0) === 0 && screen.leftOut === 0;
    const ids = complete ? undefined : treeIdsOf(tree);
    const context = ids === undefined ? undefined : { previousIds: idsOf(before).ids, nextIds: ids.ids, nextOmitting: ids.omitting };
    preparedChanges.set(before, { screen, diff: diffScreens(before.text, screen.text, context) });
  }

  return {
    budget,
    pin,
    hold(words) {
      held = [...new Set(words.map(findKey).filter((word) => word !== ''))];
    },
    partial,
    readsInFull(observation, words) {
      if (!partial(observation)) return true;
      const read = readOf.get(observation);
      if (read === undefined) return false;
      // A node holding a word holds every part of it: a word read in full covers the longer ones containing it.
      return read.unbounded || words.every((word) => read.text.some((asked) => findKey(word).includes(asked)));
    },
    async capture(signal, request = {}) {
      const find = request.find;
      if (find !== undefined && (typeof find !== 'string' || findKey(find) === '' || find.length > MAX_FIND_CHARS)) {
        throw new E2EError('INVALID_ARGUMENT', `find takes the words to look for: a text of 1 to ${MAX_FIND_CHARS} characters.`);
      }
      const text = [...(find === undefined ? [] : [findKey(find)]), ...(request.include ?? []).map(findKey).filter((needle) => needle !== '')];
      try {
        return build(await observeEngine(signal, text, request.unbounded === true), find);
      } catch (error) {
        throw failure(error);
      }
    },
    async settle(before, signal, { mode = 'full', maxMs = SETTLE_TIMEOUT_MS } = {}) {
      const beforeShape = shapes.get(before) ?? shapeOf({ root: before.tree, url: before.url });
      try {
        const changes = waitForChange === undefined ? {} : { waitForChange, beforeMark: marks.get(before) };
        const screen = { root: before.tree, url: before.url };
        const meanwhile = (observation: EngineObservation): void => prepare(before, observation);
        return build(await settleAfterAction((options) => observeEngine(options.signal), beforeShape, { maxMs, signal, mode, before: screen, shape: engineShape, meanwhile, ...changes }));
      } catch (error) {
        throw failure(error);
      }
    },
    async mounted(signal) {
      const started = Date.now();
      const remaining = (): number => MOUNT_WAIT_MS - (Date.now() - started);
      try {
        let current = await observeEngine(signal);
        // Only the screen handed out is built: the waiting costs no revisions.
        while (remaining() > 0) {
          const ready = hasInteractiveContent(current.root);
          if (waitForChange === undefined || current.mark === undefined) {
            if (ready) break;
            await new Promise<void>((resolve) => setTimeout(resolve, Math.min(MOUNT_QUIET_MS, Math.max(0, remaining()))));
          } else if (ready) {
            // Its text, for the executor's first look, is made ready first: the quiet counts from the page's last change, so this hides inside it.
            prepareScreen(current);
            const waited = await waitForChange(current.mark, { until: 'quiet', quietMs: MOUNT_QUIET_MS, requests: 'all', maxMs: remaining(), signal });
            if (!waited.changed) break;
          } else {
            await waitForChange(current.mark, { until: 'change', maxMs: remaining(), signal });
          }
          current = await observeEngine(signal);
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
            current = build(await observeEngine(signal));
            continue;
          }
          await new Promise<void>((resolve) => setTimeout(resolve, Math.min(END_QUIET_MS, remaining)));
          const next = build(await observeEngine(signal));
          if (shapes.get(next) === (shapes.get(current) ?? shapeOf({ root: current.tree, url: current.url }))) return next;
          current = next;
        }
        return current;
      } catch (error) {
        throw failure(error);
      }
    },
    async still(latest, quietMs, maxMs, signal) {
      const mark = marks.get(latest);
      if (waitForChange === undefined || mark === undefined) return undefined;
      const started = Date.now();
      try {
        // A change ends the wait at once (the caller looks again); else, after quietMs, the requests in flight are waited for.
        const changed = await waitForChange(mark, { until: 'change', maxMs: Math.min(quietMs, maxMs), signal });
        if (changed.changed || Date.now() - started >= maxMs) return false;
        const settled = await waitForChange(mark, { until: 'quiet', quietMs: 0, requests: 'all', maxMs: maxMs - (Date.now() - started), signal });
        return !settled.changed && Date.now() - started < maxMs;
      } catch (error) {
        throw failure(error);
      }
    },
    changes(before, after) {
      // Without a tree on either side there is nothing to compare line by line.
      if (before === undefined || before.treeUnavailable === true || after.treeUnavailable === true) return after.text;
      const afterText = after.text;
      // Prepared while the engine waited, when `after` is the screen it was prepared for.
      const early = preparedChanges.get(before);
      const diff = early !== undefined && rendered.get(after) === early.screen ? early.diff : diffScreens(before.text, afterText, diffContext(before, after));
      if (diff.mostlyChanged) return after.text;
      // Short, since every later request repeats it; the path only when it changed. A report is
      // always against the screen before the action, so that revision goes unsaid.
      const header = `Screen revision ${after.revision}${after.path === before.path ? '' : ` (path ${after.path})`}`;
      // "revision N" throughout: the loop guards mask exactly that to compare results.
      if (diff.unchanged) return `${header}: no change.`;
      return `${header} changes:\n${diff.text}`;
    },
  };
}

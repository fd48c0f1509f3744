/**
 * The Engine contract (`e2e/engine`, DESIGN §8). An engine answers one immediate query at a
 * time: observe the screen, perform one action on one node, take a masked screenshot.
 * Waiting, strictness, staleness handling, budgets, secrets and redaction belong to the
 * runner, never to the engine. This file must not import Playwright.
 */
import { E2EError, type ErrorCode } from '../errors/index.js';
import type { AttemptHost, EngineHost, HostServices } from './host.js';
import { POLICED_VERBS, VERB_TABLE, type EngineVerbOfTable, type VerbRow } from './verbs.js';

/** Version of this contract; part of every cache key (an engine's patch version is not). */
export const ENGINE_CONTRACT_VERSION = 1;

/**
 * The verbs an engine may declare. Only declared verbs exist on `ctx.actions`: the verbs of
 * `contract/verbs.ts` that are an engine's own, in its order, and `screenshot`.
 */
export const VERBS: readonly Verb[] = [
  ...POLICED_VERBS.filter((verb): verb is EngineVerbOfTable => (VERB_TABLE[verb] as VerbRow).needs === undefined),
  'screenshot',
];

/** One verb. */
export type Verb = EngineVerbOfTable | 'screenshot';

/** Boolean states a node can hold; only the true ones are listed. */
export const NODE_STATES = ['checked', 'disabled', 'selected', 'expanded', 'pressed', 'focused', 'secure'] as const;
export type NodeState = (typeof NODE_STATES)[number];

/** Position and size in CSS pixels, relative to the top-level viewport. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Role of a placeholder node: where an engine left out a run of similar siblings (see
 * {@link ObserveRequest.bounds}), one node stands for them, with {@link ScreenNode.omitted}.
 */
export const OMITTED_ROLE = 'omitted';

/** What a placeholder node ({@link OMITTED_ROLE}) stands for. */
export interface OmittedNodes {
  /** How many siblings were left out. */
  count: number;
  /** Their role (the first one's, when they differ). */
  role: string;
  /** Words of the first and the last one left out, as a hint (clipped). */
  first?: string;
  last?: string;
  /**
   * Texts of {@link ObserveRequest.include} (case folded, runs of whitespace as one space) that
   * some of these siblings hold: more of the run held each of them than `bounds.maxRun`, so these
   * were left out all the same. A node holding one of them cannot be told apart from these unread ones.
   */
  holding?: string[];
}

/** One node of an observed screen. `id` is stable for as long as the element lives. */
export interface ScreenNode {
  id: string;
  role: string;
  name: string;
  text?: string;
  value?: string;
  testId?: string;
  href?: string;
  placeholder?: string;
  states: NodeState[];
  rect?: Rect;
  depth: number;
  children: ScreenNode[];
  /** Only on a placeholder node (role {@link OMITTED_ROLE}): the siblings it stands for. */
  omitted?: OmittedNodes;
}

/** What an engine returns from `observe()`. Redaction is the runner's job. */
export interface EngineObservation {
  /** The root node (a document on the web). */
  root: ScreenNode;
  /** The current URL (web) or route; `about:blank` before anything opened. */
  url: string;
  title: string;
  /** Total nodes in the tree, for quick size checks. */
  nodeCount: number;
  /** Where the engine's change history stood when this was observed; set by engines with {@link EngineInstance.waitForChange}. */
  mark?: ChangeMark;
  /**
   * True when the screen could not be read as a tree (the page broke the engine's capture);
   * `root` is then an empty node with no children and `nodeCount` 0. A missing tree does not
   * prove a control is absent.
   */
  treeUnavailable?: boolean;
  /** With `treeUnavailable`: why, in one line (shown to the model; the runner redacts it). */
  unavailableReason?: string;
  /** Whether an on-screen keyboard is showing; absent when the engine cannot tell (the web engine). */
  keyboardVisible?: boolean;
  /** The size of the visible area, in the units of the rects (what "near the viewport" means). */
  viewport?: { width: number; height: number };
  /**
   * True when more nodes inside one left-out run hold an {@link ObserveRequest.include} text
   * than the engine reads of them (`bounds.maxRun` per text): some are still left out (their
   * placeholders say which texts they hold, {@link OmittedNodes.holding}).
   */
  includePartial?: boolean;
}

/**
 * What `observe` may be asked. Both are hints an engine that reads every node ignores; an
 * engine that leaves nodes out must honour `include`.
 */
export interface ObserveRequest {
  signal?: AbortSignal;
  /**
   * An engine may leave out a run of more than `maxRun` similar siblings (a list of 200,000
   * rows), putting one placeholder node ({@link OMITTED_ROLE}) where they were. It keeps the
   * first and last few, those near the viewport, those holding the focus, and `include` (of the
   * nodes holding an include text, at most `maxRun` per text).
   */
  bounds?: { maxRun: number };
  /**
   * Nodes to read in full even inside such a run: any whose words (name, text, value,
   * placeholder, test id; case and runs of whitespace ignored) contain one of `text`, and the
   * nodes `ids` of the previous observation, each with its ancestors.
   */
  include?: { text?: readonly string[]; ids?: readonly string[] };
}

/** The empty root of an observation whose tree is unavailable. */
export function emptyScreenRoot(): ScreenNode {
  return { id: 'root', role: 'document', name: '', states: [], depth: 0, children: [] };
}

/**
 * An opaque point in an engine's change history. Two marks are equal exactly when the engine
 * saw no change of the screen between them; compare them, never parse them.
 */
export type ChangeMark = string;

/** Options of {@link EngineInstance.waitForChange}. */
export interface ChangeWaitOptions {
  /**
   * `change`: resolve as soon as the screen changed since the mark. `quiet`: resolve once
   * nothing has changed for `quietMs` and no request made since the mark is still in flight.
   */
  until: 'change' | 'quiet';
  /** Longest wait; 0 answers at once. */
  maxMs: number;
  /** With `until: 'quiet'`: how long the screen must hold still. Default 0. */
  quietMs?: number;
  /**
   * With `until: 'quiet'`: which requests in flight hold the wait. `since-mark` (default):
   * those made since the mark, i.e. by the action; `all`: any, for a page still loading its
   * app (a step's first screen).
   */
  requests?: 'since-mark' | 'all';
  signal?: AbortSignal;
}

/** What {@link EngineInstance.waitForChange} reports. */
export interface ChangeWaitResult {
  /** True when the screen may have changed since the mark passed in. */
  changed: boolean;
  /** The mark now: equal to an observation's mark when nothing changed since that observation. */
  mark: ChangeMark;
}

/** A reference to a node from the most recent observation. */
export interface NodeRef {
  id: string;
}

/** A point in CSS pixels. */
export interface Point {
  x: number;
  y: number;
}

/** Scroll directions. */
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

/** Modifier keys held during a tap (engines with {@link Engine.tapModifiers}). */
export const KEY_MODIFIERS = ['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift'] as const;
export type KeyModifier = (typeof KEY_MODIFIERS)[number];

/** An action on one node (or on the page when the verb needs no node). */
export type EngineAction =
  | { verb: 'tap' | 'doubleTap' | 'secondaryTap'; modifiers?: readonly KeyModifier[] }
  | { verb: 'longPress' | 'hover' | 'scrollTo' }
  | { verb: 'type'; value: string; replace: boolean }
  | { verb: 'press'; key: string }
  | { verb: 'select'; value: string }
  | { verb: 'check'; checked: boolean }
  | { verb: 'scroll'; direction: ScrollDirection }
  | { verb: 'upload'; paths: string[] }
  | { verb: 'drag'; destination: NodeRef };

/** A page-level action (no node). */
export type SessionAction =
  | { verb: 'navigate'; url: string }
  | { verb: 'back' }
  | { verb: 'press'; key: string }
  | { verb: 'scroll'; direction: ScrollDirection }
  | { verb: 'typeText'; value: string }
  | { verb: 'resize'; width: number; height: number };

/** A point action, for engines with pixels. */
export type PointAction = { verb: 'tapAt' | 'hoverAt' } | { verb: 'dragAt'; to: Point };

/** Codes an engine may raise. */
export const ENGINE_ERROR_CODES = [
  'NODE_STALE',
  'NOT_ACTIONABLE',
  'ACTION_MAY_HAVE_COMMITTED',
  'OPERATION_TIMEOUT',
  'UNSUPPORTED_CAPABILITY',
  'ENGINE_FAILURE',
] as const;
export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[number];

const ENGINE_TO_RUNTIME: Record<EngineErrorCode, ErrorCode> = {
  NODE_STALE: 'ACTION_FAILED',
  NOT_ACTIONABLE: 'ACTION_FAILED',
  ACTION_MAY_HAVE_COMMITTED: 'ACTION_FAILED',
  OPERATION_TIMEOUT: 'ACTION_FAILED',
  UNSUPPORTED_CAPABILITY: 'UNSUPPORTED_CAPABILITY',
  ENGINE_FAILURE: 'ENGINE_FAILURE',
};

/**
 * What an engine knows about a failure beyond its code, typed so nobody parses its message.
 * `obstructed`: another element would have received the pointer, so no input was sent; `by`
 * describes it as far as the engine can (its role and accessible name, and a short description
 * such as an HTML snippet, for when nothing on the screen names it).
 */
export type EngineErrorDetail = { kind: 'obstructed'; by: { role?: string; name?: string; description: string } };

/** A typed engine failure. `engineCode` is precise; `code` is the runtime code it maps to. */
export class EngineError extends E2EError {
  override readonly name: string = 'EngineError';
  readonly engineCode: EngineErrorCode;
  /** The typed detail, when the engine knows more than the code. */
  readonly detail: EngineErrorDetail | undefined;

  constructor(engineCode: EngineErrorCode, message: string, options?: { cause?: unknown; detail?: EngineErrorDetail }) {
    super(ENGINE_TO_RUNTIME[engineCode], message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.engineCode = engineCode;
    this.detail = options?.detail;
  }
}

/** True for an {@link EngineError}, across module copies. */
export function isEngineError(value: unknown): value is EngineError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { engineCode?: unknown }).engineCode === 'string' &&
    (ENGINE_ERROR_CODES as readonly string[]).includes((value as { engineCode: string }).engineCode)
  );
}

/** Session control of a running engine. */
export interface EngineSession {
  /**
   * Open the app: engines with the `url` location open `url` (absolute); engines without a
   * location start the app (`url` is undefined), and start it again when it is running.
   */
  open(url?: string): Promise<void>;
  back(): Promise<void>;
  /** Drop all state and start over (fresh context on the web, the program started again in a terminal). */
  restart(): Promise<void>;
  /** Current URL (engines with the `url` location); anything, e.g. `''`, elsewhere. */
  url(): string;
}

/** Options for a screenshot. */
export interface ScreenshotOptions {
  /** Extra node ids to mask besides secure fields. */
  mask?: NodeRef[];
}

/** The attempt-scoped handle an engine gives the runner. */
export interface EngineInstance {
  readonly session: EngineSession;
  observe(options?: ObserveRequest): Promise<EngineObservation>;
  perform(ref: NodeRef, action: EngineAction, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void>;
  performOnPage(action: SessionAction, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void>;
  performAt?(point: Point, action: PointAction, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void>;
  /** Masked PNG of the viewport; secure fields are always masked. */
  screenshot(options?: ScreenshotOptions): Promise<Uint8Array>;
  /** The node at a point, when the engine can tell. */
  hitTest?(point: Point): Promise<NodeRef | undefined>;
  /**
   * Subscribe to navigations of the top-level document (for origin policy). The callback
   * may return false to refuse the navigation before it is sent.
   */
  onNavigationRequest?(listener: (url: string) => boolean): () => void;
  /**
   * Optional: wait inside the engine for the screen to change (or hold still) since `since`,
   * without observing, so the runner settles after an action with about one observation
   * (DESIGN §4). Changes that only tick a clock do not count. An engine that offers this
   * sets `mark` on every observation; without it the runner polls observations. Resolves by
   * about `maxMs` (a timeout is an answer, not an error); rejects with `CANCELLED` when
   * `signal` aborts, and with an engine error when the screen is gone.
   */
  waitForChange?(since: ChangeMark, options: ChangeWaitOptions): Promise<ChangeWaitResult>;
  /** Close the attempt's resources. */
  close(): Promise<void>;
  /** What the test host needs from this attempt (`contract/host.ts`): the `screen` fixture, the audit's mutations, what an assertion looked at, recordings. */
  readonly host?: AttemptHost;
}

/** Lifecycle context handed to an engine when an attempt starts. */
export interface EngineStartOptions {
  /** Engines with the `url` location: the app's base URL (`app.url`). */
  baseUrl?: string;
  /** The target's `app`, as the engine's delegate checked it (`EngineHost.app`); for `url` engines `{ url, identity? }`. */
  app?: unknown;
  /** Engines with the `url` location: called for every top-level navigation request; return false to block it. */
  allowNavigation?: (url: string) => boolean;
  signal?: AbortSignal;
  /** What the test host provides (a browser for a web-based engine, a recording request); absent outside a test host. */
  host?: HostServices;
}

/**
 * Where an engine's screens are, when it can say. `url`: every observation has a URL, so
 * routes (origin + path + query) are recorded and checked at replay, the origin policy applies
 * (`onNavigationRequest`, `navigate` only to allowed origins) and `app.open(path)` resolves
 * against `app.url`. Engines without a location record no routes, have no origin policy and no
 * `navigate`, and `app.open()` starts the app.
 */
export type EngineLocation = 'url';

/** An engine definition: what `web()` returns. */
export interface Engine {
  /** Engine name; part of the cache key. */
  readonly name: string;
  /** Engine version (patch-level; not part of the cache key). */
  readonly version: string;
  /** Version of the engine contract this engine implements. */
  readonly contractVersion: number;
  /** Platform family, e.g. `web`, `terminal`. */
  readonly platform: string;
  /** Where screens are (see {@link EngineLocation}); absent: the engine has no location. */
  readonly location?: EngineLocation;
  /** What the test host needs from this platform (`contract/host.ts`): the browser to start, how a target's `app` is checked. */
  readonly host?: EngineHost;
  /** The verbs this engine supports. */
  readonly verbs: readonly Verb[];
  /** True when `tap`, `doubleTap` and `secondaryTap` take `{ modifiers }`. Default false. */
  readonly tapModifiers?: boolean;
  /** Start one attempt. */
  start(options: EngineStartOptions): Promise<EngineInstance>;
  /** Free process-wide resources (browsers). */
  dispose?(): Promise<void>;
}

export type { AppCheck, AttemptHost, BrowserRequest, BrowserWants, CheckedApp, EngineHost, HostEnvironment, HostServices, RecordedFile, RecordingRequest } from './host.js';
export type { MutationSurface } from './mutation.js';

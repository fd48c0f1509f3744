/**
 * One attempt on the web engine: a page (our own, or the host's Playwright Test page),
 * answering one immediate query at a time. Waiting, retries, budgets and redaction are the
 * runner's; this class only observes, acts, and translates failures into engine codes.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { E2EError } from '../../errors/index.js';
import {
  EngineError,
  emptyScreenRoot,
  isEngineError,
  type ChangeMark,
  type ChangeWaitOptions,
  type ChangeWaitResult,
  type EngineAction,
  type EngineInstance,
  type EngineObservation,
  type ObserveRequest,
  type EngineSession,
  type NodeRef,
  type Point,
  type PointAction,
  type ScreenshotOptions,
  type SessionAction,
} from '../../contract/engine.js';
import type { AttemptHost, RecordedFile } from '../../contract/host.js';
import { toEngineError } from './action-errors.js';
import { PageChangeWatch } from './change-wait.js';
import { idAtPoint, MASK_ATTRIBUTE, markForMask, nodeIdsOf, resolveElement, textPosition } from './locate-node.js';
import { pageMutationSurface } from './page-mutations.js';
import { NavigationGuard, type NavigationListener } from './navigation-guard.js';
import { observePage } from './observe-page.js';
import { performAtPoint, performOnElement, performOnPage, type ActionTarget } from './perform-action.js';
import { quickAction } from './quick-action.js';

/** How the attempt gets (and gets again, on restart) its page. */
export interface AttemptSurface {
  page: Page;
  context: BrowserContext;
  /** True when the attempt created the context and must close it. */
  owned: boolean;
}

/** Settings of one attempt. */
export interface WebAttemptOptions {
  testIdAttribute: string;
  /** A fresh surface for `restart()`. */
  newSurface: () => Promise<AttemptSurface>;
  /** True when the contexts record video (the host asked for a recording). */
  recording?: boolean;
  allowNavigation?: (url: string) => boolean;
  /** Called once the attempt closed. */
  onClose: () => void;
}

/** Default time for `session.open` and `back` (the runner bounds agent actions itself). */
const SESSION_TIMEOUT_MS = 30_000;

/** Reject with `CANCELLED` when `signal` aborts first. */
async function raceSignal<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    throw new E2EError('CANCELLED', 'The action was cancelled before it started.');
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new E2EError('CANCELLED', 'The action was cancelled.'));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    work.catch(() => undefined);
  }
}

/** Origin and path of a URL, for messages (queries may carry tokens). */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.origin + parsed.pathname;
  } catch {
    return 'the requested address';
  }
}

/** The attempt-scoped engine instance of `web()`. */
export class WebAttempt implements EngineInstance {
  readonly session: EngineSession;
  /** The host delegate of the attempt: the page as `screen`, the audit's mutations, what a locator matched, videos. */
  readonly host: AttemptHost;
  private surface: AttemptSurface;
  /** Pages whose video this attempt recorded, in the order they opened. */
  private readonly recordedPages: Page[] = [];
  private guard: NavigationGuard;
  private changes: PageChangeWatch;
  private readonly listeners = new Set<NavigationListener>();
  private nextId = 1;
  /** Ids of `text` nodes in the latest observation (they are pointed at by their words). */
  private textIds = new Set<string>();
  private closed = false;
  private readonly options: WebAttemptOptions;

  private constructor(surface: AttemptSurface, options: WebAttemptOptions) {
    this.surface = surface;
    this.options = options;
    this.guard = new NavigationGuard(surface.context);
    this.changes = new PageChangeWatch(surface.page);
    this.watchRecording(surface);
    const attempt = this;
    this.host = {
      get screen(): Page {
        return attempt.page;
      },
      mutations: {
        silenceHandlers: () => pageMutationSurface(this.page).silenceHandlers(),
        hideNodes: (ids) => pageMutationSurface(this.page).hideNodes(ids),
      },
      lookedAt: async (subject) => {
        const ids = await nodeIdsOf(subject);
        return ids.length === 0 ? undefined : ids;
      },
      recordings: () => this.recordings(),
    };
    this.session = {
      open: (url) => {
        if (url === undefined) throw new E2EError('INVALID_ARGUMENT', 'The web engine opens a URL: session.open(url) takes an absolute URL.');
        return this.navigate(url, SESSION_TIMEOUT_MS, 'open');
      },
      back: async () => {
        await this.translate(performOnPage(this.page, { verb: 'back' }, SESSION_TIMEOUT_MS), 'back');
      },
      restart: () => this.restart(),
      url: () => this.page.url(),
    };
  }

  /** Start an attempt on `surface`, with the navigation policy installed before anything loads. */
  static async start(surface: AttemptSurface, options: WebAttemptOptions): Promise<WebAttempt> {
    const attempt = new WebAttempt(surface, options);
    if (options.allowNavigation !== undefined) await attempt.addListener(options.allowNavigation);
    return attempt;
  }

  /** The attempt's current page. */
  get page(): Page {
    if (this.closed) throw new E2EError('INVALID_STATE', 'This web engine attempt is closed; its page is no longer available.');
    return this.surface.page;
  }

  /** The attempt's current browser context. */
  get context(): BrowserContext {
    if (this.closed) throw new E2EError('INVALID_STATE', 'This web engine attempt is closed; its browser context is no longer available.');
    return this.surface.context;
  }

  /** True once `close()` ran. */
  get isClosed(): boolean {
    return this.closed;
  }

  async observe(options: ObserveRequest = {}): Promise<EngineObservation> {
    const work = observePage(this.page, { testIdAttribute: this.options.testIdAttribute, firstId: this.nextId, request: options }).then((result) => {
      this.nextId = Math.max(this.nextId, result.nextId);
      this.textIds = result.textIds;
      return { ...result.observation, mark: this.changes.markOf(result.pageMark) };
    });
    try {
      return await raceSignal(work, options.signal);
    } catch (error) {
      const failure = toEngineError(error, { what: 'observe' });
      if (!this.pageBrokeTheWalk(failure)) throw failure;
      // The page itself broke the walk (a replaced built-in, a throwing getter): a screen without a tree.
      this.textIds = new Set();
      const headline = (error instanceof Error ? error.message : String(error)).replace(/\u001b\[[0-9;]*m/g, '').split('\n')[0] ?? '';
      const reason = headline.replace(/^[\w.]+: /, '').slice(0, 200) || 'the page script failed';
      return { root: emptyScreenRoot(), url: this.page.url(), title: '', nodeCount: 0, treeUnavailable: true, unavailableReason: reason };
    }
  }

  /** True when an observation failed inside the page while page and browser are still there. */
  private pageBrokeTheWalk(failure: Error): boolean {
    if (!isEngineError(failure) || failure.engineCode !== 'ENGINE_FAILURE') return false;
    if (this.closed || this.surface.page.isClosed()) return false;
    return this.surface.context.browser()?.isConnected() !== false;
  }

  async waitForChange(since: ChangeMark, options: ChangeWaitOptions): Promise<ChangeWaitResult> {
    try {
      return await this.changes.wait(since, options);
    } catch (error) {
      throw toEngineError(error, { what: 'waitForChange' });
    }
  }

  async perform(ref: NodeRef, action: EngineAction, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
    const what = `${action.verb} #${ref.id}`;
    const sensitive = action.verb === 'type' ? action.value : undefined;
    const description = sensitive === undefined ? { what } : { what, sensitive };
    const id = ref.id.replace(/^#/, '');
    const started = Date.now();
    // Most actions on a ready element need no ElementHandle (quick-action.ts).
    let quick: 'usual' | 'notReady' = 'usual';
    if (!this.textIds.has(id)) {
      try {
        const outcome = await raceSignal(quickAction(this.page, id, action), options.signal);
        if (outcome === 'done') return;
        quick = outcome;
      } catch (error) {
        throw toEngineError(error, description);
      }
    }
    const found = await this.targetOf(ref.id, what);
    const target: ActionTarget = quick === 'notReady' ? { ...found, notReady: true } : found;
    try {
      const timeoutMs = Math.max(1, options.timeoutMs - (Date.now() - started));
      const work = performOnElement(this.page, target, action, timeoutMs, (id) => this.targetOf(id, `${what} → #${id}`));
      await raceSignal(work, options.signal);
    } catch (error) {
      throw toEngineError(error, description);
    } finally {
      // Not awaited: the handle's release needs no answer, and the next command queues behind it.
      target.element.dispose().catch(() => undefined);
    }
  }

  async performOnPage(action: SessionAction, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
    if (action.verb === 'navigate') return raceSignal(this.navigate(action.url, options.timeoutMs, 'navigate'), options.signal);
    const sensitive = action.verb === 'typeText' ? action.value : undefined;
    const what = action.verb;
    await this.translate(raceSignal(performOnPage(this.page, action, options.timeoutMs), options.signal), what, sensitive);
  }

  async performAt(point: Point, action: PointAction, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
    await this.translate(raceSignal(performAtPoint(this.page, point, action), options.signal), `${action.verb} (${point.x}, ${point.y})`);
  }

  async hitTest(point: Point): Promise<NodeRef | undefined> {
    try {
      const id = await idAtPoint(this.page, point);
      return id === undefined ? undefined : { id };
    } catch (error) {
      throw toEngineError(error, { what: `hitTest (${point.x}, ${point.y})` });
    }
  }

  async screenshot(options: ScreenshotOptions = {}): Promise<Uint8Array> {
    const page = this.page;
    const ids = (options.mask ?? []).map((ref) => ref.id);
    try {
      if (ids.length > 0) await markForMask(page, ids);
      // Password fields are masked in every frame, whatever the caller asked.
      const mask = page.frames().flatMap((frame) => [frame.locator('input[type="password"]'), ...(ids.length > 0 ? [frame.locator(`[${MASK_ATTRIBUTE}]`)] : [])]);
      return await page.screenshot({ type: 'png', mask, maskColor: '#FF00FF', caret: 'hide' });
    } catch (error) {
      throw toEngineError(error, { what: 'screenshot' });
    } finally {
      if (ids.length > 0) await markForMask(page, null).catch(() => undefined);
    }
  }

  onNavigationRequest(listener: (url: string) => boolean): () => void {
    let remove: (() => void) | undefined;
    let removed = false;
    this.addListener(listener).then(
      (stop) => {
        remove = stop;
        if (removed) stop();
      },
      () => undefined,
    );
    return () => {
      removed = true;
      this.listeners.delete(listener);
      remove?.();
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.changes.dispose();
    await this.guard.dispose();
    if (this.surface.owned) await this.surface.context.close().catch(() => undefined);
    this.closed = true;
    this.options.onClose();
  }

  /** Remember the pages of a recording context, whose videos are the attempt's recordings. */
  private watchRecording(surface: AttemptSurface): void {
    if (this.options.recording !== true) return;
    this.recordedPages.push(...surface.context.pages());
    surface.context.on('page', (page) => this.recordedPages.push(page));
  }

  /** The videos of the attempt's pages; complete once their contexts closed. */
  private async recordings(): Promise<RecordedFile[]> {
    const files: RecordedFile[] = [];
    for (const page of this.recordedPages) {
      const path = await page.video()?.path().catch(() => undefined);
      if (path !== undefined) files.push({ name: 'video', path, contentType: 'video/webm' });
    }
    return files;
  }

  /** Register a navigation listener on the current context (and remember it for restarts). */
  private async addListener(listener: NavigationListener): Promise<() => void> {
    this.listeners.add(listener);
    return this.guard.add(listener);
  }

  /** The element behind an id (with where to point for a `text` node), or `NODE_STALE`. */
  private async targetOf(rawId: string, what: string): Promise<ActionTarget> {
    const id = rawId.replace(/^#/, '');
    try {
      const resolved = await resolveElement(this.page, id);
      if (resolved === undefined) throw new EngineError('NODE_STALE', `${what}: #${id} is not on the current screen any more. Observe again and use a current id.`);
      const position = this.textIds.has(id) ? await textPosition(resolved.frame, id) : undefined;
      return position === undefined ? { element: resolved.element, id } : { element: resolved.element, position };
    } catch (error) {
      throw toEngineError(error, { what });
    }
  }

  /** Navigate, reporting a refusal as `POLICY_DENIED` and an unreachable app as `APP_UNREACHABLE` (open) or `NOT_ACTIONABLE`. */
  private async navigate(url: string, timeoutMs: number, kind: 'open' | 'navigate'): Promise<void> {
    const refusedBefore = this.guard.refused.length;
    try {
      await performOnPage(this.page, { verb: 'navigate', url }, timeoutMs);
    } catch (error) {
      if (this.guard.refused.length > refusedBefore) {
        throw new E2EError('POLICY_DENIED', `Navigation to ${describeUrl(this.guard.refused.at(-1) ?? url)} was refused by the origin policy; add its origin to \`origins\` if it is allowed.`, { cause: error });
      }
      const message = error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error);
      if (kind === 'open' && /net::ERR_/.test(message)) {
        throw new E2EError('APP_UNREACHABLE', `Could not open ${describeUrl(url)} (${message.replace(/^[\w.]+: /, '')}). Is the app running?`, { cause: error });
      }
      if (error instanceof Error && error.name === 'TimeoutError') throw new EngineError('OPERATION_TIMEOUT', `${kind} ${describeUrl(url)}: the page did not load within ${timeoutMs} ms.`, { cause: error });
      if (/net::ERR_/.test(message)) throw new EngineError('NOT_ACTIONABLE', `${kind} ${describeUrl(url)}: ${message.replace(/^[\w.]+: /, '')}`, { cause: error });
      throw toEngineError(error, { what: `${kind} ${describeUrl(url)}` });
    }
    if (this.guard.refused.length > refusedBefore) {
      throw new E2EError('POLICY_DENIED', `A redirect to ${describeUrl(this.guard.refused.at(-1) ?? url)} was refused by the origin policy.`);
    }
  }

  /** Await `work`, translating its failure. */
  private async translate(work: Promise<void>, what: string, sensitive?: string): Promise<void> {
    try {
      await work;
    } catch (error) {
      throw toEngineError(error, sensitive === undefined ? { what } : { what, sensitive });
    }
  }

  /** Drop all state: a fresh context and page. */
  private async restart(): Promise<void> {
    this.changes.dispose();
    await this.guard.dispose();
    if (this.surface.owned) await this.surface.context.close().catch(() => undefined);
    this.surface = await this.options.newSurface();
    this.watchRecording(this.surface);
    this.guard = new NavigationGuard(this.surface.context);
    this.changes = new PageChangeWatch(this.surface.page);
    for (const listener of this.listeners) await this.guard.add(listener);
  }
}

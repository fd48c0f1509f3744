/**
 * Navigation policy for one browser context (DESIGN §9): a document request the listeners
 * refuse is not sent, whether it starts a navigation (top frame, child frame, popup) or is a
 * server redirect hop of one. The first request of a navigation is judged in `context.route`.
 * Redirect hops, which Playwright does not route, are judged before the browser follows them:
 * by the page's {@link RedirectWatch} for top-frame navigations it watches, otherwise by
 * answering the request through `route.fetch` with redirects off (document-fetch.ts), which
 * judges the first hop; a later hop of such a navigation is caught only once sent (README).
 */
import type { BrowserContext, Frame, Page, Request, Route } from '@playwright/test';
import { answerThroughFetch } from './document-fetch.js';
import { isHttpUrl } from './redirect-hop.js';
import { RedirectWatch } from './redirect-watch.js';

/** A navigation listener: return false to refuse. */
export type NavigationListener = (url: string) => boolean;

/** The frame of `request`, or undefined (a popup's first request comes before its frame exists). */
function frameOf(request: Request): Frame | undefined {
  try {
    return request.frame();
  } catch {
    return undefined;
  }
}

/** Guards one context; listeners may come and go. */
export class NavigationGuard {
  private readonly listeners = new Set<NavigationListener>();
  private readonly refusedUrls: string[] = [];
  private readonly context: BrowserContext;
  /** First requests of top-frame navigations whose redirects a page watch judges. */
  private readonly watched = new WeakSet<Request>();
  /** Refused hops that were already sent with no frame to stop (a popup's second hop): blanked once they commit. */
  private readonly sentRefused = new Set<string>();
  private redirects: RedirectWatch | undefined;
  private installing: Promise<void> | undefined;

  constructor(context: BrowserContext) {
    this.context = context;
  }

  /** Every URL refused so far, oldest first. */
  get refused(): readonly string[] {
    return this.refusedUrls;
  }

  /** Add a listener; the returned function removes it. Guarding starts with the first one. */
  async add(listener: NavigationListener): Promise<() => void> {
    this.listeners.add(listener);
    this.installing ??= this.install();
    await this.installing;
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Stop guarding (the context may live on, e.g. a Playwright Test fixture's). */
  async dispose(): Promise<void> {
    this.listeners.clear();
    const installing = this.installing;
    if (installing === undefined) return;
    this.installing = undefined;
    await installing.catch(() => undefined);
    this.context.off('page', this.onPage);
    for (const page of this.context.pages()) page.off('framenavigated', this.onFrameNavigated);
    this.context.off('request', this.onRequest);
    await this.context.unroute('**/*', this.onRoute).catch(() => undefined);
    await this.redirects?.dispose();
    this.redirects = undefined;
  }

  /** Route and watch the pages; a navigation starting before its page's watch is answered through route.fetch. */
  private async install(): Promise<void> {
    const redirects = new RedirectWatch(this.context, (url) => this.admit(url));
    this.redirects = redirects;
    this.context.on('page', this.onPage);
    this.context.on('request', this.onRequest);
    // The route's request goes out first, so a navigation started right after `add()` (not awaited) is still routed.
    await Promise.all([this.context.route('**/*', this.onRoute), ...this.context.pages().map((page) => redirects.watch(page, { late: false }))]);
  }

  /** True when every listener accepts `url`; a throwing listener refuses. */
  private allows(url: string): boolean {
    for (const listener of this.listeners) {
      try {
        if (listener(url) === false) return false;
      } catch {
        return false;
      }
    }
    return true;
  }

  /** {@link allows}, remembering a refusal. */
  private admit(url: string): boolean {
    if (this.allows(url)) return true;
    this.refusedUrls.push(url);
    return false;
  }

  private readonly onPage = (page: Page): void => {
    this.redirects?.watch(page, { late: true }).catch(() => undefined);
    page.on('framenavigated', this.onFrameNavigated);
    this.onFrameNavigated(page.mainFrame());
  };

  /** A refused hop that could not be stopped before it was sent never stays on screen. */
  private readonly onFrameNavigated = (frame: Frame): void => {
    if (!this.sentRefused.delete(frame.url())) return;
    frame.goto('about:blank').catch(() => undefined);
  };

  private readonly onRequest = (request: Request): void => {
    if (!request.isNavigationRequest()) return;
    const frame = frameOf(request);
    if (request.redirectedFrom() === null) {
      if (frame !== undefined && frame.parentFrame() === null && this.redirects?.claims(frame.page()) === true) this.watched.add(request);
      return;
    }
    // A hop the browser followed: judged before it was sent, unless it is the second hop of a navigation
    // no watch saw (a popup's first load, a child frame's). Then it is on the wire: never show its answer.
    if (this.admit(request.url())) return;
    if (frame === undefined) this.sentRefused.add(request.url());
    else frame.goto('about:blank').catch(() => undefined);
  };

  private readonly onRoute = async (route: Route): Promise<void> => {
    const request = route.request();
    if (!request.isNavigationRequest()) {
      await route.fallback().catch(() => undefined);
      return;
    }
    if (!this.admit(request.url())) {
      // ERR_ABORTED cancels the navigation without committing an error page: the frame stays where it was.
      await route.abort('aborted').catch(() => undefined);
      return;
    }
    if (this.watched.has(request) || !isHttpUrl(request.url())) {
      await route.fallback().catch(() => undefined);
      return;
    }
    await answerThroughFetch(route, (url) => this.admit(url));
  };
}

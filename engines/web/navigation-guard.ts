/**
 * Top-level navigation policy for one browser context (DESIGN §9). Document requests of
 * top frames (popups included) pass through `context.route`, so a refused one is aborted
 * before any server receives it. Server redirects are not routed by Playwright; a refused
 * redirect hop is noticed on the `request` event and the page is sent to `about:blank`.
 */
import type { BrowserContext, Request, Route } from 'playwright';

/** A navigation listener: return false to refuse. */
export type NavigationListener = (url: string) => boolean;

/** True for a document request of a top-level frame. */
function isTopLevelNavigation(request: Request): boolean {
  if (!request.isNavigationRequest()) return false;
  try {
    return request.frame().parentFrame() === null;
  } catch {
    // A popup's first request comes before its frame exists; only service workers have none at all.
    return request.serviceWorker() === null;
  }
}

/** Guards one context; listeners may come and go. */
export class NavigationGuard {
  private readonly listeners = new Set<NavigationListener>();
  private readonly refusedUrls: string[] = [];
  private installed = false;
  private readonly context: BrowserContext;

  constructor(context: BrowserContext) {
    this.context = context;
  }

  /** Every URL refused so far, oldest first. */
  get refused(): readonly string[] {
    return this.refusedUrls;
  }

  /** Add a listener; the returned function removes it. Routing starts with the first one. */
  async add(listener: NavigationListener): Promise<() => void> {
    this.listeners.add(listener);
    if (!this.installed) {
      this.installed = true;
      await this.context.route('**/*', this.onRoute);
      this.context.on('request', this.onRequest);
    }
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Stop routing (the context may live on, e.g. a Playwright Test fixture's). */
  async dispose(): Promise<void> {
    this.listeners.clear();
    if (!this.installed) return;
    this.installed = false;
    this.context.off('request', this.onRequest);
    await this.context.unroute('**/*', this.onRoute).catch(() => undefined);
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

  private readonly onRoute = async (route: Route): Promise<void> => {
    const request = route.request();
    if (!isTopLevelNavigation(request) || this.allows(request.url())) {
      await route.fallback().catch(() => undefined);
      return;
    }
    this.refusedUrls.push(request.url());
    // ERR_ABORTED cancels the navigation without committing an error page: the user stays where they were.
    await route.abort('aborted').catch(() => undefined);
  };

  private readonly onRequest = (request: Request): void => {
    if (request.redirectedFrom() === null || !isTopLevelNavigation(request) || this.allows(request.url())) return;
    this.refusedUrls.push(request.url());
    // The hop is already on the wire; make sure the page never shows its answer.
    let page;
    try {
      page = request.frame().page();
    } catch {
      return;
    }
    page.goto('about:blank').catch(() => undefined);
  };
}

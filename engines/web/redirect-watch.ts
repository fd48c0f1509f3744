/**
 * Server redirects of a page's documents, judged before the browser follows them. Playwright
 * routes only the first request of a navigation and sends its redirect hops itself
 * (microsoft/playwright#33882), so every page gets a CDP session of its own that pauses
 * document responses: a 3xx whose `Location` the policy refuses is failed there, and the hop
 * is never sent. Chromium runs this session's interception alongside Playwright's.
 */
import type { BrowserContext, CDPSession, Page } from '@playwright/test';
import { redirectTarget } from './redirect-hop.js';

/** Decides one URL: true to let the browser go there (a refusal is recorded by the callee). */
export type HopJudge = (url: string) => boolean;

/** The watch on one page. */
interface PageWatch {
  session: CDPSession | undefined;
  /** True once document responses of navigations starting from now on are paused. */
  ready: boolean;
  /** The page existed before its watch: its first navigation may have started unwatched. */
  startedUnwatched: boolean;
  started: Promise<void>;
}

/** Pauses document responses of every watched page and fails refused redirects. */
export class RedirectWatch {
  readonly #context: BrowserContext;
  readonly #judge: HopJudge;
  readonly #pages = new Map<Page, PageWatch>();
  #disposed = false;

  constructor(context: BrowserContext, judge: HopJudge) {
    this.#context = context;
    this.#judge = judge;
  }

  /**
   * Watch `page`; resolves once its later navigations are watched, or once that proved
   * impossible (a closed page, a browser without CDP): then {@link claims} stays false for it.
   * `late` marks a page that may already be loading (a popup), whose first navigation is left
   * to the route.
   */
  watch(page: Page, options: { late: boolean }): Promise<void> {
    const known = this.#pages.get(page);
    if (known !== undefined) return known.started;
    const watch: PageWatch = { session: undefined, ready: false, startedUnwatched: options.late, started: Promise.resolve() };
    this.#pages.set(page, watch);
    page.once('close', () => this.#pages.delete(page));
    watch.started = this.#start(page, watch);
    return watch.started;
  }

  /**
   * True when a navigation of `page`'s top frame that starts now has its redirects judged here.
   * The first call for a late page answers false: its first navigation may predate the watch.
   */
  claims(page: Page): boolean {
    const watch = this.#pages.get(page);
    if (watch === undefined || !watch.ready) return false;
    if (watch.startedUnwatched) {
      watch.startedUnwatched = false;
      return false;
    }
    return true;
  }

  /** Stop watching every page (paused responses go on when the sessions detach). */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const watches = [...this.#pages.values()];
    this.#pages.clear();
    await Promise.all(
      watches.map(async (watch) => {
        await watch.started;
        await watch.session?.detach().catch(() => undefined);
      }),
    );
  }

  async #start(page: Page, watch: PageWatch): Promise<void> {
    try {
      const session = await this.#context.newCDPSession(page);
      watch.session = session;
      session.on('Fetch.requestPaused', (event) => {
        const status = event.responseStatusCode;
        const location = event.responseHeaders?.find((header) => header.name.toLowerCase() === 'location')?.value;
        const next = status === undefined ? undefined : redirectTarget(status, location, event.request.url);
        if (next !== undefined && !this.#judge(next)) {
          // `Aborted` cancels the navigation without an error page: the frame stays where it was.
          session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'Aborted' }).catch(() => undefined);
          return;
        }
        session.send('Fetch.continueRequest', { requestId: event.requestId }).catch(() => undefined);
      });
      await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Response' }] });
      if (this.#disposed) {
        await session.detach().catch(() => undefined);
        return;
      }
      watch.ready = true;
    } catch {
      // No watch on this page: the guard answers its navigations through route.fetch instead.
    }
  }
}

/**
 * The Node half of `waitForChange` for one page. The in-page monitor (page-changes.ts) counts
 * changes; this adds top-level navigations (history API included, which the page does not
 * announce) and the page's fetch, XHR and document requests, so `quiet` also waits for a
 * response the screen is waiting on. Every wait is bounded here, whatever the page's timers do.
 */
import type { Page, Request } from '@playwright/test';
import { E2EError } from '../../errors/index.js';
import type { ChangeMark, ChangeWaitOptions, ChangeWaitResult } from '../../contract/engine.js';
import { CONTEXT_GONE, withChangeMonitor } from './observe-page.js';
import type { PageChangeState } from './page-changes.js';

/** Request types a screen may be waiting on (not images, fonts, streams or sockets). */
const AWAITED_TYPES = new Set(['fetch', 'xhr', 'document']);
/** Slack past a wait's own timeout before the page's answer is given up on (a stubbed clock). */
const BACKSTOP_MS = 250;
/** Marks remembered with the request count at the time they were handed out. */
const MARK_MEMORY = 64;

/** `work`'s answer, or undefined when it takes longer than `milliseconds`. */
async function within<T>(work: Promise<T>, milliseconds: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), milliseconds);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function cancelled(): E2EError {
  return new E2EError('CANCELLED', 'Waiting for the screen to change was cancelled.');
}

/** Change tracking of one page; dispose it when the page is replaced. */
export class PageChangeWatch {
  private navigations = 0;
  private requestsBegun = 0;
  private readonly inFlight = new Map<Request, number>();
  private readonly issued = new Map<ChangeMark, number>();
  private readonly wakers = new Set<() => void>();
  private readonly page: Page;

  constructor(page: Page) {
    this.page = page;
    page.on('request', this.onRequest);
    page.on('requestfinished', this.onRequestDone);
    page.on('requestfailed', this.onRequestDone);
    page.on('framenavigated', this.onNavigated);
  }

  /** Stop listening to the page. */
  dispose(): void {
    this.page.off('request', this.onRequest);
    this.page.off('requestfinished', this.onRequestDone);
    this.page.off('requestfailed', this.onRequestDone);
    this.page.off('framenavigated', this.onNavigated);
    this.inFlight.clear();
    this.wake();
  }

  /** The engine mark for an in-page mark just read by an observation. */
  markOf(pageMark: string): ChangeMark {
    const mark = `${this.navigations}/${pageMark}`;
    if (!this.issued.has(mark)) {
      this.issued.set(mark, this.requestsBegun);
      if (this.issued.size > MARK_MEMORY) this.issued.delete(this.issued.keys().next().value as ChangeMark);
    }
    return mark;
  }

  /** See `EngineInstance.waitForChange`. */
  async wait(since: ChangeMark, options: ChangeWaitOptions): Promise<ChangeWaitResult> {
    const { until, signal } = options;
    const quietMs = options.quietMs ?? 0;
    const deadline = performance.now() + Math.max(0, options.maxMs);
    const pageSince = since.slice(since.indexOf('/') + 1);
    const navigatedSince = since.slice(0, since.indexOf('/')) !== String(this.navigations);
    // Requests begun after the mark was handed out are ones the screen may be waiting on.
    const requestsBefore = this.issued.get(since) ?? this.requestsBegun;
    for (;;) {
      if (signal?.aborted === true) throw cancelled();
      // A navigation already seen answers a wait for change at once.
      const left = until === 'change' && navigatedSince ? 0 : Math.max(0, deadline - performance.now());
      let state: PageChangeState;
      try {
        state = await this.inPage(`return changes.wait(${JSON.stringify(pageSince)}, ${JSON.stringify(until)}, ${quietMs}, ${Math.round(left)});`, left, until, signal);
      } catch (error) {
        if (!(error instanceof Error) || !CONTEXT_GONE.test(error.message)) throw error;
        // The document went away mid-wait: a navigation, which is a change; quiet is waited for in the new one.
        if (until === 'change' || performance.now() >= deadline) return { changed: true, mark: `${this.navigations}/gone` };
        continue;
      }
      const mark = `${this.navigations}/${state.m}`;
      if (until === 'quiet' && performance.now() < deadline) {
        const awaited = [...this.inFlight].filter(([, begun]) => options.requests === 'all' || begun > requestsBefore).map(([request]) => request);
        if (awaited.length > 0) {
          await this.settled(awaited, deadline, signal);
          continue;
        }
      }
      return { changed: mark !== since, mark };
    }
  }

  /** Run a wait in the page, bounded in Node; stopped early by a top-level navigation when waiting for change. */
  private async inPage(body: string, timeoutMs: number, until: ChangeWaitOptions['until'], signal: AbortSignal | undefined): Promise<PageChangeState> {
    const work = this.page.evaluate(withChangeMonitor(body)) as Promise<PageChangeState>;
    const navigationsBefore = this.navigations;
    let stop: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const interrupted = new Promise<'aborted' | 'interrupted'>((resolve) => {
      timer = setTimeout(() => resolve('interrupted'), timeoutMs + BACKSTOP_MS);
      const onAbort = (): void => resolve('aborted');
      signal?.addEventListener('abort', onAbort, { once: true });
      const onNavigation = (): void => {
        if (until === 'change' && this.navigations !== navigationsBefore) resolve('interrupted');
      };
      this.wakers.add(onNavigation);
      stop = () => {
        signal?.removeEventListener('abort', onAbort);
        this.wakers.delete(onNavigation);
        clearTimeout(timer);
      };
    });
    try {
      const winner = await Promise.race([work, interrupted]);
      if (typeof winner !== 'string') return winner;
      work.catch(() => undefined);
      // Let the page's pending wait go; its state now is the answer.
      const released = this.page.evaluate(withChangeMonitor('return changes.release();')) as Promise<PageChangeState>;
      released.catch(() => undefined);
      if (winner === 'aborted') throw cancelled();
      // A page that does not answer at all (stuck script): report a possible change; observing tells more.
      return (await within(released, BACKSTOP_MS)) ?? { m: 'unresponsive', q: 0, l: false };
    } finally {
      stop?.();
    }
  }

  /** Resolve once none of `requests` is in flight, at `deadline`, or when `signal` aborts. */
  private settled(requests: Request[], deadline: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakers.delete(check);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const check = (): void => {
        if (requests.every((request) => !this.inFlight.has(request))) done();
      };
      const timer = setTimeout(done, Math.max(0, deadline - performance.now()));
      signal?.addEventListener('abort', done, { once: true });
      this.wakers.add(check);
      check();
    });
  }

  private wake(): void {
    for (const waker of [...this.wakers]) waker();
  }

  private readonly onRequest = (request: Request): void => {
    if (!AWAITED_TYPES.has(request.resourceType())) return;
    this.requestsBegun++;
    this.inFlight.set(request, this.requestsBegun);
  };

  private readonly onRequestDone = (request: Request): void => {
    if (this.inFlight.delete(request)) this.wake();
  };

  private readonly onNavigated = (frame: ReturnType<Page['mainFrame']>): void => {
    if (frame !== this.page.mainFrame()) return;
    this.navigations++;
    this.wake();
  };
}

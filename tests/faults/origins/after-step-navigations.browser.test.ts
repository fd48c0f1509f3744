/**
 * DESIGN §9 for the whole attempt, on real Chromium: a page that leaves the allowed origins
 * after the step that set it off has ended (a timer, a meta refresh, a popup that moves
 * itself, a popup through two redirects) is stopped too, and the other origin is not shown.
 * A step that starts on a refused origin (where the test's own `app.open` took the page)
 * says where the page is and does not act there.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from '@playwright/test';
import { beforeEach, describe, expect, it } from 'vitest';
import { surfaceOf } from '../../../engines/web/index.js';
import { LATE_MS } from './support/origin-servers.js';
import { originSuite } from './support/origin-suite.js';
import { tapOn } from './support/policed-page.js';

/** Time for the delayed navigation to fire and for anything it sent to arrive. */
const AFTER_LATE_MS = LATE_MS + 1200;

const suite = originSuite();
let otherBefore = 0;

beforeEach(() => {
  otherBefore = suite.servers.other.requests.length;
});

/** What the other origin received during this test. */
function otherRequests(): string[] {
  return suite.servers.other.requests.slice(otherBefore);
}

/** The attempt's pages other than its own (popups). */
function popups(): Page[] {
  const surface = surfaceOf(suite.engine);
  return surface.context().pages().filter((page) => page !== surface.page());
}

describe('a page that leaves the allowed origins between steps', () => {
  it('is stopped when a timer set off by the step fires after the step ended', async () => {
    const policed = await suite.open('/start.html');
    const outcome = await policed.act('press the button that leaves after the step', tapOn('button', 'Leave after the step'), { maxMs: 0 });
    expect(outcome.verdict.status, outcome.verdict.summary).toBe('passed');
    await sleep(AFTER_LATE_MS);
    expect(otherRequests()).toEqual([]);
    expect(policed.url()).toBe(`${suite.servers.app.origin}/start.html`);
    // The next step starts where the page stayed, on the app.
    const next = await policed.act('look around', async () => undefined, { maxMs: 0 });
    expect(next.verdict.status).toBe('passed');
  });

  it('is stopped when a meta refresh fires after the page was opened', async () => {
    const policed = await suite.open('/refreshing.html');
    await sleep(AFTER_LATE_MS);
    expect(otherRequests()).toEqual([]);
    expect(policed.url()).toBe(`${suite.servers.app.origin}/refreshing.html`);
  });

  it('is stopped when a popup the step opened moves itself to another origin later', async () => {
    const policed = await suite.open('/start.html');
    const outcome = await policed.act('open the moving window', tapOn('button', 'Open moving window'), { maxMs: 0 });
    expect(outcome.verdict.status).toBe('passed');
    await sleep(AFTER_LATE_MS);
    expect(otherRequests()).toEqual([]);
    expect(popups().map((page) => page.url())).toEqual([`${suite.servers.app.origin}/mover.html`]);
  });

  it('never shows the other origin in a popup opened after the step through two redirects (the second hop is caught once sent)', async () => {
    const policed = await suite.open('/start.html');
    const outcome = await policed.act('open the two-hop window after the step', tapOn('button', 'Open two-hop window after the step'), { maxMs: 0 });
    expect(outcome.verdict.status).toBe('passed');
    await sleep(AFTER_LATE_MS);
    // A popup's first load starts before its page can be watched (README): the hop is on the wire, its answer never shown.
    expect(otherRequests().length).toBeLessThanOrEqual(1);
    for (const page of popups()) expect(page.url()).not.toContain(suite.servers.other.origin);
    expect(policed.url()).toBe(`${suite.servers.app.origin}/start.html`);
  });

  it("is stopped when the test's own code navigates there outside app.open", async () => {
    const policed = await suite.open('/start.html');
    const error = await policed.instance.session.open(`${suite.servers.other.origin}/outside.html`).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'POLICY_DENIED' });
    expect(otherRequests()).toEqual([]);
  });
});

describe('a step that starts on a refused origin', () => {
  it('says where the page is and does not act there', async () => {
    const policed = await suite.open('/start.html');
    // app.open may go anywhere: the test says where it starts.
    await policed.runner.opening(() => policed.instance.session.open(`${suite.servers.other.origin}/outside.html?token=abc`));
    expect(otherRequests()).toEqual(['/outside.html']);
    let acted = false;
    const outcome = await policed.act('tap something there', async () => {
      acted = true;
    });
    expect(acted).toBe(false);
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(outcome.verdict.summary).toContain(`The page is at ${suite.servers.other.origin}/outside.html?…`);
    expect(outcome.verdict.summary).not.toContain('token=abc');
  });
});

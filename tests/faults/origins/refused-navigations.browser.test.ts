/**
 * DESIGN §9 on real Chromium: every way a page can take the agent to another origin, caused by
 * an agent action during a step, ends the step `POLICY_DENIED`, and the other origin's server
 * never receives the navigation. Frames count as navigations: a document of another origin is
 * not loaded into a frame either.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { originSuite } from './support/origin-suite.js';
import { tapOn, type PolicedPage } from './support/policed-page.js';

/** Time for anything that would have been sent to arrive before the counter is read. */
const ARRIVAL_MS = 300;

const suite = originSuite();
/** Requests the other origin had received when the running test began. */
let otherBefore = 0;

beforeEach(() => {
  otherBefore = suite.servers.other.requests.length;
});

function openStart(): Promise<PolicedPage> {
  return suite.open('/start.html');
}

/** What the other origin received during this test, read once anything in flight had time to land. */
async function otherRequests(): Promise<string[]> {
  await sleep(ARRIVAL_MS);
  return suite.servers.other.requests.slice(otherBefore);
}

describe('an agent action that leaves the allowed origins', () => {
  it('following a link to another origin is POLICY_DENIED with the URL redacted, and the page stays', async () => {
    const policed = await openStart();
    const outcome = await policed.act('follow the partner link', tapOn('link', 'Partner site'));
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(outcome.verdict.summary).toContain(`${suite.servers.other.origin}/landing.html?…`);
    expect(outcome.verdict.summary).not.toContain('token=abc');
    expect(policed.url()).toBe(`${suite.servers.app.origin}/start.html`);
    expect(await otherRequests()).toEqual([]);
  });

  it('a 302 from the allowed origin to another one is stopped before the hop is sent, every time', async () => {
    const policed = await openStart();
    // The leak this guards against was a race (the hop went out about half the time): repeat it.
    for (let round = 0; round < 10; round++) {
      const outcome = await policed.act('follow the redirect link', tapOn('link', 'Redirect away'));
      expect(outcome.verdict, `round ${round}`).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
      expect(outcome.verdict.summary).toContain(`${suite.servers.other.origin}/redirected.html?…`);
      expect(policed.url(), `round ${round}`).toBe(`${suite.servers.app.origin}/start.html`);
    }
    expect(suite.servers.app.requests.filter((path) => path === '/redirect-away')).toHaveLength(10);
    expect(await otherRequests()).toEqual([]);
  });

  it('a redirect to another origin two hops down a chain of allowed ones is stopped too', async () => {
    const policed = await openStart();
    const outcome = await policed.act('follow the two-hop link', tapOn('link', 'Two hops away'));
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(suite.servers.app.requests).toEqual(expect.arrayContaining(['/hop-one', '/hop-two']));
    expect(policed.url()).toBe(`${suite.servers.app.origin}/start.html`);
    expect(await otherRequests()).toEqual([]);
  });

  it('navigate() to an allowed URL that redirects away is POLICY_DENIED', async () => {
    const policed = await openStart();
    const outcome = await policed.act('go to the redirect', async (context) => {
      await context.actions.navigate(`${suite.servers.app.origin}/redirect-away`);
    });
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(await otherRequests()).toEqual([]);
  });

  it('window.open to another origin is stopped before the popup loads anything', async () => {
    const policed = await openStart();
    const outcome = await policed.act('open the partner window', tapOn('button', 'Open partner window'));
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(outcome.verdict.summary).toContain(`${suite.servers.other.origin}/popup.html`);
    expect(await otherRequests()).toEqual([]);
  });

  it('a popup on the allowed origin that redirects to another one is stopped at the redirect', async () => {
    const policed = await openStart();
    const outcome = await policed.act('open the redirecting window', tapOn('button', 'Open redirecting window'));
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(outcome.verdict.summary).toContain(`${suite.servers.other.origin}/redirected.html?…`);
    expect(suite.servers.app.requests).toContain('/redirect-away');
    expect(await otherRequests()).toEqual([]);
  });

  it('a popup whose second redirect hop leaves is POLICY_DENIED once that hop is sent (the known gap in README)', async () => {
    const policed = await openStart();
    const outcome = await policed.act('open the two-hop window', tapOn('button', 'Open two-hop window'));
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(outcome.verdict.summary).toContain(`${suite.servers.other.origin}/two-hops.html`);
    // A popup's first load starts before its page can be watched: the hop after an allowed redirect is caught once sent.
    expect((await otherRequests()).length).toBeLessThanOrEqual(1);
  });

  it('location.href set by a script after a timer is stopped when the timer fires', async () => {
    const policed = await openStart();
    const outcome = await policed.act('press the button that leaves later', tapOn('button', 'Leave later'), { maxMs: 3000 });
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(outcome.verdict.summary).toContain(`${suite.servers.other.origin}/timer.html`);
    expect(policed.url()).toBe(`${suite.servers.app.origin}/start.html`);
    expect(await otherRequests()).toEqual([]);
  });

  it('a form POST whose action is another origin is never sent', async () => {
    const policed = await openStart();
    const outcome = await policed.act('send the partner form', tapOn('button', 'Send to partner'));
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(outcome.verdict.summary).toContain(`${suite.servers.other.origin}/submit`);
    expect(policed.url()).toBe(`${suite.servers.app.origin}/start.html`);
    expect(await otherRequests()).toEqual([]);
  });

  it('a form POST the app answers with a 303 to another origin is stopped at the redirect', async () => {
    const policed = await openStart();
    const outcome = await policed.act('send the leaving form', tapOn('button', 'Send and leave'));
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(suite.servers.app.requests).toContain('/submit-away');
    expect(await otherRequests()).toEqual([]);
  });

  it('an iframe of another origin that an action inserts is blocked: frames are navigations too', async () => {
    const policed = await openStart();
    const outcome = await policed.act('embed the partner', tapOn('button', 'Embed partner'));
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(outcome.verdict.summary).toContain(`${suite.servers.other.origin}/frame.html`);
    expect(policed.url()).toBe(`${suite.servers.app.origin}/start.html`);
    expect(await otherRequests()).toEqual([]);
  });

  it('navigating to an allowed page that embeds another origin blocks the frame and ends the step', async () => {
    const policed = await openStart();
    const outcome = await policed.act('open the embedding page', async (context) => {
      await context.actions.navigate(`${suite.servers.app.origin}/embedding.html`);
    });
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(outcome.verdict.summary).toContain(`${suite.servers.other.origin}/frame.html`);
    expect(await otherRequests()).toEqual([]);
  });

  it.each([
    ['file:', 'file:///etc/hostname'],
    ['javascript:', 'javascript:document.title="elsewhere"'],
    ['data:', 'data:text/html,<h1>elsewhere</h1>'],
  ])('navigate() to a %s URL is POLICY_DENIED (only http and https)', async (_scheme, url) => {
    const policed = await openStart();
    const outcome = await policed.act('navigate off the web', async (context) => {
      await context.actions.navigate(url);
    });
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(outcome.verdict.summary).toContain('only http and https');
    expect(policed.url()).toBe(`${suite.servers.app.origin}/start.html`);
    expect(await otherRequests()).toEqual([]);
  });
});

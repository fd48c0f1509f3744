/**
 * The other half of the origin policy on real Chromium: navigations it allows behave as they
 * would without it. Redirect chains land where the server says, with every hop's cookies and
 * each hop requested once; a POST keeps its method and body; popups and frames (whose
 * documents the guard answers through route.fetch) load like top-level pages.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Page } from '@playwright/test';
import { surfaceOf } from '../../../engines/web/index.js';
import { originSuite } from './support/origin-suite.js';
import { tapOn, type PolicedPage } from './support/policed-page.js';

const suite = originSuite();
const { engine } = suite;
let appBefore = 0;

beforeEach(() => {
  appBefore = suite.servers.app.requests.length;
});

const open = (path: string): Promise<PolicedPage> => suite.open(path);

/** How often the app served `path` during this test. */
function served(path: string): number {
  return suite.servers.app.requests.slice(appBefore).filter((seen) => seen === path).length;
}

/** The attempt's pages other than its own (popups). */
function popups(): Page[] {
  const own = surfaceOf(engine).page();
  return surfaceOf(engine).context().pages().filter((candidate) => candidate !== own);
}

function landedPopup(): Page | undefined {
  return popups().find((popup) => popup.url().includes('/landed.html'));
}

describe('navigations the policy allows', () => {
  it('a redirect chain (302, then 307) lands on its last URL with the cookies of every hop, each hop requested once', async () => {
    const policed = await open('/start.html');
    const outcome = await policed.act('follow the local redirect', tapOn('link', 'Local redirect'), { until: () => policed.url().includes('/landed.html'), maxMs: 5000 });
    expect(outcome.verdict).toMatchObject({ status: 'passed' });
    expect(policed.url()).toBe(`${suite.servers.app.origin}/landed.html?via=two-hops`);
    expect(await surfaceOf(engine).page().textContent('#cookies')).toBe('cookies: first=1; second=2');
    expect([served('/hop-local'), served('/hop-local-two'), served('/landed.html')]).toEqual([1, 1, 1]);
  });

  it('a same-origin form POST keeps its method and body, and follows the 303', async () => {
    const policed = await open('/start.html');
    const postsBefore = suite.servers.posts.length;
    const outcome = await policed.act('send the local form', tapOn('button', 'Send here'), { until: () => policed.url().includes('/landed.html'), maxMs: 5000 });
    expect(outcome.verdict).toMatchObject({ status: 'passed' });
    expect(suite.servers.posts.slice(postsBefore)).toEqual(['q=hello+local']);
    expect(policed.url()).toBe(`${suite.servers.app.origin}/landed.html?posted=${postsBefore + 1}`);
    expect(served('/submit')).toBe(1);
  });

  it('a popup on the allowed origin follows its redirect chain with the cookies of every hop', async () => {
    const policed = await open('/start.html');
    const outcome = await policed.act('open the local window', tapOn('button', 'Open local window'), { until: () => landedPopup() !== undefined, maxMs: 5000 });
    expect(outcome.verdict).toMatchObject({ status: 'passed' });
    const popup = landedPopup();
    expect(popup?.url()).toBe(`${suite.servers.app.origin}/landed.html?via=two-hops`);
    await popup?.waitForLoadState();
    expect(await popup?.textContent('#cookies')).toBe('cookies: first=1; second=2');
    expect([served('/hop-local'), served('/hop-local-two'), served('/landed.html')]).toEqual([1, 1, 1]);
  });

  it('a form POST into a new window keeps its body', async () => {
    const policed = await open('/start.html');
    const postsBefore = suite.servers.posts.length;
    const outcome = await policed.act('send the form in a new window', tapOn('button', 'Send in new window'), { until: () => landedPopup() !== undefined, maxMs: 5000 });
    expect(outcome.verdict).toMatchObject({ status: 'passed' });
    expect(suite.servers.posts.slice(postsBefore)).toEqual(['q=hello+window']);
    expect(landedPopup()?.url()).toBe(`${suite.servers.app.origin}/landed.html?posted=${postsBefore + 1}`);
    expect(served('/submit')).toBe(1);
  });

  it('a form POST inside a same-origin frame keeps its body, and the frame follows the 303', async () => {
    const policed = await open('/framed-form.html');
    await surfaceOf(engine).page().frameLocator('iframe').getByRole('button', { name: 'Send from frame' }).waitFor();
    const postsBefore = suite.servers.posts.length;
    const frameLanded = (): boolean => surfaceOf(engine).page().frames().some((frame) => frame.url().includes('/landed.html'));
    const outcome = await policed.act('send the form in the frame', tapOn('button', 'Send from frame'), { until: frameLanded, maxMs: 5000 });
    expect(outcome.verdict).toMatchObject({ status: 'passed' });
    expect(suite.servers.posts.slice(postsBefore)).toEqual(['q=hello+frame']);
    expect(frameLanded()).toBe(true);
    expect(policed.url()).toBe(`${suite.servers.app.origin}/framed-form.html`);
    expect(served('/submit')).toBe(1);
  });

  it("the test's own app.open goes anywhere, between steps", async () => {
    const policed = await open('/start.html');
    const otherBefore = suite.servers.other.requests.length;
    await policed.runner.opening(() => policed.instance.session.open(`${suite.servers.other.origin}/outside.html`));
    expect(suite.servers.other.requests.slice(otherBefore)).toEqual(['/outside.html']);
    expect(policed.url()).toBe(`${suite.servers.other.origin}/outside.html`);
  });
});

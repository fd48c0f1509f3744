/**
 * The probe of the Playwright internals e2e relies on: the installed Playwright has each one,
 * and a stand-in without one is refused by name with the fix, never run weaker.
 */
import { chromium, test as playwrightTest } from '@playwright/test';
import { describe, expect, it } from 'vitest';
import { asInternalCall, copyTestRegistrations, isListingRun, missingInternalError, playwrightTestVersion, probePlaywrightInternals, requirePlaywrightInternals, TESTED_PLAYWRIGHT } from '../../runner/playwright-internals.js';
import { resolveLaunchOptions } from '../../engines/web/browser-discovery.js';
import { scaledTimeout } from '../support/load-scaled.js';

describe('the Playwright internals probe', () => {
  it('finds every internal in the installed Playwright, on a real page', async () => {
    const browser = await chromium.launch(resolveLaunchOptions({ env: process.env }));
    try {
      const page = await browser.newPage();
      expect(probePlaywrightInternals({ page, locator: page.locator('body'), reporterOptions: { _mode: 'test' }, failureSnapshot: true, testInfo: { _addStep: () => ({}) } })).toEqual([]);
      expect(await asInternalCall(page, async () => page.evaluate(() => 1 + 1))).toBe(2);
      await expect(asInternalCall(page, async () => Promise.reject(new Error('kept as it was')))).rejects.toThrow(/^kept as it was$/);
      // The test registration the audit's copies of a test go through (what they declare: cache-audit.process.test.ts).
      expect(copyTestRegistrations(playwrightTest, () => [], () => false)).toBe(true);
    } finally {
      await browser.close();
    }
  }, scaledTimeout(60_000));

  it('names each missing internal and the fix, with the tested range', () => {
    const missing = probePlaywrightInternals({ testInfo: {}, locator: {}, page: {}, reporterOptions: {}, failureSnapshot: { source: 'function takePageSnapshot() {}' } });
    expect(missing).toEqual(['TestInfo._addStep', 'Locator._expect', 'Page._wrapApiCall', 'the reporter option _mode', 'PLAYWRIGHT_NO_COPY_PROMPT']);
    const error = missingInternalError(['PLAYWRIGHT_NO_COPY_PROMPT'], '1.99.0');
    expect(error.code).toBe('UNSUPPORTED_CAPABILITY');
    expect(error.message).toContain('@playwright/test 1.99.0');
    expect(error.message).toContain('PLAYWRIGHT_NO_COPY_PROMPT (keeps the failure page snapshot');
    expect(error.message).toContain(`npm install -D @playwright/test@${TESTED_PLAYWRIGHT.newest}`);
    expect(() => requirePlaywrightInternals({ page: {} })).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_CAPABILITY' }));
  });

  it('refuses to run engine work on a page without _wrapApiCall instead of running it unwrapped', async () => {
    let ran = false;
    await expect(asInternalCall({}, async () => (ran = true))).rejects.toMatchObject({ code: 'UNSUPPORTED_CAPABILITY', message: expect.stringContaining('Page._wrapApiCall') });
    expect(ran).toBe(false);
    expect(await asInternalCall(undefined, async () => 'no host, no Playwright')).toBe('no host, no Playwright');
  });

  it("reads the project's @playwright/test version and the listing mode", () => {
    expect(playwrightTestVersion()).toMatch(/^1\.\d+\.\d+/);
    expect(isListingRun({ _mode: 'list' })).toBe(true);
    expect(isListingRun({ _mode: 'test' })).toBe(false);
  });
});

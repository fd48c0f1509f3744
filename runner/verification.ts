/**
 * Verifications (DESIGN §6): a passing assertion on a locator or a page tells the current
 * attempt "a verification passed" after the latest step; the cache later records only `act`
 * steps that such a verification followed. Assertions on plain values are not counted.
 *
 * e2e's `expect` is Playwright's own, so `expect` from `e2e` and from `@playwright/test` are
 * one function and count alike: the attempt watches Playwright's `expect` steps and locator
 * assertions (expect-verifications.ts) and delivers each on the runner's `onVerification`
 * seam. There is no second channel and no module state.
 */
import { expect as playwrightExpect } from '@playwright/test';

/**
 * Playwright's `expect`; a passing assertion on a locator or page also counts as a
 * verification of the agent steps before it.
 */
export const expect: typeof playwrightExpect = playwrightExpect;

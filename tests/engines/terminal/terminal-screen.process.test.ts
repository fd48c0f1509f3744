/**
 * The `screen` fixture's value on a terminal target, with Playwright's own `expect`: locators by
 * role, text and label that the web-first matchers take (retrying until the screen shows it),
 * strict like Playwright's, with Playwright's failure messages plus the screen as it was; what a
 * passing check looked at, by node id; and the audit's mutation surface (keystrokes swallowed,
 * nodes hidden) on a real program.
 */
import { expect as playwrightExpect, type Page } from '@playwright/test';
import { afterEach, describe, expect, it } from 'vitest';
import type { TerminalAttemptHost } from '../../../engines/terminal/terminal-attempt.js';
import { coffeeProgram, nodeNamed, openTerminal, type OpenTerminal } from '../../support/terminal-programs.js';

const open: OpenTerminal[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((each) => each.close()));
});

/** The coffee program started, its attempt's host, and its screen typed as the fixture types it (Playwright's `Page`). */
async function coffee(): Promise<{ program: OpenTerminal; host: TerminalAttemptHost; screen: Page }> {
  const program = await openTerminal(coffeeProgram());
  open.push(program);
  await program.settled();
  const { host } = program.instance as unknown as { host: TerminalAttemptHost };
  return { program, host, screen: host.screen as unknown as Page };
}

describe('the screen of a terminal attempt', () => {
  it("takes Playwright's web-first matchers on its locators, waiting for the program to draw", async () => {
    const { host, screen } = await coffee();
    await playwrightExpect(screen.getByRole('menuitem', { name: 'Espresso' })).toBeVisible();
    await playwrightExpect(screen.getByRole('menuitem', { selected: true })).toHaveText('Espresso');
    await playwrightExpect(screen.getByRole('menu', { name: 'Pick a drink' }).getByRole('menuitem')).toHaveCount(4);
    await playwrightExpect(screen.getByRole('menuitem')).toContainText(['Latte', 'Flat white']);
    await playwrightExpect(screen.locator(':root')).toContainText('Pick a drink');
    await screen.keyboard.press('ArrowDown');
    await screen.keyboard.press('Enter');
    // Retried until the next screen is drawn.
    await playwrightExpect(screen.getByText('Extras for your Latte')).toBeVisible();
    await playwrightExpect(screen.getByRole('checkbox', { name: 'Oat milk' })).not.toBeChecked();
    await screen.keyboard.press('Space');
    await playwrightExpect(screen.getByLabel('Oat milk')).toBeChecked();
    await playwrightExpect(screen.getByRole('menuitem')).toHaveCount(0);
    expect(await screen.getByRole('checkbox').allTextContents()).toEqual(['Oat milk', 'Extra shot', 'Cinnamon']);
    expect(await screen.title()).toBe('Coffee');
    expect(await host.screen.text()).toContain('[x] Oat milk');
  });

  it("fails as Playwright does, strict about several matches, and shows the screen it last saw", async () => {
    const { host, screen } = await coffee();
    const missing = await playwrightExpect(screen.getByText('Mocha')).toBeVisible({ timeout: 300 }).catch((error: Error) => error);
    expect(String(missing)).toContain("Locator:  getByText('Mocha')");
    expect(String(missing)).toContain('Received: hidden');
    expect(String(missing)).toContain('│   Cappuccino');
    const several = await playwrightExpect(screen.getByRole('menuitem')).toBeVisible({ timeout: 300 }).catch((error: Error) => error);
    expect(String(several)).toContain("strict mode violation: getByRole('menuitem') resolved to 4 elements");
    expect(() => host.screen.locator('.menu')).toThrow(/has no CSS/);
  });

  it('tells which nodes a check looked at, by the ids of the latest observation', async () => {
    const { program, host } = await coffee();
    const observation = await program.instance.observe();
    expect(await host.lookedAt(host.screen.getByRole('menuitem', { name: 'Latte' }))).toEqual([nodeNamed(observation.root, 'menuitem', 'Latte').id]);
    expect(await host.lookedAt(host.screen.getByText('Mocha'))).toBeUndefined();
    expect(await host.lookedAt({ some: 'locator of another screen' })).toBeUndefined();
  });

  it('swallows every keystroke while the audit silences the program, and hides the nodes it is told to', async () => {
    const { program, host, screen } = await coffee();
    const undo = await host.mutations.silenceHandlers();
    await screen.keyboard.press('ArrowDown');
    await playwrightExpect(screen.getByRole('menuitem', { selected: true })).toHaveText('Espresso');
    await undo();
    await screen.keyboard.press('ArrowDown');
    await playwrightExpect(screen.getByRole('menuitem', { selected: true })).toHaveText('Latte');
    const before = await program.instance.observe();
    const flatWhite = nodeNamed(before.root, 'menuitem', 'Flat white');
    await host.mutations.hideNodes([flatWhite.id]);
    const after = await program.instance.observe();
    expect(after.nodeCount).toBe(before.nodeCount - 1);
    expect(JSON.stringify(after.root)).not.toContain('Flat white');
    expect(await host.screen.text()).not.toContain('Flat white');
    await expect(program.instance.perform({ id: flatWhite.id }, { verb: 'tap' }, { timeoutMs: 5000 })).rejects.toMatchObject({ engineCode: 'NODE_STALE' });
  });
});

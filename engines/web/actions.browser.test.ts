import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isEngineError, type EngineAction, type EngineInstance, type EngineObservation, type Rect } from '../../contract/engine.js';
import { decodePng } from '../../tests/support/png.js';
import { nodeNamed } from '../../tests/support/screen-tree.js';
import { scaledTimeout } from '../../tests/support/load-scaled.js';
import { webEngineOnFolder } from '../../tests/support/web-engine-on-folder.js';
import { surfaceOf } from './index.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const TIMEOUT = { timeoutMs: 5000 };

const live = webEngineOnFolder(FIXTURES);
const { engine } = live;

/** Open a fixture page in a fresh attempt and observe it. */
async function open(path = 'actions.html'): Promise<{ instance: EngineInstance; screen: EngineObservation }> {
  const attempt = await live.start();
  await attempt.session.open(live.url + path);
  await surfaceOf(engine).page().waitForLoadState('load');
  return { instance: attempt, screen: await attempt.observe() };
}

/** Do `action` on the node `role "name"`. */
async function act(instance: EngineInstance, screen: EngineObservation, role: string, name: string, action: EngineAction, timeoutMs = 5000): Promise<void> {
  await instance.perform(nodeNamed(screen.root, role, name), action, { timeoutMs });
}

/** The page's event log. */
async function events(): Promise<string> {
  return surfaceOf(engine).page().locator('#log').innerText();
}

/** What an action threw, for code checks. */
async function failure(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => new Error('expected the action to fail'),
    (error: unknown) => error,
  );
}

function center(rect: Rect | undefined): { x: number; y: number } {
  if (rect === undefined) throw new Error('node has no rect');
  return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
}

describe('web engine verbs on nodes', () => {
  it('taps, double-taps, long-presses, right-clicks and hovers', async () => {
    const { instance, screen } = await open();
    await act(instance, screen, 'button', 'Tap me', { verb: 'tap' });
    await act(instance, screen, 'button', 'Double me', { verb: 'doubleTap' });
    await act(instance, screen, 'button', 'Hold me', { verb: 'longPress' });
    await act(instance, screen, 'button', 'Right me', { verb: 'secondaryTap' });
    await act(instance, screen, 'button', 'Hover me', { verb: 'hover' });
    expect(await events()).toBe('tap double long context hover');
  });

  it('types with replace, appends without it, and presses keys on a node and on the page', async () => {
    const { instance, screen } = await open();
    await act(instance, screen, 'textbox', 'Name', { verb: 'type', value: 'Grace', replace: true });
    await act(instance, screen, 'textbox', 'Name', { verb: 'type', value: ' Hopper', replace: false });
    await act(instance, screen, 'textbox', 'Key field', { verb: 'press', key: 'Enter' });
    await instance.performOnPage({ verb: 'typeText', value: 'x' }, TIMEOUT);
    await instance.performOnPage({ verb: 'press', key: 'Tab' }, TIMEOUT);
    const after = await instance.observe();
    expect(nodeNamed(after.root, 'textbox', 'Name').value).toBe('Grace Hopper');
    expect(nodeNamed(after.root, 'textbox', 'Key field').value).toBe('x');
    expect(await events()).toBe('key:Enter key:x key:Tab');
  });

  it('selects by label or value and names the choices when nothing matches', async () => {
    const { instance, screen } = await open();
    await act(instance, screen, 'combobox', 'Color', { verb: 'select', value: 'Green' });
    expect(nodeNamed((await instance.observe()).root, 'combobox', 'Color').value).toBe('Green');
    await act(instance, screen, 'combobox', 'Color', { verb: 'select', value: 'r' });
    expect(nodeNamed((await instance.observe()).root, 'combobox', 'Color').value).toBe('Red');
    const error = await failure(act(instance, screen, 'combobox', 'Color', { verb: 'select', value: 'Blue' }));
    expect(isEngineError(error) && error.engineCode).toBe('NOT_ACTIONABLE');
    expect(String((error as Error).message)).toContain('"Red", "Green"');
  });

  it('checks and unchecks native and ARIA checkboxes', async () => {
    const { instance, screen } = await open();
    await act(instance, screen, 'checkbox', 'Agree', { verb: 'check', checked: true });
    await act(instance, screen, 'checkbox', 'Custom agree', { verb: 'check', checked: true });
    let after = await instance.observe();
    expect(nodeNamed(after.root, 'checkbox', 'Agree').states).toContain('checked');
    expect(nodeNamed(after.root, 'checkbox', 'Custom agree').states).toContain('checked');
    await act(instance, screen, 'checkbox', 'Agree', { verb: 'check', checked: false });
    after = await instance.observe();
    expect(nodeNamed(after.root, 'checkbox', 'Agree').states).not.toContain('checked');
  });

  it('scrolls a container, the page, and a node into view', async () => {
    const { instance, screen } = await open();
    const page = surfaceOf(engine).page();
    await act(instance, screen, 'region', 'Scroller', { verb: 'scroll', direction: 'down' });
    expect(await page.locator('#scroller').evaluate((element) => element.scrollTop)).toBe(80);
    await instance.performOnPage({ verb: 'scroll', direction: 'down' }, TIMEOUT);
    expect(await page.evaluate(() => window.scrollY)).toBe(576);
    await act(instance, screen, 'button', 'Far away', { verb: 'scrollTo' });
    const far = nodeNamed((await instance.observe()).root, 'button', 'Far away');
    expect(far.rect?.y).toBeGreaterThanOrEqual(0);
    expect(far.rect?.y).toBeLessThan(720);
  });

  it('uploads into a file input and through a button that opens a file chooser', async () => {
    const { instance, screen } = await open();
    const file = join(FIXTURES, 'upload.txt');
    await act(instance, screen, 'button', 'Attachment', { verb: 'upload', paths: [file] });
    expect(nodeNamed((await instance.observe()).root, 'button', 'Attachment').value).toBe('upload.txt');
    await act(instance, screen, 'button', 'Choose files', { verb: 'upload', paths: [file] });
    expect(await events()).toBe('chosen:upload.txt');
  });

  it('drags one node onto another (HTML drag and drop)', async () => {
    const { instance, screen } = await open();
    const target = nodeNamed(screen.root, 'text', 'Drop here');
    await act(instance, screen, 'text', 'Drag me', { verb: 'drag', destination: { id: target.id } });
    expect(await surfaceOf(engine).page().locator('#drop-target').innerText()).toBe('Dropped: Drag me');
  });

  it('acts inside a same-origin iframe', async () => {
    const { instance, screen } = await open('screen.html');
    await act(instance, screen, 'button', 'Apply', { verb: 'tap' });
    await act(instance, screen, 'textbox', 'Coupon', { verb: 'type', value: 'AUTUMN', replace: true });
    const frame = nodeNamed((await instance.observe()).root, 'iframe', 'Embedded form');
    expect(frame.children.map((child) => `${child.role} ${child.name}${child.value === undefined ? '' : '=' + child.value}`)).toEqual(['textbox Coupon=AUTUMN', 'button Apply', 'text Applied']);
  });
});

describe('web engine page and point verbs', () => {
  it('navigates and goes back', async () => {
    const { instance } = await open();
    await instance.performOnPage({ verb: 'navigate', url: live.url + 'second.html' }, TIMEOUT);
    expect(instance.session.url()).toBe(live.url + 'second.html');
    expect(nodeNamed((await instance.observe()).root, 'heading', 'Second page').role).toBe('heading');
    await instance.performOnPage({ verb: 'back' }, TIMEOUT);
    expect(instance.session.url()).toBe(live.url + 'actions.html');
    await instance.session.back();
    expect(instance.session.url()).toBe('about:blank');
  });

  it('taps, hovers and drags at points, and hit-tests a point to its node', async () => {
    const { instance, screen } = await open();
    const target = nodeNamed(screen.root, 'text', 'Point target');
    const button = nodeNamed(screen.root, 'button', 'Tap me');
    // Hit-test first: the event log grows below and moves things once events arrive.
    expect(await instance.hitTest?.(center(target.rect))).toEqual({ id: target.id });
    expect(await instance.hitTest?.(center(button.rect))).toEqual({ id: button.id });
    expect(instance.performAt).toBeDefined();
    await instance.performAt?.({ x: 650, y: 70 }, { verb: 'hoverAt' }, TIMEOUT);
    expect(await surfaceOf(engine).page().locator('#point-target').getAttribute('data-hovered')).toBe('yes');
    await instance.performAt?.({ x: 650, y: 70 }, { verb: 'tapAt' }, TIMEOUT);
    await instance.performAt?.({ x: 740, y: 40 }, { verb: 'dragAt', to: { x: 900, y: 100 } }, TIMEOUT);
    expect(await events()).toBe('point:650,70 pad:740,40>900,100');
  });

  it('masks password fields and requested nodes in screenshots', async () => {
    const { instance, screen } = await open();
    const password = nodeNamed(screen.root, 'textbox', 'Password');
    const tapButton = nodeNamed(screen.root, 'button', 'Tap me');
    const nameField = nodeNamed(screen.root, 'textbox', 'Name');
    const png = decodePng(await instance.screenshot({ mask: [{ id: tapButton.id }] }));
    expect(png.width).toBe(1280);
    const magenta: [number, number, number] = [255, 0, 255];
    expect(png.pixel(center(password.rect).x, center(password.rect).y)).toEqual(magenta);
    expect(png.pixel(center(tapButton.rect).x, center(tapButton.rect).y)).toEqual(magenta);
    expect(png.pixel(center(nameField.rect).x, center(nameField.rect).y)).not.toEqual(magenta);
    // The mask marker does not stay behind in the app's DOM.
    expect(await surfaceOf(engine).page().locator('[data-e2e-mask]').count()).toBe(0);
  });
});

describe('web engine failures', () => {
  it('reports NODE_STALE for an id whose element is gone or never existed', async () => {
    const { instance, screen } = await open();
    const button = nodeNamed(screen.root, 'button', 'Tap me');
    await surfaceOf(engine).page().evaluate(() => document.querySelector('button')?.remove());
    const gone = await failure(instance.perform(button, { verb: 'tap' }, TIMEOUT));
    expect(isEngineError(gone) && gone.engineCode).toBe('NODE_STALE');
    expect(isEngineError(gone) && gone.code).toBe('ACTION_FAILED');
    const unknown = await failure(instance.perform({ id: 'n99999' }, { verb: 'tap' }, TIMEOUT));
    expect(isEngineError(unknown) && unknown.engineCode).toBe('NODE_STALE');
  });

  it('reports NOT_ACTIONABLE with what is in the way for a covered element', async () => {
    const { instance, screen } = await open('covered.html');
    const error = await failure(act(instance, screen, 'button', 'Under the overlay', { verb: 'tap' }, scaledTimeout(1500)));
    expect(isEngineError(error) && error.engineCode).toBe('NOT_ACTIONABLE');
    expect(String((error as Error).message)).toContain('<div id="overlay" class="modal-backdrop"></div> intercepts pointer events');
  });

  // Timeouts leave room for Playwright's first actionability check on a loaded machine.
  it('reports NOT_ACTIONABLE for a disabled element and never echoes the typed value', async () => {
    const { instance, screen } = await open();
    const disabled = await failure(act(instance, screen, 'button', 'Disabled', { verb: 'tap' }, scaledTimeout(1500)));
    expect(isEngineError(disabled) && disabled.engineCode).toBe('NOT_ACTIONABLE');
    expect(String((disabled as Error).message)).toContain('element is not enabled');
    const locked = await failure(act(instance, screen, 'textbox', 'Locked', { verb: 'type', value: 'sekret-value-42', replace: true }, scaledTimeout(1500)));
    expect(isEngineError(locked) && locked.engineCode).toBe('NOT_ACTIONABLE');
    expect(String((locked as Error).message)).not.toContain('sekret-value-42');
    const wrongVerb = await failure(act(instance, screen, 'button', 'Tap me', { verb: 'type', value: 'sekret-value-42', replace: true }, scaledTimeout(400)));
    expect(isEngineError(wrongVerb) && wrongVerb.engineCode).toBe('NOT_ACTIONABLE');
    expect(String((wrongVerb as Error).message)).not.toContain('sekret-value-42');
  });

  it('rejects with CANCELLED when the signal aborts during an action', async () => {
    const { instance, screen } = await open();
    const controller = new AbortController();
    const pending = instance.perform(nodeNamed(screen.root, 'button', 'Disabled'), { verb: 'tap' }, { timeoutMs: 5000, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const error = await failure(pending);
    expect((error as { code?: string }).code).toBe('CANCELLED');
  });
});

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isEngineError, type EngineInstance, type EngineObservation } from '../../contract/engine.js';
import { nodeNamed } from '../../tests/support/screen-tree.js';
import { webEngineOnFolder } from '../../tests/support/web-engine-on-folder.js';
import { surfaceOf } from './index.js';
import { inPageFunction } from './observe-page.js';
import { pointerReady } from './pointer-ready.js';

const live = webEngineOnFolder(join(dirname(fileURLToPath(import.meta.url)), 'fixtures'));
const TIMEOUT = { timeoutMs: 5000 };

async function open(): Promise<{ instance: EngineInstance; screen: EngineObservation }> {
  const instance = await live.start();
  await instance.session.open(live.url + 'pointer.html');
  await surfaceOf(live.engine).page().waitForLoadState('load');
  return { instance, screen: await instance.observe() };
}

/** Whether the quick path would act on the element `selector` (in the page, or in its open shadow root). */
async function readyAt(selector: string, { needsEnabled = true, id }: { needsEnabled?: boolean; id?: string } = {}): Promise<boolean> {
  const page = surfaceOf(live.engine).page();
  const handle = selector.startsWith('frame:')
    ? await page.frameLocator('#frame').locator(selector.slice('frame:'.length)).elementHandle()
    : await page.locator(selector).elementHandle();
  if (handle === null) throw new Error(`fixture lost ${selector}`);
  try {
    return await pointerReady(handle, id === undefined ? { needsEnabled } : { needsEnabled, id });
  } finally {
    await handle.dispose();
  }
}

async function log(): Promise<string> {
  return surfaceOf(live.engine).page().locator('#log').innerText();
}

describe('pointer readiness (the quick path of pointer actions)', () => {
  it('is ready for a visible, enabled, still, unobstructed element, also one hit through its inner words or a shadow root', async () => {
    await open();
    expect(await readyAt('#plain')).toBe(true);
    expect(await readyAt('#wrapper')).toBe(true);
    expect(await readyAt('#shadowed')).toBe(true);
  });

  it('is not ready whenever Playwright would wait or refuse, so Playwright decides', async () => {
    await open();
    for (const selector of ['#disabled', '#aria-disabled', '#hidden', '#no-pointer', '#covered', '#moving', '#inert', '#wrapped', '#far', '#edge', 'frame:#framed']) {
      expect({ selector, ready: await readyAt(selector) }).toEqual({ selector, ready: false });
    }
    // Hovering does not need the element enabled.
    expect(await readyAt('#disabled', { needsEnabled: false })).toBe(true);
  });

  it('takes the box of the latest walk as its first sample once a frame was drawn since, so a still element costs no frame', async () => {
    const { instance } = await open();
    const page = surfaceOf(live.engine).page();
    // Count the page's animation-frame requests (the walk's, and those of a readiness check that waits).
    await page.evaluate(() => {
      const counted = window as unknown as { frameRequests: number };
      const original = window.requestAnimationFrame.bind(window);
      counted.frameRequests = 0;
      window.requestAnimationFrame = (callback) => {
        counted.frameRequests++;
        return original(callback);
      };
    });
    const requests = (): Promise<number> => page.evaluate(() => (window as unknown as { frameRequests: number }).frameRequests);
    const plain = nodeNamed((await instance.observe()).root, 'button', 'Plain').id;
    await page.waitForTimeout(100);
    // The walk asked for one frame, or two when the first came too soon on the animation clock.
    const afterWalk = await requests();
    expect(afterWalk).toBeGreaterThanOrEqual(1);
    expect(afterWalk).toBeLessThanOrEqual(2);
    expect(await readyAt('#plain', { id: plain })).toBe(true);
    expect(await requests()).toBe(afterWalk);
    // Moved since the walk: the check waits for a frame and compares afresh.
    await page.evaluate(() => {
      document.getElementById('plain')!.style.marginLeft = '30px';
    });
    expect(await readyAt('#plain', { id: plain })).toBe(true);
    expect(await requests()).toBeGreaterThan(afterWalk);
  });

  it('never takes a box in motion for still, from the walk or from a fresh sample (many tries, as the clock can lead the frame)', async () => {
    const { instance } = await open();
    const page = surfaceOf(live.engine).page();
    let ready = 0;
    for (let round = 0; round < 40; round++) {
      const moving = nodeNamed((await instance.observe()).root, 'button', 'Moving').id;
      await page.waitForTimeout(round % 25);
      if (await readyAt('#moving', { id: moving })) ready++;
      if (await readyAt('#moving')) ready++;
    }
    expect(ready).toBe(0);
  });

  it('runs its in-page functions with inner named functions, as TS runners with keepNames emit them', async () => {
    await open();
    const handle = await surfaceOf(live.engine).page().locator('#plain').elementHandle();
    // What esbuild's keepNames makes of `const label = () => …` inside the function.
    const compiled = new Function('return (element, argument) => { const label = __name(() => element.textContent + argument, "label"); return label(); };')() as (element: Element, argument: string) => string;
    expect(await handle!.evaluate(inPageFunction(compiled), '!')).toBe('Plain!');
    await handle!.dispose();
  });

  it('acts on ready and unready elements alike: quick where it can, Playwright scrolling and waiting where it cannot', async () => {
    const { instance, screen } = await open();
    await instance.perform(nodeNamed(screen.root, 'button', 'Plain'), { verb: 'tap' }, TIMEOUT);
    await instance.perform(nodeNamed(screen.root, 'button', 'Inner words'), { verb: 'tap' }, TIMEOUT);
    await instance.perform(nodeNamed(screen.root, 'button', 'Shadowed'), { verb: 'tap' }, TIMEOUT);
    await instance.perform(nodeNamed(screen.root, 'button', 'Far'), { verb: 'tap' }, TIMEOUT);
    expect(await log()).toBe('plain wrapper shadowed far');
  });

  it('checks like Playwright: no click when already so, one click otherwise, and a box that will not change is NOT_ACTIONABLE', async () => {
    const { instance, screen } = await open();
    const box = nodeNamed(screen.root, 'checkbox', 'Box');
    await instance.perform(box, { verb: 'check', checked: true }, TIMEOUT);
    await instance.perform(box, { verb: 'check', checked: true }, TIMEOUT);
    await instance.perform(nodeNamed(screen.root, 'checkbox', 'Custom'), { verb: 'check', checked: true }, TIMEOUT);
    const page = surfaceOf(live.engine).page();
    expect(await page.locator('#box').isChecked()).toBe(true);
    expect(await page.locator('#custom').getAttribute('aria-checked')).toBe('true');
    expect(await log()).toBe('box custom');
    const stuck = await instance.perform(nodeNamed(screen.root, 'checkbox', 'Stuck'), { verb: 'check', checked: true }, TIMEOUT).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isEngineError(stuck) && stuck.engineCode).toBe('NOT_ACTIONABLE');
    expect(String((stuck as Error).message)).toContain('did not change its state');
    expect(await log()).toBe('box custom stuck');
    // Unchecking a checkbox works; a radio button cannot be unchecked, in Playwright's words.
    await instance.perform(box, { verb: 'check', checked: false }, TIMEOUT);
    expect(await page.locator('#box').isChecked()).toBe(false);
    const radio = await instance.perform(nodeNamed(screen.root, 'radio', 'Small'), { verb: 'check', checked: false }, TIMEOUT).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isEngineError(radio) && radio.engineCode).toBe('NOT_ACTIONABLE');
    expect(String((radio as Error).message)).toMatch(/uncheck radio/i);
  });
});

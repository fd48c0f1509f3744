/**
 * One verb, done with Playwright. Node actions use Playwright's own actionability waits
 * (visible, stable, enabled, receives events) bounded by the caller's timeout; page and
 * point actions use the keyboard and mouse directly. Errors are translated by the caller.
 */
import type { ElementHandle, Page } from '@playwright/test';
import { EngineError, type EngineAction, type KeyModifier, type PointAction, type Point, type ScrollDirection, type SessionAction } from '../../contract/engine.js';
import { inPageFunction } from './observe-page.js';
import { checkedState, pointerReady } from './pointer-ready.js';
import { noOptionError, notSelectError, optionIndexInPage } from './quick-action.js';

/** How long a long press holds the pointer down. */
export const LONG_PRESS_MS = 800;
/** Share of the visible size one scroll moves. */
const SCROLL_SHARE = 0.8;

/** Milliseconds left until `deadline`, at least 1 (Playwright reads 0 as "no timeout"). */
function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

/** Wait `milliseconds`. */
function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Scroll deltas for a direction over a visible size. */
function scrollDelta(direction: ScrollDirection, width: number, height: number): { x: number; y: number } {
  switch (direction) {
    case 'up':
      return { x: 0, y: -Math.round(height * SCROLL_SHARE) };
    case 'down':
      return { x: 0, y: Math.round(height * SCROLL_SHARE) };
    case 'left':
      return { x: -Math.round(width * SCROLL_SHARE), y: 0 };
    case 'right':
      return { x: Math.round(width * SCROLL_SHARE), y: 0 };
  }
}

/*
 * Callbacks handed to `evaluate` below define no named inner functions: TS runners with
 * `keepNames` (tsx) wrap those in a `__name` helper that does not exist inside the page.
 */

/** In page: scroll the element, or its nearest scrollable ancestor, by a share of its size. */
async function scrollElement(element: ElementHandle<Element>, direction: ScrollDirection): Promise<void> {
  await element.evaluate(
    (start, { towards, share }) => {
      const vertical = towards === 'up' || towards === 'down';
      const owner = start.ownerDocument;
      const view = owner.defaultView ?? window;
      let target: Element | null = start;
      while (target !== null) {
        const style = view.getComputedStyle(target);
        const overflow = vertical ? style.overflowY : style.overflowX;
        const room = vertical ? target.scrollHeight > target.clientHeight : target.scrollWidth > target.clientWidth;
        if (room && (overflow === 'auto' || overflow === 'scroll')) break;
        target = target.parentElement;
      }
      const page = target === null || target === owner.scrollingElement;
      const scroller = target ?? owner.scrollingElement ?? owner.documentElement;
      const width = page ? view.innerWidth : scroller.clientWidth;
      const height = page ? view.innerHeight : scroller.clientHeight;
      const sign = towards === 'up' || towards === 'left' ? -1 : 1;
      scroller.scrollBy({ left: vertical ? 0 : sign * width * share, top: vertical ? sign * height * share : 0, behavior: 'instant' });
    },
    { towards: direction, share: SCROLL_SHARE },
  );
}

const OPTION_INDEX = inPageFunction(optionIndexInPage);

/** The index of the option whose value or label is `wanted` (see {@link optionIndexInPage}). */
function optionIndex(element: ElementHandle<Element>, wanted: string): Promise<{ index: number; choices: string[] } | { notSelect: true }> {
  return element.evaluate(OPTION_INDEX, wanted);
}

/** Playwright's `modifiers` option for a tap that holds keys. */
function modifiersOf(action: { modifiers?: readonly KeyModifier[] }): { modifiers?: KeyModifier[] } {
  return action.modifiers === undefined || action.modifiers.length === 0 ? {} : { modifiers: [...action.modifiers] };
}

/** An element to act on; `position` (relative to its box) points at a `text` node's words. */
export interface ActionTarget {
  element: ElementHandle<Element>;
  /** The id the element was found by (absent for a `text` node's parent). */
  id?: string;
  position?: { x: number; y: number };
  /** Set when the quick path (quick-action.ts) just found the pointer conditions not to hold. */
  notReady?: true;
}

/** Do `action` on `target`, within `timeoutMs`. `resolveDestination` finds a drag target. */
export async function performOnElement(page: Page, target: ActionTarget, action: EngineAction, timeoutMs: number, resolveDestination: (id: string) => Promise<ActionTarget>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const { element } = target;
  const at = target.position === undefined ? {} : { position: target.position };
  // Pointer actions skip Playwright's frame-long checks when the element is ready now (pointer-ready.ts).
  const ready = async (needsEnabled: boolean): Promise<boolean> =>
    target.notReady !== true && (await pointerReady(element, { ...at, ...(target.id === undefined ? {} : { id: target.id }), needsEnabled }));
  switch (action.verb) {
    case 'tap':
      return element.click({ ...at, ...modifiersOf(action), timeout: remaining(deadline), force: await ready(true) });
    case 'doubleTap':
      return element.dblclick({ ...at, ...modifiersOf(action), timeout: remaining(deadline), force: await ready(true) });
    case 'secondaryTap':
      return element.click({ ...at, ...modifiersOf(action), button: 'right', timeout: remaining(deadline), force: await ready(true) });
    case 'hover':
      return element.hover({ ...at, timeout: remaining(deadline), force: await ready(false) });
    case 'longPress':
      await element.hover({ ...at, timeout: remaining(deadline) });
      await page.mouse.down();
      await pause(LONG_PRESS_MS);
      await page.mouse.up();
      return;
    case 'type':
      if (action.replace) return element.fill(action.value, { timeout: remaining(deadline) });
      // Appending types key by key at the end of what is there, as a user would.
      await element.click({ timeout: remaining(deadline) });
      await element.evaluate((node) => {
        if (node instanceof HTMLInputElement || node instanceof HTMLTextAreaElement) {
          const end = node.value.length;
          try {
            node.setSelectionRange(end, end);
          } catch {
            // Inputs such as type=email do not support selection ranges.
          }
        } else if ((node as HTMLElement).isContentEditable) {
          const selection = node.ownerDocument.getSelection();
          selection?.selectAllChildren(node);
          selection?.collapseToEnd();
        }
      });
      await page.keyboard.type(action.value);
      return;
    case 'press':
      return element.press(action.key, { timeout: remaining(deadline) });
    case 'select': {
      const found = await optionIndex(element, action.value);
      if ('notSelect' in found) throw notSelectError();
      if (found.index < 0) throw noOptionError(action.value, found.choices);
      await element.selectOption({ index: found.index }, { timeout: remaining(deadline) });
      return;
    }
    case 'check': {
      // As Playwright's setChecked: nothing to do when already so; one click; the state must follow.
      // Unchecking stays Playwright's, which refuses it for a radio button in its own words.
      const state = await checkedState(element);
      if (state === action.checked) return;
      if (state === null || !action.checked || !(await ready(true))) return element.setChecked(action.checked, { timeout: remaining(deadline) });
      await element.click({ timeout: remaining(deadline), force: true });
      if ((await checkedState(element)) !== action.checked) throw new EngineError('NOT_ACTIONABLE', 'Clicking the checkbox did not change its state.');
      return;
    }
    case 'scroll':
      return scrollElement(element, action.direction);
    case 'scrollTo':
      return element.scrollIntoViewIfNeeded({ timeout: remaining(deadline) });
    case 'upload': {
      const isFileInput = await element.evaluate((node) => node instanceof HTMLInputElement && node.type === 'file');
      if (isFileInput) return element.setInputFiles(action.paths, { timeout: remaining(deadline) });
      // A button that opens a file chooser: answer the chooser it opens.
      const [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout: remaining(deadline) }), element.click({ timeout: remaining(deadline) })]);
      await chooser.setFiles(action.paths, { timeout: remaining(deadline) });
      return;
    }
    case 'drag': {
      const destination = await resolveDestination(action.destination.id);
      const to = destination.position === undefined ? {} : { position: destination.position };
      try {
        await element.hover({ ...at, timeout: remaining(deadline) });
        await page.mouse.down();
        // Two moves over the target, so dragenter and dragover both fire (as Playwright's dragTo does).
        await destination.element.hover({ ...to, timeout: remaining(deadline), force: true });
        await destination.element.hover({ ...to, timeout: remaining(deadline) });
        await page.mouse.up();
      } finally {
        await destination.element.dispose().catch(() => undefined);
      }
      return;
    }
    default:
      // A verb of the table (`contract/verbs.ts`) without its case here does not compile.
      return unknownVerb(action);
  }
}

/** An action of no verb this engine knows (a newer contract's). */
function unknownVerb(action: never): never {
  throw new EngineError('UNSUPPORTED_CAPABILITY', `the web engine has no action ${(action as { verb: string }).verb}.`);
}

/** Do a page-level action within `timeoutMs`. */
export async function performOnPage(page: Page, action: SessionAction, timeoutMs: number): Promise<void> {
  switch (action.verb) {
    case 'navigate':
      await page.goto(action.url, { waitUntil: 'domcontentloaded', timeout: timeoutMs });
      return;
    case 'back':
      await page.goBack({ waitUntil: 'domcontentloaded', timeout: timeoutMs });
      return;
    case 'press':
      return page.keyboard.press(action.key);
    case 'typeText':
      return page.keyboard.type(action.value);
    case 'resize':
      return page.setViewportSize({ width: action.width, height: action.height });
    case 'scroll': {
      const viewport = page.viewportSize() ?? { width: 1280, height: 720 };
      const delta = scrollDelta(action.direction, viewport.width, viewport.height);
      await page.evaluate(({ x, y }) => (document.scrollingElement ?? document.documentElement).scrollBy({ left: x, top: y, behavior: 'instant' }), delta);
      return;
    }
    default:
      return unknownVerb(action);
  }
}

/** Do a point action with the mouse. */
export async function performAtPoint(page: Page, point: Point, action: PointAction): Promise<void> {
  switch (action.verb) {
    case 'tapAt':
      return page.mouse.click(point.x, point.y);
    case 'hoverAt':
      return page.mouse.move(point.x, point.y);
    case 'dragAt':
      await page.mouse.move(point.x, point.y);
      await page.mouse.down();
      await page.mouse.move(action.to.x, action.to.y, { steps: 8 });
      await page.mouse.up();
      return;
    default:
      return unknownVerb(action);
  }
}

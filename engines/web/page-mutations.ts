/**
 * The web side of `e2e cache audit`'s mutants (`contract/mutation.ts`): silence the page's own
 * event listeners while the browser's defaults still happen, and hide the nodes a judgment's
 * evidence rests on. Both work in every same-origin frame, through the ids the walker keeps.
 */
import type { Frame, Page } from '@playwright/test';
import type { MutationSurface } from '../../contract/mutation.js';
import { inPageExpression } from './observe-page.js';

/**
 * Events a user's action fires that an app listens for. A capture listener on `window` hears
 * each first (React and others delegate to their root, which sits below it).
 */
const SILENCED_EVENTS = [
  'pointerdown', 'pointerup', 'pointermove', 'pointerover', 'pointerout', 'pointerenter', 'pointerleave', 'pointercancel',
  'mousedown', 'mouseup', 'mousemove', 'mouseover', 'mouseout', 'mouseenter', 'mouseleave',
  'click', 'dblclick', 'auxclick', 'contextmenu', 'touchstart', 'touchend', 'touchmove',
  'keydown', 'keyup', 'keypress', 'beforeinput', 'input', 'change', 'submit', 'reset', 'select',
  'focus', 'blur', 'focusin', 'focusout', 'compositionstart', 'compositionend', 'paste', 'cut', 'copy',
  'dragstart', 'drag', 'dragenter', 'dragover', 'dragleave', 'drop', 'dragend', 'wheel',
];

/** In page: stop `events` at the window, before any listener of the page, without cancelling their defaults. */
function silenceInPage(events: string[]): boolean {
  const key = Symbol.for('e2e.silenced');
  const holder = window as unknown as Record<symbol, (() => void) | undefined>;
  if (holder[key] !== undefined) return true;
  // stopImmediatePropagation without preventDefault: the app never hears it, the browser still acts.
  const stop = (event: Event): void => event.stopImmediatePropagation();
  for (const type of events) window.addEventListener(type, stop, { capture: true });
  holder[key] = () => {
    for (const type of events) window.removeEventListener(type, stop, { capture: true });
    holder[key] = undefined;
  };
  return true;
}

/** In page: undo {@link silenceInPage}. */
function unsilenceInPage(): boolean {
  const holder = window as unknown as Record<symbol, (() => void) | undefined>;
  holder[Symbol.for('e2e.silenced')]?.();
  return true;
}

/** In page: hide the elements behind `ids` (a text node hides its parent); returns how many. */
function hideInPage(ids: string[]): number {
  const state = (window as unknown as Record<symbol, { elements: Map<string, Node> } | undefined>)[Symbol.for('e2e.observer')];
  let hidden = 0;
  for (const id of ids) {
    const node = state?.elements.get(id);
    if (node === undefined || !node.isConnected) continue;
    const element = node.nodeType === 1 ? (node as HTMLElement) : node.parentElement;
    if (element === null || element.style === undefined) continue;
    element.style.setProperty('display', 'none', 'important');
    hidden++;
  }
  return hidden;
}

const SILENCE = silenceInPage.toString();
const UNSILENCE = unsilenceInPage.toString();
const HIDE = hideInPage.toString();

async function inEveryFrame(page: Page, expression: string): Promise<void> {
  const frames: Frame[] = page.frames();
  for (const frame of frames) {
    try {
      await frame.evaluate(expression);
    } catch {
      // A cross-origin or detached frame holds none of the app's listeners we could reach.
    }
  }
}

/** The mutation surface of a Playwright page. */
export function pageMutationSurface(page: Page): MutationSurface {
  return {
    async silenceHandlers() {
      await inEveryFrame(page, inPageExpression(SILENCE, SILENCED_EVENTS));
      return () => inEveryFrame(page, inPageExpression(UNSILENCE, null));
    },
    async hideNodes(ids) {
      if (ids.length > 0) await inEveryFrame(page, inPageExpression(HIDE, [...ids]));
    },
  };
}

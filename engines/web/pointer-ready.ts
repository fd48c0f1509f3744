/**
 * The quick path for pointer actions. Playwright's own checks before a click wait for two
 * animation frames (a box sample at each) and then intercept the events; between actions that
 * costs a whole extra frame whenever anything ran in the page since the last action (as an
 * observation always does). Here the same conditions are checked in one evaluate that waits
 * a frame at most (rarely two): attached, visible, enabled, not inert, a single box that held
 * still across a frame (since the latest walk, or else across the next one), wholly in view,
 * and the element (or something inside it) is what the pointer would hit. When all hold, the
 * input goes to the point checked (quick-action.ts), or Playwright sends it with its checks
 * skipped (`force`) where the element came as a handle; when any does not, or the
 * element sits in a frame, the caller goes the usual way and Playwright waits and reports as
 * it always does. So the quick path only ever answers "ready now"; every wait and every
 * failure message stays Playwright's.
 */
import type { ElementHandle } from '@playwright/test';
import { inPageFunction } from './observe-page.js';
import { STILL_GAP_MS } from './page-walk.js';

/** Options of {@link pointerReady}. */
export interface PointerReadinessOptions {
  /** The element's id in the latest walk, whose box may already show it held still (see below). */
  id?: string;
  /** A point relative to the element's padding box (as Playwright's `position`); default its centre. */
  position?: { x: number; y: number };
  /** Whether the element must be enabled (clicks do; hovering does not). */
  needsEnabled: boolean;
}

/** Longest wait for each animation frame; a page that paints no frames goes the usual way. */
export const FRAME_WAIT_MS = 100;
/** The same after the quick path scrolled the element into view: drawing the scrolled page may take longer (a list of 200,000 rows). */
export const SCROLLED_FRAME_WAIT_MS = 1_000;

/*
 * In page (sent through inPageFunction). `requestAnimationFrame` and `setTimeout` are the
 * page's; if an app replaced them and no frame comes, the answer is "not ready" and
 * Playwright's path runs.
 */
export async function readinessInPage(
  element: Element,
  args: { id: string | null; position: { x: number; y: number } | null; needsEnabled: boolean; frameWaitMs: number; stillGapMs: number },
): Promise<{ x: number; y: number } | null> {
  const notReady = null;
  const view = element.ownerDocument.defaultView;
  if (!element.isConnected || view === null || view.top !== view) return notReady;
  if (element.getClientRects().length !== 1) return notReady;
  if (typeof element.checkVisibility !== 'function' || !element.checkVisibility({ visibilityProperty: true })) return notReady;
  if (element.closest('[inert]') !== null) return notReady;
  if (args.needsEnabled && (element.matches(':disabled') || element.closest('[aria-disabled="true"]') !== null)) return notReady;
  const before = element.getBoundingClientRect();
  if (before.width === 0 || before.height === 0) return notReady;
  // Held still: the same box at two times of the page's animation clock at least stillGapMs
  // apart (see STILL_GAP_MS), with a frame drawn in between. The first sample is the latest
  // walk's once such a frame was drawn since (page-walk.ts watches for it), or else now and
  // the second inside a frame callback: outside frames the clock moves on by itself while the
  // boxes stay as the last frame left them.
  // NaN (no timeline) never counts as moved on, so such a page goes Playwright's way.
  const clock = (): number => Number(view.document.timeline?.currentTime);
  const state = (view as unknown as Record<symbol, { boxes?: Map<string, number[]>; frameSinceWalk?: { seen: boolean } } | undefined>)[Symbol.for('e2e.observer')];
  const walked = args.id === null ? undefined : state?.boxes?.get(args.id);
  const heldSinceWalk =
    state?.frameSinceWalk?.seen === true &&
    walked !== undefined &&
    walked[0] === before.left &&
    walked[1] === before.top &&
    walked[2] === before.width &&
    walked[3] === before.height;
  let box = before;
  if (!heldSinceWalk) {
    const started = clock();
    let frameClock = started;
    for (let frames = 0; frames < 3 && !(frameClock - started >= args.stillGapMs); frames++) {
      const framed = await new Promise<boolean>((resolve) => {
        const timer = view.setTimeout(() => resolve(false), args.frameWaitMs);
        view.requestAnimationFrame(() => {
          view.clearTimeout(timer);
          frameClock = clock();
          resolve(true);
        });
      });
      if (!framed) return notReady;
    }
    if (!(frameClock - started >= args.stillGapMs) || !element.isConnected) return notReady;
    box = element.getBoundingClientRect();
    if (box.left !== before.left || box.top !== before.top || box.width !== before.width || box.height !== before.height) return notReady;
  }
  const x = args.position === null ? box.left + box.width / 2 : box.left + element.clientLeft + args.position.x;
  const y = args.position === null ? box.top + box.height / 2 : box.top + element.clientTop + args.position.y;
  // Wholly in view, so Playwright's scroll-if-needed leaves it where it was checked.
  if (box.left < 0 || box.top < 0 || box.right > view.innerWidth || box.bottom > view.innerHeight) return notReady;
  let hit: Element | null = element.ownerDocument.elementFromPoint(x, y);
  for (let guard = 0; hit?.shadowRoot != null && guard < 32; guard++) {
    const inner: Element | null = hit.shadowRoot.elementFromPoint(x, y);
    if (inner === null || inner === hit) break;
    hit = inner;
  }
  for (let node: Node | null = hit; node !== null; node = node.parentNode ?? (node.nodeType === 11 ? (node as ShadowRoot).host : null)) {
    if (node === element) return { x, y };
  }
  return notReady;
}

const READINESS = inPageFunction(readinessInPage);

/** Whether a pointer action on `element` may go ahead at once, its checks skipped (see the module comment). */
export async function pointerReady(element: ElementHandle<Element>, options: PointerReadinessOptions): Promise<boolean> {
  // Failures propagate (a detached element is NODE_STALE either way): a fault in this code
  // must not hide behind Playwright's path.
  const point = await element.evaluate(READINESS, { id: options.id ?? null, position: options.position ?? null, needsEnabled: options.needsEnabled, frameWaitMs: FRAME_WAIT_MS, stillGapMs: STILL_GAP_MS });
  return point !== null;
}

/** In page: the checked state of a checkbox, radio or `aria-checked` element (null when not checkable). */
export function checkedInPage(element: Element): boolean | null {
  const input = element as HTMLInputElement;
  if (element.localName === 'input' && (input.type === 'checkbox' || input.type === 'radio')) return input.checked;
  const ariaChecked = element.getAttribute('aria-checked');
  return ariaChecked === 'true' ? true : ariaChecked === 'false' ? false : null;
}

const CHECKED = inPageFunction(checkedInPage);

/** The element's checked state, or null when it is not checkable. */
export function checkedState(element: ElementHandle<Element>): Promise<boolean | null> {
  return element.evaluate(CHECKED, undefined);
}

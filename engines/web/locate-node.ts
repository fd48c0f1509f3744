/**
 * From node ids back to the page: an id resolves through the per-document id state that
 * {@link walkPage} keeps, in whichever frame owns it, to a Playwright `ElementHandle`.
 * No attribute is written to the app's DOM for this, so its observers never see us.
 */
import type { ElementHandle, Frame, Page } from '@playwright/test';
import type { Point } from '../../contract/engine.js';
import { inPageExpression, inPageFunction } from './observe-page.js';

/** In page: the live element behind an id in this document (a text node gives its parent). */
function elementOfIdInPage(id: string): Element | null {
  const state = (window as unknown as Record<symbol, { elements: Map<string, Node> } | undefined>)[Symbol.for('e2e.observer')];
  const node = state?.elements.get(id);
  if (node === undefined || !node.isConnected) return null;
  return node.nodeType === 1 ? (node as Element) : node.parentElement;
}

/** In page: the id of the listed node under a point, through shadow roots and same-origin iframes. */
function idAtPointInPage(point: { x: number; y: number }): string | null {
  interface IdState {
    ids: WeakMap<Node, string>;
    elements: Map<string, Node>;
  }
  const key = Symbol.for('e2e.observer');
  let x = point.x;
  let y = point.y;
  let element: Element | null = document.elementFromPoint(x, y);
  for (let guard = 0; element !== null && guard < 32; guard++) {
    const inner = element.shadowRoot?.elementFromPoint(x, y) ?? null;
    if (inner !== null && inner !== element) {
      element = inner;
      continue;
    }
    if (element.localName === 'iframe') {
      let frameDocument: Document | null = null;
      try {
        frameDocument = (element as HTMLIFrameElement).contentDocument;
      } catch {
        frameDocument = null;
      }
      if (frameDocument !== null) {
        const box = element.getBoundingClientRect();
        x -= box.left + element.clientLeft;
        y -= box.top + element.clientTop;
        const framed = frameDocument.elementFromPoint(x, y);
        if (framed !== null) {
          element = framed;
          continue;
        }
      }
    }
    break;
  }
  for (let node: Element | null = element; node !== null; ) {
    const state = (node.ownerDocument.defaultView as unknown as Record<symbol, IdState | undefined> | null)?.[key];
    const id = state?.ids.get(node);
    if (id !== undefined && state?.elements.get(id) === node) return id;
    // Words directly inside an unlisted wrapper are a `text` node keyed by their first text node.
    for (let child = node.firstChild; child !== null && state !== undefined; child = child.nextSibling) {
      const textId = child.nodeType === 3 ? state.ids.get(child) : undefined;
      if (textId !== undefined && state.elements.get(textId) === child) return textId;
    }
    const parent: Node | null = node.parentNode;
    if (node.parentElement !== null) node = node.parentElement;
    else if (parent !== null && parent.nodeType === 11) node = (parent as ShadowRoot).host;
    else node = node.ownerDocument.defaultView?.frameElement ?? null;
  }
  return element === null ? null : 'root';
}

/** In page: for a `text` node id, the centre of its first words relative to the parent element's box. */
function textPositionInPage(id: string): { x: number; y: number } | null {
  const state = (window as unknown as Record<symbol, { elements: Map<string, Node> } | undefined>)[Symbol.for('e2e.observer')];
  const node = state?.elements.get(id);
  if (node === undefined || node.nodeType !== 3 || node.parentElement === null || node.ownerDocument === null) return null;
  const range = node.ownerDocument.createRange();
  range.selectNodeContents(node);
  const words = range.getBoundingClientRect();
  const box = node.parentElement.getBoundingClientRect();
  if (words.width === 0 || words.height === 0) return null;
  return { x: words.left + words.width / 2 - box.left, y: words.top + words.height / 2 - box.top };
}

/** In page: put (or, with `undefined`, take off) a mask marker on the elements behind ids. */
function markForMaskInPage(ids: string[] | null): number {
  const state = (window as unknown as Record<symbol, { elements: Map<string, Node>; masked?: Element[] } | undefined>)[Symbol.for('e2e.observer')];
  if (state === undefined) return 0;
  for (const element of state.masked ?? []) element.removeAttribute('data-e2e-mask');
  state.masked = [];
  for (const id of ids ?? []) {
    const node = state.elements.get(id);
    const element = node === undefined ? null : node.nodeType === 1 ? (node as Element) : node.parentElement;
    if (element !== null && element.isConnected) {
      element.setAttribute('data-e2e-mask', '');
      state.masked.push(element);
    }
  }
  return state.masked.length;
}

const ELEMENT_OF_ID = elementOfIdInPage.toString();
const ID_AT_POINT = idAtPointInPage.toString();
const MARK_FOR_MASK = markForMaskInPage.toString();
const TEXT_POSITION = textPositionInPage.toString();

/** Frames to search for an id: the main frame first, then the others. */
function framesOf(page: Page, id: string): Frame[] {
  const main = page.mainFrame();
  if (id === 'root') return [main];
  return [main, ...page.frames().filter((frame) => frame !== main && !frame.isDetached())];
}

/** An element found for an id, and the frame that holds it. */
export interface ResolvedElement {
  element: ElementHandle<Element>;
  frame: Frame;
}

/** The element behind `id`, or undefined when the id no longer lives in any frame. */
export async function resolveElement(page: Page, id: string): Promise<ResolvedElement | undefined> {
  for (const frame of framesOf(page, id)) {
    let handle;
    try {
      handle = await frame.evaluateHandle(inPageExpression(ELEMENT_OF_ID, id));
    } catch {
      continue; // A frame that navigated or went away cannot hold the id.
    }
    const element = handle.asElement() as ElementHandle<Element> | null;
    if (element !== null) return { element, frame };
    await handle.dispose();
  }
  return undefined;
}

/** Where to point at a `text` node inside the element {@link resolveElement} gave for it. */
export async function textPosition(frame: Frame, id: string): Promise<{ x: number; y: number } | undefined> {
  const position = (await frame.evaluate(inPageExpression(TEXT_POSITION, id))) as { x: number; y: number } | null;
  return position ?? undefined;
}

/** The id of the listed node at a point (`root` when none), or undefined off the page. */
export async function idAtPoint(page: Page, point: Point): Promise<string | undefined> {
  const id = (await page.mainFrame().evaluate(inPageExpression(ID_AT_POINT, { x: point.x, y: point.y }))) as string | null;
  return id ?? undefined;
}

/** Mark the elements behind `ids` (in every frame) for masking; returns how many were marked. */
export async function markForMask(page: Page, ids: string[] | null): Promise<number> {
  let marked = 0;
  for (const frame of page.frames()) {
    try {
      marked += (await frame.evaluate(inPageExpression(MARK_FOR_MASK, ids))) as number;
    } catch {
      // Cross-origin or detached frames have no ids of ours.
    }
  }
  return marked;
}

/** The attribute {@link markForMask} sets. */
export const MASK_ATTRIBUTE = 'data-e2e-mask';

/**
 * In page: the id of the listed node that stands for `element` — the element itself, a
 * `text` node keyed by one of its text children, else its nearest listed ancestor.
 */
function listedIdOfElementInPage(element: Element): string | null {
  interface IdState {
    ids: WeakMap<Node, string>;
    elements: Map<string, Node>;
  }
  const state = (element.ownerDocument.defaultView as unknown as Record<symbol, IdState | undefined> | null)?.[Symbol.for('e2e.observer')];
  if (state === undefined) return null;
  const listed = (node: Node): string | null => {
    const id = state.ids.get(node);
    return id !== undefined && state.elements.get(id) === node ? id : null;
  };
  for (let node: Element | null = element; node !== null; node = node.parentElement) {
    const own = listed(node);
    if (own !== null) return own;
    for (let child = node.firstChild; child !== null; child = child.nextSibling) {
      const textId = child.nodeType === 3 ? listed(child) : null;
      if (textId !== null) return textId;
    }
  }
  return null;
}

const LISTED_ID_OF_ELEMENT = inPageFunction<undefined, string | null>(listedIdOfElementInPage);

/** Something Playwright's `expect` looked at: a locator (page subjects have no nodes). */
interface LocatorLike {
  elementHandles(): Promise<ElementHandle<Node>[]>;
}

function isLocatorLike(value: unknown): value is LocatorLike {
  return typeof value === 'object' && value !== null && typeof (value as { elementHandles?: unknown }).elementHandles === 'function' && typeof (value as { filter?: unknown }).filter === 'function';
}

/**
 * The node ids (of the latest observation) of the elements a Playwright locator matches now,
 * in document order without repeats; empty for a page or anything else. Never throws: a
 * locator that no longer resolves gives what it could.
 */
export async function nodeIdsOf(subject: unknown): Promise<string[]> {
  if (!isLocatorLike(subject)) return [];
  let handles: ElementHandle<Node>[];
  try {
    handles = await subject.elementHandles();
  } catch {
    return [];
  }
  const ids: string[] = [];
  for (const handle of handles) {
    try {
      const element = handle.asElement();
      const id = element === null ? null : await element.evaluate(LISTED_ID_OF_ELEMENT, undefined);
      if (id !== null && !ids.includes(id)) ids.push(id);
    } catch {
      // An element detached meanwhile proves nothing.
    } finally {
      await handle.dispose();
    }
  }
  return ids;
}

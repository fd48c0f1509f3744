/**
 * The quick path of node actions, without an `ElementHandle`. An action through a handle costs
 * Playwright's own work around it: it previews every handle with its injected script in the
 * page's main world (installing a second copy of that script in each document), and adopts the
 * handle into its utility world, and releases it, for every call it makes on it. Here one
 * evaluate, in the top document, finds the element by its id and, when the action can go ahead
 * now, prepares it as Playwright would; the input then goes straight to the page (`page.mouse`,
 * `page.keyboard`). Ready means what Playwright would check: a pointer action the conditions of
 * `pointer-ready.ts`; `fill` (type with replace) a visible, enabled, editable, not inert text
 * field; `select` a visible, enabled, not inert `<select>` with an enabled option that matches.
 * An element out of view is scrolled into view first, as Playwright would, and then checked.
 * Anything else (an id in a frame or gone, a `text` node, held keys, an element not ready now)
 * goes the usual way, where Playwright waits and reports as always.
 */
import type { Page } from '@playwright/test';
import { EngineError, type EngineAction } from '../../contract/engine.js';
import { STILL_GAP_MS } from './page-walk.js';
import { checkedInPage, FRAME_WAIT_MS, readinessInPage, SCROLLED_FRAME_WAIT_MS } from './pointer-ready.js';

/** In page: the index of the `<select>`'s option whose value or label is `wanted` (exact, then trimmed and case-blind), -1 for none, with the choices. */
export function optionIndexInPage(node: Element, wanted: string): { index: number; choices: string[] } | { notSelect: true } {
  if (node.localName !== 'select') return { notSelect: true as const };
  const options = Array.from((node as HTMLSelectElement).options);
  const looseValue = wanted.replace(/\s+/g, ' ').trim().toLowerCase();
  let index = options.findIndex((option) => option.value === wanted || option.label === wanted);
  if (index < 0) {
    index = options.findIndex((option) => option.label.replace(/\s+/g, ' ').trim().toLowerCase() === looseValue || option.value.trim().toLowerCase() === looseValue);
  }
  return { index, choices: options.map((option) => option.label) };
}

/** What the quick path needs from the page, by verb. */
type QuickRequest = { kind: 'pointer'; needsEnabled: boolean } | { kind: 'check'; checked: boolean } | { kind: 'fill' } | { kind: 'select'; value: string } | { kind: 'checked' };

/** The page's answer. */
type QuickAnswer =
  /** The id lives in no element of this document (gone, or in a frame). */
  | { a: 'absent' }
  /** Go the usual way; `notReady`: the pointer conditions were checked and do not hold now. */
  | { a: 'usual'; notReady?: boolean }
  | { a: 'point'; x: number; y: number }
  | { a: 'done' }
  /** The field's text is selected and focused: type the value over it. */
  | { a: 'input' }
  | { a: 'state'; checked: boolean | null }
  | { a: 'notSelect' }
  | { a: 'noOption'; choices: string[] };

/*
 * In page (sent as source): `readiness` and `checked` are pointer-ready.ts's in-page functions,
 * `optionIndex` the one above (the usual way's too), passed in. Inner functions are arrow functions bound to constants (see inPageFunction).
 */
async function quickInPage(
  args: { id: string; request: QuickRequest; frameWaitMs: number; scrolledFrameWaitMs: number; stillGapMs: number },
  readiness: typeof readinessInPage,
  checked: typeof checkedInPage,
  optionIndex: typeof optionIndexInPage,
): Promise<QuickAnswer> {
  const state = (window as unknown as Record<symbol, { elements: Map<string, Node> } | undefined>)[Symbol.for('e2e.observer')];
  const node = state?.elements.get(args.id);
  const request = args.request;
  // After an action, the element it acted on, attached or not (the id keeps naming it until the next walk).
  if (request.kind === 'checked') return { a: 'state', checked: node !== undefined && node.nodeType === 1 ? checked(node as Element) : null };
  if (node === undefined || !node.isConnected) return { a: 'absent' };
  // A text node is pointed at through its words, which the usual way finds.
  if (node.nodeType !== 1) return { a: 'usual' };
  const element = node as Element;
  const view = element.ownerDocument.defaultView;
  if (view === null || view.top !== view) return { a: 'usual' };
  // Playwright's visible, enabled (natively, or by aria-disabled up the composed tree) and not inert.
  const usable = (): boolean => {
    if (typeof element.checkVisibility !== 'function' || !element.checkVisibility({ visibilityProperty: true })) return false;
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || element.matches(':disabled')) return false;
    for (let up: Node | null = element; up !== null; up = up.nodeType === 11 ? (up as ShadowRoot).host : up.parentNode) {
      if (up.nodeType === 1 && ((up as Element).hasAttribute('inert') || (up as Element).getAttribute('aria-disabled')?.toLowerCase() === 'true')) return false;
    }
    return true;
  };
  const pointAt = async (needsEnabled: boolean): Promise<QuickAnswer> => {
    // Out of view (a row far down a long list): scrolled into view first, as Playwright's own
    // scroll-if-needed does (centred where needed), then checked like any other element. The frame
    // after a scroll may take a while to draw on a huge page, so it is waited for longer.
    const box = element.getBoundingClientRect();
    const outOfView = box.width > 0 && box.height > 0 && (box.left < 0 || box.top < 0 || box.right > view.innerWidth || box.bottom > view.innerHeight);
    if (outOfView) {
      const scrollable = element as Element & { scrollIntoViewIfNeeded?: (centerIfNeeded?: boolean) => void };
      if (typeof scrollable.scrollIntoViewIfNeeded === 'function') scrollable.scrollIntoViewIfNeeded(true);
      else element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    }
    const frameWaitMs = outOfView ? args.scrolledFrameWaitMs : args.frameWaitMs;
    const point = await readiness(element, { id: args.id, position: null, needsEnabled, frameWaitMs, stillGapMs: args.stillGapMs });
    return point === null ? { a: 'usual', notReady: true } : { a: 'point', x: point.x, y: point.y };
  };
  switch (request.kind) {
    case 'pointer':
      return pointAt(request.needsEnabled);
    case 'check': {
      // As Playwright's setChecked: nothing to do when already so; unchecking stays Playwright's.
      const now = checked(element);
      if (now === request.checked) return { a: 'done' };
      if (now === null || !request.checked) return { a: 'usual' };
      return pointAt(true);
    }
    case 'fill': {
      // The fields Playwright's fill types into (not those it sets a value on, nor contenteditable).
      const typed = ['', 'text', 'email', 'password', 'search', 'tel', 'url'];
      const isInput = element.localName === 'input' && typed.includes((element as HTMLInputElement).type.toLowerCase());
      if (!isInput && element.localName !== 'textarea') return { a: 'usual' };
      if (element.hasAttribute('readonly') || !usable()) return { a: 'usual' };
      // Playwright's selectText.
      if (isInput) {
        (element as HTMLInputElement).select();
        (element as HTMLInputElement).focus();
      } else {
        const area = element as HTMLTextAreaElement;
        area.selectionStart = 0;
        area.selectionEnd = area.value.length;
        area.focus();
      }
      return { a: 'input' };
    }
    case 'select': {
      const found = optionIndex(element, request.value);
      if ('notSelect' in found) return { a: 'notSelect' };
      if (found.index < 0) return { a: 'noOption', choices: found.choices };
      const select = element as HTMLSelectElement;
      const option = select.options[found.index]!;
      if (!usable() || option.disabled || option.closest('optgroup[disabled]') !== null) return { a: 'usual' };
      // Playwright's selectOptions.
      (select as unknown as { value: unknown }).value = undefined;
      option.selected = true;
      select.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      select.dispatchEvent(new Event('change', { bubbles: true }));
      return { a: 'done' };
    }
  }
}

const QUICK = quickInPage.toString();
const READINESS = readinessInPage.toString();
const CHECKED = checkedInPage.toString();
const OPTION_INDEX = optionIndexInPage.toString();

function ask(page: Page, id: string, request: QuickRequest): Promise<QuickAnswer> {
  const args = JSON.stringify({ id, request, frameWaitMs: FRAME_WAIT_MS, scrolledFrameWaitMs: SCROLLED_FRAME_WAIT_MS, stillGapMs: STILL_GAP_MS });
  return page.mainFrame().evaluate(`(() => { const __name = (target) => target; return (${QUICK})(${args}, ${READINESS}, ${CHECKED}, ${OPTION_INDEX}); })()`) as Promise<QuickAnswer>;
}

/** What came of {@link quickAction}: done, or go the usual way (`notReady`: the pointer is known not ready now). */
export type QuickOutcome = 'done' | 'usual' | 'notReady';

/** The request of an action the quick path takes, or undefined. */
function requestOf(action: EngineAction): QuickRequest | undefined {
  switch (action.verb) {
    case 'tap':
    case 'doubleTap':
    case 'secondaryTap':
      return action.modifiers === undefined || action.modifiers.length === 0 ? { kind: 'pointer', needsEnabled: true } : undefined;
    case 'hover':
      return { kind: 'pointer', needsEnabled: false };
    case 'check':
      return { kind: 'check', checked: action.checked };
    case 'type':
      return action.replace ? { kind: 'fill' } : undefined;
    case 'select':
      return { kind: 'select', value: action.value };
    default:
      return undefined;
  }
}

/** `select` on something else than a `<select>`. */
export function notSelectError(): EngineError {
  return new EngineError('NOT_ACTIONABLE', 'select works on a <select> element; tap a custom dropdown and then tap its option instead.');
}

/** `select` of a value no option has. */
export function noOptionError(value: string, choices: readonly string[]): EngineError {
  return new EngineError('NOT_ACTIONABLE', `no option matches "${value}"; choices: ${choices.map((choice) => `"${choice}"`).join(', ')}.`);
}

/**
 * Do `action` on the element behind `id` the quick way when it is ready now (see the module
 * comment); otherwise do nothing and say to go the usual way. Failures propagate, as the
 * usual way's do.
 */
export async function quickAction(page: Page, id: string, action: EngineAction): Promise<QuickOutcome> {
  const request = requestOf(action);
  if (request === undefined) return 'usual';
  const answer = await ask(page, id, request);
  switch (answer.a) {
    case 'absent':
    case 'state':
      return 'usual';
    case 'usual':
      return answer.notReady === true ? 'notReady' : 'usual';
    case 'done':
      return 'done';
    case 'notSelect':
      throw notSelectError();
    case 'noOption':
      throw noOptionError((action as { value: string }).value, answer.choices);
    case 'input': {
      const value = (action as { value: string }).value;
      // Playwright's fill: the text typed over the selection, or the selection deleted.
      if (value === '') await page.keyboard.press('Delete');
      else await page.keyboard.insertText(value);
      return 'done';
    }
    case 'point':
      switch (action.verb) {
        case 'doubleTap':
          await page.mouse.dblclick(answer.x, answer.y);
          return 'done';
        case 'secondaryTap':
          await page.mouse.click(answer.x, answer.y, { button: 'right' });
          return 'done';
        case 'hover':
          await page.mouse.move(answer.x, answer.y);
          return 'done';
        case 'check': {
          await page.mouse.click(answer.x, answer.y);
          const after = await ask(page, id, { kind: 'checked' });
          if (after.a !== 'state' || after.checked !== action.checked) throw new EngineError('NOT_ACTIONABLE', 'Clicking the checkbox did not change its state.');
          return 'done';
        }
        default:
          await page.mouse.click(answer.x, answer.y);
          return 'done';
      }
  }
}

/**
 * Playwright failures → typed {@link EngineError}s. Playwright reports actionability in a
 * call log ("element is not enabled", "<div> intercepts pointer events"); we keep the last
 * reason, drop the log (it echoes typed values), and say whether the action may have run.
 */
import { isE2EError, messageOf } from '../../errors/index.js';
import { EngineError, type EngineErrorDetail } from '../../contract/engine.js';

const STALE = /not attached to the DOM|element is detached|was detached|JSHandle is disposed|Node is detached|Cannot find context with specified id|Execution context was destroyed/i;
const CLOSED = /Target page, context or browser has been closed|Target closed|Browser has been closed|browser has disconnected|Connection closed/i;
const UNFIT = /Not a checkbox or radio button|Element is not an? <|Element is not a <select>|Unknown key|Clicking the checkbox did not change its state|did not change its state|Cannot set input files|Non-multiple file input|is not a file input|does not have a role allowing|Element is not a checkbox|Cannot uncheck radio button|Cannot type text into/i;
/** Call-log lines saying the input events were already sent. */
const STARTED = /performing \w[\w ]* action|\w+ action done|waiting for scheduled navigations/i;
/** Call-log lines that explain why the element could not be acted on, most telling first. */
const REASONS: RegExp[] = [/intercepts pointer events/i, /element is not (visible|enabled|stable|editable|attached)/i, /element is outside of the viewport/i, /waiting for element to be [\w, ]+/i];

// Playwright colours its call log with ANSI escapes.
const ANSI = /\u001b\[[0-9;]*m/g;

/** Context for messages: what was attempted, and a typed value that must never be echoed. */
export interface ActionDescription {
  /** e.g. `tap #n12` */
  what: string;
  /** A value the action typed; replaced by `…` wherever Playwright repeats it. */
  sensitive?: string;
}

/** The last, most telling reason of a Playwright call log. */
function reasonOf(log: string[]): string | undefined {
  for (const pattern of REASONS) {
    for (let index = log.length - 1; index >= 0; index--) {
      const line = log[index];
      if (line !== undefined && pattern.test(line)) return line.replace(/^[\s-]*/, '').replace(/^\d+ × /, '');
    }
  }
  return undefined;
}

/** An attribute of an HTML snippet, as Playwright quotes the element. */
function attributeOf(snippet: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`, 'i').exec(snippet)?.[1];
}

/**
 * What takes the pointer, as a typed detail: the element Playwright quotes (`<div class="veil">…</div>
 * intercepts pointer events`), with its ARIA role (explicit, or `dialog` for a `<dialog>`) and
 * label when it has them. Read here, once, so no other part parses Playwright's words.
 */
export function obstructionOf(reason: string): EngineErrorDetail | undefined {
  const snippet = /(<[^\n]*?) intercepts pointer events/i.exec(reason)?.[1];
  if (snippet === undefined) return undefined;
  const role = attributeOf(snippet, 'role') ?? (/^<dialog\b/i.test(snippet) ? 'dialog' : undefined);
  const name = attributeOf(snippet, 'aria-label');
  return { kind: 'obstructed', by: { description: snippet, ...(role === undefined ? {} : { role }), ...(name === undefined || name === '' ? {} : { name }) } };
}

/** Keep a message free of a typed value. */
function scrub(text: string, sensitive: string | undefined): string {
  return sensitive === undefined || sensitive === '' ? text : text.split(sensitive).join('…');
}

/**
 * Translate anything an action threw. E2E errors pass through untouched; the rest become
 * `NODE_STALE`, `NOT_ACTIONABLE`, `ACTION_MAY_HAVE_COMMITTED`, `OPERATION_TIMEOUT` or `ENGINE_FAILURE`.
 */
export function toEngineError(error: unknown, action: ActionDescription): Error {
  if (isE2EError(error)) return error;
  const raw = messageOf(error);
  const lines = raw.replace(ANSI, '').split('\n');
  const headline = scrub((lines[0] ?? '').replace(/^[\w.]+: /, ''), action.sensitive);
  const log = lines.slice(1).map((line) => line.trim());
  const isTimeout = error instanceof Error && error.name === 'TimeoutError';
  const reason = reasonOf(log);
  if (STALE.test(headline)) return new EngineError('NODE_STALE', `${action.what}: the element is gone from the page (${headline}). Observe again and use a current id.`, { cause: error });
  if (CLOSED.test(headline)) return new EngineError('ENGINE_FAILURE', `${action.what}: the browser or page closed (${headline}).`, { cause: error });
  if (UNFIT.test(headline)) return new EngineError('NOT_ACTIONABLE', `${action.what}: ${headline}.`, { cause: error });
  if (isTimeout) {
    if (log.some((line) => STARTED.test(line))) {
      return new EngineError('ACTION_MAY_HAVE_COMMITTED', `${action.what}: timed out after the input was sent (${headline}); the action may have taken effect.`, { cause: error });
    }
    const obstruction = reason === undefined ? undefined : obstructionOf(scrub(reason, action.sensitive));
    if (reason !== undefined && obstruction !== undefined) {
      // Name what is in the way, so the caller can dismiss it (a cookie banner, a dialog).
      return new EngineError('NOT_ACTIONABLE', `${action.what}: something is in the way: ${scrub(reason, action.sensitive)}. Dismiss or close it first.`, { cause: error, detail: obstruction });
    }
    const because = reason === undefined ? '' : ` Last check: ${scrub(reason, action.sensitive)}.`;
    return new EngineError('NOT_ACTIONABLE', `${action.what}: not actionable in time (${headline}).${because}`, { cause: error });
  }
  return new EngineError('ENGINE_FAILURE', `${action.what}: ${headline}`, { cause: error });
}

/**
 * The one error vocabulary of e2e. Every failure a user can see carries a code from
 * {@link ERROR_CODES}; the exit-code class of a run follows from the codes (DESIGN §3).
 * This folder is a leaf: it imports nothing, and every other folder may import it.
 */

import { CODE_TRAITS } from './code-traits.js';
import type { ErrorCode, ExitClass } from './error-codes.js';

export { ERROR_CODES, type ErrorCode, type ExitClass } from './error-codes.js';
export { CODE_TRAITS, codesWith, hasTrait, traitsOf, type CodeTraits } from './code-traits.js';

/** Exit class of one code (DESIGN §3 table). */
export function exitClassOf(code: ErrorCode): ExitClass {
  return CODE_TRAITS[code].exit;
}

/** Highest-wins combination of exit classes: 130 > 3 > 2 > 1 > 0. */
export function combineExitClasses(classes: Iterable<ExitClass>): ExitClass {
  const order: ExitClass[] = [0, 1, 2, 3, 130];
  let best: ExitClass = 0;
  for (const value of classes) if (order.indexOf(value) > order.indexOf(best)) best = value;
  return best;
}

/** True when `value` is one of the known codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(CODE_TRAITS, value);
}

const MARKER = Symbol.for('e2e.error');

/**
 * The base error of e2e. `code` is stable; `message` names the fix and never carries a
 * secret value or decoded cache content.
 */
export class E2EError extends Error {
  /** Marker that survives duplicate module copies (checked by {@link isE2EError}). */
  readonly [MARKER] = true;
  override readonly name: string = 'E2EError';
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/** Cross-copy check for {@link E2EError}. */
export function isE2EError(value: unknown): value is E2EError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}

/** A failed or blocked agent step surfaced to the test (`agent.act` throws it). */
export class AgentError extends E2EError {
  override readonly name: string = 'AgentError';
  readonly status: 'failed' | 'blocked';

  constructor(code: ErrorCode, message: string, status: 'failed' | 'blocked', options?: { cause?: unknown }) {
    super(code, message, options);
    this.status = status;
  }
}

/** Levenshtein distance, for did-you-mean suggestions. */
function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** The nearest of `candidates` to `name`, or undefined when none is close. */
export function nearestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** `text` as one POSIX shell word (single-quoted), so a command a message suggests can be pasted as it is. */
export function shellWord(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** " (did you mean `x`?)" or "" */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const nearest = nearestName(name, candidates);
  return nearest === undefined ? '' : ` (did you mean \`${nearest}\`?)`;
}

/**
 * `error` as the `cause` of a re-raised error, its text passed through `clean` (a redactor)
 * first: message, stack and causes, with the name and an `E2EError`'s code kept, so a
 * re-wrap that cleans its message does not leak through its cause.
 */
export function cleanedCause(error: unknown, clean: (text: string) => string, depth = 0): unknown {
  if (!(error instanceof Error) || depth >= 5) return clean(messageOf(error));
  const cause = error.cause === undefined ? undefined : { cause: cleanedCause(error.cause, clean, depth + 1) };
  const copy = isE2EError(error) ? new E2EError(error.code, clean(error.message), cause) : new Error(clean(error.message), cause);
  Object.defineProperty(copy, 'name', { value: error.name, configurable: true, writable: true });
  if (error.stack !== undefined) copy.stack = clean(error.stack);
  return copy;
}

/** The message of a thrown value, for logs and summaries (a non-Error is turned into text). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

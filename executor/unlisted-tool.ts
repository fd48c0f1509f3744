/**
 * Tools a loop runs but does not offer: DESIGN §5's separate tools that the built-in agent
 * folds into others to keep every request short (`tap_at` is `tap({ x, y })`). A model that
 * calls one by its DESIGN name anyway is served, not refused.
 */
import type { Tool, ToolSet } from 'ai';

const UNLISTED = Symbol.for('e2e.unlistedTool');

/** Mark `definition` as runnable but not offered to the model. */
export function unlisted<T extends Tool>(definition: T): T {
  return Object.assign(definition, { [UNLISTED]: true });
}

/** True for a tool marked by {@link unlisted}. */
export function isUnlisted(definition: unknown): boolean {
  return typeof definition === 'object' && definition !== null && (definition as Record<symbol, unknown>)[UNLISTED] === true;
}

/** The tools the model is offered: all but the unlisted ones. */
export function listedTools(tools: ToolSet): ToolSet {
  return Object.fromEntries(Object.entries(tools).filter(([, definition]) => !isUnlisted(definition)));
}

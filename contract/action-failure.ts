/**
 * A failed policed action as the step runner rethrows it, with the engine's typed detail carried
 * on (`EngineError.detail`), so the replayer can name what blocked it without reading a message.
 */
import { E2EError, type ErrorCode } from '../errors/index.js';
import type { EngineErrorDetail } from './engine.js';

/**
 * A policed action's failure as the step runner rethrows it (redacted message, runtime code),
 * carrying the engine's typed detail on, so the replayer can name an obstruction.
 */
export class ActionError extends E2EError {
  override readonly name: string = 'ActionError';
  readonly detail: EngineErrorDetail | undefined;

  constructor(code: ErrorCode, message: string, detail?: EngineErrorDetail) {
    super(code, message);
    this.detail = detail;
  }
}

/** The typed detail an engine error (or a policed action's failure) carries, across module copies. */
export function engineDetailOf(error: unknown): EngineErrorDetail | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const detail = (error as { detail?: unknown }).detail;
  if (typeof detail !== 'object' || detail === null || (detail as { kind?: unknown }).kind !== 'obstructed') return undefined;
  const by = (detail as { by?: unknown }).by;
  if (typeof by !== 'object' || by === null || typeof (by as { description?: unknown }).description !== 'string') return undefined;
  const { role, name, description } = by as { role?: unknown; name?: unknown; description: string };
  return {
    kind: 'obstructed',
    by: { description, ...(typeof role === 'string' && role !== '' ? { role } : {}), ...(typeof name === 'string' && name !== '' ? { name } : {}) },
  };
}

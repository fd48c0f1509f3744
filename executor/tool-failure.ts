/**
 * A failed tool call reported to the model: a tool throws a `ToolFailure` with the exact text
 * the model should read (what failed, and usually the current screen); `guard()` turns it
 * into that text and counts the call as failed.
 */
import { isE2EError } from '../errors/index.js';

/** A tool failure that carries the report to show the model. Never a hard stop. */
export class ToolFailure extends Error {
  override readonly name: string = 'ToolFailure';
  /** The text the model reads. */
  readonly report: string;

  constructor(report: string, options?: { cause?: unknown }) {
    super(report.split('\n')[0] ?? report, options?.cause === undefined ? undefined : { cause: options.cause });
    this.report = report;
  }
}

/** The text a model reads for a failed tool call. */
export function describeToolError(error: unknown): string {
  if (error instanceof ToolFailure) return error.report;
  if (isE2EError(error)) return `Failed (${error.code}): ${error.message}`;
  if (error instanceof Error) return `Failed: ${error.message}`;
  return `Failed: ${String(error)}`;
}

/**
 * The AI SDK prints provider warnings (an unsupported setting, a compatibility mode) to the
 * console unless `globalThis.AI_SDK_LOG_WARNINGS` says otherwise. Our calls send their
 * warnings to the step's debug output instead: while at least one of our calls runs, the
 * global holds a router that finds the calling step through async context; any other call
 * in the process meanwhile gets the user's own setting. The user's value is put back as
 * soon as our last call ends.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** One warning as the AI SDK hands it to a logger (the fields we read). */
interface SdkWarning {
  type: string;
  feature?: string;
  details?: string;
  message?: string;
  setting?: string;
}

interface WarningBatch {
  warnings: readonly SdkWarning[];
  provider: string;
  model: string;
}

type WarningLogger = ((batch: WarningBatch) => void) | false | undefined;

/** Where a call's warnings go: one line each. */
export type WarningSink = (line: string) => void;

const scope = new AsyncLocalStorage<WarningSink>();
let active = 0;
let saved: WarningLogger;

interface WarningGlobal {
  AI_SDK_LOG_WARNINGS?: unknown;
}

function router(batch: WarningBatch): void {
  const sink = scope.getStore();
  if (sink === undefined) {
    // Not ours: the user's logger decides; with none set we stay quiet rather than print.
    if (typeof saved === 'function') saved(batch);
    return;
  }
  for (const warning of batch.warnings) sink(`AI SDK warning from ${batch.provider} (${batch.model}): ${describeWarning(warning)}`);
}

/** A warning in one line. */
export function describeWarning(warning: SdkWarning): string {
  const subject = warning.feature ?? warning.setting;
  const detail = warning.details ?? warning.message;
  if (warning.type === 'unsupported' && subject !== undefined) return `${subject} is not supported${detail === undefined ? '' : `: ${detail}`}`;
  if (warning.type === 'compatibility' && subject !== undefined) return `${subject} runs in a compatibility mode${detail === undefined ? '' : `: ${detail}`}`;
  return detail ?? JSON.stringify(warning);
}

/**
 * Run `body` (one or more AI SDK calls) with its warnings going to `sink` instead of the
 * console. Nested and concurrent calls each reach their own sink.
 */
export async function withSdkWarnings<T>(sink: WarningSink, body: () => Promise<T>): Promise<T> {
  const global = globalThis as WarningGlobal;
  if (active === 0) {
    saved = global.AI_SDK_LOG_WARNINGS as WarningLogger;
    global.AI_SDK_LOG_WARNINGS = router;
  }
  active++;
  try {
    return await scope.run(sink, body);
  } finally {
    active--;
    if (active === 0) {
      if (global.AI_SDK_LOG_WARNINGS === router) global.AI_SDK_LOG_WARNINGS = saved;
      saved = undefined;
    }
  }
}

/**
 * The AI SDK prints provider warnings (an unsupported setting, a compatibility mode) to the
 * console unless `globalThis.AI_SDK_LOG_WARNINGS` says otherwise. While one of our calls
 * runs, the global holds a logger that hands every warning to the user's own logger when they
 * set one and drops it otherwise; our calls read their warnings off the result instead and
 * send them to the step's debug output. The user's value is put back as soon as our last call
 * ends. (No async context is used to tell calls apart: it would slow every promise.)
 */

/** One warning as the AI SDK reports it (the fields we read). */
export interface SdkWarning {
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

interface WarningGlobal {
  AI_SDK_LOG_WARNINGS?: unknown;
}

let active = 0;
let saved: WarningLogger;

function router(batch: WarningBatch): void {
  if (typeof saved === 'function') saved(batch);
}

/** A warning in one line. */
export function describeWarning(warning: SdkWarning): string {
  const subject = warning.feature ?? warning.setting;
  const detail = warning.details ?? warning.message;
  if (warning.type === 'unsupported' && subject !== undefined) return `${subject} is not supported${detail === undefined ? '' : `: ${detail}`}`;
  if (warning.type === 'compatibility' && subject !== undefined) return `${subject} runs in a compatibility mode${detail === undefined ? '' : `: ${detail}`}`;
  return detail ?? JSON.stringify(warning);
}

/** Send the warnings of one of our calls to `sink`, one line each. */
export function reportWarnings(sink: (line: string) => void, warnings: readonly SdkWarning[] | undefined, model: { provider: string; modelId: string }): void {
  for (const warning of warnings ?? []) sink(`AI SDK warning from ${model.provider} (${model.modelId}): ${describeWarning(warning)}`);
}

/** Run `body` (our AI SDK calls) with the SDK's console printing held back. Nested and concurrent calls are fine. */
export async function withoutSdkPrinting<T>(body: () => Promise<T>): Promise<T> {
  const global = globalThis as WarningGlobal;
  if (active === 0) {
    saved = global.AI_SDK_LOG_WARNINGS as WarningLogger;
    global.AI_SDK_LOG_WARNINGS = router;
  }
  active++;
  try {
    return await body();
  } finally {
    active--;
    if (active === 0) {
      if (global.AI_SDK_LOG_WARNINGS === router) global.AI_SDK_LOG_WARNINGS = saved;
      saved = undefined;
    }
  }
}

/** Provider and model id of a model value, for warning lines. */
export function modelLabel(model: unknown): { provider: string; modelId: string } {
  if (typeof model === 'string') return { provider: 'gateway', modelId: model };
  const facts = model as { provider?: unknown; modelId?: unknown };
  return { provider: String(facts.provider ?? 'unknown'), modelId: String(facts.modelId ?? 'unknown') };
}

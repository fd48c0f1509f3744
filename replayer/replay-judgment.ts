/**
 * Replaying a judgment, the judgment side of `replay-step.ts`: look at the screen until the
 * recorded evidence holds (`check-evidence.ts`) or the wait is over, with no model. For
 * `extract`, the recorded value is then rebuilt from its JSON text and re-validated.
 */
import type { JudgmentEntry } from '../cache-format/entry.js';
import { sleep, systemClock, type Clock } from '../contract/deadline.js';
import type { Observation } from '../contract/step-contract.js';
import { fillUniquePlaceholders } from '../semantics/unique-placeholders.js';
import { checkEvidence, evidenceNodeIds } from './check-evidence.js';

/** Options of {@link replayJudgment}. */
export interface ReplayJudgmentOptions {
  entry: JudgmentEntry;
  /** Observe the live screen (with its tree). */
  observe(): Promise<Observation>;
  /** How long the evidence may take to hold. */
  waitMs: number;
  /** Pause between looks. */
  pollMs: number;
  signal: AbortSignal;
  uniqueValues: Readonly<Record<string, string>>;
  /** For `extract`: the step's schema, to re-validate the rebuilt value with. */
  schema?: unknown;
  clock?: Clock | undefined;
  /** `e2e cache audit`: hide the nodes the evidence rests on (by id) before the first look. */
  hideEvidence?: ((ids: readonly string[]) => Promise<void>) | undefined;
}

/** A replayed judgment: it held (with the value, for `extract`), or what did not hold and how long it waited. */
export type JudgmentReplay = { kind: 'finished'; summary: string; value?: unknown } | { kind: 'stopped'; detail: string; waitedMs: number };

function isSchema(value: unknown): value is { safeParse(input: unknown): { success: boolean; data?: unknown } } {
  return typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

/** The recorded value of an `extract`, rebuilt from its JSON text and re-validated with the step's schema. */
function rebuild(entry: JudgmentEntry, schema: unknown, uniqueValues: Readonly<Record<string, string>>): { ok: true; value: unknown } | { ok: false; detail: string } {
  if (entry.extracted === undefined) return { ok: false, detail: 'the entry holds no extracted value' };
  let value: unknown;
  try {
    value = JSON.parse(fillUniquePlaceholders(entry.extracted, uniqueValues)) as unknown;
  } catch {
    return { ok: false, detail: 'the recorded value no longer reads as JSON' };
  }
  if (!isSchema(schema)) return { ok: false, detail: 'the step has no schema to re-validate the recorded value with' };
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: 'data' in parsed ? parsed.data : value } : { ok: false, detail: 'the recorded value no longer matches the schema' };
}

/** Replay a judgment entry on the live screen. A stopped signal ends the wait (not an error). */
export async function replayJudgment(options: ReplayJudgmentOptions): Promise<JudgmentReplay> {
  const { entry, uniqueValues } = options;
  const clock = options.clock ?? systemClock;
  if (options.hideEvidence !== undefined) {
    const before = await options.observe();
    if (before.tree !== undefined) await options.hideEvidence(evidenceNodeIds(entry, before.tree, uniqueValues));
  }
  const started = clock.now();
  let result: { ok: true; value?: unknown } | { ok: false; detail: string };
  for (;;) {
    const observation = await options.observe();
    result = observation.tree === undefined ? { ok: false, detail: 'the screen gave no tree' } : checkEvidence(entry, { tree: observation.tree, url: observation.url }, uniqueValues);
    if (result.ok && entry.kind === 'extract') result = rebuild(entry, options.schema, uniqueValues);
    const left = options.waitMs - (clock.now() - started);
    if (result.ok || left <= 0 || options.signal.aborted) break;
    await sleep(Math.min(options.pollMs, left), options.signal).catch(() => undefined);
  }
  if (!result.ok) return { kind: 'stopped', detail: result.detail, waitedMs: clock.now() - started };
  const replayed: JudgmentReplay = { kind: 'finished', summary: fillUniquePlaceholders(entry.summary, uniqueValues) };
  if (entry.kind === 'extract' && 'value' in result) replayed.value = result.value;
  return replayed;
}

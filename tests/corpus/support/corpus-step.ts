/**
 * One step of a corpus flow, played and scored the same way in every corpus: the step runs
 * through the attempt (with its cache), counts as *replayed* when it self-finalized with no executor
 * call, and its own `expect` (`verify`) runs only when the step passed.
 */
import type { Locator, Page } from '@playwright/test';
import type { CacheOutcome } from '../../../contract/cache-outcome.js';
import { DEFAULT_POLL_INTERVAL_MS, DEFAULT_WAIT_FOR_TARGET_MS } from '../../../replayer/replay-step.js';
import type { AttemptHarness, HarnessCache } from '../../support/attempt-harness.js';
import { scaledTimeout } from '../../support/load-scaled.js';

/** A corpus step: an instruction and the user's own check of it. */
export interface CorpusStep {
  instruction: string;
  /** The locator the step's `expect` asserts on; throws (or the assertion fails) when the step did not happen. */
  verify(page: Page): Promise<Locator>;
}

/** How one step went. */
export interface PlayedStep {
  cache: CacheOutcome | undefined;
  /** Self-finalized by the cache with no executor call. */
  replayed: boolean;
  /** The step passed and its `expect` held. */
  verified: boolean;
}

/** The counts every corpus table shows. */
export interface CorpusTally {
  replayed: number;
  handedOff: number;
  /** Replayed, yet the step's `expect` failed. */
  falsePasses: number;
  failedExpects: number;
  details: string[];
}

/** An empty tally. */
export function emptyTally(): CorpusTally {
  return { replayed: 0, handedOff: 0, falsePasses: 0, failedExpects: 0, details: [] };
}

/** Play `step` on `page` through `attempt`; `executor.calls` tells a replay from a hand-off. */
export async function playCorpusStep(attempt: AttemptHarness, executor: { calls: number }, step: CorpusStep, page: Page): Promise<PlayedStep> {
  const callsBefore = executor.calls;
  const outcome = await attempt.act(step.instruction);
  const cache = outcome.cache as CacheOutcome | undefined;
  const replayed = cache?.mode === 'self-finalized' && executor.calls === callsBefore;
  let verified = false;
  if (outcome.verdict.status === 'passed') {
    try {
      await attempt.verifyLocator(await step.verify(page));
      verified = true;
    } catch {
      verified = false;
    }
  }
  return { cache, replayed, verified };
}

/** Count a played step into `tally`, with a detail line for any step that did not replay and verify. */
export function tallyStep(tally: CorpusTally, instruction: string, played: PlayedStep): void {
  const { cache, replayed, verified } = played;
  if (!verified) tally.failedExpects++;
  if (replayed) tally.replayed++;
  else tally.handedOff++;
  if (replayed && !verified) tally.falsePasses++;
  if (!replayed || !verified) {
    const classified = cache?.classification === undefined ? '' : ` [${cache.classification}]`;
    const reason = cache?.reason === undefined ? '' : ` (${cache.reason}: ${cache.detail ?? ''})`;
    tally.details.push(`${instruction}: ${cache?.mode ?? 'no cache'}${classified}${reason}${verified ? '' : ', expect failed'}`);
  }
}

/** Rows as an aligned table (the first row is the header). */
export function corpusTable(rows: ReadonlyArray<readonly string[]>): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')).join('\n');
}

/**
 * The replay waits of a flow on a planted regression: the flow's load-scaled wait for a target or
 * an outcome (`ms` when the machine is quiet), but never longer than a user's replay waits (the
 * product's default, `DEFAULT_WAIT_FOR_TARGET_MS`), looking as often as it does. There the waits
 * are meant to run out, so a busy machine would otherwise stretch every one of them; and the
 * verdict that counts is the one a user's replay reaches.
 */
export function regressionWaits(ms: number): Pick<HarnessCache, 'waitForTargetMs' | 'pollIntervalMs'> {
  return { waitForTargetMs: Math.min(scaledTimeout(ms), DEFAULT_WAIT_FOR_TARGET_MS), pollIntervalMs: DEFAULT_POLL_INTERVAL_MS };
}

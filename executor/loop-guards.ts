/**
 * Loop guards (DESIGN §4): the tool loop's checks against a model that is stuck. They look at
 * each tool call and its result, and after every turn say whether to add a notice or to
 * force the step to a verdict.
 */

/** Thresholds of the loop guards. */
export interface LoopLimits {
  /** Failed actions in a row before the model is told to change approach. Default 3. */
  failuresBeforeNotice: number;
  /** Failed actions in a row that force a verdict. Default 5. */
  failuresBeforeStop: number;
  /** The same call with the same result this many times in a row forces a verdict. Default 3. */
  identicalRepeats: number;
  /** Turns in a row answered with text only (no tool call) that force a verdict. Default 3. */
  textRepliesBeforeStop: number;
}

/** The defaults of {@link LoopLimits}. */
export const DEFAULT_LOOP_LIMITS: LoopLimits = {
  failuresBeforeNotice: 3,
  failuresBeforeStop: 5,
  identicalRepeats: 3,
  textRepliesBeforeStop: 3,
};

/** What the guards ask the loop to do after a turn. */
export interface GuardReview {
  /** Notices to add for the model's next turn. */
  notices: string[];
  /** When set, the loop stops offering tools and asks for a verdict, for this reason. */
  conclude?: string;
}

/** The text sent when the model replied without a tool call. */
export const TEXT_REPLY_NUDGE =
  'Your reply called no tool. Act on the screen with a tool, or end the step with complete_step.';

/** Stable JSON with sorted keys, so equal inputs give equal signatures. */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(',')}}`;
}

/** A call's identity for repetition checks: its name and input. */
export function callSignature(toolName: string, input: unknown): string {
  return `${toolName} ${stableJson(input ?? {})}`;
}

/** Screen revisions change on every observation; they must not hide a repeat. */
function normalizeOutcome(outcome: string): string {
  return outcome.replace(/revision \d+/g, 'revision #').slice(0, 4000);
}

/** Watches tool calls and text replies for the patterns of a stuck model. */
export class LoopGuards {
  private readonly limits: LoopLimits;
  private failureStreak = 0;
  private textStreak = 0;
  private readonly recent: string[] = [];
  private pending: GuardReview = { notices: [] };
  private noticedStreak = false;

  constructor(limits: Partial<LoopLimits> = {}) {
    this.limits = { ...DEFAULT_LOOP_LIMITS, ...limits };
  }

  /** Record one tool call (not the verdict) with the text of its result. */
  recordCall(signature: string, outcome: string, failed: boolean): void {
    this.textStreak = 0;
    if (failed) {
      this.failureStreak++;
    } else {
      this.failureStreak = 0;
      this.noticedStreak = false;
    }
    if (this.failureStreak >= this.limits.failuresBeforeStop) {
      this.conclude(`${this.failureStreak} actions in a row failed.`);
    } else if (this.failureStreak >= this.limits.failuresBeforeNotice && !this.noticedStreak) {
      this.noticedStreak = true;
      this.pending.notices.push(
        `${this.failureStreak} actions in a row failed. Stop repeating them: look at the current screen again and try a different control or approach. After ${this.limits.failuresBeforeStop} failures in a row the step ends.`,
      );
    }
    this.recent.push(`${signature}\n${normalizeOutcome(outcome)}`);
    if (this.recent.length > 6) this.recent.shift();
    const repeat = this.detectRepeat();
    if (repeat !== undefined) this.conclude(repeat);
  }

  /** Record a turn that called no tool. */
  recordTextReply(): void {
    this.textStreak++;
    if (this.textStreak >= this.limits.textRepliesBeforeStop) this.conclude(`${this.textStreak} replies in a row called no tool.`);
    else this.pending.notices.push(TEXT_REPLY_NUDGE);
  }

  /** What to do before the next turn; clears the pending review. */
  review(): GuardReview {
    const review = this.pending;
    this.pending = { notices: [] };
    return review;
  }

  private conclude(reason: string): void {
    this.pending.conclude ??= reason;
  }

  private detectRepeat(): string | undefined {
    const keys = this.recent;
    const count = keys.length;
    const repeats = this.limits.identicalRepeats;
    if (count >= repeats && keys.slice(count - repeats).every((key) => key === keys[count - 1])) {
      const call = keys[count - 1]!.split('\n')[0];
      return `The same call (${call}) gave the same result ${repeats} times in a row.`;
    }
    for (const period of [2, 3]) {
      if (count < period * 2) continue;
      const window = keys.slice(count - period * 2);
      const cycle = window.slice(0, period);
      const repeated = window.every((key, index) => key === cycle[index % period]);
      const distinct = new Set(cycle).size === period;
      if (repeated && distinct) {
        const calls = cycle.map((key) => key.split('\n')[0]).join(', then ');
        return `The calls went in a circle twice (${calls}) without new results.`;
      }
    }
    return undefined;
  }
}

/**
 * The one boundary text passes on its way out of an attempt (DESIGN §9): the step records of
 * the report, what the test gets back (errors thrown to it, its step titles), transcripts,
 * cache entries and console lines. Each
 * outbound record passes it once, here, and nothing inside the attempt redacts a record that
 * is still on its way: the pieces a record is made of are redacted with it. A cache entry is
 * checked, not rewritten: an entry that would hold a secret value is not written at all. What
 * the model is shown (observations, tool results) is cleaned where it is made, before it
 * leaves for the executor; Playwright's own output is cleaned once more, across processes, by
 * the redacting reporter.
 */
import type { Logger } from '../contract/logger.js';
import { redactDeep } from './redactor.js';

/** The ways a record leaves an attempt. */
export type OutboundSink = 'report' | 'test' | 'transcript' | 'cache-entry' | 'console';

/** How many records left by each sink. */
export type OutboundCounts = Readonly<Record<OutboundSink, number>>;

/** What the boundary redacts with: the attempt's vault. */
export interface OutboundRedactor {
  redact(text: string): string;
}

/** The outbound boundary of one attempt. */
export class Outbound {
  readonly #redactor: OutboundRedactor;
  readonly #counts: Record<OutboundSink, number> = { report: 0, test: 0, transcript: 0, 'cache-entry': 0, console: 0 };
  readonly #changed: Record<OutboundSink, number> = { report: 0, test: 0, transcript: 0, 'cache-entry': 0, console: 0 };

  constructor(redactor: OutboundRedactor) {
    this.#redactor = redactor;
  }

  /** One text leaving by `sink`, redacted. */
  text(sink: Exclude<OutboundSink, 'cache-entry'>, text: string): string {
    this.#counts[sink] += 1;
    const redacted = this.#redactor.redact(text);
    if (redacted !== text) this.#changed[sink] += 1;
    return redacted;
  }

  /** One record (a JSON-like value) leaving by `sink`: a copy with every string in it redacted. */
  record<T>(sink: Exclude<OutboundSink, 'cache-entry'>, record: T): T {
    this.#counts[sink] += 1;
    let changed = false;
    const redacted = redactDeep(record, (text) => {
      const clean = this.#redactor.redact(text);
      if (clean !== text) changed = true;
      return clean;
    });
    if (changed) this.#changed[sink] += 1;
    return redacted;
  }

  /** True when an entry's text holds nothing redaction would change (no secret value, no clipped piece of one), so it may be written. */
  cleanEntry(text: string): boolean {
    this.#counts['cache-entry'] += 1;
    const clean = this.#redactor.redact(text) === text;
    if (!clean) this.#changed['cache-entry'] += 1;
    return clean;
  }

  /** `logger`, its every line leaving by the console sink. */
  logger(logger: Logger): Logger {
    return {
      debug: (message) => logger.debug(this.text('console', message)),
      warn: (message) => logger.warn(this.text('console', message)),
    };
  }

  /** How many records left by each sink so far. */
  counts(): OutboundCounts {
    return { ...this.#counts };
  }

  /**
   * How many of them redaction changed, by sink (for `cache-entry`: entries refused). Since
   * nothing inside the attempt redacts a record on its way out, a record that carries a secret
   * value is counted here once.
   */
  redactions(): OutboundCounts {
    return { ...this.#changed };
  }
}

/**
 * The record of one step and of one verification, as the attempt keeps them. Every string
 * in a record is already redacted. The report, the ledger and the cache (step-cache/) read these.
 */
import type { CacheOutcome } from '../contract/cache-outcome.js';
import type { ErrorCode } from '../errors/index.js';
import type { TokenUsage } from './budgets.js';
import type { LedgerEntry, StepKind, StepVerdict, TurnRecord } from '../contract/step-contract.js';
import type { VerificationEvent } from '../contract/step-seams.js';

/** Milliseconds of a step by where they went. */
export interface StepTiming {
  modelMs: number;
  observeMs: number;
  actionMs: number;
}

/**
 * What the bounded screens of a step left out (step/README.md, "Bounded screens"): how many of
 * the screens rendered as text (for the model, a transcript, a message) left nodes out, and the
 * most nodes one of them left out.
 */
export interface LeftOutScreens {
  screens: number;
  most: number;
}

/** An artifact attached to a step (screenshot or transcript). */
export interface ArtifactRef {
  id: string;
  kind: 'screenshot' | 'transcript';
  label: string;
}

/** One finished step. */
export interface StepRecord {
  index: number;
  kind: StepKind;
  /** The filled instruction, secrets as `<secret:name>`. */
  instruction: string;
  /** The agent entry that ran it. */
  agent: string;
  /** The executor's name, or `built-in`. */
  executor: string;
  status: StepVerdict['status'];
  errorCode?: ErrorCode;
  summary: string;
  modelCalls: number;
  tokens: TokenUsage;
  /** Committed actions as sentences. */
  actions: string[];
  /** Cache outcome, as the step interceptor (or the recorder later) reports it. */
  cache?: CacheOutcome;
  durationMs: number;
  /** Where the time went: model calls (as the executor reported them), observing, acting; the rest is the executor's own. */
  timing: StepTiming;
  /** Clipped model turns the executor attached (shown under a failed step). */
  turns?: TurnRecord[];
  /** Present when a screen of the step rendered as text left nodes out. */
  leftOut?: LeftOutScreens;
  artifacts: ArtifactRef[];
}

export type { VerificationKind } from '../contract/step-seams.js';

/** A passed verification as the attempt keeps it for the report: the seam's event without what it looked at. */
export type VerificationRecord = Omit<VerificationEvent, 'lookedAt'>;

/** The ledger view of a record. */
export function toLedgerEntry(record: StepRecord): LedgerEntry {
  return { index: record.index, kind: record.kind, instruction: record.instruction, status: record.status, summary: record.summary };
}

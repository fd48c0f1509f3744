/**
 * Recording a passed judgment, the judgment side of `record-step.ts`: the evidence its judge
 * cited (`judgment-evidence.ts`), the summary and, for `extract`, the value, with this run's
 * `unique()` values as placeholders; {@link buildJudgmentEntry} turns that into a validated entry.
 */
import { MAX_VALUE_CHARS, entryVersionFor, judgmentEntrySchema, type EvidenceCheck, type JudgmentEntry, type KeyParts, type Route } from '../cache-format/entry.js';
import type { JudgedEvidence } from '../contract/step-seams.js';
import { maskUniqueValues } from '../semantics/unique-placeholders.js';
import { buildJudgmentEvidence, type JudgmentKind } from './judgment-evidence.js';
import { MAX_SUMMARY_CHARS, validateEntry, type EntryResult } from './validate-entry.js';
import { clip } from '../contract/text.js';

/** What a passed judgment left behind. */
export interface JudgmentRecordingInput {
  kind: JudgmentKind;
  /** The question or condition as keyed (decides whether counts are kept). */
  question: string;
  /** The final verdict: its summary and, for `extract`, its value. */
  verdict: { summary: string; value?: unknown };
  /** The evidence the runner resolved against the judged screen; absent when the judge named none. */
  evidence: JudgedEvidence | undefined;
  /** Values typed into the app earlier in the attempt: never evidence. */
  typedValues: Iterable<string>;
  uniqueValues: Readonly<Record<string, string>>;
  /** False for an engine without a location: no route is recorded. Default true. */
  located?: boolean;
}

/** A judgment's recording, ready to become an entry. */
export interface JudgmentRecording {
  /** Where the judgment was made; absent for an engine without a location. */
  route?: Route;
  checks: EvidenceCheck[];
  /** For `extract`: the value as JSON text. */
  extracted?: string;
  summary: string;
}

/** The recording, or why the judgment cannot be cached. */
export type JudgmentRecordingResult = { kind: 'recorded'; recording: JudgmentRecording } | { kind: 'not-cacheable'; reason: string };

/** Record a passed judgment. Never throws on bad input. */
export function recordJudgment(input: JudgmentRecordingInput): JudgmentRecordingResult {
  const { evidence, uniqueValues } = input;
  if (evidence === undefined) return { kind: 'not-cacheable', reason: 'the judgment named no evidence' };
  if (!evidence.cacheable) return { kind: 'not-cacheable', reason: "the judge's evidence could not be checked against the screen" };
  if (evidence.screen === undefined) return { kind: 'not-cacheable', reason: 'the evidence belongs to an older screen than the judgment ended on' };
  const built = buildJudgmentEvidence({
    kind: input.kind,
    question: input.question,
    tree: evidence.screen.tree,
    url: evidence.screen.url,
    ...(input.located === undefined ? {} : { located: input.located }),
    nodeIds: evidence.nodeIds,
    typedValues: input.typedValues,
    uniqueValues,
  });
  if (built.kind === 'not-cacheable') return built;
  const recording: JudgmentRecording = { ...(built.route === undefined ? {} : { route: built.route }), checks: built.checks, summary: clip(maskUniqueValues(input.verdict.summary, uniqueValues), MAX_SUMMARY_CHARS) };
  if (input.kind === 'extract') {
    const text = input.verdict.value === undefined ? undefined : JSON.stringify(input.verdict.value);
    if (text === undefined || text.length > MAX_VALUE_CHARS) {
      return { kind: 'not-cacheable', reason: `the extracted value is not JSON text of at most ${MAX_VALUE_CHARS} characters` };
    }
    recording.extracted = maskUniqueValues(text, uniqueValues);
  }
  return { kind: 'recorded', recording };
}

/** What a judgment entry carries besides the recording. */
export interface JudgmentEntryMetadata {
  kind: JudgmentKind;
  key: string;
  keyParts: KeyParts;
  provenance: JudgmentEntry['provenance'];
  /** True when the entry's text holds no secret value (the outbound boundary); an entry it refuses is not written. */
  clean?: (text: string) => boolean;
}

/** Build and validate a judgment entry from a recording. Never throws on bad input. */
export function buildJudgmentEntry(recording: JudgmentRecording, metadata: JudgmentEntryMetadata): EntryResult<JudgmentEntry> {
  const candidate = {
    version: entryVersionFor(recording),
    kind: metadata.kind,
    key: metadata.key,
    keyParts: metadata.keyParts,
    ...(recording.route === undefined ? {} : { route: recording.route }),
    evidence: recording.checks,
    ...(recording.extracted === undefined ? {} : { extracted: recording.extracted }),
    summary: recording.summary,
    provenance: metadata.provenance,
  };
  return validateEntry(judgmentEntrySchema, candidate, metadata.clean);
}

/**
 * The cache entry schema (DESIGN §6). Versioned, validated all-or-nothing, strict (unknown
 * keys are refused). An entry holds no prompt, transcript, screenshot, tree or secret value.
 */
import { z } from 'zod';

/**
 * The newest schema version this build writes. Version 2 is version 1 without a location: the
 * entry of an engine that has none (a terminal) carries no routes and no origins. An entry with
 * a location is still written as version 1, whose format is unchanged, so a web cache recorded
 * before version 2 reads, replays and re-records byte for byte ({@link entryVersionFor}).
 */
export const ENTRY_SCHEMA_VERSION = 2;
/** Versions this build can read (older ones are migrated in `migrate.ts`). */
export const SUPPORTED_ENTRY_VERSIONS = [1, 2] as const;
/** The oldest version this build still writes; `e2e cache prune` removes entries older than it. */
export const OLDEST_WRITTEN_ENTRY_VERSION = 1;

/** Largest entry file read or written (1 MiB); a bigger file is refused by size before it is read. */
export const MAX_ENTRY_BYTES = 1024 * 1024;
/** Most recorded actions in one entry. */
export const MAX_ACTIONS = 50;
/** Longest typed value or URL, in characters. */
export const MAX_VALUE_CHARS = 4096;
/** Most appeared (and most gone) controls kept for the end check. */
export const MAX_STATE_CONTROLS = 8;
/** Most evidence checks in one judgment entry. */
export const MAX_EVIDENCE_CHECKS = 32;
/** Most preceding `act` steps a judgment key names; a judgment after more is not cached. */
export const MAX_PRECEDING_STEPS = 1000;

const shortText = z.string().max(1024);
const longText = z.string().max(MAX_VALUE_CHARS);

/** States recorded for end checks. */
export const recordedStateSchema = z.enum(['checked', 'disabled', 'selected', 'expanded', 'pressed']);

/** The named container (row, list item, group, dialog, form…) a target sits in. */
export const containerSchema = z.strictObject({
  role: shortText,
  name: shortText,
});

/**
 * A semantic description of a control, enough to re-find it on a changed screen. Volatile
 * parts (dates, times, ids) in `name`/`text` are kept literal here; the matcher reads them as
 * placeholders.
 */
export const targetDescriptionSchema = z.strictObject({
  role: shortText,
  name: shortText,
  testId: shortText.optional(),
  text: shortText.optional(),
  placeholder: shortText.optional(),
  href: longText.optional(),
  container: containerSchema.optional(),
  /** 0-based position among twins (same role+name+container) and how many twins there were. */
  twinIndex: z.number().int().min(0).max(10_000),
  twinCount: z.number().int().min(1).max(10_000),
});
/** A semantic description of a control (see {@link targetDescriptionSchema}). */
export type TargetDescription = z.infer<typeof targetDescriptionSchema>;

/**
 * Where a typed value came from, so replay knows how to reproduce it.
 * - `literal`: from the instruction/params; typed as recorded.
 * - `unique`: a `unique()` param; the current run's value is substituted.
 * - `secret`: a configured secret; only the name is stored, resolved and re-authorized on replay.
 */
export const typedValueSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('literal'), value: longText }),
  z.strictObject({ kind: z.literal('unique'), param: shortText }),
  z.strictObject({ kind: z.literal('secret'), name: shortText }),
]);
/** Where a typed value came from (see {@link typedValueSchema}). */
export type TypedValue = z.infer<typeof typedValueSchema>;

const point = z.strictObject({ x: z.number().finite(), y: z.number().finite() });

/** One recorded action. `gap` marks what cannot be repeated (a mutating tool, a value read off the screen). */
export const recordedActionSchema = z.discriminatedUnion('verb', [
  z.strictObject({
    verb: z.enum(['tap', 'doubleTap', 'longPress', 'secondaryTap', 'hover', 'scrollTo']),
    target: targetDescriptionSchema,
    /**
     * The container (a consent banner, a tour popover, a "what's new" dialog) this action
     * dismissed, when nothing else in the step depended on it: replay skips the action when
     * the container is absent. An addition to version 1, like `acted` below.
     */
    dismisses: containerSchema.optional(),
  }),
  z.strictObject({ verb: z.literal('type'), target: targetDescriptionSchema, value: typedValueSchema, replace: z.boolean() }),
  z.strictObject({ verb: z.literal('press'), target: targetDescriptionSchema.optional(), key: shortText }),
  z.strictObject({ verb: z.literal('select'), target: targetDescriptionSchema, value: typedValueSchema }),
  z.strictObject({ verb: z.literal('check'), target: targetDescriptionSchema, checked: z.boolean() }),
  z.strictObject({
    verb: z.literal('scroll'),
    direction: z.enum(['up', 'down', 'left', 'right']),
    target: targetDescriptionSchema.optional(),
  }),
  z.strictObject({ verb: z.literal('upload'), target: targetDescriptionSchema, paths: z.array(longText).max(20) }),
  z.strictObject({ verb: z.literal('drag'), target: targetDescriptionSchema, destination: targetDescriptionSchema }),
  z.strictObject({ verb: z.literal('navigate'), url: longText }),
  z.strictObject({ verb: z.literal('back') }),
  z.strictObject({ verb: z.literal('typeText'), value: typedValueSchema }),
  z.strictObject({ verb: z.literal('pressKey'), key: shortText }),
  z.strictObject({ verb: z.literal('tapAt'), point, target: targetDescriptionSchema.optional() }),
  z.strictObject({ verb: z.literal('gap'), rule: shortText, tool: shortText.optional() }),
]);
/** One recorded action (see {@link recordedActionSchema}). */
export type RecordedAction = z.infer<typeof recordedActionSchema>;

/** A control whose presence (or absence) proves the step's outcome. */
export const stateControlSchema = z.strictObject({
  role: shortText,
  name: shortText,
  text: shortText.optional(),
  testId: shortText.optional(),
  container: containerSchema.optional(),
  states: z.array(recordedStateSchema).max(5),
});
/** A control proving an outcome (see {@link stateControlSchema}). */
export type StateControl = z.infer<typeof stateControlSchema>;

/**
 * Why an end check proves the step, strongest first: `acted` (a control the step acted on),
 * `announced` (an alert or status message), `verified` (what the verification after the
 * step looked at), `typed` (it shows a value the step typed), `incidental` (it merely
 * changed nearby). Absent on entries recorded before purposes were weighed: the replayer
 * derives it from the entry's own actions.
 */
export const endBasisSchema = z.enum(['acted', 'announced', 'verified', 'typed', 'incidental']);
/** Why an end check proves the step (see {@link endBasisSchema}). */
export type EndBasis = z.infer<typeof endBasisSchema>;

/**
 * The recorded actions (0-based) whose audit mutants removed an end outcome while the app was at
 * hand (`e2e record --audit`): the outcome is *caused* by them and is required at replay,
 * whatever its basis. An addition to version 1, absent on entries recorded without the audit.
 */
export const causedBySchema = z.array(z.number().int().min(0).max(MAX_ACTIONS - 1)).min(1).max(MAX_ACTIONS);

/**
 * The recorded actions (0-based) right after which the recorder saw the outcome change on the
 * screen, the browser's own effect of the action (a native checkbox's tick, a field's value)
 * left out: the step *produced* it, so it is required at replay, whatever its basis, though it
 * may be met in a changed form (`replayer/end-check.ts`). An addition to version 1, like
 * `causedBy`; absent on entries recorded before it, which replay as they did.
 */
export const producedBySchema = z.array(z.number().int().min(0).max(MAX_ACTIONS - 1)).min(1).max(MAX_ACTIONS);

/** A control that appeared or went away during the step, with why it proves the step. */
export const endControlSchema = z.strictObject({
  ...stateControlSchema.shape,
  basis: endBasisSchema.optional(),
  causedBy: causedBySchema.optional(),
  producedBy: producedBySchema.optional(),
});
/** An appeared or gone control (see {@link endControlSchema}). */
export type EndControl = z.infer<typeof endControlSchema>;

/** A control the step acted on, as the step left it: still there in these states, or gone. */
export const actedCheckSchema = z.strictObject({
  target: targetDescriptionSchema,
  present: z.boolean(),
  states: z.array(recordedStateSchema).max(5),
  /** The actions whose mutants undid this check (see {@link causedBySchema}). */
  causedBy: causedBySchema.optional(),
});
/** A control the step acted on, as the step left it (see {@link actedCheckSchema}). */
export type ActedCheck = z.infer<typeof actedCheckSchema>;

/** A route: origin + path + query (fragment dropped). */
export const routeSchema = z.strictObject({
  origin: longText,
  path: longText,
  query: longText,
});
/** A route (see {@link routeSchema}). */
export type Route = z.infer<typeof routeSchema>;

/** What an entry was recorded for and by whom. */
export const provenanceSchema = z.strictObject({
  /** What verified the step: `expect`, `assert`, `waitFor`. */
  verifiedBy: z.enum(['expect', 'assert', 'waitFor', 'extract']),
  executor: shortText,
  executorVersion: shortText.optional(),
  toolVersion: shortText,
  recordedAt: z.string().datetime(),
});
/** Provenance of an entry (see {@link provenanceSchema}). */
export type Provenance = z.infer<typeof provenanceSchema>;

/** The parts of the key, kept readable for `cache ls`, `diff` and miss explanations. Never a secret value. */
export const keyPartsSchema = z.strictObject({
  projectId: shortText,
  testId: longText,
  target: shortText,
  engine: shortText,
  engineContract: z.number().int(),
  kind: z.enum(['act', 'assert', 'waitFor', 'extract']),
  instruction: longText,
  params: z.record(shortText, shortText),
  occurrence: z.number().int().min(0),
  appIdentity: longText,
  agent: shortText,
  contextDigest: shortText,
  replayPolicy: z.number().int(),
  /**
   * Judgments only: the keys of the `act` steps before it in its attempt, in order, so a
   * judgment after different acts has a different key. Absent on `act` keys.
   */
  preceding: z.array(z.string().regex(/^[0-9a-f]{16}$/)).max(MAX_PRECEDING_STEPS).optional(),
});
/** The parts of a cache key (see {@link keyPartsSchema}). */
export type KeyParts = z.infer<typeof keyPartsSchema>;

/** A cache key as stored in entries (16 hex digits). */
const keyText = z.string().regex(/^[0-9a-f]{16}$/);

/**
 * Where in its test a step was recorded, and which entry it replaced there: additions to
 * version 1 (absent on older entries). `position` is the step's index in its test attempt;
 * `supersedes` is the key of the entry recorded at the same place (test, position, kind) before
 * the step's instruction, params or agent context changed, which `cache diff` pairs with this
 * one and `cache prune` removes.
 */
const placeShape = {
  position: z.number().int().min(0).max(100_000).optional(),
  supersedes: keyText.optional(),
};

/** The same fields, each optional. */
function partial<Shape extends Record<string, z.ZodType>>(shape: Shape): { [Key in keyof Shape]: z.ZodOptional<Shape[Key]> } {
  return Object.fromEntries(Object.entries(shape).map(([name, field]) => [name, field.optional()])) as { [Key in keyof Shape]: z.ZodOptional<Shape[Key]> };
}

/** Where an `act` step started and ended and which origins it visited: an entry's location (version 1). */
const actLocationShape = {
  startRoute: routeSchema,
  endRoute: routeSchema,
  /** Origins the recording visited (replay refuses an action on any other). */
  origins: z.array(longText).max(20),
};

/** The fields of an `act` entry besides its version and location. */
const actShape = {
  kind: z.literal('act'),
  key: shortText,
  keyParts: keyPartsSchema,
  actions: z.array(recordedActionSchema).min(1).max(MAX_ACTIONS),
  appeared: z.array(endControlSchema).max(MAX_STATE_CONTROLS),
  gone: z.array(endControlSchema).max(MAX_STATE_CONTROLS),
  /** The controls the step acted on, as it left them (additions to version 1, like the fields below). */
  acted: z.array(actedCheckSchema).max(MAX_STATE_CONTROLS).optional(),
  /** Controls the verification after the step looked at that were on the screen before the step too. */
  verified: z.array(stateControlSchema).max(MAX_STATE_CONTROLS).optional(),
  summary: shortText,
  provenance: provenanceSchema,
  ...placeShape,
};

/** An `act` entry of version 1: with its location (routes and origins). Frozen: its bytes are what older builds wrote. */
export const actEntryV1Schema = z.strictObject({ version: z.literal(1), ...actShape, ...actLocationShape });
/** An `act` entry of version 2: an engine without a location, so no routes and no origins. */
export const actEntryV2Schema = z.strictObject({ version: z.literal(2), ...actShape });

/** True when an entry's version fits its location: version 1 has one (a route), version 2 has none. */
function locationFitsVersion(entry: { version: number; startRoute?: unknown; endRoute?: unknown; origins?: unknown; route?: unknown }): boolean {
  const parts = [entry.startRoute, entry.endRoute, entry.origins, entry.route].filter((part) => part !== undefined).length;
  return entry.version === 1 ? parts > 0 : parts === 0;
}
const VERSION_LOCATION = { message: 'version 1 entries have a location (routes), version 2 entries have none', path: ['version'] };

/**
 * An `act` entry as this build holds it: version 1 with its location (both routes and the
 * origins), or version 2 without; what a reader returns for either ({@link actEntryV1Schema},
 * {@link actEntryV2Schema}) and what the writer checks.
 */
export const actEntrySchema = z
  .strictObject({ version: z.union([z.literal(1), z.literal(2)]), ...actShape, ...partial(actLocationShape) })
  .refine((entry) => locationFitsVersion(entry) && (entry.version === 2 || (entry.startRoute !== undefined && entry.endRoute !== undefined && entry.origins !== undefined)), VERSION_LOCATION);
/** An `act` entry (see {@link actEntrySchema}); routes and origins are there exactly on version 1. */
export type ActEntry = z.infer<typeof actEntrySchema>;

/**
 * A check that proved a judgment, made from a screen node the judge cited.
 *
 * - `match: 'control'` (the default): nodes that are `control` (role, label, test id,
 *   container, exactly its states; see `semantics/state-controls.ts`).
 * - `match: 'role'`: every node of `control.role` in exactly `control.states`, whatever its
 *   label (`control.name` is empty): the census of a count question.
 *
 * `expect: 'present'` needs at least one matching node (exactly `count` when set);
 * `expect: 'absent'` needs none. Labels, texts and `value` compare with volatile parts as
 * placeholders, or literally when `exact` is set (`extract`: the text is the data).
 */
export const evidenceCheckSchema = z.strictObject({
  control: stateControlSchema,
  expect: z.enum(['present', 'absent']),
  /** When the question is about a count: how many matching nodes there were. */
  count: z.number().int().min(0).max(10_000).optional(),
  match: z.enum(['control', 'role']).optional(),
  /** The node's value (a field the test did not type into), compared like its label. */
  value: longText.optional(),
  /** Compare label, text and value literally (no volatile placeholders). */
  exact: z.boolean().optional(),
});
/** A check that proved a judgment (see {@link evidenceCheckSchema}). */
export type EvidenceCheck = z.infer<typeof evidenceCheckSchema>;

/** The fields of a judgment entry besides its version and location. */
const judgmentShape = {
  kind: z.enum(['assert', 'waitFor', 'extract']),
  key: shortText,
  keyParts: keyPartsSchema,
  evidence: z.array(evidenceCheckSchema).min(1).max(MAX_EVIDENCE_CHECKS),
  /** For `extract`: the value as JSON text, rebuilt from the re-read nodes and re-validated on replay. */
  extracted: longText.optional(),
  summary: shortText,
  provenance: provenanceSchema,
  ...placeShape,
};

/** A judgment entry of version 1: judged at a route. Frozen. */
export const judgmentEntryV1Schema = z.strictObject({ version: z.literal(1), ...judgmentShape, route: routeSchema });
/** A judgment entry of version 2: an engine without a location, so no route. */
export const judgmentEntryV2Schema = z.strictObject({ version: z.literal(2), ...judgmentShape });

/** A judgment entry (assert / waitFor / extract), version 1 with its route or version 2 without. */
export const judgmentEntrySchema = z
  .strictObject({ version: z.union([z.literal(1), z.literal(2)]), ...judgmentShape, route: routeSchema.optional() })
  .refine(locationFitsVersion, VERSION_LOCATION);
/** A judgment entry (see {@link judgmentEntrySchema}). */
export type JudgmentEntry = z.infer<typeof judgmentEntrySchema>;

/** Any entry. */
export const entrySchema = z.union([actEntrySchema, judgmentEntrySchema]);
/** Any entry (see {@link entrySchema}). */
export type Entry = z.infer<typeof entrySchema>;

/** The version an entry is written as: 1 when it has a location (a route), 2 when its engine has none. */
export function entryVersionFor(entry: { startRoute?: unknown; route?: unknown }): 1 | 2 {
  return entry.startRoute !== undefined || entry.route !== undefined ? 1 : 2;
}

/**
 * The verb table: one row per `ctx.actions` verb, declaring its parameters and what each part
 * of e2e does with them. The policed actions (`step/`), the recorded form (`recorder/`), the
 * replay (`replayer/`), the sentence (`semantics/`) and the grammar tools (`executor/`) are
 * read from it; a new verb is a row here plus the engine's implementation.
 */
/**
 * What a parameter is; the kind decides how it is checked and policed, carried in the action
 * event, recorded, replayed, said in a sentence and handed to the engine.
 *
 * - `node`: a `{ id }` of the latest observation. `target` is the node acted on; another
 *   (`destination`) is recorded and re-found like it.
 * - `typed`: text typed into the app; its provenance is recorded (a gap when it cannot be
 *   typed again); a configured secret's value is handled as {@link VerbParam.onSecret} says.
 * - `choice`: an option picked by label or value (`select`); its provenance is recorded.
 * - `secret`: a secret's name; authorized, resolved only when typed, recorded by name.
 * - `key`: a key or chord (`Enter`, `Control+A`).
 * - `url`: a URL or path of the app, resolved against the current page and checked against
 *   the origin policy.
 * - `direction`: `up`, `down`, `left` or `right`.
 * - `flag`: a boolean with a {@link VerbParam.default}.
 * - `paths`: files to upload, checked by the upload policy.
 * - `point`: a point `{ x, y }` in CSS pixels; the first one is where a point action acts.
 * - `modifiers`: keys held during a tap (engines with `tapModifiers`); a tap holding any is a gap.
 * - `size`: a viewport size `{ width, height }`.
 */
export type VerbParamKind = 'node' | 'typed' | 'choice' | 'secret' | 'key' | 'url' | 'direction' | 'flag' | 'paths' | 'point' | 'modifiers' | 'size';

/** One parameter of a verb, named like the `ctx.actions` parameter (and the action event's `args` key). */
export interface VerbParam {
  readonly name: string;
  readonly kind: VerbParamKind;
  /** May be left out: a `node` target then means the page (`press`, `scroll`). */
  readonly optional?: boolean;
  /** A field of the trailing options object (`type`'s `{ replace }`, a tap's `{ modifiers }`), not a positional argument. */
  readonly option?: boolean;
  /** For a `flag`: its value when left out. */
  readonly default?: boolean;
  /** For `typed`: a configured secret's value is typed by name through `typeSecret`, or refused. */
  readonly onSecret?: 'typeSecret' | 'refuse';
}

/** Where the engine does a verb. */
export type VerbEngine =
  /** `perform(ref, …)` on the target node; `page`: `performOnPage`; `node-or-page`: on the page when the target is left out. */
  | { readonly on: 'node' | 'page' | 'node-or-page'; readonly verb?: string }
  /** `performAt(point, …)`; without it, the listed control under the point gets the `fallback` verb. */
  | { readonly on: 'point'; readonly fallback: 'tap' | 'hover' | 'drag' }
  /** No engine offers it yet: the call fails `UNSUPPORTED_CAPABILITY`, saying why. */
  | { readonly on: 'none'; readonly why: string };

/** Why a recorded action cannot be repeated (the recorder's gap rules that come from a verb). */
export type VerbGapRule = 'resize' | 'pointAction' | 'modifiedTap';

/** What the recorder keeps of a verb. */
export type VerbRecord =
  /** Nothing: there is nothing to repeat (`dismissKeyboard` on the web). */
  | { readonly kind: 'skip' }
  /** A gap: the executor does it again on replay. */
  | { readonly kind: 'gap'; readonly rule: VerbGapRule }
  /**
   * The action, with its target and parameters as recorded fields of the same names (a
   * `typed`, `choice` or `secret` parameter as the recorded `value`).
   */
  | {
      readonly kind: 'action';
      /** The recorded verb, when not the row's own (`typeSecret` is recorded as `type`). */
      readonly as?: string;
      /** Recorded fields with a fixed value (`typeSecret` always replaces the field's text). */
      readonly fixed?: Readonly<Record<string, boolean>>;
      /** Parameters not kept (`hoverAt`'s point, once it is a hover of the control under it). */
      readonly drop?: readonly string[];
      /** Without a control under it (a bare point), the action is this gap. */
      readonly untargeted?: VerbGapRule;
      /** Replayed as this verb when the recording has a target (a `tapAt` re-finds its control and taps it). */
      readonly replayTargetedAs?: string;
    };

/** The words a sentence is made of, already phrased (`semantics/action-sentence.ts`). */
export interface SentenceWords {
  /** The target as a noun phrase (`button "Apply"`), `an unknown control` when there is none. */
  target: string;
  /** ` in <target>`, or empty when there is no target. */
  within: string;
  hasTarget: boolean;
  destination: string;
  /** The value in quotes, or by name (`<secret:name>`, `{unique:param}`). */
  value: string;
  key: string;
  url: string;
  direction: string;
  checked: boolean | undefined;
  /** `(x, y)`, rounded. */
  point: string;
  to: string;
  /** Quoted, comma-separated. */
  paths: string;
  /** `1280×720`, when known. */
  size: string | undefined;
}

/** A parameter of a verb's grammar tool (what the model fills in). */
export interface VerbToolField {
  readonly name: string;
  /** `node`: a node id string (`n10` or `#n10`); `secret`: one of the step's secret names; `coordinate`: CSS pixels. */
  readonly kind: 'node' | 'text' | 'flag' | 'direction' | 'secret' | 'coordinate';
  readonly optional?: boolean;
  /** For `text`: the length bounds. */
  readonly min?: number;
  readonly max?: number;
  /** The verb parameter it fills, when not of the same name (coordinates fill one point). */
  readonly param?: string;
  /** For an optional `flag`: its value when the model leaves it out. */
  readonly default?: boolean;
}

/** The tool's input as the label reads it: node ids without `#`. */
export type VerbToolInput = Readonly<Record<string, string | number | boolean | undefined>>;

/** The built-in agent's tool for a verb (DESIGN §5). */
export interface VerbTool {
  readonly name: string;
  readonly description: string;
  readonly fields: readonly VerbToolField[];
  /** How a call reads in results and transcripts (`type into #n5`). */
  readonly label: (input: VerbToolInput) => string;
  /** One of the rarer pointer verbs, offered as a `kind` of the grouped `pointer` tool. */
  readonly pointerKind?: boolean;
  /** Offered only while pixels may be shown (no secret typed yet); the answer once one was. */
  readonly offAfterSecret?: string;
}

/** One verb. */
export interface VerbRow {
  readonly params: readonly VerbParam[];
  /** The engine verb the target must declare, when not the row's own (`typeSecret` needs `type`); `null`: none. */
  readonly needs?: string | null;
  readonly engine: VerbEngine;
  readonly record: VerbRecord;
  /** Replay waits for its target to be enabled, like a missing one. */
  readonly needsEnabled?: boolean;
  /** It points at its target: replay refuses it when a dialog the recording never had covers the target. */
  readonly pointer?: boolean;
  /** It looks at or moves around its target without acting on it (hover, scroll, a key on it): no end check rests on that target. */
  readonly inspects?: boolean;
  readonly sentence: (words: SentenceWords) => string;
  readonly tool?: VerbTool;
}

const TARGET = { name: 'target', kind: 'node' } as const;
const PAGE_TARGET = { name: 'target', kind: 'node', optional: true } as const;
const MODIFIERS = { name: 'modifiers', kind: 'modifiers', option: true } as const;
const TOOL_TARGET = { name: 'target', kind: 'node' } as const;
const tapRow = (verb: string, tool: VerbTool | undefined): VerbRow => ({
  params: [TARGET, MODIFIERS],
  engine: { on: 'node' },
  record: { kind: 'action' },
  needsEnabled: true,
  pointer: true,
  sentence: (words) => `${verb} ${words.target}`,
  ...(tool === undefined ? {} : { tool }),
});
const nodeTool = (name: string, description: string, pointerKind = false): VerbTool => ({
  name,
  description,
  fields: [TOOL_TARGET],
  label: (input) => `${name} #${String(input.target)}`,
  ...(pointerKind ? { pointerKind } : {}),
});

/**
 * The verbs, in the order engines list them (`VERBS` in `contract/engine.ts`) and the grammar
 * tools are offered. `StepActions` (`contract/step-contract.ts`) types each one's call.
 */
export const VERB_TABLE = {
  tap: tapRow('tap', nodeTool('tap', 'Click a node.')),
  doubleTap: tapRow('double-tap', nodeTool('double_tap', 'Double-click a node.', true)),
  longPress: {
    params: [TARGET],
    engine: { on: 'node' },
    record: { kind: 'action' },
    needsEnabled: true,
    pointer: true,
    sentence: (words) => `long-press ${words.target}`,
    tool: nodeTool('long_press', 'Press and hold a node.', true),
  },
  secondaryTap: tapRow('right-click', nodeTool('right_click', 'Right-click a node.', true)),
  hover: {
    params: [TARGET],
    engine: { on: 'node' },
    record: { kind: 'action' },
    pointer: true,
    inspects: true,
    sentence: (words) => `hover ${words.target}`,
    tool: nodeTool('hover', 'Hover over a node.', true),
  },
  type: {
    params: [TARGET, { name: 'value', kind: 'typed', onSecret: 'typeSecret' }, { name: 'replace', kind: 'flag', option: true, default: false }],
    engine: { on: 'node' },
    record: { kind: 'action' },
    needsEnabled: true,
    sentence: (words) => `type ${words.value} into ${words.target}`,
    tool: {
      name: 'type',
      description: 'Type into a field; replace false appends.',
      fields: [TOOL_TARGET, { name: 'text', kind: 'text', min: 0, max: 4096, param: 'value' }, { name: 'replace', kind: 'flag', optional: true, default: true }],
      label: (input) => `type into #${String(input.target)}`,
    },
  },
  typeSecret: {
    params: [TARGET, { name: 'name', kind: 'secret' }],
    needs: 'type',
    engine: { on: 'node', verb: 'type' },
    // Secrets always fill the field; replay calls typeSecret again, so `replace` is informational.
    record: { kind: 'action', as: 'type', fixed: { replace: true } },
    sentence: (words) => `type ${words.value} into ${words.target}`,
    tool: {
      name: 'type_secret',
      description: 'Type a secret into a field by its name; you never see its value.',
      fields: [TOOL_TARGET, { name: 'secret', kind: 'secret', param: 'name' }],
      label: (input) => `type secret ${String(input.secret)} into #${String(input.target)}`,
    },
  },
  press: {
    params: [PAGE_TARGET, { name: 'key', kind: 'key' }],
    engine: { on: 'node-or-page' },
    record: { kind: 'action' },
    needsEnabled: true,
    inspects: true,
    sentence: (words) => `press ${words.key}${words.within}`,
    tool: {
      name: 'press',
      description: 'Press a key on a node or the focus.',
      fields: [{ name: 'key', kind: 'text', min: 1, max: 40 }, { ...TOOL_TARGET, optional: true }],
      label: (input) => `press ${String(input.key)}${input.target === undefined ? '' : ` on #${String(input.target)}`}`,
    },
  },
  select: {
    params: [TARGET, { name: 'value', kind: 'choice' }],
    engine: { on: 'node' },
    record: { kind: 'action' },
    needsEnabled: true,
    sentence: (words) => `select ${words.value} in ${words.target}`,
    tool: {
      name: 'select',
      description: 'Pick an option by label or value.',
      fields: [TOOL_TARGET, { name: 'value', kind: 'text', min: 1, max: 1024 }],
      label: (input) => `select "${String(input.value)}" in #${String(input.target)}`,
    },
  },
  check: {
    params: [TARGET, { name: 'checked', kind: 'flag', default: true }],
    engine: { on: 'node' },
    record: { kind: 'action' },
    needsEnabled: true,
    pointer: true,
    sentence: (words) => `${words.checked === false ? 'uncheck' : 'check'} ${words.target}`,
    tool: {
      name: 'check',
      description: 'Tick a box; checked false unticks.',
      fields: [TOOL_TARGET, { name: 'checked', kind: 'flag', optional: true, default: true }],
      label: (input) => `${input.checked === false ? 'uncheck' : 'check'} #${String(input.target)}`,
    },
  },
  scroll: {
    params: [{ name: 'direction', kind: 'direction' }, PAGE_TARGET],
    engine: { on: 'node-or-page' },
    record: { kind: 'action' },
    inspects: true,
    sentence: (words) => `scroll ${words.direction}${words.within}`,
    tool: {
      name: 'scroll',
      description: 'Scroll the page, or a node, by a screen.',
      fields: [{ name: 'direction', kind: 'direction' }, { ...TOOL_TARGET, optional: true }],
      label: (input) => `scroll ${String(input.direction)}`,
    },
  },
  scrollTo: {
    params: [TARGET],
    engine: { on: 'node' },
    record: { kind: 'action' },
    inspects: true,
    sentence: (words) => `scroll to ${words.target}`,
    tool: nodeTool('scroll_to', 'Scroll a node into view.'),
  },
  upload: {
    params: [TARGET, { name: 'paths', kind: 'paths' }],
    engine: { on: 'node' },
    record: { kind: 'action' },
    needsEnabled: true,
    sentence: (words) => `upload ${words.paths} to ${words.target}`,
  },
  drag: {
    params: [TARGET, { name: 'destination', kind: 'node' }],
    engine: { on: 'node' },
    record: { kind: 'action' },
    needsEnabled: true,
    pointer: true,
    sentence: (words) => `drag ${words.target} onto ${words.destination}`,
  },
  navigate: {
    params: [{ name: 'url', kind: 'url' }],
    engine: { on: 'page' },
    record: { kind: 'action' },
    sentence: (words) => `navigate to ${words.url}`,
    tool: {
      name: 'navigate',
      description: 'Open a URL or path.',
      fields: [{ name: 'url', kind: 'text', min: 1, max: 2048 }],
      label: (input) => `navigate to ${String(input.url)}`,
    },
  },
  back: {
    params: [],
    engine: { on: 'page' },
    record: { kind: 'action' },
    sentence: () => 'go back',
    tool: { name: 'back', description: 'Go back.', fields: [], label: () => 'back' },
  },
  resize: {
    params: [{ name: 'size', kind: 'size' }],
    engine: { on: 'page' },
    record: { kind: 'gap', rule: 'resize' },
    sentence: (words) => (words.size === undefined ? 'resize the viewport' : `resize the viewport to ${words.size}`),
  },
  typeText: {
    params: [{ name: 'value', kind: 'typed', onSecret: 'refuse' }],
    needs: 'type',
    engine: { on: 'page' },
    record: { kind: 'action' },
    sentence: (words) => `type ${words.value} into the focused field`,
  },
  pressKey: {
    params: [{ name: 'key', kind: 'key' }],
    needs: 'press',
    engine: { on: 'page', verb: 'press' },
    record: { kind: 'action' },
    sentence: (words) => `press ${words.key}`,
  },
  dismissKeyboard: {
    params: [],
    needs: null,
    engine: { on: 'none', why: 'it shows no on-screen keyboard' },
    // Nothing to repeat on the web; a replay that needs it would fail visibly on the next action.
    record: { kind: 'skip' },
    sentence: () => 'dismiss the keyboard',
  },
  tapAt: {
    params: [{ name: 'point', kind: 'point' }],
    engine: { on: 'point', fallback: 'tap' },
    // Without engine pixels the runner taps the listed control under the point; keep it.
    record: { kind: 'action', replayTargetedAs: 'tap' },
    needsEnabled: true,
    pointer: true,
    sentence: (words) => (words.hasTarget ? `tap ${words.target} at ${words.point}` : `tap at ${words.point}`),
    tool: {
      name: 'tap_at',
      description: 'Click a point of the screenshot.',
      fields: [{ name: 'x', kind: 'coordinate', param: 'point' }, { name: 'y', kind: 'coordinate', param: 'point' }],
      label: (input) => `tap at (${String(input.x)}, ${String(input.y)})`,
      offAfterSecret: 'Point taps are off after a secret was typed in this test.',
    },
  },
  hoverAt: {
    params: [{ name: 'point', kind: 'point' }],
    engine: { on: 'point', fallback: 'hover' },
    record: { kind: 'action', as: 'hover', drop: ['point'], untargeted: 'pointAction' },
    inspects: true,
    sentence: (words) => (words.hasTarget ? `hover ${words.target} at ${words.point}` : `hover at ${words.point}`),
  },
  dragAt: {
    params: [{ name: 'from', kind: 'point' }, { name: 'to', kind: 'point' }],
    engine: { on: 'point', fallback: 'drag' },
    record: { kind: 'gap', rule: 'pointAction' },
    sentence: (words) => `drag from ${words.point} to ${words.to}`,
  },
} as const satisfies Record<string, VerbRow>;

/** A verb of `ctx.actions` (every row of {@link VERB_TABLE}). */
export type PolicedVerb = keyof typeof VERB_TABLE;

/** The verbs of {@link VERB_TABLE}, in its order. */
export const POLICED_VERBS = Object.keys(VERB_TABLE) as PolicedVerb[];

/** The row of a verb, or undefined for a name that is none (a forged entry, a project tool). */
export function verbRow(verb: string): VerbRow | undefined {
  return Object.hasOwn(VERB_TABLE, verb) ? (VERB_TABLE as Record<string, VerbRow>)[verb] : undefined;
}

/** The engine verbs the rows declare as their own: each row without `needs`. */
export type EngineVerbOfTable = { [V in PolicedVerb]: (typeof VERB_TABLE)[V] extends { needs: unknown } ? never : V }[PolicedVerb];

/** The engine verb a row needs the target to declare; null when no engine offers it. */
export function neededVerb(verb: PolicedVerb): string | null {
  const row: VerbRow = VERB_TABLE[verb];
  return row.needs === undefined ? verb : row.needs;
}

/** The positional parameters of a call (the option fields travel in one trailing object). */
export function positionalParams(row: VerbRow): VerbParam[] {
  return row.params.filter((param) => param.option !== true);
}

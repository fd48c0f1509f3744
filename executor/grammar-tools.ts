/**
 * The built-in action tools (DESIGN §5): one AI SDK tool per verb the target's engine
 * declares (the tools of the verb table, `contract/verbs.ts`), each a thin, strictly typed
 * front for `ctx.actions`. A result reports what
 * changed on screen; a failure reports what went wrong and the current screen.
 */
import { tool, type ToolSet } from 'ai';
import type { ToolResultOutput } from '@ai-sdk/provider-utils';
import { z } from 'zod';
import { isE2EError, messageOf } from '../errors/index.js';
import type { Verb } from '../contract/engine.js';
import { neededVerb, POLICED_VERBS, positionalParams, VERB_TABLE, type PolicedVerb, type VerbRow, type VerbTool, type VerbToolField, type VerbToolInput } from '../contract/verbs.js';
import type { ActionOutcome, Observation, StepContext } from '../contract/step-contract.js';
import { linesOf } from '../step/screen-text.js';
import { isRuntimeHardStop } from './hard-stop.js';
import { findScreenBlocks } from './screen-elision.js';
import type { Guard } from './tool-loop.js';
import { ToolFailure } from './tool-failure.js';
import { unlisted } from './unlisted-tool.js';

/** What a grammar tool returns: text for the model, and a masked screenshot for `screenshot`. */
export interface ScreenOutput {
  text: string;
  /** True when the action changed nothing on screen (a verdict in the same turn then cannot rest on it). */
  unchanged?: boolean;
  /** PNG bytes (secure fields masked); only from `screenshot`, never after a secret was typed. */
  screenshot?: Uint8Array;
}

/** Tool name for each engine verb that has one: the tools of the verb table's rows, and `screenshot`. */
export const GRAMMAR_TOOL_NAMES: Partial<Record<Verb, string>> = {
  ...Object.fromEntries(
    POLICED_VERBS.flatMap((verb) => {
      const row: VerbRow = VERB_TABLE[verb];
      return row.tool === undefined || neededVerb(verb) !== verb ? [] : [[verb, row.tool.name]];
    }),
  ),
  screenshot: 'screenshot',
};

// Rules here are checked, not sent: every request repeats every schema, and the prompt says what an id is.
const NODE_ID = /^#?[A-Za-z0-9_-]{1,64}$/;
const bounded = (min: number, max: number) =>
  z.string().refine((value) => value.length >= min && value.length <= max, min === 0 ? `at most ${max} characters` : `${min} to ${max} characters`);
const target = z.string().refine((value) => NODE_ID.test(value), 'a node id from the screen, such as n10 or #n10');
const coordinate = z.number().refine((value) => value >= 0 && value <= 100_000, 'CSS pixels from the top left, 0 to 100000');

/** A node reference from a target string (`"#n10"` or `"n10"`). */
export function nodeRef(value: string): { id: string } {
  return { id: value.startsWith('#') ? value.slice(1) : value };
}

function screenshotOutput(output: ScreenOutput | string): ToolResultOutput {
  if (typeof output === 'string') return { type: 'text', value: output };
  if (output.screenshot === undefined) return { type: 'text', value: output.text };
  return {
    type: 'content',
    value: [
      { type: 'text', text: output.text },
      { type: 'image-data', data: Buffer.from(output.screenshot).toString('base64'), mediaType: 'image/png' },
    ],
  };
}

const toModelOutput = ({ output }: { output: ScreenOutput | string }): ToolResultOutput => screenshotOutput(output);

/**
 * Run one policed action and describe it for the model. A failure that is not a hard stop
 * becomes a `ToolFailure` carrying the reason and the current screen.
 */
async function perform(ctx: StepContext, label: string, action: () => Promise<ActionOutcome>, pictures?: PictureState): Promise<ScreenOutput> {
  let outcome: ActionOutcome;
  try {
    outcome = await action();
  } catch (error) {
    if (isRuntimeHardStop(error) || ctx.signal.aborted) throw error;
    const message = messageOf(error);
    const code = isE2EError(error) ? ` (${error.code})` : '';
    // The runner's action errors already end with the current screen; otherwise read it now.
    if (findScreenBlocks(message).length > 0) throw new ToolFailure(`${label} failed${code}: ${message}`, { cause: error });
    let screen: string;
    try {
      screen = (await ctx.observe()).text;
    } catch (observeError) {
      if (isRuntimeHardStop(observeError) || ctx.signal.aborted) throw observeError;
      screen = 'The screen could not be read after the failure.';
    }
    throw new ToolFailure(`${label} failed${code}: ${message}\nCurrent screen:\n${screen}`, { cause: error });
  }
  const unchanged = outcome.changes.trim() === '' || NO_CHANGE.test(outcome.changes);
  const changes = outcome.changes.trim() === '' ? 'Nothing changed on screen.' : outcome.changes;
  const result: ScreenOutput = { text: `${label}: done.\n${changes}` };
  if (unchanged) result.unchanged = true;
  // Once the model looked at a picture, it keeps seeing the screen it acts on.
  if (pictures?.seen === true && !ctx.attempt.secretFilled()) {
    try {
      const observation = await ctx.observe({ pixels: true });
      if (observation.pixels !== undefined) result.screenshot = observation.pixels;
    } catch (error) {
      // The action is done; a picture that cannot be taken only leaves the result without one.
      if (isRuntimeHardStop(error) || ctx.signal.aborted) throw error;
    }
  }
  return result;
}

/** The name of the tool that finds nodes by their words. */
export const FIND_TOOL_NAME = 'find';

/** What `find` tells the model: the matching nodes' lines, or that none matched. */
export function describeFound(observation: Observation): string {
  const found = observation.found;
  if (found === undefined) return observation.text;
  const quoted = JSON.stringify(found.query);
  if (found.total === 0) return `Nothing on the page shows ${quoted} (screen revision ${observation.revision}).`;
  const lines = linesOf(observation.text, found.ids);
  const more = found.total - lines.length;
  const header = `Found ${found.total} node${found.total === 1 ? '' : 's'} showing ${quoted} (screen revision ${observation.revision}):`;
  const notes = [
    ...(more > 0 ? [`… and ${more} more; give more words to narrow it down.`] : []),
    ...(found.partial === true ? ['More match than one screen holds: give more words.'] : []),
  ];
  return [header, ...lines, ...notes].join('\n');
}

/** The change report of an action that changed nothing (`Screen revision 4: no change.`). */
const NO_CHANGE = /^Screen revision \d+(?: \(path [^)]*\))?: no change\.$/;

/** Whether this step's model asked for a screenshot yet (from then on every action result carries one). */
interface PictureState {
  seen: boolean;
}

/** `The secret's name`, with what each secret is for when its config says. */
function secretNameDescription(ctx: StepContext): string {
  const purposes = Object.entries(ctx.step.secretPurposes ?? {});
  return purposes.length === 0 ? 'The secret\'s name' : `The secret's name; ${purposes.map(([name, purpose]) => `${name}: ${purpose}`).join('; ')}`;
}

/** The rarer pointer verbs (rows whose tool is a `pointerKind`), which {@link createGrammarTools} offers as kinds of one `pointer` tool. */
export const POINTER_KINDS: Readonly<Record<string, PolicedVerb>> = Object.fromEntries(
  POLICED_VERBS.flatMap((verb) => {
    const tool = (VERB_TABLE[verb] as VerbRow).tool;
    return tool?.pointerKind === true ? [[tool.name, verb]] : [];
  }),
);


/** Options of {@link createGrammarTools}. */
export interface GrammarToolOptions {
  guard: Guard;
  /**
   * `grouped` (default): `double_tap`, `long_press`, `right_click` and `hover` are a `kind` of
   * `tap`, and `scroll_to` is `scroll` with a target and no direction, because every request
   * repeats every tool definition; `separate`: one tool per verb, named as in DESIGN §5.
   */
  pointer?: 'grouped' | 'separate';
}

/** The zod schema of one field of a verb's tool. */
function fieldSchema(field: VerbToolField, ctx: StepContext): z.ZodType {
  let schema: z.ZodType;
  switch (field.kind) {
    case 'node':
      schema = target;
      break;
    case 'text':
      schema = bounded(field.min ?? 0, field.max ?? 4096);
      break;
    case 'flag':
      schema = z.boolean();
      break;
    case 'direction':
      schema = z.enum(['up', 'down', 'left', 'right']);
      break;
    case 'secret':
      schema = z.enum(ctx.step.secrets as [string, ...string[]]).describe(secretNameDescription(ctx));
      break;
    case 'coordinate':
      schema = coordinate;
      break;
  }
  return field.optional === true ? schema.optional() : schema;
}

/** The `ctx.actions` arguments a tool call stands for: fields by the parameter they fill, coordinates as one point. */
function callArguments(row: VerbRow, tool: VerbTool, input: Readonly<Record<string, unknown>>): unknown[] {
  const values = new Map<string, unknown>();
  for (const field of tool.fields) {
    const param = field.param ?? field.name;
    const given = input[field.name];
    if (field.kind === 'coordinate') values.set(param, { ...(values.get(param) as object | undefined), [field.name]: given });
    else if (field.kind === 'node') values.set(param, given === undefined ? undefined : nodeRef(given as string));
    else if (field.kind === 'flag') values.set(param, given ?? field.default);
    else values.set(param, given);
  }
  const args: unknown[] = positionalParams(row).map((param) => values.get(param.name));
  const options = row.params.filter((param) => param.option === true && values.has(param.name));
  if (options.length > 0) args.push(Object.fromEntries(options.map((param) => [param.name, values.get(param.name)])));
  return args;
}

/** The tool's input as its label reads it: node ids without `#`. */
function labelInput(tool: VerbTool, input: Readonly<Record<string, unknown>>): VerbToolInput {
  const shown: Record<string, string | number | boolean | undefined> = {};
  for (const field of tool.fields) {
    const given = input[field.name] as string | number | boolean | undefined;
    shown[field.name] = field.kind === 'node' && given !== undefined ? nodeRef(given as string).id : given;
  }
  return shown;
}

/**
 * The built-in action tools for the verbs `ctx.target.verbs` declares, one per row of the verb
 * table with a tool (`contract/verbs.ts`), named as in DESIGN §5 (`tap`, `type`, …, `tap_at`),
 * and `find`. Grouped by default (every request repeats every definition): the rarer pointer
 * verbs are a `kind` of `tap`, `tap_at` is `tap({ x, y })`, `scroll_to` is `scroll` with a
 * target alone, `back` is `navigate('back')`; `pointer: 'separate'` gives each its own tool.
 * `type_secret` exists when the step may type secrets; `screenshot` and the point taps only until
 * a secret is typed in the attempt. Every body runs inside `guard`.
 */
export function createGrammarTools(ctx: StepContext, helpers: GrammarToolOptions): ToolSet {
  const { guard } = helpers;
  const verbs = new Set<string>(ctx.target.verbs);
  const pictures: PictureState = { seen: false };
  const act = (label: string, action: () => Promise<ActionOutcome>): Promise<ScreenOutput | string> => guard(() => perform(ctx, label, action, pictures));
  const pixelsAllowed = !ctx.attempt.secretFilled();
  const tools: ToolSet = {};
  const call = (verb: PolicedVerb, args: unknown[]): Promise<ActionOutcome> => (ctx.actions[verb] as (...given: unknown[]) => Promise<ActionOutcome>)(...args);
  const offered = (verb: PolicedVerb, spec: VerbTool): boolean => {
    const needs = neededVerb(verb);
    if (needs === null || !verbs.has(needs)) return false;
    if (spec.fields.some((field) => field.kind === 'secret') && ctx.step.secrets.length === 0) return false;
    return spec.offAfterSecret === undefined || pixelsAllowed;
  };
  const kinds = Object.entries(POINTER_KINDS).filter(([, verb]) => verbs.has(verb)).map(([kind]) => kind);
  const grouping = (helpers.pointer ?? 'grouped') === 'grouped';
  // The rarer pointer verbs ride on `tap`, scrolling into view on `scroll`, when those are offered.
  const kindsOnTap = grouping && verbs.has('tap') && kinds.length > 0;
  // A point of a screenshot is tapped with `tap({ x, y })` while pictures may be shown.
  const pointOnTap = grouping && verbs.has('tap') && verbs.has('tapAt') && verbs.has('screenshot') && pixelsAllowed;
  const targetOnScroll = grouping && verbs.has('scroll') && verbs.has('scrollTo');
  const backOnNavigate = grouping && verbs.has('navigate') && verbs.has('back');
  /** `tap`: a node, or with `kind` another gesture on it, or with `x` and `y` a point of a screenshot. */
  const groupedTap = (tapKinds: readonly string[], points: boolean) => {
    const fields: Record<string, z.ZodType> = { target: target.optional() };
    if (tapKinds.length > 0) fields['kind'] = z.enum(tapKinds as [string, ...string[]]).optional();
    if (points) Object.assign(fields, { x: coordinate.optional(), y: coordinate.optional() });
    const description = ['Click a node', ...(tapKinds.length > 0 ? ['; kind: other gestures'] : []), ...(points ? ['; x, y: a screenshot point'] : []), '.'].join('');
    return tool({
      description,
      inputSchema: z.strictObject(fields),
      execute: (input: { target?: string | undefined; kind?: string | undefined; x?: number | undefined; y?: number | undefined }) => {
        const { target: id, kind, x, y } = input;
        // Labelled with the verb's own tool name, so results and transcripts read as if each were a tool.
        if (id !== undefined) return act(`${kind ?? 'tap'} #${nodeRef(id).id}`, () => call(kind === undefined ? 'tap' : POINTER_KINDS[kind]!, [nodeRef(id)]));
        if (x === undefined || y === undefined) return guard(() => Promise.reject(new ToolFailure('tap needs a target, or x and y of a screenshot point.')));
        const offAfterSecret = VERB_TABLE.tapAt.tool.offAfterSecret;
        return guard(async (): Promise<ScreenOutput | string> => (ctx.attempt.secretFilled() ? offAfterSecret : perform(ctx, `tap at (${x}, ${y})`, () => call('tapAt', [{ x, y }]), pictures)));
      },
      toModelOutput,
    });
  };
  let screenshotOffered = false;
  // `screenshot` comes before the point tools, which act on what it shows.
  const offerScreenshot = (): void => {
    if (screenshotOffered) return;
    screenshotOffered = true;
    if (!verbs.has('screenshot') || !pixelsAllowed) return;
    tools['screenshot'] = tool({
      description: 'See the screen.',
      inputSchema: z.strictObject({}),
      execute: () =>
        guard(async (): Promise<ScreenOutput | string> => {
          if (ctx.attempt.secretFilled()) return 'No screenshots after a secret was typed in this test.';
          const observation = await ctx.observe({ pixels: true });
          if (observation.pixels === undefined) return 'The screenshot was withheld by policy.';
          pictures.seen = true;
          return { text: `Screenshot at revision ${observation.revision}.`, screenshot: observation.pixels };
        }),
      toModelOutput,
    });
  };
  for (const verb of POLICED_VERBS) {
    const row: VerbRow = VERB_TABLE[verb];
    const spec = row.tool;
    if (spec === undefined) continue;
    if (spec.offAfterSecret !== undefined) offerScreenshot();
    if (!offered(verb, spec)) continue;
    const folded =
      (spec.pointerKind === true && kindsOnTap) || (verb === 'tapAt' && pointOnTap) || (verb === 'scrollTo' && targetOnScroll) || (verb === 'back' && backOnNavigate);
    if (verb === 'tap' && (kindsOnTap || pointOnTap)) {
      tools[spec.name] = groupedTap(kindsOnTap ? kinds : [], pointOnTap);
      continue;
    }
    if (verb === 'navigate' && backOnNavigate) {
      tools[spec.name] = tool({
        description: 'Open a URL or path; back goes back.',
        inputSchema: z.strictObject({ url: bounded(1, 2048) }),
        execute: ({ url }: { url: string }) => (url === 'back' ? act('back', () => call('back', [])) : act(`navigate to ${url}`, () => call('navigate', [url]))),
        toModelOutput,
      });
      continue;
    }
    if (verb === 'scroll' && targetOnScroll) {
      tools[spec.name] = tool({
        description: 'Scroll the page or a node; a target alone scrolls into view.',
        inputSchema: z.strictObject({ direction: z.enum(['up', 'down', 'left', 'right']).optional(), target: target.optional() }),
        execute: ({ direction, target: id }: { direction?: 'up' | 'down' | 'left' | 'right' | undefined; target?: string | undefined }) => {
          if (direction === undefined && id === undefined) return guard(() => Promise.reject(new ToolFailure('scroll needs a direction, or a target to scroll into view.')));
          if (direction === undefined) return act(`scroll_to #${nodeRef(id!).id}`, () => call('scrollTo', [nodeRef(id!)]));
          return act(`scroll ${direction}`, () => call('scroll', id === undefined ? [direction] : [direction, nodeRef(id)]));
        },
        toModelOutput,
      });
      continue;
    }
    const offAfterSecret = spec.offAfterSecret;
    const separate = tool({
      description: spec.description,
      inputSchema: z.strictObject(Object.fromEntries(spec.fields.map((field) => [field.name, fieldSchema(field, ctx)]))),
      execute: (input: Record<string, unknown>) => {
        const label = spec.label(labelInput(spec, input));
        const action = () => call(verb, callArguments(row, spec, input));
        if (offAfterSecret === undefined) return act(label, action);
        return guard(async (): Promise<ScreenOutput | string> => (ctx.attempt.secretFilled() ? offAfterSecret : perform(ctx, label, action, pictures)));
      },
      toModelOutput,
    });
    // A folded verb keeps its DESIGN tool, unlisted: a model that calls it by that name is served.
    tools[spec.name] = folded ? unlisted(separate) : separate;
  }
  // The old name of the grouped pointer tool, for models that learned it.
  if (kindsOnTap) tools['pointer'] = unlisted(groupedTap(kinds, false));
  offerScreenshot();
  tools[FIND_TOOL_NAME] = tool({
    description: 'Find nodes by words, even left-out ones.',
    inputSchema: z.strictObject({ text: bounded(1, 200) }),
    execute: ({ text }: { text: string }) => guard(async () => describeFound(await ctx.observe({ find: text }))),
  });
  return tools;
}

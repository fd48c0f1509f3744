/**
 * The built-in action tools (DESIGN §5): one AI SDK tool per verb the target's engine
 * declares, each a thin, strictly typed front for `ctx.actions`. A result reports what
 * changed on screen; a failure reports what went wrong and the current screen.
 */
import { tool, type ToolSet } from 'ai';
import type { ToolResultOutput } from '@ai-sdk/provider-utils';
import { z } from 'zod';
import { isE2EError, messageOf } from '../errors/index.js';
import type { Verb } from '../contract/engine.js';
import type { ActionOutcome, StepContext } from '../contract/step-contract.js';
import { isRuntimeHardStop } from './hard-stop.js';
import { findScreenBlocks } from './screen-elision.js';
import type { Guard } from './tool-loop.js';
import { ToolFailure } from './tool-failure.js';

/** What a grammar tool returns: text for the model, and a masked screenshot for `screenshot`. */
export interface ScreenOutput {
  text: string;
  /** PNG bytes (secure fields masked); only from `screenshot`, never after a secret was typed. */
  screenshot?: Uint8Array;
}

/** Tool name for each engine verb that has one. */
export const GRAMMAR_TOOL_NAMES: Partial<Record<Verb, string>> = {
  tap: 'tap',
  doubleTap: 'double_tap',
  longPress: 'long_press',
  secondaryTap: 'right_click',
  hover: 'hover',
  type: 'type',
  press: 'press',
  select: 'select',
  check: 'check',
  scroll: 'scroll',
  scrollTo: 'scroll_to',
  navigate: 'navigate',
  back: 'back',
  screenshot: 'screenshot',
  tapAt: 'tap_at',
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
  const changes = outcome.changes.trim() === '' ? 'Nothing changed on screen.' : outcome.changes;
  const result: ScreenOutput = { text: `${label}: done.\n${changes}` };
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

/** Whether this step's model asked for a screenshot yet (from then on every action result carries one). */
interface PictureState {
  seen: boolean;
}

/** `The secret's name`, with what each secret is for when its config says. */
function secretNameDescription(ctx: StepContext): string {
  const purposes = Object.entries(ctx.step.secretPurposes ?? {});
  return purposes.length === 0 ? 'The secret\'s name' : `The secret's name; ${purposes.map(([name, purpose]) => `${name}: ${purpose}`).join('; ')}`;
}

/** The rarer pointer verbs, which {@link createGrammarTools} offers as kinds of one `pointer` tool. */
export const POINTER_KINDS = {
  double_tap: 'doubleTap',
  long_press: 'longPress',
  right_click: 'secondaryTap',
  hover: 'hover',
} as const satisfies Record<string, Verb>;

/** The name of the grouped pointer tool. */
export const POINTER_TOOL_NAME = 'pointer';

/** Options of {@link createGrammarTools}. */
export interface GrammarToolOptions {
  guard: Guard;
  /**
   * `grouped` (default): `double_tap`, `long_press`, `right_click` and `hover` are the `kind`
   * of one `pointer` tool, because every request repeats every tool definition; `separate`:
   * one tool per verb, named as in DESIGN §5.
   */
  pointer?: 'grouped' | 'separate';
}

/**
 * The built-in action tools for the verbs `ctx.target.verbs` declares, named as in DESIGN §5
 * (`tap`, `type`, …, `tap_at`), with the rarer pointer verbs grouped as `pointer({ target,
 * kind })` unless `pointer: 'separate'` asks for one tool each. `type_secret` exists when
 * the step may type secrets; `screenshot` and `tap_at` only until a secret is typed in the
 * attempt. Every body runs inside `guard`.
 */
export function createGrammarTools(ctx: StepContext, helpers: GrammarToolOptions): ToolSet {
  const { guard } = helpers;
  const verbs = new Set<Verb>(ctx.target.verbs);
  const pictures: PictureState = { seen: false };
  const act = (label: string, action: () => Promise<ActionOutcome>): Promise<ScreenOutput | string> => guard(() => perform(ctx, label, action, pictures));
  const tools: ToolSet = {};
  const onNode = (verb: 'tap' | 'doubleTap' | 'longPress' | 'secondaryTap' | 'hover' | 'scrollTo', description: string): void => {
    if (!verbs.has(verb)) return;
    const name = GRAMMAR_TOOL_NAMES[verb]!;
    tools[name] = tool({
      description,
      inputSchema: z.strictObject({ target }),
      execute: ({ target: id }) => act(`${name} #${nodeRef(id).id}`, () => ctx.actions[verb](nodeRef(id))),
      toModelOutput,
    });
  };
  onNode('tap', 'Click a node.');
  const kinds = Object.entries(POINTER_KINDS).filter(([, verb]) => verbs.has(verb)).map(([kind]) => kind as keyof typeof POINTER_KINDS);
  if ((helpers.pointer ?? 'grouped') === 'grouped' && kinds.length > 1) {
    tools[POINTER_TOOL_NAME] = tool({
      description: 'Double-click, long-press, right-click or hover a node.',
      inputSchema: z.strictObject({ target, kind: z.enum(kinds as [typeof kinds[number], ...typeof kinds]) }),
      // Labelled with the verb's own tool name, so results and transcripts read as if it were one.
      execute: ({ target: id, kind }) => act(`${kind} #${nodeRef(id).id}`, () => ctx.actions[POINTER_KINDS[kind]](nodeRef(id))),
      toModelOutput,
    });
  } else {
    onNode('doubleTap', 'Double-click a node.');
    onNode('longPress', 'Press and hold a node.');
    onNode('secondaryTap', 'Right-click a node.');
    onNode('hover', 'Hover over a node.');
  }
  onNode('scrollTo', 'Scroll a node into view.');
  if (verbs.has('type')) {
    tools['type'] = tool({
      description: 'Type into a field (replace false appends).',
      inputSchema: z.strictObject({ target, text: bounded(0, 4096), replace: z.boolean().optional() }),
      execute: ({ target: id, text, replace }) =>
        act(`type into #${nodeRef(id).id}`, () => ctx.actions.type(nodeRef(id), text, { replace: replace ?? true })),
      toModelOutput,
    });
    const secrets = ctx.step.secrets;
    if (secrets.length > 0) {
      tools['type_secret'] = tool({
        description: 'Type a secret into a field by its name; you never see its value.',
        inputSchema: z.strictObject({ target, secret: z.enum(secrets as [string, ...string[]]).describe(secretNameDescription(ctx)) }),
        execute: ({ target: id, secret }) => act(`type secret ${secret} into #${nodeRef(id).id}`, () => ctx.actions.typeSecret(nodeRef(id), secret)),
        toModelOutput,
      });
    }
  }
  if (verbs.has('press')) {
    tools['press'] = tool({
      description: 'Press a key (Enter, Escape, Control+A) on a node or the focus.',
      inputSchema: z.strictObject({ key: bounded(1, 40), target: target.optional() }),
      execute: ({ key, target: id }) =>
        act(`press ${key}${id === undefined ? '' : ` on #${nodeRef(id).id}`}`, () => ctx.actions.press(id === undefined ? undefined : nodeRef(id), key)),
      toModelOutput,
    });
  }
  if (verbs.has('select')) {
    tools['select'] = tool({
      description: 'Pick a select box option by label or value.',
      inputSchema: z.strictObject({ target, value: bounded(1, 1024) }),
      execute: ({ target: id, value }) => act(`select "${value}" in #${nodeRef(id).id}`, () => ctx.actions.select(nodeRef(id), value)),
      toModelOutput,
    });
  }
  if (verbs.has('check')) {
    tools['check'] = tool({
      description: 'Tick a checkbox, radio or switch (checked false unticks).',
      inputSchema: z.strictObject({ target, checked: z.boolean().optional() }),
      execute: ({ target: id, checked }) =>
        act(`${checked === false ? 'uncheck' : 'check'} #${nodeRef(id).id}`, () => ctx.actions.check(nodeRef(id), checked ?? true)),
      toModelOutput,
    });
  }
  if (verbs.has('scroll')) {
    tools['scroll'] = tool({
      description: 'Scroll the page, or a node, by a screen.',
      inputSchema: z.strictObject({ direction: z.enum(['up', 'down', 'left', 'right']), target: target.optional() }),
      execute: ({ direction, target: id }) =>
        act(`scroll ${direction}`, () => ctx.actions.scroll(direction, id === undefined ? undefined : nodeRef(id))),
      toModelOutput,
    });
  }
  if (verbs.has('navigate')) {
    tools['navigate'] = tool({
      description: 'Open a URL or path of the app.',
      inputSchema: z.strictObject({ url: bounded(1, 2048) }),
      execute: ({ url }) => act(`navigate to ${url}`, () => ctx.actions.navigate(url)),
      toModelOutput,
    });
  }
  if (verbs.has('back')) {
    tools['back'] = tool({
      description: 'Go back a page.',
      inputSchema: z.strictObject({}),
      execute: () => act('back', () => ctx.actions.back()),
      toModelOutput,
    });
  }
  const pixelsAllowed = !ctx.attempt.secretFilled();
  if (verbs.has('screenshot') && pixelsAllowed) {
    tools['screenshot'] = tool({
      description: 'See the screen as an image.',
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
  }
  if (verbs.has('tapAt') && pixelsAllowed) {
    tools['tap_at'] = tool({
      description: 'Click a point of the screenshot.',
      inputSchema: z.strictObject({ x: coordinate, y: coordinate }),
      execute: ({ x, y }) =>
        guard(async (): Promise<ScreenOutput | string> => {
          if (ctx.attempt.secretFilled()) return 'Point taps are off after a secret was typed in this test.';
          return perform(ctx, `tap at (${x}, ${y})`, () => ctx.actions.tapAt({ x, y }), pictures);
        }),
      toModelOutput,
    });
  }
  return tools;
}

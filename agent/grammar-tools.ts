/**
 * The built-in action tools (DESIGN §5): one AI SDK tool per verb the target's engine
 * declares, each a thin, strictly typed front for `ctx.actions`. A result reports what
 * changed on screen; a failure reports what went wrong and the current screen.
 */
import { tool, type ToolSet } from 'ai';
import type { ToolResultOutput } from '@ai-sdk/provider-utils';
import { z } from 'zod';
import { isE2EError } from '../errors/index.js';
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

const target = z
  .string()
  .regex(/^#?[A-Za-z0-9_-]{1,64}$/, 'a node id from the screen, such as n10 or #n10')
  .describe('The id of a node on the latest screen, such as n10 or #n10');

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
async function perform(ctx: StepContext, label: string, action: () => Promise<ActionOutcome>): Promise<ScreenOutput> {
  try {
    const outcome = await action();
    const changes = outcome.changes.trim() === '' ? 'Nothing changed on screen.' : outcome.changes;
    return { text: `${label}: done.\n${changes}` };
  } catch (error) {
    if (isRuntimeHardStop(error) || ctx.signal.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
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
}

/**
 * The built-in action tools for the verbs `ctx.target.verbs` declares, named as in DESIGN §5
 * (`tap`, `double_tap`, …, `tap_at`). `type_secret` exists when the step may type secrets;
 * `screenshot` and `tap_at` only until a secret is typed in the attempt. Every body runs
 * inside `guard`.
 */
export function createGrammarTools(ctx: StepContext, helpers: { guard: Guard }): ToolSet {
  const { guard } = helpers;
  const verbs = new Set<Verb>(ctx.target.verbs);
  const act = (label: string, action: () => Promise<ActionOutcome>): Promise<ScreenOutput | string> => guard(() => perform(ctx, label, action));
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
  onNode('tap', 'Tap (click) a node: buttons, links, tabs, menu items, list rows.');
  onNode('doubleTap', 'Double-tap (double-click) a node.');
  onNode('longPress', 'Press and hold a node.');
  onNode('secondaryTap', 'Right-click a node to open its context menu.');
  onNode('hover', 'Move the pointer over a node, for menus and tooltips that open on hover.');
  onNode('scrollTo', 'Scroll until a node is in view.');
  if (verbs.has('type')) {
    tools['type'] = tool({
      description: 'Type text into a field. Replaces what the field holds unless replace is false.',
      inputSchema: z.strictObject({
        target,
        text: z.string().max(4096).describe('The exact text to type'),
        replace: z.boolean().optional().describe('Clear the field first (default true)'),
      }),
      execute: ({ target: id, text, replace }) =>
        act(`type into #${nodeRef(id).id}`, () => ctx.actions.type(nodeRef(id), text, { replace: replace ?? true })),
      toModelOutput,
    });
    const secrets = ctx.step.secrets;
    if (secrets.length > 0) {
      tools['type_secret'] = tool({
        description: 'Type a configured secret (a password, a token) into a field, by the secret\'s name. You never see its value.',
        inputSchema: z.strictObject({ target, secret: z.enum(secrets as [string, ...string[]]).describe('The secret\'s name') }),
        execute: ({ target: id, secret }) => act(`type secret ${secret} into #${nodeRef(id).id}`, () => ctx.actions.typeSecret(nodeRef(id), secret)),
        toModelOutput,
      });
    }
  }
  if (verbs.has('press')) {
    tools['press'] = tool({
      description: 'Press a key or chord, such as Enter, Escape, Tab, ArrowDown or Control+A, on a node or on the focused element.',
      inputSchema: z.strictObject({
        key: z.string().min(1).max(40).describe('Key name as on a keyboard, e.g. Enter'),
        target: target.optional().describe('The node to focus first; leave out to press on the focused element'),
      }),
      execute: ({ key, target: id }) =>
        act(`press ${key}${id === undefined ? '' : ` on #${nodeRef(id).id}`}`, () => ctx.actions.press(id === undefined ? undefined : nodeRef(id), key)),
      toModelOutput,
    });
  }
  if (verbs.has('select')) {
    tools['select'] = tool({
      description: 'Choose an option of a select box by its label or value.',
      inputSchema: z.strictObject({ target, value: z.string().min(1).max(1024).describe('The option\'s label or value') }),
      execute: ({ target: id, value }) => act(`select "${value}" in #${nodeRef(id).id}`, () => ctx.actions.select(nodeRef(id), value)),
      toModelOutput,
    });
  }
  if (verbs.has('check')) {
    tools['check'] = tool({
      description: 'Tick or untick a checkbox, radio button or switch.',
      inputSchema: z.strictObject({ target, checked: z.boolean().optional().describe('true to tick (default), false to untick') }),
      execute: ({ target: id, checked }) =>
        act(`${checked === false ? 'uncheck' : 'check'} #${nodeRef(id).id}`, () => ctx.actions.check(nodeRef(id), checked ?? true)),
      toModelOutput,
    });
  }
  if (verbs.has('scroll')) {
    tools['scroll'] = tool({
      description: 'Scroll the page, or a scrollable node, by about one screen.',
      inputSchema: z.strictObject({ direction: z.enum(['up', 'down', 'left', 'right']), target: target.optional() }),
      execute: ({ direction, target: id }) =>
        act(`scroll ${direction}`, () => ctx.actions.scroll(direction, id === undefined ? undefined : nodeRef(id))),
      toModelOutput,
    });
  }
  if (verbs.has('navigate')) {
    tools['navigate'] = tool({
      description: 'Open a URL or a path of the app. Only the app\'s allowed origins can be opened.',
      inputSchema: z.strictObject({ url: z.string().min(1).max(2048).describe('An absolute URL or a path such as /settings') }),
      execute: ({ url }) => act(`navigate to ${url}`, () => ctx.actions.navigate(url)),
      toModelOutput,
    });
  }
  if (verbs.has('back')) {
    tools['back'] = tool({
      description: 'Go back to the previous page.',
      inputSchema: z.strictObject({}),
      execute: () => act('back', () => ctx.actions.back()),
      toModelOutput,
    });
  }
  const pixelsAllowed = !ctx.attempt.secretFilled();
  if (verbs.has('screenshot') && pixelsAllowed) {
    tools['screenshot'] = tool({
      description: 'Look at the screen as an image (secure fields masked) when the text screen is not enough: icons, colours, layout.',
      inputSchema: z.strictObject({}),
      execute: () =>
        guard(async (): Promise<ScreenOutput | string> => {
          if (ctx.attempt.secretFilled()) return 'No screenshots after a secret was typed in this test.';
          const observation = await ctx.observe({ pixels: true });
          if (observation.pixels === undefined) return 'The screenshot was withheld by policy.';
          return { text: `Screenshot at revision ${observation.revision}.`, screenshot: observation.pixels };
        }),
      toModelOutput,
    });
  }
  if (verbs.has('tapAt') && pixelsAllowed) {
    tools['tap_at'] = tool({
      description: 'Tap a point of the screenshot, in CSS pixels from the top left. Use only for things the text screen does not list.',
      inputSchema: z.strictObject({ x: z.number().min(0).max(100_000), y: z.number().min(0).max(100_000) }),
      execute: ({ x, y }) =>
        guard(async (): Promise<ScreenOutput | string> => {
          if (ctx.attempt.secretFilled()) return 'Point taps are off after a secret was typed in this test.';
          return perform(ctx, `tap at (${x}, ${y})`, () => ctx.actions.tapAt({ x, y }));
        }),
      toModelOutput,
    });
  }
  return tools;
}

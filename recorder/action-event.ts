/**
 * The policed action events (`onAction`, contract/step-seams.ts) as recorder input. Declared
 * structurally with only the parts the recorder reads; `ActionEvent` is assignable to it.
 */
import type { NodeRef, Point, ScreenNode, ScrollDirection } from '../contract/engine.js';
import type { ActionCall, ValueOrigin } from './record-action.js';
import type { RecordedActionInput } from './record-step.js';

/** The parts of the runner's `ActionEvent` the recorder reads. */
export interface ActionEventLike {
  verb: string;
  ref?: NodeRef | undefined;
  args: Readonly<Record<string, unknown>>;
  value?: ValueOrigin | undefined;
  before: { tree: ScreenNode; url: string };
  after?: { tree: ScreenNode; url: string } | undefined;
  /** `ok` or the error code the action failed with. */
  outcome: string;
  mayHaveCommitted: boolean;
}

/** The event as recorder input, or why it cannot be read. */
export type EventConversion = { kind: 'input'; input: RecordedActionInput } | { kind: 'unreadable'; reason: string };

class Unreadable extends Error {}

const DIRECTIONS: readonly string[] = ['up', 'down', 'left', 'right'];

function text(args: Readonly<Record<string, unknown>>, key: string): string {
  const value = args[key];
  if (typeof value !== 'string') throw new Unreadable(`its ${key} is not text`);
  return value;
}

function ref(value: unknown, what: string): NodeRef {
  if (typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string') return { id: (value as NodeRef).id };
  throw new Unreadable(`it has no ${what}`);
}

function point(value: unknown): Point {
  const candidate = value as { x?: unknown; y?: unknown } | null;
  if (typeof candidate === 'object' && candidate !== null && typeof candidate.x === 'number' && typeof candidate.y === 'number') {
    return { x: candidate.x, y: candidate.y };
  }
  throw new Unreadable('it has no point');
}

function callOf(event: ActionEventLike): ActionCall {
  const { args } = event;
  const target = (): NodeRef => ref(event.ref, 'target');
  switch (event.verb) {
    case 'tap':
    case 'doubleTap':
    case 'secondaryTap': {
      const modifiers = Array.isArray(args.modifiers) ? args.modifiers.filter((key): key is string => typeof key === 'string') : [];
      return modifiers.length === 0 ? { verb: event.verb, target: target() } : { verb: event.verb, target: target(), modifiers };
    }
    case 'longPress':
    case 'hover':
    case 'scrollTo':
      return { verb: event.verb, target: target() };
    case 'resize':
      return { verb: 'resize' };
    case 'type':
      return { verb: 'type', target: target(), value: text(args, 'value'), replace: args.replace === true };
    case 'typeSecret':
      return { verb: 'typeSecret', target: target(), name: text(args, 'name') };
    case 'press':
      return event.ref === undefined ? { verb: 'press', key: text(args, 'key') } : { verb: 'press', target: target(), key: text(args, 'key') };
    case 'select':
      return { verb: 'select', target: target(), value: text(args, 'value') };
    case 'check':
      return { verb: 'check', target: target(), checked: args.checked !== false };
    case 'scroll': {
      const direction = text(args, 'direction');
      if (!DIRECTIONS.includes(direction)) throw new Unreadable('its direction is not up, down, left or right');
      const scroll = { verb: 'scroll', direction: direction as ScrollDirection } as const;
      return event.ref === undefined ? scroll : { ...scroll, target: target() };
    }
    case 'upload': {
      const paths = args.paths;
      if (!Array.isArray(paths) || !paths.every((path): path is string => typeof path === 'string')) throw new Unreadable('its paths are not text');
      return { verb: 'upload', target: target(), paths };
    }
    case 'drag':
      return { verb: 'drag', target: target(), destination: ref(args.destination, 'destination') };
    case 'navigate':
      return { verb: 'navigate', url: text(args, 'url') };
    case 'back':
      return { verb: 'back' };
    case 'typeText':
      return { verb: 'typeText', value: text(args, 'value') };
    case 'pressKey':
      return { verb: 'pressKey', key: text(args, 'key') };
    case 'dismissKeyboard':
      return { verb: 'dismissKeyboard' };
    case 'tapAt':
      // Without engine pixels the runner taps the listed control under the point; keep it.
      return event.ref === undefined ? { verb: 'tapAt', point: point(args.point) } : { verb: 'tapAt', point: point(args.point), target: target() };
    case 'hoverAt':
      return event.ref === undefined ? { verb: 'hoverAt', point: point(args.point) } : { verb: 'hover', target: target() };
    case 'dragAt':
      return { verb: 'dragAt', from: point(args.from), to: point(args.to) };
    case 'tool':
      return { verb: 'tool', name: text(args, 'name'), mutates: args.mutates === true };
    default:
      throw new Unreadable(`its verb ${event.verb} is unknown`);
  }
}

/** Turn a runner action event into recorder input. */
export function actionInputFromEvent(event: ActionEventLike): EventConversion {
  let call: ActionCall;
  try {
    call = callOf(event);
  } catch (error) {
    if (error instanceof Unreadable) return { kind: 'unreadable', reason: error.message };
    throw error;
  }
  const input: RecordedActionInput = { call, before: event.before, ok: event.outcome === 'ok', mayHaveCommitted: event.mayHaveCommitted };
  if (event.after !== undefined) input.after = event.after;
  if (event.value !== undefined) input.valueOrigin = event.value;
  return { kind: 'input', input };
}

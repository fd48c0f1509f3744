/**
 * One policed action event (`onAction`) → one recorded action, read through its verb's row
 * (`contract/verbs.ts`). Targets become semantic descriptions of the screen the action was
 * resolved against; typed values get their provenance; what cannot be repeated becomes a `gap`.
 */
import type { RecordedAction, TargetDescription, TypedValue } from '../cache-format/entry.js';
import { MAX_VALUE_CHARS } from '../cache-format/entry.js';
import type { NodeRef, Point, ScreenNode } from '../contract/engine.js';
import type { ValueOrigin } from '../contract/step-seams.js';
import { verbRow, type VerbGapRule, type VerbParam, type VerbRow } from '../contract/verbs.js';
import { describeIndexedNode } from '../semantics/describe-target.js';
import type { TreeIndex } from '../semantics/tree-index.js';
import { mapTextFields, maskUniqueValues } from '../semantics/unique-placeholders.js';
import { classifyTypedValue, type ValueContext } from './value-provenance.js';
import { originOf } from '../semantics/route-of.js';
import { isVolatileSegment } from '../semantics/volatile-text.js';

/** A screen as the recorder needs it: the redacted tree and the URL. */
export interface ScreenSnapshot {
  tree: ScreenNode;
  url: string;
}

/** Gap rules that are not about a typed value. */
export const ACTION_GAP_RULES = {
  mutatingTool: 'mutating project tool',
  uncertainAction: 'a failed action that may have committed',
  pointAction: 'point action without a control',
  volatileUrl: 'navigation to an id read off the screen',
  secretUrl: 'navigation to a URL holding a secret',
  modifiedTap: 'tap holding modifier keys',
  resize: 'viewport resize',
} as const satisfies Record<VerbGapRule, string> & Record<string, string>;

/** What converting one event produced. */
export type ActionConversion =
  | { kind: 'action'; action: RecordedAction }
  | { kind: 'skip' }
  | { kind: 'not-cacheable'; reason: string };

/** Everything a conversion needs besides the event. */
export interface ConversionContext extends Omit<ValueContext, 'screenBefore' | 'targetId' | 'purpose'> {
  before: ScreenSnapshot;
  beforeIndex: TreeIndex;
}

class ConversionProblem extends Error {}

function describe(context: ConversionContext, ref: NodeRef, role: string): TargetDescription {
  const indexed = context.beforeIndex.byId.get(ref.id);
  if (indexed === undefined) throw new ConversionProblem(`its ${role} #${ref.id} is not on the screen it was resolved against`);
  const description = describeIndexedNode(context.beforeIndex, indexed);
  const uniqueValues = context.uniqueValues ?? {};
  return mapTextFields(description, (text) => maskUniqueValues(text, uniqueValues));
}

function checkLength(text: string, what: string): string {
  if (text.length > MAX_VALUE_CHARS) throw new ConversionProblem(`its ${what} is ${text.length} characters (at most ${MAX_VALUE_CHARS} are recorded)`);
  return text;
}

type ValueResult = { kind: 'value'; value: TypedValue } | { kind: 'gap'; rule: string };

function provenance(context: ConversionContext, origin: ValueOrigin | undefined, value: string, target: NodeRef | undefined, purpose: 'type' | 'select'): ValueResult {
  if (origin?.kind === 'unique') return { kind: 'value', value: { kind: 'unique', param: origin.param } };
  if (origin?.kind === 'secret') return { kind: 'value', value: { kind: 'secret', name: origin.name } };
  if (origin?.kind === 'param') return { kind: 'value', value: { kind: 'literal', value: checkLength(value, 'value') } };
  const valueContext: ValueContext = { ...context, screenBefore: context.before.tree, purpose };
  if (target !== undefined) valueContext.targetId = target.id;
  const classified = classifyTypedValue(value, valueContext);
  if (classified.kind === 'gap') return { kind: 'gap', rule: classified.rule };
  if (classified.kind === 'literal') checkLength(classified.value, 'value');
  return { kind: 'value', value: classified };
}

/**
 * A navigation: a gap when the URL carries an id from the screen or a secret; otherwise the
 * URL with `unique()` values masked, same-origin URLs kept as path + query + fragment so the
 * entry replays wherever the app is served.
 */
function navigation(context: ConversionContext, url: string): RecordedAction {
  checkLength(url, 'URL');
  if (url.includes('<secret:')) return { verb: 'gap', rule: ACTION_GAP_RULES.secretUrl };
  let parsed: URL;
  try {
    parsed = new URL(url, context.before.url);
  } catch {
    return { verb: 'navigate', url: maskUniqueValues(url, context.uniqueValues ?? {}) };
  }
  const known = [context.instruction, ...Object.values(context.literalParams ?? {}), ...Object.values(context.uniqueValues ?? {})].join('\n');
  const parts = [...parsed.pathname.split('/').map(decodeSegment), ...parsed.searchParams.values()].filter((part) => part !== '');
  if (parts.some((part) => isVolatileSegment(part) && !known.includes(part))) return { verb: 'gap', rule: ACTION_GAP_RULES.volatileUrl };
  const sameOrigin = parsed.origin !== 'null' && parsed.origin === originOf(context.before.url);
  const kept = sameOrigin ? `${parsed.pathname}${parsed.search}${parsed.hash}` : parsed.href;
  return { verb: 'navigate', url: maskUniqueValuesInUrl(kept, context.uniqueValues ?? {}) };
}

/** {@link maskUniqueValues}, also for the percent-encoded forms a URL holds. */
function maskUniqueValuesInUrl(url: string, uniqueValues: Readonly<Record<string, string>>): string {
  let masked = maskUniqueValues(url, uniqueValues);
  for (const [param, value] of Object.entries(uniqueValues)) {
    const encoded = encodeURIComponent(value);
    const forms = new Set([encoded, encoded.replace(/%20/g, '+')]);
    for (const form of forms) masked = maskUniqueValues(masked, { [param]: form });
  }
  return masked;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The parts of the runner's `ActionEvent` the recorder reads (`ActionEvent` is assignable to it). */
export interface ActionEventLike {
  verb: string;
  ref?: NodeRef | undefined;
  args: Readonly<Record<string, unknown>>;
  value?: ValueOrigin | undefined;
  before: ScreenSnapshot;
  after?: ScreenSnapshot | undefined;
  /** `ok` or the error code the action failed with. */
  outcome: string;
  mayHaveCommitted: boolean;
}

/** An event's arguments read by its verb's row (checked shapes, by parameter name), or why they cannot be read. */
export type EventReading =
  | { kind: 'read'; row: VerbRow | 'tool'; target: NodeRef | undefined; values: ReadonlyMap<string, unknown> }
  | { kind: 'unreadable'; reason: string };

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

/** One parameter read from the event's args by its kind. */
function readParam(args: Readonly<Record<string, unknown>>, param: VerbParam): unknown {
  switch (param.kind) {
    case 'node':
      return ref(args[param.name], param.name);
    case 'typed':
    case 'choice':
    case 'secret':
    case 'key':
    case 'url':
      return text(args, param.name);
    case 'direction': {
      const direction = text(args, param.name);
      if (!DIRECTIONS.includes(direction)) throw new Unreadable(`its ${param.name} is not up, down, left or right`);
      return direction;
    }
    case 'flag':
      return typeof args[param.name] === 'boolean' ? args[param.name] : param.default === true;
    case 'paths': {
      const paths = args[param.name];
      if (!Array.isArray(paths) || !paths.every((path): path is string => typeof path === 'string')) throw new Unreadable(`its ${param.name} are not text`);
      return paths;
    }
    case 'point':
      return point(args[param.name]);
    case 'modifiers': {
      const modifiers = args[param.name];
      return Array.isArray(modifiers) ? modifiers.filter((key): key is string => typeof key === 'string') : [];
    }
    case 'size':
      return undefined;
  }
}

/** Read an event's target and arguments through its verb's row. */
export function readEvent(event: ActionEventLike): EventReading {
  try {
    if (event.verb === 'tool') {
      return { kind: 'read', row: 'tool', target: undefined, values: new Map<string, unknown>([['name', text(event.args, 'name')], ['mutates', event.args.mutates === true]]) };
    }
    const row = verbRow(event.verb);
    if (row === undefined) throw new Unreadable(`its verb ${event.verb} is unknown`);
    const targetParam = row.params.find((param) => param.kind === 'node' && param.name === 'target');
    if (event.ref === undefined && targetParam !== undefined && targetParam.optional !== true) throw new Unreadable('it has no target');
    const target = event.ref === undefined ? undefined : ref(event.ref, 'target');
    const values = new Map<string, unknown>();
    for (const param of row.params) if (param !== targetParam && param.kind !== 'size') values.set(param.name, readParam(event.args, param));
    return { kind: 'read', row, target, values };
  } catch (error) {
    if (error instanceof Unreadable) return { kind: 'unreadable', reason: error.message };
    throw error;
  }
}

/** Convert a successful event, read by {@link readEvent}, into what the entry records. */
export function recordAction(event: ActionEventLike, reading: Extract<EventReading, { kind: 'read' }>, context: ConversionContext): ActionConversion {
  try {
    return convertOrThrow(event, reading, context);
  } catch (error) {
    if (error instanceof ConversionProblem) return { kind: 'not-cacheable', reason: error.message };
    throw error;
  }
}

function convertOrThrow(event: ActionEventLike, reading: Extract<EventReading, { kind: 'read' }>, context: ConversionContext): ActionConversion {
  const { row, target, values } = reading;
  const action = (recorded: RecordedAction): ActionConversion => ({ kind: 'action', action: recorded });
  const gap = (rule: string): ActionConversion => action({ verb: 'gap', rule });
  if (row === 'tool') return values.get('mutates') === true ? action({ verb: 'gap', rule: ACTION_GAP_RULES.mutatingTool, tool: values.get('name') as string }) : { kind: 'skip' };
  const record = row.record;
  if (record.kind === 'skip') return { kind: 'skip' };
  if (record.kind === 'gap') return gap(ACTION_GAP_RULES[record.rule]);
  if (record.untargeted !== undefined && target === undefined) return gap(ACTION_GAP_RULES[record.untargeted]);
  const fields: Record<string, unknown> = { verb: record.as ?? event.verb };
  let targetKept = false;
  const keepTarget = (): void => {
    if (target !== undefined) fields.target = describe(context, target, 'target');
    targetKept = true;
  };
  for (const param of row.params) {
    if (param.kind === 'node' && param.name === 'target') {
      keepTarget();
      continue;
    }
    if (!values.has(param.name) || record.drop?.includes(param.name) === true) continue;
    const given = values.get(param.name);
    switch (param.kind) {
      case 'node':
        fields[param.name] = describe(context, given as NodeRef, param.name);
        break;
      case 'typed':
      case 'choice': {
        const value = provenance(context, event.value, given as string, target, param.kind === 'choice' ? 'select' : 'type');
        if (value.kind === 'gap') return gap(value.rule);
        fields.value = value.value;
        break;
      }
      case 'secret':
        fields.value = { kind: 'secret', name: given as string };
        break;
      case 'paths': {
        const paths = given as string[];
        if (paths.length > 20) throw new ConversionProblem(`it uploads ${paths.length} files (at most 20 are recorded)`);
        fields[param.name] = paths.map((path) => checkLength(path, 'upload path'));
        break;
      }
      case 'url': {
        const navigated = navigation(context, given as string);
        if (navigated.verb === 'gap') return action(navigated);
        fields[param.name] = (navigated as { url: string }).url;
        break;
      }
      case 'modifiers':
        // Entries have no modifier keys: the executor does such a tap again on replay.
        if ((given as string[]).length > 0) return gap(ACTION_GAP_RULES.modifiedTap);
        break;
      default:
        fields[param.name] = given;
    }
  }
  if (!targetKept) keepTarget();
  Object.assign(fields, record.fixed);
  return action(fields as RecordedAction);
}

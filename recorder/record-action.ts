/**
 * One policed action → one recorded action. Targets become semantic descriptions of the
 * screen the action was resolved against; typed values get their provenance; what cannot be
 * repeated becomes a `gap`.
 */
import type { RecordedAction, TargetDescription, TypedValue } from '../cache-format/entry.js';
import { MAX_VALUE_CHARS } from '../cache-format/entry.js';
import type { NodeRef, Point, ScreenNode, ScrollDirection } from '../contract/engine.js';
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

/** A call on the policed `ctx.actions` (or a project tool run through `ctx.budgets.runTool`). */
export type ActionCall =
  | { verb: 'tap' | 'doubleTap' | 'secondaryTap'; target: NodeRef; modifiers?: string[] }
  | { verb: 'longPress' | 'hover' | 'scrollTo'; target: NodeRef }
  | { verb: 'resize' }
  | { verb: 'type'; target: NodeRef; value: string; replace?: boolean }
  | { verb: 'typeSecret'; target: NodeRef; name: string }
  | { verb: 'press'; target?: NodeRef; key: string }
  | { verb: 'select'; target: NodeRef; value: string }
  | { verb: 'check'; target: NodeRef; checked?: boolean }
  | { verb: 'scroll'; direction: ScrollDirection; target?: NodeRef }
  | { verb: 'upload'; target: NodeRef; paths: string[] }
  | { verb: 'drag'; target: NodeRef; destination: NodeRef }
  | { verb: 'navigate'; url: string }
  | { verb: 'back' }
  | { verb: 'typeText'; value: string }
  | { verb: 'pressKey'; key: string }
  | { verb: 'dismissKeyboard' }
  | { verb: 'tapAt' | 'hoverAt'; point: Point; target?: NodeRef }
  | { verb: 'dragAt'; from: Point; to: Point }
  | { verb: 'tool'; name: string; mutates: boolean };

/** Gap rules that are not about a typed value. */
export const ACTION_GAP_RULES = {
  mutatingTool: 'mutating project tool',
  uncertainAction: 'a failed action that may have committed',
  pointAction: 'point action without a control',
  volatileUrl: 'navigation to an id read off the screen',
  secretUrl: 'navigation to a URL holding a secret',
  modifiedTap: 'tap holding modifier keys',
  resize: 'viewport resize',
} as const;

/** What converting one call produced. */
export type ActionConversion =
  | { kind: 'action'; action: RecordedAction }
  | { kind: 'skip' }
  | { kind: 'not-cacheable'; reason: string };

/**
 * Where the runner says a typed value came from: a `unique()` param, a literal param, a
 * secret, or none of those (`literal`, which the recorder then classifies itself).
 */
export type ValueOrigin =
  | { kind: 'literal' }
  | { kind: 'param'; name: string }
  | { kind: 'unique'; param: string }
  | { kind: 'secret'; name: string };

/** Everything a conversion needs besides the call. */
export interface ConversionContext extends Omit<ValueContext, 'screenBefore' | 'targetId' | 'purpose'> {
  before: ScreenSnapshot;
  beforeIndex: TreeIndex;
  /** The runner's word on where the call's value came from, when it has one. */
  valueOrigin?: ValueOrigin | undefined;
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

function provenance(context: ConversionContext, value: string, target: NodeRef | undefined, purpose: 'type' | 'select'): ValueResult {
  const origin = context.valueOrigin;
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

/** Convert one successful call into what the entry records. */
export function convertAction(call: ActionCall, context: ConversionContext): ActionConversion {
  try {
    return convertOrThrow(call, context);
  } catch (error) {
    if (error instanceof ConversionProblem) return { kind: 'not-cacheable', reason: error.message };
    throw error;
  }
}

function convertOrThrow(call: ActionCall, context: ConversionContext): ActionConversion {
  const action = (recorded: RecordedAction): ActionConversion => ({ kind: 'action', action: recorded });
  switch (call.verb) {
    case 'tap':
    case 'doubleTap':
    case 'secondaryTap':
      // Entries have no modifier keys: the executor does such a tap again on replay.
      if (call.modifiers !== undefined && call.modifiers.length > 0) return action({ verb: 'gap', rule: ACTION_GAP_RULES.modifiedTap });
      return action({ verb: call.verb, target: describe(context, call.target, 'target') });
    case 'longPress':
    case 'hover':
    case 'scrollTo':
      return action({ verb: call.verb, target: describe(context, call.target, 'target') });
    case 'resize':
      return action({ verb: 'gap', rule: ACTION_GAP_RULES.resize });
    case 'type': {
      const target = describe(context, call.target, 'target');
      const value = provenance(context, call.value, call.target, 'type');
      if (value.kind === 'gap') return action({ verb: 'gap', rule: value.rule });
      return action({ verb: 'type', target, value: value.value, replace: call.replace ?? false });
    }
    case 'typeSecret':
      // Secrets always fill the field; replay calls typeSecret again, so `replace` is informational.
      return action({ verb: 'type', target: describe(context, call.target, 'target'), value: { kind: 'secret', name: call.name }, replace: true });
    case 'press':
      return call.target === undefined
        ? action({ verb: 'press', key: call.key })
        : action({ verb: 'press', target: describe(context, call.target, 'target'), key: call.key });
    case 'select': {
      const target = describe(context, call.target, 'target');
      const value = provenance(context, call.value, call.target, 'select');
      if (value.kind === 'gap') return action({ verb: 'gap', rule: value.rule });
      return action({ verb: 'select', target, value: value.value });
    }
    case 'check':
      return action({ verb: 'check', target: describe(context, call.target, 'target'), checked: call.checked ?? true });
    case 'scroll':
      return call.target === undefined
        ? action({ verb: 'scroll', direction: call.direction })
        : action({ verb: 'scroll', direction: call.direction, target: describe(context, call.target, 'target') });
    case 'upload':
      if (call.paths.length > 20) throw new ConversionProblem(`it uploads ${call.paths.length} files (at most 20 are recorded)`);
      return action({ verb: 'upload', target: describe(context, call.target, 'target'), paths: call.paths.map((path) => checkLength(path, 'upload path')) });
    case 'drag':
      return action({
        verb: 'drag',
        target: describe(context, call.target, 'target'),
        destination: describe(context, call.destination, 'destination'),
      });
    case 'navigate':
      return action(navigation(context, call.url));
    case 'back':
      return action({ verb: 'back' });
    case 'typeText': {
      const value = provenance(context, call.value, undefined, 'type');
      if (value.kind === 'gap') return action({ verb: 'gap', rule: value.rule });
      return action({ verb: 'typeText', value: value.value });
    }
    case 'pressKey':
      return action({ verb: 'pressKey', key: call.key });
    case 'dismissKeyboard':
      // Nothing to repeat on the web; a replay that needs it would fail visibly on the next action.
      return { kind: 'skip' };
    case 'tapAt':
      return call.target === undefined
        ? action({ verb: 'tapAt', point: call.point })
        : action({ verb: 'tapAt', point: call.point, target: describe(context, call.target, 'target') });
    case 'hoverAt':
    case 'dragAt':
      return action({ verb: 'gap', rule: ACTION_GAP_RULES.pointAction });
    case 'tool':
      return call.mutates ? action({ verb: 'gap', rule: ACTION_GAP_RULES.mutatingTool, tool: call.name }) : { kind: 'skip' };
  }
}

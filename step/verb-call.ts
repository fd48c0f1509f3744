/**
 * A `ctx.actions` call read through its row of the verb table (`contract/verbs.ts`): the
 * arguments checked by kind, the policies their kinds bring, and the action spec the one
 * policed pipeline (`perform-policed.ts`) runs.
 */
import { E2EError } from '../errors/index.js';
import { KEY_MODIFIERS, type EngineAction, type KeyModifier, type NodeRef, type SessionAction } from '../contract/engine.js';
import type { ActionOutcome } from '../contract/step-contract.js';
import type { ValueOrigin } from '../contract/step-seams.js';
import { neededVerb, positionalParams, VERB_TABLE, type PolicedVerb, type VerbParam, type VerbRow } from '../contract/verbs.js';
import { normalizeRef, requirePoint, requireString } from './action-targets.js';
import { performPoliced, type ActionSpec } from './perform-policed.js';
import { pointCall } from './point-actions.js';
import type { PolicedScope } from './policed-scope.js';
import { authorizeNavigation, authorizeSecret, authorizeUpload, resolveNavigation, secretInTypedValue } from './verb-policies.js';

const DIRECTIONS: readonly unknown[] = ['up', 'down', 'left', 'right'];

/** A call's arguments, checked, by parameter name. */
export type CallValues = ReadonlyMap<string, unknown>;

/** The label an argument's error names: the verb for its target or only point, the signature otherwise. */
function labelOf(verb: string, row: VerbRow, param: VerbParam): string {
  const positional = positionalParams(row);
  const signature = `ctx.actions.${verb}(${positional.map((each) => each.name).join(', ')})`;
  const alone = positional.length === 1;
  switch (param.kind) {
    case 'node':
      return param.name === 'target' ? `ctx.actions.${verb}` : `${signature}: ${param.name}`;
    case 'point':
    case 'modifiers':
      return alone || param.kind === 'modifiers' ? `ctx.actions.${verb}` : `${signature}: ${param.name}`;
    default:
      return alone ? signature : `${signature}: ${param.name}`;
  }
}

/** The modifier keys of a tap, checked and deduplicated. */
function requireModifiers(value: unknown, label: string): KeyModifier[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((key): key is KeyModifier => (KEY_MODIFIERS as readonly unknown[]).includes(key))) {
    throw new E2EError('INVALID_ARGUMENT', `${label}: modifiers are a list of ${KEY_MODIFIERS.join(', ')}.`);
  }
  return [...new Set(value)];
}

/** A viewport size in whole CSS pixels, checked. */
function requireSize(value: unknown, verb: string): { width: number; height: number } {
  const width = (value as { width?: unknown } | undefined)?.width;
  const height = (value as { height?: unknown } | undefined)?.height;
  const valid = (side: unknown): side is number => typeof side === 'number' && Number.isInteger(side) && side >= 1 && side <= 10_000;
  if (!valid(width) || !valid(height)) throw new E2EError('INVALID_ARGUMENT', `ctx.actions.${verb} takes { width, height } in whole CSS pixels from 1 to 10000.`);
  return { width, height };
}

/** The call's arguments checked by kind; `INVALID_ARGUMENT` names the first wrong one. */
export function readArguments(verb: string, row: VerbRow, args: readonly unknown[]): CallValues {
  const positional = positionalParams(row);
  const options = args[positional.length];
  const values = new Map<string, unknown>();
  for (const param of row.params) {
    const raw = param.option === true ? (typeof options === 'object' && options !== null ? (options as Record<string, unknown>)[param.name] : undefined) : args[positional.indexOf(param)];
    const label = labelOf(verb, row, param);
    switch (param.kind) {
      case 'node':
        if (raw !== undefined || param.optional !== true) values.set(param.name, normalizeRef(raw, label));
        break;
      case 'typed':
      case 'choice':
      case 'secret':
      case 'key':
      case 'url':
        values.set(param.name, requireString(raw, label));
        break;
      case 'direction':
        if (!DIRECTIONS.includes(raw)) throw new E2EError('INVALID_ARGUMENT', `ctx.actions.${verb} takes a direction: up, down, left or right.`);
        values.set(param.name, raw);
        break;
      case 'flag':
        values.set(param.name, param.option === true ? (raw ?? param.default) : raw === undefined ? param.default : raw);
        break;
      case 'paths':
        values.set(param.name, raw);
        break;
      case 'point':
        values.set(param.name, requirePoint(raw, label));
        break;
      case 'modifiers':
        values.set(param.name, requireModifiers(raw, label));
        break;
      case 'size':
        values.set(param.name, requireSize(raw, verb));
        break;
    }
  }
  return values;
}

/** The spec of a node or page action: event args, sentence, value origin, policies and the engine call. */
function specOf(scope: PolicedScope, verb: PolicedVerb, row: VerbRow, values: CallValues): ActionSpec {
  const { host } = scope;
  const target = values.get('target') as NodeRef | undefined;
  const args: Record<string, unknown> = {};
  const sentence: Record<string, unknown> = {};
  const fields: Record<string, unknown> = {};
  const late: Array<() => Record<string, unknown>> = [];
  const authorizations: Array<NonNullable<ActionSpec['authorize']>> = [];
  let destination: NodeRef | undefined;
  let value: ValueOrigin | undefined;
  for (const param of row.params) {
    if (!values.has(param.name) || (param.kind === 'node' && param.name === 'target')) continue;
    const given = values.get(param.name);
    const { name } = param;
    switch (param.kind) {
      case 'node':
        destination = given as NodeRef;
        args[name] = given;
        fields[name] = given;
        break;
      case 'typed':
      case 'choice':
        args[name] = given;
        sentence.value = { kind: 'literal', value: given };
        value = scope.origin(given as string);
        fields[name] = given;
        break;
      case 'secret': {
        const secret = given as string;
        args[name] = secret;
        args.replace = true;
        sentence.value = { kind: 'secret', name: secret };
        value = { kind: 'secret', name: secret };
        authorizations.push(authorizeSecret(scope, secret));
        // Resolved only at the moment it is typed.
        late.push(() => ({ value: host.vault.resolve(secret), replace: true }));
        break;
      }
      case 'key':
      case 'direction':
      case 'flag':
        args[name] = given;
        sentence[name] = given;
        fields[name] = given;
        break;
      case 'paths': {
        const list = Array.isArray(given) ? (given as unknown[]) : [];
        args[name] = [...list];
        sentence[name] = list;
        const upload = authorizeUpload(scope, given);
        authorizations.push(upload.authorize);
        late.push(() => ({ [name]: upload.checked() }));
        break;
      }
      case 'url': {
        const { absolute, shown } = resolveNavigation(scope, verb, given as string);
        args[name] = scope.redact(absolute);
        sentence[name] = shown;
        authorizations.push(authorizeNavigation(scope, absolute, shown));
        fields[name] = absolute;
        break;
      }
      case 'modifiers':
        if ((given as KeyModifier[]).length > 0) {
          args[name] = given;
          sentence[name] = given;
          fields[name] = given;
        }
        break;
      case 'size': {
        const size = given as { width: number; height: number };
        args.width = size.width;
        args.height = size.height;
        sentence[name] = size;
        fields.width = size.width;
        fields.height = size.height;
        break;
      }
      case 'point':
        break;
    }
  }
  const engine = row.engine as { on: 'node' | 'page' | 'node-or-page'; verb?: string };
  const action = (): Record<string, unknown> => Object.assign({ verb: engine.verb ?? verb }, fields, ...late.map((fill) => fill()));
  const onPage = engine.on === 'page' || (engine.on === 'node-or-page' && target === undefined);
  return {
    verb,
    needs: neededVerb(verb)!,
    target,
    destination,
    args,
    value,
    sentence,
    authorize: authorizations.length === 0 ? undefined : async (node) => {
      for (const authorize of authorizations) await authorize(node);
    },
    run: (options) => (onPage ? host.engine.performOnPage(action() as SessionAction, options) : host.engine.perform(target!, action() as EngineAction, options)),
  };
}

/** Call a verb of `ctx.actions`: read its arguments by its row, police them, and run it. */
export async function callVerb(scope: PolicedScope, verb: PolicedVerb, args: readonly unknown[]): Promise<ActionOutcome> {
  const row: VerbRow = VERB_TABLE[verb];
  if (row.engine.on === 'none') throw scope.unsupported(verb, row.engine.why);
  const values = readArguments(verb, row, args);
  for (const param of row.params) {
    if (param.kind === 'typed') {
      const secret = secretInTypedValue(scope, verb, values.get(param.name) as string, param.onSecret ?? 'refuse');
      // The secret-typing verb takes (target, name).
      if (secret !== undefined) return callVerb(scope, param.onSecret as PolicedVerb, [values.get('target'), secret.secret]);
    }
    if (param.kind === 'modifiers' && (values.get(param.name) as KeyModifier[]).length > 0 && !scope.host.tapModifiers) {
      throw scope.unsupported(`${verb} with modifiers`, 'ctx.target.tapModifiers is false');
    }
  }
  if (row.engine.on === 'point') return pointCall(scope, verb, row.engine.fallback, row, values);
  return performPoliced(scope, specOf(scope, verb, row, values));
}

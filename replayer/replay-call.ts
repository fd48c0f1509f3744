/**
 * A recorded action as the `ctx.actions` call that repeats it, read through the verb table
 * (`contract/verbs.ts`): the recorded fields back into the row's parameters, the re-found
 * targets in place of the recorded descriptions, `unique()` values filled in.
 */
import type { RecordedAction, TypedValue } from '../cache-format/entry.js';
import type { NodeRef } from '../contract/engine.js';
import type { ActionOutcome, StepActions } from '../contract/step-contract.js';
import { positionalParams, verbRow, type PolicedVerb, type VerbRow } from '../contract/verbs.js';
import { fillUniquePlaceholders } from '../semantics/unique-placeholders.js';
import { gapStop, ReplayStop } from './replay-stop.js';

/** The call that repeats a recorded action, or why it cannot be made. */
export type ReplayCall = { kind: 'call'; verb: PolicedVerb; run: (surface: StepActions) => Promise<ActionOutcome> } | { kind: 'stop'; stop: ReplayStop };

/** A recorded value as text to type, or why it cannot be typed here. */
export function typedText(value: TypedValue, uniqueValues: Readonly<Record<string, string>>): { kind: 'text'; text: string } | { kind: 'stop'; stop: ReplayStop } {
  if (value.kind === 'literal') return { kind: 'text', text: value.value };
  if (value.kind === 'unique') {
    if (!Object.hasOwn(uniqueValues, value.param)) return { kind: 'stop', stop: new ReplayStop('action-failed', `the unique() param ${value.param} has no value in this run`) };
    return { kind: 'text', text: uniqueValues[value.param]! };
  }
  return { kind: 'stop', stop: new ReplayStop('action-failed', `a secret (${value.name}) can only be typed into a field`) };
}

/** The verb whose call repeats the action: a re-found point target is tapped as itself, a recorded secret typed by name. */
function replayVerb(action: Exclude<RecordedAction, { verb: 'gap' }>, row: VerbRow): PolicedVerb {
  const record = row.record;
  if (record.kind === 'action' && record.replayTargetedAs !== undefined && 'target' in action && action.target !== undefined) return record.replayTargetedAs as PolicedVerb;
  if ('value' in action && action.value.kind === 'secret') {
    const bySecret = row.params.find((param) => param.kind === 'typed' && param.onSecret === 'typeSecret');
    if (bySecret !== undefined) return bySecret.onSecret as PolicedVerb;
  }
  return action.verb as PolicedVerb;
}

/** The call for `action` with its targets re-found as `refs` (target first, then the destination). */
export function replayCall(action: RecordedAction, refs: readonly NodeRef[], uniqueValues: Readonly<Record<string, string>>): ReplayCall {
  if (action.verb === 'gap') return { kind: 'stop', stop: gapStop() };
  const verb = replayVerb(action, verbRow(action.verb)!);
  const row = verbRow(verb)!;
  const recorded = action as Readonly<Record<string, unknown>>;
  const values = new Map<string, unknown>();
  let nextRef = 0;
  for (const param of row.params) {
    switch (param.kind) {
      case 'node':
        // Refs come in the order of the recorded targets: the target (when recorded), then the destination.
        if (param.name !== 'target' || recorded.target !== undefined) values.set(param.name, refs[nextRef++]);
        break;
      case 'typed':
      case 'choice': {
        const text = typedText(recorded.value as TypedValue, uniqueValues);
        if (text.kind === 'stop') return text;
        values.set(param.name, text.text);
        break;
      }
      case 'secret':
        values.set(param.name, (recorded.value as Extract<TypedValue, { kind: 'secret' }>).name);
        break;
      case 'url':
        values.set(param.name, fillUniquePlaceholders(recorded[param.name] as string, uniqueValues));
        break;
      case 'modifiers':
      case 'size':
        break;
      default:
        if (recorded[param.name] !== undefined) values.set(param.name, recorded[param.name]);
    }
  }
  const args: unknown[] = positionalParams(row).map((param) => values.get(param.name));
  const options = row.params.filter((param) => param.option === true && values.has(param.name));
  if (options.length > 0) args.push(Object.fromEntries(options.map((param) => [param.name, values.get(param.name)])));
  return { kind: 'call', verb, run: (surface) => (surface[verb] as (...given: unknown[]) => Promise<ActionOutcome>)(...args) };
}

/**
 * Recorded actions as one-line sentences (`tap button "Delete" in listitem "Walk the dog"`),
 * for a hand-off's `replayedPrefix`, `e2e cache show` and `e2e cache diff`. Secrets read by
 * name; long values are shortened.
 */
import type { RecordedAction, StateControl, TargetDescription, TypedValue } from '../cache-format/entry.js';
import { clip } from '../contract/text.js';

/** Longest quoted text in a sentence before it is shortened with `…`. */
export const MAX_QUOTED_CHARS = 80;

function quote(text: string): string {
  const shown = clip(text, MAX_QUOTED_CHARS);
  return JSON.stringify(shown);
}

/**
 * A target as a noun phrase: `button "Apply"`, `textbox with placeholder "Email"`,
 * `button "Add to cart" (2nd of 3)`, `button "Delete" in listitem "Walk the dog"`.
 */
export function describeTargetPhrase(target: TargetDescription): string {
  let phrase: string;
  if (target.name !== '') phrase = `${target.role} ${quote(target.name)}`;
  else if (target.text !== undefined) phrase = `${target.role} with text ${quote(target.text)}`;
  else if (target.placeholder !== undefined) phrase = `${target.role} with placeholder ${quote(target.placeholder)}`;
  else if (target.testId !== undefined) phrase = `${target.role} with test id ${quote(target.testId)}`;
  else phrase = `unnamed ${target.role}`;
  if (target.twinCount > 1) phrase += ` (${ordinal(target.twinIndex + 1)} of ${target.twinCount})`;
  if (target.container !== undefined) phrase += ` in ${target.container.role} ${quote(target.container.name)}`;
  return phrase;
}

function ordinal(position: number): string {
  const lastTwo = position % 100;
  const suffix = lastTwo >= 11 && lastTwo <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][position % 10] ?? 'th');
  return `${position}${suffix}`;
}

/** A typed value as the sentence shows it: `"Buy milk"`, `secret adminPassword`, `unique email`. */
export function describeTypedValue(value: TypedValue): string {
  switch (value.kind) {
    case 'literal':
      return quote(value.value);
    case 'secret':
      return `secret ${value.name}`;
    case 'unique':
      return `unique ${value.param}`;
  }
}

const TAP_VERBS = {
  tap: 'tap',
  doubleTap: 'double-tap',
  longPress: 'long-press',
  secondaryTap: 'right-click',
  hover: 'hover',
  scrollTo: 'scroll to',
} as const;

/** One recorded action as a sentence. */
export function describeAction(action: RecordedAction): string {
  switch (action.verb) {
    case 'tap':
    case 'doubleTap':
    case 'longPress':
    case 'secondaryTap':
    case 'hover':
    case 'scrollTo':
      return `${TAP_VERBS[action.verb]} ${describeTargetPhrase(action.target)}`;
    case 'type':
      return `type ${describeTypedValue(action.value)} into ${describeTargetPhrase(action.target)}`;
    case 'press':
      return action.target === undefined ? `press ${action.key}` : `press ${action.key} in ${describeTargetPhrase(action.target)}`;
    case 'select':
      return `select ${describeTypedValue(action.value)} in ${describeTargetPhrase(action.target)}`;
    case 'check':
      return `${action.checked ? 'check' : 'uncheck'} ${describeTargetPhrase(action.target)}`;
    case 'scroll':
      return action.target === undefined ? `scroll ${action.direction}` : `scroll ${action.direction} in ${describeTargetPhrase(action.target)}`;
    case 'upload':
      return `upload ${action.paths.map(quote).join(', ')} to ${describeTargetPhrase(action.target)}`;
    case 'drag':
      return `drag ${describeTargetPhrase(action.target)} onto ${describeTargetPhrase(action.destination)}`;
    case 'navigate':
      return `navigate to ${action.url}`;
    case 'back':
      return 'go back';
    case 'typeText':
      return `type ${describeTypedValue(action.value)} into the focused field`;
    case 'pressKey':
      return `press ${action.key}`;
    case 'tapAt':
      return action.target === undefined
        ? `tap at (${action.point.x}, ${action.point.y})`
        : `tap ${describeTargetPhrase(action.target)} at (${action.point.x}, ${action.point.y})`;
    case 'gap':
      return action.tool === undefined ? `gap: ${action.rule}` : `gap: ${action.rule} ${action.tool}`;
  }
}

/** A state control as a phrase: `status "Saved"`, `checkbox "Toggle" [checked] in listitem "Buy milk"`. */
export function describeStateControl(control: StateControl): string {
  let phrase = control.name !== '' ? `${control.role} ${quote(control.name)}` : `${control.role} with text ${quote(control.text ?? '')}`;
  if (control.testId !== undefined) phrase += ` (test id ${quote(control.testId)})`;
  if (control.states.length > 0) phrase += ` [${control.states.join(' ')}]`;
  if (control.container !== undefined) phrase += ` in ${control.container.role} ${quote(control.container.name)}`;
  return phrase;
}

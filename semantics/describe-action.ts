/**
 * Recorded actions as sentences (`tap button "Delete" in listitem "Walk the dog"`), in the one
 * grammar of `semantics/action-sentence.ts`, for a hand-off's `replayedPrefix`, `e2e cache show`
 * and `e2e cache diff`. Secrets read by name; long values are shortened.
 */
import type { RecordedAction, StateControl, TargetDescription, TypedValue } from '../cache-format/entry.js';
import { describeSentence, nounPhrase, valuePhrase } from './action-sentence.js';

export { MAX_QUOTED_CHARS } from './action-sentence.js';

/**
 * A target as a noun phrase: `button "Apply"`, `textbox with placeholder "Email"`,
 * `button "Add to cart" (2nd of 3)`, `button "Delete" in listitem "Walk the dog"`.
 */
export function describeTargetPhrase(target: TargetDescription): string {
  return nounPhrase(target);
}

/** A typed value as the sentence shows it: `"Buy milk"`, `<secret:adminPassword>`, `{unique:email}`. */
export function describeTypedValue(value: TypedValue): string {
  return valuePhrase(value);
}

/** One recorded action as a sentence. */
export function describeAction(action: RecordedAction): string {
  // Every field of a recorded action is one the grammar reads under the same name.
  return describeSentence(action);
}

/** A state control as a phrase: `status "Saved"`, `checkbox "Toggle" [checked] in listitem "Buy milk"`. */
export function describeStateControl(control: StateControl): string {
  return nounPhrase(control);
}

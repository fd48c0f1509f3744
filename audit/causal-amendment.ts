/**
 * Causal end checks (`e2e record --audit`): an end outcome of a step that some audit mutant
 * removed (the unmutated replay showed it, the mutant's did not) is *caused* by the mutated
 * action and becomes required at replay (`causedBy`); an outcome no mutant touched keeps its
 * basis and may vary as before. See recorder/README.md, "Causal end checks". Reading the
 * causes back is `semantics/causal-outcomes.ts`.
 */
import type { ActEntry, ActedCheck, EndControl } from '../cache-format/entry.js';
import type { EndFacts } from '../contract/mutation.js';
import { basisFromEntry, purposeOfActions, STRONG_BASES } from '../semantics/end-purpose.js';

/** What one mutant of the entry's step left on the screen: the action it changed and which outcomes held. */
export interface MutantFacts {
  /** The mutated action (0-based). */
  action: number;
  facts: EndFacts;
}

/** The entry with each outcome's causing actions, and how many outcomes became required that were not before. */
export interface CausalAmendment {
  entry: ActEntry;
  /** Outcomes with a `causedBy` now. */
  caused: number;
  /** Of them, outcomes neither their basis nor what the step produced required: required at replay only now. */
  newlyRequired: number;
}

/** True when the facts were taken on an entry of this shape (a re-recorded entry has other lists). */
function fits(entry: ActEntry, facts: EndFacts): boolean {
  return facts.appeared.length === entry.appeared.length && facts.gone.length === entry.gone.length && facts.acted.length === (entry.acted ?? []).length;
}

function withCause<T extends EndControl | ActedCheck>(outcome: T, causedBy: number[]): T {
  const { causedBy: _old, ...rest } = outcome;
  return (causedBy.length === 0 ? rest : { ...rest, causedBy }) as T;
}

/**
 * The entry with `causedBy` set from the facts: outcome *i* is caused by action *k* when it
 * held at the end of the unmutated replay (`control`) and not at the end of a mutant of action
 * *k*. Earlier marks are replaced (the facts are today's). Undefined when the control's facts
 * do not fit the entry.
 */
export function amendCausally(entry: ActEntry, control: EndFacts, mutants: readonly MutantFacts[]): CausalAmendment | undefined {
  if (!fits(entry, control)) return undefined;
  const usable = mutants.filter((mutant) => fits(entry, mutant.facts) && mutant.action >= 0 && mutant.action < entry.actions.length);
  const causesOf = (list: 'appeared' | 'gone' | 'acted', index: number): number[] => {
    if (control[list][index] !== true) return [];
    const actions = usable.filter((mutant) => mutant.facts[list][index] === false).map((mutant) => mutant.action);
    return [...new Set(actions)].sort((left, right) => left - right);
  };
  const purpose = purposeOfActions(entry.actions);
  let caused = 0;
  let newlyRequired = 0;
  const amendControl = (list: 'appeared' | 'gone') => (control: EndControl, index: number): EndControl => {
    const causedBy = causesOf(list, index);
    if (causedBy.length > 0) {
      caused += 1;
      // Already required: by an earlier audit, by what the step produced, or by its basis.
      if (control.causedBy === undefined && control.producedBy === undefined && !STRONG_BASES.has(basisFromEntry(control, purpose))) newlyRequired += 1;
    }
    return withCause(control, causedBy);
  };
  const amended: ActEntry = { ...entry, appeared: entry.appeared.map(amendControl('appeared')), gone: entry.gone.map(amendControl('gone')) };
  if (entry.acted !== undefined) {
    amended.acted = entry.acted.map((check, index) => {
      const causedBy = causesOf('acted', index);
      if (causedBy.length > 0) caused += 1;
      return withCause(check, causedBy);
    });
  }
  return { entry: amended, caused, newlyRequired };
}

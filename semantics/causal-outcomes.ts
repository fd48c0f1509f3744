/**
 * Causal end checks read back: which recorded outcomes name the actions that cause them
 * (`causedBy`, written by `e2e record --audit`, see `audit/causal-amendment.ts`), so replay,
 * `cache show` and `cache diff` can say what each action is proven by.
 */
import type { ActEntry, ActedCheck, EndControl } from '../cache-format/entry.js';

/** One outcome of an entry that proves an action: where it sits and the check itself. */
export type CausalOutcome = { list: 'appeared' | 'gone'; control: EndControl } | { list: 'acted'; check: ActedCheck };

/** Per recorded action (by index), the outcomes it is proven by (`causedBy`); empty lists for an entry recorded without the audit. */
export function causalLinks(entry: Pick<ActEntry, 'actions' | 'appeared' | 'gone' | 'acted'>): CausalOutcome[][] {
  const links: CausalOutcome[][] = entry.actions.map(() => []);
  const add = (causedBy: readonly number[] | undefined, outcome: CausalOutcome): void => {
    for (const action of causedBy ?? []) links[action]?.push(outcome);
  };
  for (const control of entry.appeared) add(control.causedBy, { list: 'appeared', control });
  for (const control of entry.gone) add(control.causedBy, { list: 'gone', control });
  for (const check of entry.acted ?? []) add(check.causedBy, { list: 'acted', check });
  return links;
}

/** True when the entry was recorded with causal end checks (some outcome names its causing actions). */
export function hasCausalChecks(entry: Pick<ActEntry, 'appeared' | 'gone' | 'acted'>): boolean {
  return [...entry.appeared, ...entry.gone, ...(entry.acted ?? [])].some((outcome) => outcome.causedBy !== undefined);
}

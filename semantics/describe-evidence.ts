/**
 * Evidence checks as one-line sentences (`expect listitem "Buy milk" present`, `expect 1 × listitem
 * present`), for `e2e cache show`/`diff` and for a judgment whose cached evidence no longer holds.
 */
import type { EvidenceCheck, StateControl } from '../cache-format/entry.js';
import { MAX_QUOTED_CHARS, describeStateControl } from './describe-action.js';
import { clip } from '../contract/text.js';
import { visibleText } from './visible-text.js';
import { CHECKABLE_ROLES } from '../contract/roles.js';

function quote(text: string): string {
  return visibleText(JSON.stringify(clip(text, MAX_QUOTED_CHARS)));
}

/** `[unchecked]` for a checkable control in no checked state (an empty state list reads as nothing otherwise). */
function uncheckedNote(control: StateControl): string {
  return CHECKABLE_ROLES.has(control.role) && !control.states.includes('checked') ? ' [unchecked]' : '';
}

/** The nodes a check counts, as a noun phrase. */
export function describeEvidenceSubject(check: EvidenceCheck): string {
  const { control } = check;
  if (check.match === 'role') {
    const states = control.states.length === 0 ? '' : ` [${control.states.join(' ')}]`;
    return `${control.role}${states}${uncheckedNote(control)}`;
  }
  let phrase = describeStateControl(control);
  const note = uncheckedNote(control);
  if (note !== '') {
    // After the states (or the name) and before the container, as describeStateControl places states.
    const containerAt = control.container === undefined ? -1 : phrase.lastIndexOf(` in ${control.container.role} `);
    phrase = containerAt === -1 ? `${phrase}${note}` : `${phrase.slice(0, containerAt)}${note}${phrase.slice(containerAt)}`;
  }
  if (check.value !== undefined) phrase += ` with value ${quote(check.value)}`;
  return phrase;
}

/** One evidence check as a sentence. */
export function describeEvidenceCheck(check: EvidenceCheck): string {
  const count = check.expect === 'present' && check.count !== undefined ? `${check.count} × ` : '';
  const exact = check.exact === true ? ' (exact text)' : '';
  return visibleText(`expect ${count}${describeEvidenceSubject(check)} ${check.expect}${exact}`);
}

/**
 * The built-in agent's guidance for its action tools. Custom tool loops that spread
 * `createGrammarTools` start their system prompt with {@link BASE_RULES}. It is sent with
 * every request, so it says only what the tool descriptions do not, and names no tool that a
 * step may lack (secrets are explained in the step brief of the steps that have them).
 */

/** How the built-in agent reads screens and uses the action tools. */
export const BASE_RULES = [
  'You carry out one step of an end-to-end test with tools that act on the app\'s screen.',
  'Screens list one node per line (#id role "name" …), indented by nesting. value=<secure> is a password field, <secret:name> a hidden value.',
  'Each action returns its changes (added, changed, removed; "in" names the row, list, dialog or form around a line), or the whole screen if most changed.',
  'Use node ids (n10) from the newest screen or changes, never invented ones. Pick controls by their words and where they sit.',
  'Do only what the step asks; never redo what earlier steps or a replay did.',
  'Read each result before acting again; if an action fails or changes nothing, try another way. There is no sleep tool.',
  'A screen marked "no tree" cannot be read as text and its old ids are gone: look with screenshot and act with tap_at, or end the step.',
].join('\n');

/**
 * The built-in agent's guidance for its action tools. Custom tool loops that spread
 * `createGrammarTools` start their system prompt with {@link BASE_RULES}. It is sent with
 * every request, so it says only what the tool descriptions do not, and names no tool that a
 * step may lack (secrets are explained in the step brief of the steps that have them).
 */

/**
 * How the built-in agent reads screens and uses the action tools. What a screen shows explains
 * itself where it can (an omission line says `use find`, a screen without a tree says to look
 * at a screenshot); password fields and secrets are explained in the brief of the steps that
 * show or have them.
 */
export const BASE_RULES = [
  'You do one step of an end-to-end test on the app\'s screen: one node per line (#id role "name" …), indented by nesting.',
  'Use ids from the newest screen or changes. Do only this step; if an action fails or changes nothing, try another way.',
].join('\n');

/**
 * The built-in agent's name and behaviour version, in a file of their own: the runner's seam
 * (`built-in.ts`) names the agent before it loads it, and loads it (and the AI SDK) only when a
 * step calls a model.
 */

/** The built-in agent's name in reports and provenance. */
export const BUILT_IN_AGENT_NAME = 'e2e-agent';
/** The built-in agent's behaviour version; bump it when prompts or tools change meaningfully. */
export const BUILT_IN_AGENT_VERSION = '2';

/**
 * `e2e/terminal`: the terminal engine (DESIGN §8), the documented API only: `terminal()` makes
 * the engine; a target's `app` is `{ command, args?, cwd?, env?, cols?, rows? }`.
 */
export { terminal } from './terminal-engine.js';
export type { TerminalApp, TerminalEngine, TerminalEngineOptions } from './terminal-engine.js';

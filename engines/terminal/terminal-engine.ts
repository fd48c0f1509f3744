/**
 * `terminal()`: the Engine for programs in a pseudo-terminal (DESIGN §8). A target's `app`
 * names the command: `{ command, args?, cwd?, env?, cols?, rows? }`. `app.open()` starts the
 * program, `app.restart()` starts it again; there is no location and no `navigate`.
 */
import { z } from 'zod';
import { E2EError } from '../../errors/index.js';
import { ENGINE_CONTRACT_VERSION, type AppCheck, type Engine, type EngineInstance, type EngineStartOptions, type Verb } from '../../contract/engine.js';
import { TerminalAttempt, type TapMode } from './terminal-attempt.js';
import { SETTLE_RULE } from './terminal-process.js';

/** Patch version of the terminal engine (not part of any cache key). */
export const TERMINAL_ENGINE_VERSION = '0.1.0';

/** A target's `app` on the terminal engine. */
export interface TerminalApp {
  /** The program to run (a path, or a name found on the environment's `PATH`). */
  command: string;
  args?: string[];
  /** Its working folder. Default: the current one. */
  cwd?: string;
  /**
   * Its whole environment (`TERM` defaults to `xterm-256color`). Default: the host's environment
   * without `CI` and `CONTINUOUS_INTEGRATION`: the program runs in an interactive colour terminal,
   * so it draws the same screens on a CI machine as where it was recorded.
   */
  env?: Record<string, string>;
  /** Terminal width in columns. Default 80. */
  cols?: number;
  /** Terminal height in rows. Default 24. */
  rows?: number;
  /** Part of every cache key; default the command and its arguments. */
  identity?: string;
}

/** Options of {@link terminal}. Every one has a default. */
export interface TerminalEngineOptions {
  /**
   * How `tap` and `check` reach a control. `keys` (default): the moves a person makes, arrows
   * to a list row then Enter (a menu) or Space (a check mark), Tab to a button then Enter.
   * `mouse`: a click on the control's cell, where the program reports the mouse. `off`:
   * neither verb is offered; the agent types and presses keys only.
   */
  tap?: TapMode;
  /** How long output must have stopped to count as settled. Default 50 ms. */
  quietMs?: number;
}

/** The terminal engine: the Engine contract plus what it declares about taps. */
export interface TerminalEngine extends Engine {
  /** How a tap reaches a control (see {@link TerminalEngineOptions.tap}). */
  readonly tapBy: TapMode;
  /** The host delegate: it checks a target's `app` and names it for the cache key; it asks for no browser. */
  readonly host: { app(config: unknown): AppCheck };
}

const appSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  cwd: z.string().min(1).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cols: z.number().int().min(20).max(1000).optional(),
  rows: z.number().int().min(5).max(500).optional(),
  identity: z.string().min(1).optional(),
});

/** Check a terminal target's `app`; the problem names the field and the fix. */
export function checkTerminalApp(config: unknown): { ok: true; app: { identity: string; config: TerminalApp } } | { ok: false; problem: string } {
  const parsed = appSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'app' : `app.${issue.path.join('.')}`;
    return { ok: false, problem: `${where}: ${issue?.message ?? 'invalid'}. A terminal target's app is { command, args?, cwd?, env?, cols?, rows? }.` };
  }
  const app = parsed.data as TerminalApp;
  return { ok: true, app: { identity: app.identity ?? [app.command, ...(app.args ?? [])].join(' '), config: app } };
}

/**
 * The terminal engine.
 * @throws E2EError `INVALID_CONFIG` for an unknown `tap` or a `quietMs` out of range.
 */
export function terminal(options: TerminalEngineOptions = {}): TerminalEngine {
  const tapBy: TapMode = options.tap ?? 'keys';
  if (!['keys', 'mouse', 'off'].includes(tapBy)) throw new E2EError('INVALID_CONFIG', `terminal({ tap: "${String(tapBy)}" }) is not one of "keys", "mouse", "off".`);
  const quietMs = options.quietMs ?? SETTLE_RULE.quietMs;
  if (!Number.isFinite(quietMs) || quietMs < 5 || quietMs > 5000) throw new E2EError('INVALID_CONFIG', 'terminal({ quietMs }) must be between 5 and 5000 milliseconds.');
  const verbs: Verb[] = tapBy === 'off' ? ['type', 'press', 'scroll'] : ['tap', 'type', 'press', 'check', 'scroll'];
  return {
    name: 'terminal',
    version: TERMINAL_ENGINE_VERSION,
    contractVersion: ENGINE_CONTRACT_VERSION,
    platform: 'terminal',
    verbs,
    tapBy,
    host: { app: checkTerminalApp },
    start: (start: EngineStartOptions): Promise<EngineInstance> => {
      if (start.signal?.aborted === true) return Promise.reject(new E2EError('CANCELLED', 'The attempt was cancelled before the program started.'));
      const checked = checkTerminalApp(start.app);
      if (!checked.ok) return Promise.reject(new E2EError('INVALID_CONFIG', checked.problem));
      const app = checked.app.config;
      const attempt = new TerminalAttempt({
        program: { command: app.command, args: app.args ?? [], cwd: app.cwd, env: app.env ?? programEnvironment(start.host?.environment), cols: app.cols ?? 80, rows: app.rows ?? 24 },
        tap: tapBy,
        rule: { ...SETTLE_RULE, quietMs },
      });
      return Promise.resolve(attempt);
    },
  };
}

/** Variables that tell a program it runs without a terminal on CI (prompt libraries then drop colour and interactivity). */
const NOT_A_TERMINAL_VARIABLES = new Set(['CI', 'CONTINUOUS_INTEGRATION']);

/** The default environment of a program: the host's, less what would make it draw for a CI log instead of a terminal. */
export function programEnvironment(host: Readonly<Record<string, string | undefined>> | undefined): Record<string, string> | undefined {
  if (host === undefined) return undefined;
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) if (value !== undefined && !NOT_A_TERMINAL_VARIABLES.has(name)) environment[name] = value;
  return environment;
}

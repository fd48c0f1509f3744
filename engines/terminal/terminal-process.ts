/**
 * One program in a pseudo-terminal (`@lydell/node-pty`), drawn by a headless emulator
 * (`@xterm/headless`). It keeps what the observation and the settle rule need to know about
 * the program's output: the modes it set (cursor shown, synchronized output, mouse reporting
 * and its encoding, application cursor keys), the title, when it last wrote, and a change
 * history as opaque marks. Replies the emulator owes the program (cursor position reports,
 * device attributes) go back to it, as a real terminal's would.
 */
import { E2EError } from '../../errors/index.js';
import { EngineError, type ChangeWaitOptions, type ChangeWaitResult } from '../../contract/engine.js';
import { keepLastOutput } from './last-output.js';
import { sessionBusy } from './process-activity.js';
import { readGrid, type BufferLike, type Grid } from './screen-grid.js';

/** How the program is started. */
export interface ProgramSpec {
  command: string;
  args: readonly string[];
  cwd?: string | undefined;
  /** The program's whole environment; without it the program inherits this process's (node-pty's default). */
  env?: Readonly<Record<string, string>> | undefined;
  cols: number;
  rows: number;
}

/** The settle rule's tunables (engines/terminal/README.md, "Settling"). */
export interface SettleRule {
  /** Output must have stopped this long. */
  quietMs: number;
  /** After a synchronized-output frame ends, this much quiet is enough. */
  frameQuietMs: number;
  /** A cursor hidden this recently means the program is still drawing. */
  cursorGraceMs: number;
  /** Longest an observation waits for an open synchronized-output frame to close. */
  frameWaitMs: number;
  /** The quiet a running program's screen with no control on it needs (a script between two dialogs). */
  bareQuietMs: number;
}

/** Defaults of {@link SettleRule}. */
export const SETTLE_RULE: SettleRule = { quietMs: 50, frameQuietMs: 10, cursorGraceMs: 200, frameWaitMs: 250, bareQuietMs: 1000 };

/** How a program's mouse reports are encoded. */
export type MouseMode = { tracking: 'none' | 'x10' | 'vt200' | 'drag' | 'any'; sgr: boolean };

interface PtyLike {
  onData(listener: (data: string) => void): { dispose(): void };
  onExit(listener: (event: { exitCode: number; signal?: number }) => void): { dispose(): void };
  write(data: string): void;
  resize(cols: number, rows: number): void;
  kill(signal?: string): void;
  readonly pid: number;
}

interface PtyModule {
  spawn(file: string, args: string[], options: { name: string; cols: number; rows: number; cwd?: string; env?: Record<string, string> }): PtyLike;
}

interface TerminalLike {
  readonly buffer: { readonly active: BufferLike };
  readonly modes: { readonly applicationCursorKeysMode: boolean; readonly mouseTrackingMode: MouseMode['tracking']; readonly synchronizedOutputMode: boolean };
  readonly parser: { registerCsiHandler(id: { prefix?: string; final: string }, callback: (params: (number | number[])[]) => boolean): { dispose(): void } };
  write(data: string, callback?: () => void): void;
  onData(listener: (data: string) => void): { dispose(): void };
  onTitleChange(listener: (title: string) => void): { dispose(): void };
  resize(cols: number, rows: number): void;
  dispose(): void;
}

interface XtermModule {
  Terminal: new (options: { cols: number; rows: number; allowProposedApi: boolean; scrollback: number }) => TerminalLike;
}

let modules: Promise<{ pty: PtyModule; xterm: XtermModule }> | undefined;

/** node-pty's native binary is loaded on first use, so a web-only project never loads it. */
async function loadModules(): Promise<{ pty: PtyModule; xterm: XtermModule }> {
  modules ??= (async () => {
    let pty: PtyModule;
    try {
      const loaded = (await import('@lydell/node-pty')) as unknown as PtyModule & { default?: PtyModule };
      pty = typeof loaded.spawn === 'function' ? loaded : loaded.default!;
    } catch (error) {
      modules = undefined;
      const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
      throw new E2EError(
        'ENVIRONMENT_UNAVAILABLE',
        `The terminal engine could not load its pseudo-terminal (@lydell/node-pty): ${reason}. It ships prebuilt binaries for Linux, macOS and Windows on x64 and arm64; on another platform, or after an install with --omit=optional, see engines/terminal/README.md.`,
        { cause: error },
      );
    }
    const xterm = (await import('@xterm/headless')) as unknown as XtermModule & { default?: XtermModule };
    return { pty, xterm: typeof xterm.Terminal === 'function' ? xterm : xterm.default! };
  })();
  return modules;
}

/** A running (or ended) program and its screen. */
export class TerminalProcess {
  readonly spec: ProgramSpec;
  readonly #rule: SettleRule;
  readonly #pty: PtyLike;
  readonly #terminal: TerminalLike;
  #title = '';
  #cursorVisible = true;
  #cursorHiddenAt = -Infinity;
  #sgrMouse = false;
  #syncUsed = false;
  /** When a full-screen program last left its keypad mode or the alternate screen (it ended; the next may start). */
  #leftFullScreenAt = -Infinity;
  /** When a full-screen program last entered its keypad mode or the alternate screen (the next one started). */
  #enteredFullScreenAt = -Infinity;
  #frameEndedAt = -Infinity;
  #lastOutputAt: number;
  #pendingWrites = 0;
  /** When keys were last sent: the program's answer to them is not in yet until it had its quiet period. */
  #lastInputAt = -Infinity;
  /** False until the program's first output: a program that has not drawn yet has not settled. */
  #wrote = false;
  #exit: { exitCode: number; signal?: number } | undefined;
  #exitedAt = -Infinity;
  #version = 0;
  #digest = '';
  #dirty = true;
  #digestScheduled = false;
  readonly #listeners = new Set<() => void>();
  #closed = false;

  private constructor(spec: ProgramSpec, rule: SettleRule, pty: PtyLike, terminal: TerminalLike) {
    this.spec = spec;
    this.#rule = rule;
    this.#pty = pty;
    this.#terminal = terminal;
    this.#lastOutputAt = performance.now();
  }

  /** Start `spec` in a pseudo-terminal. @throws E2EError `ENVIRONMENT_UNAVAILABLE` when no pty can be had, `APP_UNREACHABLE` when the command cannot start. */
  static async start(spec: ProgramSpec, rule: SettleRule = SETTLE_RULE): Promise<TerminalProcess> {
    const { pty, xterm } = await loadModules();
    const terminal = new xterm.Terminal({ cols: spec.cols, rows: spec.rows, allowProposedApi: true, scrollback: 1000 });
    let child: PtyLike;
    try {
      const env = spec.env === undefined ? undefined : { TERM: 'xterm-256color', ...spec.env };
      child = pty.spawn(spec.command, [...spec.args], { name: 'xterm-256color', cols: spec.cols, rows: spec.rows, ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }), ...(env === undefined ? {} : { env }) });
    } catch (error) {
      terminal.dispose();
      const reason = error instanceof Error ? error.message : String(error);
      throw new E2EError('APP_UNREACHABLE', `The terminal program "${spec.command}" did not start (${reason}). Check targets[].app.command and app.cwd.`, { cause: error });
    }
    keepLastOutput(child);
    const process = new TerminalProcess(spec, rule, child, terminal);
    process.#wire();
    return process;
  }

  #wire(): void {
    const terminal = this.#terminal;
    const modeHook = (set: boolean) => (params: (number | number[])[]): boolean => {
      for (const param of params) {
        const mode = Array.isArray(param) ? param[0] : param;
        if (mode === 25) {
          if (!set && this.#cursorVisible) this.#cursorHiddenAt = performance.now();
          this.#cursorVisible = set;
        } else if (mode === 1006) this.#sgrMouse = set;
        else if (mode === 1 || mode === 47 || mode === 1047 || mode === 1049) {
          if (set) this.#enteredFullScreenAt = performance.now();
          else this.#leftFullScreenAt = performance.now();
        }
        else if (mode === 2026) {
          this.#syncUsed = true;
          if (!set) this.#frameEndedAt = performance.now();
        }
      }
      return false;
    };
    terminal.parser.registerCsiHandler({ prefix: '?', final: 'h' }, modeHook(true));
    terminal.parser.registerCsiHandler({ prefix: '?', final: 'l' }, modeHook(false));
    terminal.onTitleChange((title) => {
      this.#title = title;
    });
    // Replies the program asked for (cursor position, device attributes) go back to it.
    terminal.onData((data) => {
      if (this.#exit === undefined && !this.#closed) this.#pty.write(data);
    });
    this.#pty.onData((data) => {
      this.#pendingWrites++;
      this.#wrote = true;
      this.#lastOutputAt = performance.now();
      terminal.write(data, () => {
        this.#pendingWrites--;
        this.#lastOutputAt = performance.now();
        this.#dirty = true;
        // The digest is taken once per burst of parsed output, so a change that is undone a moment later still moves the mark.
        if (this.#digestScheduled) return;
        this.#digestScheduled = true;
        setImmediate(() => {
          this.#digestScheduled = false;
          if (!this.#closed) this.mark();
          this.#notify();
        });
      });
    });
    this.#pty.onExit((event) => {
      this.#exit = event;
      this.#exitedAt = performance.now();
      this.#dirty = true;
      this.#notify();
    });
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  /** How the program ended, once it has. */
  get exit(): { exitCode: number; signal?: number } | undefined {
    return this.#exit;
  }

  /** True while the program asked for synchronized output and has not ended the frame. */
  get inFrame(): boolean {
    return this.#terminal.modes.synchronizedOutputMode && this.#exit === undefined;
  }

  /** The program's mouse reporting. */
  get mouse(): MouseMode {
    return { tracking: this.#terminal.modes.mouseTrackingMode, sgr: this.#sgrMouse };
  }

  /** True when the program asked for application cursor keys. */
  get applicationCursorKeys(): boolean {
    return this.#terminal.modes.applicationCursorKeysMode;
  }

  /** The screen now. */
  grid(): Grid {
    return readGrid(this.#terminal.buffer.active, { cols: this.spec.cols, rows: this.spec.rows }, { cursorVisible: this.#cursorVisible, title: this.#title });
  }

  /** The change mark now: it moves only when what the screen shows moved. */
  mark(): string {
    if (this.#dirty) {
      this.#dirty = false;
      const digest = digestOf(this.grid(), this.#exit);
      if (digest !== this.#digest) {
        this.#digest = digest;
        this.#version++;
      }
    }
    return String(this.#version);
  }

  /** Send bytes to the program, as keystrokes. @throws EngineError `NOT_ACTIONABLE` once the program has ended. */
  write(bytes: string): void {
    if (this.#closed) throw new EngineError('NOT_ACTIONABLE', 'The terminal was closed.');
    if (this.#exit !== undefined) throw new EngineError('NOT_ACTIONABLE', `The program "${this.spec.command}" has ended (${describeExit(this.#exit)}); nothing reads keys any more. Start it again with app.restart().`);
    this.#lastInputAt = performance.now();
    this.#pty.write(bytes);
  }

  /** Change the terminal's size (the program gets SIGWINCH). */
  resize(cols: number, rows: number): void {
    this.spec.cols = cols;
    this.spec.rows = rows;
    this.#terminal.resize(cols, rows);
    if (this.#exit === undefined) this.#pty.resize(cols, rows);
    this.#dirty = true;
  }

  /** Whether the output has settled now (the rule in engines/terminal/README.md), with `quietMs` at least. */
  #settled(now: number, quietMs: number): boolean {
    // An ended program is settled once its last output is in: the pty may report the exit before that output arrives.
    if (this.#exit !== undefined) return this.#pendingWrites === 0 && now - Math.max(this.#lastOutputAt, this.#exitedAt) >= this.#rule.frameQuietMs * 3;
    if (this.#pendingWrites > 0 || this.inFrame || !this.#wrote) return false;
    const quiet = now - Math.max(this.#lastOutputAt, this.#lastInputAt);
    const frameJustEnded = this.#syncUsed && this.#frameEndedAt >= this.#lastOutputAt - 1;
    if (quiet < (frameJustEnded ? Math.min(quietMs, this.#rule.frameQuietMs) : quietMs)) return false;
    // A full-screen program that just ended: a script may be starting the next one.
    if (now - this.#leftFullScreenAt < this.#rule.bareQuietMs && this.#enteredFullScreenAt <= this.#leftFullScreenAt) return false;
    // A cursor hidden moments ago: the program is drawing and will show it again.
    if (!this.#cursorVisible && now - this.#cursorHiddenAt < this.#rule.cursorGraceMs) return false;
    // A program of the terminal's session still running (not waiting): more output may come.
    return !sessionBusy(this.#pty.pid);
  }

  /** Wait for a change since `since`, or for the output to settle (see {@link SettleRule}); a timeout is an answer. */
  waitForChange(since: string, options: ChangeWaitOptions): Promise<ChangeWaitResult> {
    const started = performance.now();
    const quietMs = Math.max(options.quietMs ?? 0, this.#rule.quietMs);
    return new Promise<ChangeWaitResult>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (): void => {
        this.#listeners.delete(check);
        options.signal?.removeEventListener('abort', abort);
        if (timer !== undefined) clearTimeout(timer);
        const mark = this.mark();
        resolve({ changed: mark !== since, mark });
      };
      const abort = (): void => {
        this.#listeners.delete(check);
        if (timer !== undefined) clearTimeout(timer);
        reject(new E2EError('CANCELLED', 'Waiting for the terminal was cancelled.'));
      };
      const check = (): void => {
        const now = performance.now();
        const left = options.maxMs - (now - started);
        if (this.#closed) return finish();
        if (options.until === 'change') {
          if (!this.inFrame && this.#pendingWrites === 0 && this.mark() !== since) return finish();
          if (left <= 0) return finish();
          if (timer === undefined) timer = setTimeout(finish, left);
          return;
        }
        if (this.#settled(now, quietMs) || left <= 0) return finish();
        if (timer !== undefined) clearTimeout(timer);
        const quietLeft = quietMs - (now - Math.max(this.#lastOutputAt, this.#lastInputAt));
        const cursorLeft = this.#cursorVisible ? 0 : this.#rule.cursorGraceMs - (now - this.#cursorHiddenAt);
        const endedLeft =
          this.#exit !== undefined ? this.#rule.frameQuietMs * 3 : this.#enteredFullScreenAt > this.#leftFullScreenAt ? 0 : this.#rule.bareQuietMs - (now - this.#leftFullScreenAt);
        timer = setTimeout(check, Math.max(1, Math.min(left, Math.max(quietLeft, cursorLeft, endedLeft, 10))));
      };
      if (options.signal?.aborted === true) return abort();
      options.signal?.addEventListener('abort', abort, { once: true });
      this.#listeners.add(check);
      check();
    });
  }

  /** Wait (bounded) until no synchronized-output frame is open and parsed output caught up. */
  async frameClosed(): Promise<void> {
    const started = performance.now();
    while ((this.inFrame || this.#pendingWrites > 0) && performance.now() - started < this.#rule.frameWaitMs) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.#listeners.delete(done);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(done, 10);
        this.#listeners.add(done);
      });
    }
  }

  /** End the program (SIGHUP, as closing a terminal does; SIGKILL if it lingers) and free the emulator. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#notify();
    if (this.#exit === undefined) {
      const ended = new Promise<void>((resolve) => {
        const subscription = this.#pty.onExit(() => {
          subscription.dispose();
          resolve();
        });
      });
      try {
        this.#pty.kill('SIGHUP');
      } catch {
        // Already gone.
      }
      const lingering = setTimeout(() => {
        try {
          this.#pty.kill('SIGKILL');
        } catch {
          // Already gone.
        }
      }, 1000);
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 3000))]);
      clearTimeout(lingering);
    }
    this.#terminal.dispose();
  }

  /** The program's process id (tests check it ended). */
  get pid(): number {
    return this.#pty.pid;
  }
}

/** How a program ended, in words. */
export function describeExit(exit: { exitCode: number; signal?: number }): string {
  return exit.signal !== undefined && exit.signal !== 0 ? `signal ${exit.signal}` : `exit code ${exit.exitCode}`;
}

function digestOf(grid: Grid, exit: { exitCode: number; signal?: number } | undefined): string {
  const parts: string[] = [`${grid.cursor.x},${grid.cursor.y},${grid.cursor.visible},${grid.alternate},${grid.title},${exit === undefined ? '' : describeExit(exit)}`];
  for (const row of grid.cells) {
    let line = '';
    let style = '';
    for (const cell of row) {
      const next = `${cell.fg}/${cell.bg}/${cell.bold ? 1 : 0}${cell.dim ? 1 : 0}${cell.underline ? 1 : 0}`;
      if (next !== style) {
        line += `\u0000${next}\u0000`;
        style = next;
      }
      line += cell.char;
    }
    parts.push(line);
  }
  return parts.join('\n');
}

/**
 * Bench section `terminal`: the terminal engine's observation time on a full screen of a real
 * program (dialog(1)'s checklist filling an 80×24 and a 200×60 terminal), and a replayed
 * terminal step against a hand-written script driving the same program in the same pty.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pty from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { FileCacheStore } from '../cache-format/file-cache-store.js';
import type { ScreenNode } from '../contract/engine.js';
import type { StepContext, StepExecutor, StepVerdict } from '../contract/step-contract.js';
import type { TerminalApp } from '../engines/terminal/index.js';
import { startAttempt } from '../tests/support/attempt-harness.js';
import { nodesOf, openTerminal, orderScript } from '../tests/support/terminal-programs.js';
import type { BenchContext, BenchSection } from './run.js';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** dialog's checklist filling a `cols`×`rows` terminal. */
function fullChecklist(cols: number, rows: number): TerminalApp {
  const items = rows - 8;
  const args = ['--title', 'Packages', '--checklist', 'Pick the packages to install', String(rows - 2), String(cols - 2), String(items)];
  for (let index = 0; index < items * 2; index++) args.push(`package-${index}`, `Package number ${index} with a description long enough to fill the row`, index % 3 === 0 ? 'on' : 'off');
  return { command: 'dialog', args, cols, rows };
}

/** Median milliseconds of one observation of a full `cols`×`rows` screen, and its node count. */
async function observeTime(cols: number, rows: number, runs: number): Promise<{ milliseconds: number; nodes: number }> {
  const program = await openTerminal(fullChecklist(cols, rows));
  try {
    const screen = await program.settled();
    await program.instance.observe();
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      await program.instance.observe();
      times.push(performance.now() - started);
    }
    return { milliseconds: median(times), nodes: nodesOf(screen.root).length };
  } finally {
    await program.close();
  }
}

const INSTRUCTION = 'pick Banana, add nuts and go on';
const ROUNDS = 7;

function find(tree: ScreenNode, role: string, name: string): { id: string } {
  const node = nodesOf(tree).find((each) => each.role === role && each.name === name);
  if (node === undefined) throw new Error(`bench: no ${role} "${name}" on the screen`);
  return { id: node.id };
}

/** The recording executor: three actions, as an agent would take them. */
const orderExecutor: StepExecutor = {
  name: 'bench-terminal',
  async runStep(ctx: StepContext): Promise<StepVerdict> {
    await ctx.actions.tap(find((await ctx.observe({ tree: true })).tree!, 'menuitem', 'b Banana'));
    await ctx.actions.check(find((await ctx.observe({ tree: true })).tree!, 'checkbox', 'nuts Nuts'));
    await ctx.actions.tap(find((await ctx.observe({ tree: true })).tree!, 'button', 'OK'));
    return { status: 'passed', summary: 'Banana with nuts; the name is asked.' };
  },
};

/** The same step as a hand-written script on the same pty library and emulator: keys, then wait for the text. */
async function handWritten(app: TerminalApp): Promise<number> {
  const terminal = new xterm.Terminal({ cols: app.cols ?? 80, rows: app.rows ?? 24, allowProposedApi: true });
  const child = pty.spawn(app.command, app.args ?? [], { name: 'xterm-256color', cols: app.cols ?? 80, rows: app.rows ?? 24, cwd: app.cwd ?? process.cwd() });
  child.onData((data) => terminal.write(data));
  terminal.onData((data) => child.write(data));
  const screenText = (): string => {
    const lines: string[] = [];
    for (let row = 0; row < terminal.rows; row++) lines.push(terminal.buffer.active.getLine(row)?.translateToString(true) ?? '');
    return lines.join('\n');
  };
  const waitFor = async (text: string): Promise<void> => {
    while (!screenText().includes(text)) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  const down = (): string => (terminal.modes.applicationCursorKeysMode ? '\x1bOB' : '\x1b[B');
  try {
    await waitFor('Pick a fruit');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    child.write(down());
    await new Promise((resolve) => setTimeout(resolve, 50));
    child.write('\r');
    await waitFor('Toppings');
    await new Promise((resolve) => setTimeout(resolve, 50));
    child.write(down());
    await new Promise((resolve) => setTimeout(resolve, 50));
    child.write(' ');
    await new Promise((resolve) => setTimeout(resolve, 50));
    child.write('\r');
    await waitFor('Your name');
    return performance.now() - started;
  } finally {
    child.kill();
    terminal.dispose();
  }
}

/** Median milliseconds of the cached step's replay and of the hand-written script, round by round. */
async function replayAgainstScript(): Promise<{ replayMs: number; scriptMs: number }> {
  const folder = mkdtempSync(join(tmpdir(), 'e2e-bench-terminal-'));
  const app = orderScript('dialog');
  try {
    const store = new FileCacheStore(folder);
    const recording = await openTerminal(app);
    await recording.settled();
    const recorder = startAttempt({ instance: recording.instance, engine: recording.engine, origin: 'order' }, { cache: { store }, executor: orderExecutor });
    await recorder.act(INSTRUCTION);
    recorder.verify();
    const [report] = await recorder.finish();
    await recording.close();
    if (report?.outcome.write !== 'saved') throw new Error(`bench: the terminal step was not recorded (${JSON.stringify(report?.outcome)})`);
    const replayTimes: number[] = [];
    const scriptTimes: number[] = [];
    for (let round = 0; round < ROUNDS + 1; round++) {
      const program = await openTerminal(app);
      await program.settled();
      const attempt = startAttempt({ instance: program.instance, engine: program.engine, origin: 'order' }, { cache: { store, mode: 'read-only', strict: true, waitForTargetMs: 5000 } });
      const started = performance.now();
      const replayed = await attempt.act(INSTRUCTION);
      const replayMs = performance.now() - started;
      await attempt.finish();
      await program.close();
      if ((replayed.cache as { mode?: string } | undefined)?.mode !== 'self-finalized') throw new Error(`bench: the terminal step did not replay (${JSON.stringify(replayed.cache)})`);
      const scriptMs = await handWritten(app);
      if (round > 0) {
        replayTimes.push(replayMs);
        scriptTimes.push(scriptMs);
      }
    }
    return { replayMs: median(replayTimes), scriptMs: median(scriptTimes) };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The section. */
export const terminalSection: BenchSection = {
  name: 'terminal',
  async run(context: BenchContext) {
    const small = await observeTime(80, 24, 40);
    context.log(`terminal observe 80×24: ${small.milliseconds.toFixed(2)} ms for ${small.nodes} nodes`);
    const large = await observeTime(200, 60, 40);
    context.log(`terminal observe 200×60: ${large.milliseconds.toFixed(2)} ms for ${large.nodes} nodes`);
    const replay = await replayAgainstScript();
    context.log(`terminal replay ${replay.replayMs.toFixed(0)} ms, hand-written script ${replay.scriptMs.toFixed(0)} ms`);
    return {
      terminal_replay_ms: Math.round(replay.replayMs),
      terminal_script_ms: Math.round(replay.scriptMs),
      terminal_replay_vs_script_ratio: Number((replay.replayMs / replay.scriptMs).toFixed(2)),
      terminal_observe_ms_80x24: Number(small.milliseconds.toFixed(2)),
      terminal_observe_nodes_80x24: small.nodes,
      terminal_observe_ms_200x60: Number(large.milliseconds.toFixed(2)),
      terminal_observe_nodes_200x60: large.nodes,
    };
  },
};

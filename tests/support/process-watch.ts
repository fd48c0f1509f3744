/**
 * Which programs a process starts: the command lines of its descendants, sampled from `/proc`
 * while it runs (Linux), so a test can say that a run started no browser.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Each live process's parent and command line, from /proc. */
function processTable(): Map<number, { parent: number; command: string }> {
  const table = new Map<number, { parent: number; command: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The second field (the name) may hold spaces and parentheses: the parent follows the last ')'.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const command = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      table.set(Number(name), { parent, command });
    } catch {
      // The process ended while it was read.
    }
  }
  return table;
}

/** A watch over a process's descendants. */
export interface DescendantWatch {
  /** Stop sampling; the command lines of every descendant seen, each once. */
  stop(): string[];
}

/** Sample the descendants of `pid` every `intervalMs` until stopped. */
export function watchDescendants(pid: number, intervalMs = 100): DescendantWatch {
  const seen = new Set<string>();
  const sample = (): void => {
    const table = processTable();
    const inTree = new Set([pid]);
    // Parents come before children in most tables, but not always: repeat until nothing joins.
    for (let grew = true; grew; ) {
      grew = false;
      for (const [child, { parent, command }] of table) {
        if (inTree.has(parent) && !inTree.has(child)) {
          inTree.add(child);
          seen.add(command);
          grew = true;
        }
      }
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return [...seen];
    },
  };
}

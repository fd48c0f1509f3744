/**
 * Which programs a process starts: the command lines of its descendants, sampled from `/proc`
 * while it runs (Linux), so a test can say that a run started no browser. Each sample walks
 * down from the process through its threads' `children` files, reading only its own tree; a
 * kernel without those files gets the parent of every process on the machine instead.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Whether this kernel lists a thread's children (`/proc/<pid>/task/<tid>/children`, CONFIG_PROC_CHILDREN). */
const CHILDREN_FILES = existsSync(`/proc/${process.pid}/task/${process.pid}/children`);

/** A file's text, or undefined when it cannot be read (the process ended while it was read). */
function readOrNothing(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A process's command line, or undefined once it has ended. */
function commandOf(pid: number): string | undefined {
  return readOrNothing(`/proc/${pid}/cmdline`)?.split('\0').join(' ').trim();
}

/** The children of `pid`, started by any of its threads. */
function childrenOf(pid: number): number[] {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return threads.flatMap((thread) => (readOrNothing(`/proc/${pid}/task/${thread}/children`) ?? '').split(' ').filter((child) => child !== '').map(Number));
}

/** Each live process's children, from the parent in every process's /proc stat. */
function childrenByParent(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readOrNothing(`/proc/${name}/stat`);
    if (stat === undefined) continue;
    // The second field (the name) may hold spaces and parentheses: the parent follows the last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  return children;
}

/** The live descendants of `pid` (not `pid` itself). */
function descendantsOf(pid: number): number[] {
  const table = CHILDREN_FILES ? undefined : childrenByParent();
  const children = (parent: number): number[] => (table === undefined ? childrenOf(parent) : (table.get(parent) ?? []));
  const found: number[] = [];
  const visited = new Set([pid]);
  for (const next = [pid]; next.length > 0; ) {
    for (const child of children(next.pop()!)) {
      if (visited.has(child)) continue;
      visited.add(child);
      found.push(child);
      next.push(child);
    }
  }
  return found;
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
    for (const descendant of descendantsOf(pid)) {
      const command = commandOf(descendant);
      if (command !== undefined) seen.add(command);
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

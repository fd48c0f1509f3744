/**
 * Real terminal programs for the terminal engine's tests: one order asked through dialog(1) or
 * whiptail(1) (the same script, two programs), or through a release of an npm prompt library;
 * and helpers to start one on a terminal engine and read its screen.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineInstance, EngineObservation, ScreenNode } from '../../contract/engine.js';
import { terminal, type TerminalApp, type TerminalEngine, type TerminalEngineOptions } from '../../engines/terminal/index.js';
import { scaledTimeout } from './load-scaled.js';
import { allNodes } from './screen-tree.js';

/** The repository root (programs run there, so npm packages resolve). */
export const REPOSITORY_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURES = join(REPOSITORY_ROOT, 'tests', 'engines', 'terminal', 'fixtures');

/** A bug planted in an order program: Banana renamed Plantain in the menu (drift), or Apple shown whatever was picked (regression). */
export type OrderFault = 'none' | 'rename' | 'wrong-fruit';

/** The order script drawn by `ui`. */
export function orderScript(ui: 'dialog' | 'whiptail', fault: OrderFault = 'none'): TerminalApp {
  return { command: join(FIXTURES, 'order.sh'), args: [ui, fault], cwd: REPOSITORY_ROOT, cols: 80, rows: 24 };
}

/** The order asked by a release of @inquirer/prompts. */
export function orderPrompts(release: 'v3' | 'v7', fault: OrderFault = 'none'): TerminalApp {
  return { command: process.execPath, args: [join(FIXTURES, 'order-prompts.mjs'), `inquirer-prompts-${release}`, fault], cwd: REPOSITORY_ROOT, cols: 80, rows: 24 };
}

/** The terminal example's coffee order (examples/terminal), a program of our own drawn with plain ANSI codes. */
export function coffeeProgram(): TerminalApp {
  return { command: process.execPath, args: [join(REPOSITORY_ROOT, 'examples', 'terminal', 'app', 'coffee.mjs')], cwd: REPOSITORY_ROOT, cols: 80, rows: 24 };
}

/** A program that draws in synchronized-output frames with a pause inside each. */
export function framesProgram(): TerminalApp {
  return { command: process.execPath, args: [join(FIXTURES, 'frames.mjs')], cwd: REPOSITORY_ROOT, cols: 80, rows: 24 };
}

/** A started program. */
export interface OpenTerminal {
  engine: TerminalEngine;
  instance: EngineInstance;
  /** The screen once the program has drawn something a person could act on, or held still. */
  settled(): Promise<EngineObservation>;
  /** Do `action`, then wait for the screen to change and hold still, and read it. */
  after(action: (instance: EngineInstance) => Promise<void>, until?: (screen: EngineObservation) => boolean): Promise<EngineObservation>;
  close(): Promise<void>;
}

/** Start `app` on a fresh terminal engine. */
export async function openTerminal(app: TerminalApp, options: TerminalEngineOptions = {}): Promise<OpenTerminal> {
  const engine = terminal(options);
  // As the runner does: the host's environment, which the engine hands the program less CI's variables.
  const instance = await engine.start({ app, host: { environment: process.env } });
  await instance.session.open();
  const settled = async (): Promise<EngineObservation> => {
    let observation = await instance.observe();
    const deadline = Date.now() + scaledTimeout(10_000);
    // Wait for a first drawing, then for it to hold still.
    while (observation.nodeCount <= 1 && Date.now() < deadline) {
      await instance.waitForChange!(observation.mark ?? '', { until: 'change', maxMs: 500 });
      observation = await instance.observe();
    }
    const quiet = await instance.waitForChange!(observation.mark ?? '', { until: 'quiet', maxMs: scaledTimeout(3000), quietMs: 100 });
    return quiet.changed ? instance.observe() : observation;
  };
  const after = async (action: (instance: EngineInstance) => Promise<void>, until?: (screen: EngineObservation) => boolean): Promise<EngineObservation> => {
    const before = await instance.observe();
    await action(instance);
    const deadline = Date.now() + scaledTimeout(10_000);
    let mark = before.mark ?? '';
    if (until !== undefined) {
      const now = await instance.observe();
      if (until(now)) return now;
    }
    for (;;) {
      const changed = await instance.waitForChange!(mark, { until: 'change', maxMs: scaledTimeout(5000) });
      await instance.waitForChange!(changed.mark, { until: 'quiet', maxMs: scaledTimeout(3000), quietMs: 100 });
      const screen = await instance.observe();
      if (until === undefined || until(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`The screen never showed what the test waited for; it shows: ${nodesOf(screen.root).map((node) => `${node.role} "${node.name}"`).join(', ')}`);
      mark = screen.mark ?? '';
    }
  };
  return { engine, instance, settled, after, close: () => instance.close() };
}

/** Every node of a tree, in document order. */
export const nodesOf = allNodes;

/** The node of `role` named `name` (case folded), or an error naming what the screen holds. */
export function nodeNamed(root: ScreenNode, role: string, name: string): ScreenNode {
  const found = nodesOf(root).find((node) => node.role === role && node.name.toLowerCase() === name.toLowerCase());
  if (found === undefined) throw new Error(`No ${role} "${name}" on the screen: ${nodesOf(root).map((node) => `${node.role} "${node.name}"`).join(', ')}`);
  return found;
}

/** A predicate for {@link OpenTerminal.after}: the screen shows a node named `name`. */
export function shows(name: string): (screen: EngineObservation) => boolean {
  return (screen) => nodesOf(screen.root).some((node) => node.name.toLowerCase() === name.toLowerCase());
}

/** The screen as `role "name" [states]` lines, case folded: what two programs drawing the same dialog should agree on. */
export function shapeOf(root: ScreenNode): string[] {
  return nodesOf(root)
    .slice(1)
    .filter((node) => node.role !== 'group' || node.name !== '')
    .map((node) => `${node.role} "${node.name.toLowerCase()}"${node.states.length === 0 ? '' : ` [${node.states.join(' ')}]`}`);
}

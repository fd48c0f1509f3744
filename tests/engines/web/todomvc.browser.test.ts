import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineAction, EngineInstance, EngineObservation, ScreenNode } from '../../../contract/engine.js';
import { renderScreen, shapeOf } from '../../../step/screen-text.js';
import { settleAfterAction } from '../../../step/settle.js';
import { compareGolden } from '../../support/golden-file.js';
import { allNodes, nodeNamed } from '../../support/screen-tree.js';
import { webEngineOnFolder } from '../../support/web-engine-on-folder.js';
import { surfaceOf } from '../../../engines/web/index.js';

// Served from `examples/`, so todomvc-common finds no learn.json and adds no sidebar.
const EXAMPLES = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples');
const UPDATE_GOLDEN = process.env['UPDATE_GOLDEN'] === '1';
const TIMEOUT = { timeoutMs: 10_000 };

const live = webEngineOnFolder(EXAMPLES);
const { engine } = live;

/** Ids renumbered by first appearance: how many observations settling took must not matter. */
function renumbered(text: string): string {
  const ids = new Map<string, string>();
  return text.replace(/#n\d+/g, (id) => {
    let stable = ids.get(id);
    if (stable === undefined) {
      stable = `#n${ids.size + 1}`;
      ids.set(id, stable);
    }
    return stable;
  });
}

/** Do `action` on `node` through the engine and settle the way the runner does. */
async function act(instance: EngineInstance, before: EngineObservation, node: ScreenNode, action: EngineAction): Promise<EngineObservation> {
  await instance.perform(node, action, TIMEOUT);
  return settleAfterAction((options) => instance.observe(options), shapeOf(before), { waitForChange: instance.waitForChange!.bind(instance), beforeMark: before.mark });
}

/** Open an example, add two todos, complete the first, and return the final screen. */
async function twoTodosFirstDone(example: string): Promise<EngineObservation> {
  const instance = await live.start();
  await instance.session.open(`${live.url}${example}/index.html`);
  // The React example compiles its JSX in the page; wait until the app has rendered.
  await surfaceOf(engine).page().waitForSelector('#new-todo', { timeout: 20_000 });
  let screen = await instance.observe();
  for (const title of ['Buy milk', 'Walk the dog']) {
    screen = await act(instance, screen, nodeNamed(screen.root, 'textbox', 'What needs to be done?'), { verb: 'type', value: title, replace: true });
    screen = await act(instance, screen, nodeNamed(screen.root, 'textbox', 'What needs to be done?'), { verb: 'press', key: 'Enter' });
  }
  const first = allNodes(screen.root).find((node) => node.role === 'listitem' && node.name === 'Buy milk');
  const toggle = first === undefined ? undefined : allNodes(first).find((node) => node.role === 'checkbox');
  if (toggle === undefined) throw new Error(`no toggle for "Buy milk":\n${renderScreen(screen, { revision: 0 })}`);
  return act(instance, screen, toggle, { verb: 'check', checked: true });
}

describe.each(['vanillajs', 'react'])('todomvc %s on the web engine', (example) => {
  it('shows two todos, the first completed, as the golden screen', async () => {
    const screen = await twoTodosFirstDone(example);
    const text = renumbered(renderScreen(screen, { revision: 1 }));
    const result = await compareGolden(`screens/todomvc-${example}.txt`, text, { update: UPDATE_GOLDEN });
    if (result.kind === 'missing') throw new Error(`golden file ${result.path} is missing; run with UPDATE_GOLDEN=1`);
    if (result.kind === 'differs') expect(text + '\n').toBe(result.expected);
    expect(['matched', 'written']).toContain(result.kind);
  });
});

/**
 * Change reports as a model reads them, on TodoMVC in real Chromium: after adding two todos,
 * the report alone says which checkbox belongs to which todo.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../executor/create-agent.js';
import { webEngineOnFolder } from '../support/web-engine-on-folder.js';
import { allNodes, nodeNamed } from '../support/screen-tree.js';
import { callTools, findId, scriptedModel, throwScriptErrors } from './support/scripted-model.js';
import { startAttempt, startPoliced } from '../support/attempt-harness.js';

// Served from `examples/`, so todomvc-common finds no learn.json and adds no sidebar.
const EXAMPLES = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples');
const live = webEngineOnFolder(EXAMPLES);

afterEach(() => {
  throwScriptErrors();
});

/** The id on the one `added` line of `report` that is a checkbox in the list item named `todo`. */
function addedToggleOf(report: string, todo: string): string {
  const lines = report.split('\n').filter((line) => line.startsWith('added ') && / checkbox /.test(line) && line.endsWith(` in listitem "${todo}"`));
  expect(lines).toHaveLength(1);
  return /#(\S+) checkbox/.exec(lines[0]!)![1]!;
}

describe('change reports', () => {
  it('say which todo each added checkbox belongs to, so the model ticks the right one', async () => {
    const model = scriptedModel([
      ({ text }) => callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'Buy milk' }]),
      ({ text }) => callTools(['press', { key: 'Enter', target: findId(text, 'textbox', 'What needs to be done?') }]),
      ({ text }) => callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'Walk the dog' }]),
      ({ text }) => callTools(['press', { key: 'Enter', target: findId(text, 'textbox', 'What needs to be done?') }]),
      ({ latest }) => {
        // vanillajs renders the list anew, so both todos' checkboxes are in this one report, and neither has a name.
        expect(latest).toMatch(/^Screen revision \d+ changes:$/m);
        const walk = addedToggleOf(latest, 'Walk the dog');
        const milk = addedToggleOf(latest, 'Buy milk');
        expect(milk).not.toBe(walk);
        return callTools(['check', { target: milk }]);
      },
      ({ latest }) => {
        expect(latest).toMatch(/changed #\S+ checkbox "" \[checked focused\] in listitem "Buy milk" \(was: no value or states\)/);
        return callTools(['complete_step', { status: 'passed', summary: 'Buy milk is completed.' }]);
      },
    ]);
    const { instance, police } = await startPoliced(live.engine, live.url);
    try {
      await instance.session.open(`${live.url}vanillajs/index.html`);
      const { runner } = police(startAttempt({ instance, engine: live.engine, origin: new URL(live.url).origin }, { executor: createAgent({ model }) }));
      const outcome = await runner.runStep('act', 'add two todos and complete the first');
      expect(outcome.verdict.status).toBe('passed');
      const end = (await instance.observe()).root;
      const checked = (todo: string): boolean =>
        allNodes(nodeNamed(end, 'listitem', todo)).some((node) => node.role === 'checkbox' && node.states.includes('checked'));
      expect([checked('Buy milk'), checked('Walk the dog')]).toEqual([true, false]);
    } finally {
      await instance.close();
    }
  });
});

/**
 * Agent steps over real Chromium: the step runner builds the context over the web engine,
 * and the scripted models read the live page's screen to find what to act on.
 */
import { tool } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../../executor/create-agent.js';
import { elisionMarker } from '../../executor/screen-elision.js';
import { createToolLoopExecutor } from '../../executor/tool-loop.js';
import type { Engine, EngineInstance } from '../../contract/engine.js';
import type { StepExecutor } from '../../contract/step-contract.js';
import { testWeb } from '../support/test-browser.js';
import { sharedPages } from '../support/pages.js';
import { serveStatic, type StaticServer } from '../support/static-server.js';
import { callTools, findId, replyJson, scriptedModel, throwScriptErrors } from './support/scripted-model.js';
import { startAttempt, startPoliced, type AttemptOptions } from '../support/attempt-harness.js';

let server: StaticServer;
let engine: Engine;
const instances: EngineInstance[] = [];

beforeAll(async () => {
  server = await serveStatic(undefined);
  // The todo page in a main landmark, with a counter that is a status and no status line but one that says Ready after a moment.
  const knobs = 'main=1&heading=Todos&testid=0&list=Todo list&toggle=Toggle&delete=0&quiet=1&count=status&ready=150';
  server.route(sharedPages({ '/todos.html': { page: 'todos.html', knobs } }, false));
  engine = testWeb();
});

afterEach(async () => {
  throwScriptErrors();
  await Promise.all(instances.splice(0).map((instance) => instance.close()));
});

afterAll(async () => {
  await engine.dispose?.();
  await server.close();
});

/** A fresh page on the todo fixture and a step runner over it. */
async function openTodos(options: AttemptOptions) {
  const { instance, police } = await startPoliced(engine, server.url);
  instances.push(instance);
  await instance.session.open(`${server.url}todos.html`);
  return police(startAttempt({ instance, engine, origin: server.origin }, { debug: true, ...options }));
}

describe('agent steps on a real page', () => {
  it('adds and completes a todo with the built-in agent, then judges the result', async () => {
    const model = scriptedModel([
      ({ text }) => callTools(['type', { target: findId(text, 'textbox', 'New todo'), text: 'Buy milk' }]),
      ({ text }) => callTools(['tap', { target: findId(text, 'button', 'Add') }]),
      ({ latest }) => {
        expect(latest).toMatch(/added #\S+ checkbox "Toggle Buy milk"/);
        return callTools(['check', { target: findId(latest, 'checkbox', 'Toggle Buy milk') }]);
      },
      ({ latest }) => {
        expect(latest).toContain('0 items left');
        return callTools(['complete_step', { status: 'passed', summary: 'Buy milk is added and done.' }]);
      },
      ({ text }) => replyJson({ verdict: 'holds', reason: 'No items are left.', evidence: [findId(text, 'status', '0 items left')] }),
    ]);
    const { runner } = await openTodos({ executor: createAgent({ model }) });
    const act = await runner.runStep('act', 'add "Buy milk" and complete it');
    expect(act.verdict).toEqual({ status: 'passed', summary: 'Buy milk is added and done.' });
    expect(act.actions).toHaveLength(3);
    const check = await runner.runStep('assert', 'no todo is left open');
    expect(check.verdict).toEqual({ status: 'passed', summary: 'No items are left.' });
  });

  it('runs a tool loop whose only tools read the screen and tap a node by id, eliding superseded reads', async () => {
    const readAndTap: StepExecutor = createToolLoopExecutor({
      name: 'tap-only',
      system: 'Read the screen before acting. Tap controls by their id from the latest read.',
      buildPrompt: (ctx) => ctx.step.instruction,
      tools: (ctx, { guard }) => ({
        read_screen: tool({
          description: 'The screen as text, one node per line as #id role "name"',
          inputSchema: z.object({}),
          execute: () => guard(async () => (await ctx.observe()).text),
        }),
        tap: tool({
          description: 'Tap a node by its id from the latest read_screen',
          inputSchema: z.object({ id: z.string() }),
          execute: ({ id }) =>
            guard(async () => {
              const outcome = await ctx.actions.tap({ id: id.replace(/^#/, '') });
              return `Tapped ${id}.\n${outcome.changes}`;
            }),
        }),
      }),
    });
    const model = scriptedModel([
      ({ options }) => {
        expect((options.tools ?? []).map((item) => item.name).sort()).toEqual(['complete_step', 'read_screen', 'tap']);
        return callTools(['read_screen', {}]);
      },
      ({ latest }) => callTools(['tap', { id: `#${findId(latest, 'button', 'Add')}` }]),
      () => callTools(['read_screen', {}]),
      ({ text }) => {
        expect(text).toContain(elisionMarker('1'));
        return callTools(['complete_step', { status: 'passed', summary: 'Tapped Add.' }]);
      },
    ]);
    const { runner, handouts: { transcripts } } = await openTodos({ executor: readAndTap, model });
    const outcome = await runner.runStep('act', 'tap the Add button');
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'Tapped Add.' });
    expect(outcome.actions).toEqual(['tap button "Add"']);
    expect(transcripts[0]).toContain(elisionMarker('1'));
  });

  it('runs a model-free executor that only checks whether the screen says Ready and blocks anything else', async () => {
    const readyOnly: StepExecutor = {
      name: 'ready-check',
      version: '1',
      cache: 'off',
      async runStep(ctx) {
        if (ctx.step.kind !== 'assert' || ctx.step.instruction !== 'the screen says Ready') {
          return { status: 'blocked', errorCode: 'AUTOMATION_UNSUPPORTED', summary: 'This executor answers one question: does the screen say Ready?' };
        }
        const screen = await ctx.observe();
        const ready = /^ *#\S+ status "[^"]*" text="Ready"/m.test(screen.text);
        return ready ? { status: 'passed', summary: 'The status says Ready.' } : { status: 'failed', summary: 'The status does not say Ready yet.' };
      },
    };
    const { runner } = await openTodos({ executor: readyOnly });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await runner.runStep('assert', 'the screen says Ready')).verdict).toEqual({ status: 'passed', summary: 'The status says Ready.' });
    const other = await runner.runStep('act', 'add a todo');
    expect(other.verdict).toMatchObject({ status: 'blocked', errorCode: 'AUTOMATION_UNSUPPORTED' });
    expect(other.modelCalls).toBe(0);
  });
});

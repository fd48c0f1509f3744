import { afterEach, describe, expect, it } from 'vitest';
import { agentOnDemand } from '../../executor/built-in.js';
import { createAgent } from '../../executor/create-agent.js';
import { secret } from '../../secrets/vault.js';
import { elisionMarker } from '../../executor/screen-elision.js';
import { memoryApp, onMemoryApp } from './support/memory-app.js';
import { callTools, findId, replyText, scriptedModel, throwScriptErrors } from './support/scripted-model.js';

const FULL_SCREEN = /^Screen \(revision \d+, [^\n]*nodes\):$/gm;

afterEach(() => throwScriptErrors());
import { startAttempt } from '../support/attempt-harness.js';

describe('the built-in agent', () => {
  it('acts by reading ids off the screen and concludes passed with usage counted per call', async () => {
    const app = memoryApp();
    const model = scriptedModel([
      ({ text }) => callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'Buy milk' }]),
      ({ text }) => callTools(['tap', { target: `#${findId(text, 'button', 'Add')}` }]),
      ({ latest }) => {
        expect(latest).toContain('added #');
        expect(latest).toContain('listitem "Buy milk"');
        return callTools(['complete_step', { status: 'passed', summary: 'The list shows Buy milk.' }]);
      },
    ]);
    const { runner, handouts: { transcripts } } = startAttempt(onMemoryApp(app), { executor: createAgent({ model }), debug: true });
    const outcome = await runner.runStep('act', 'add a todo "Buy milk"');
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'The list shows Buy milk.' });
    expect(app.state.todos.map((todo) => todo.title)).toEqual(['Buy milk']);
    expect(outcome.modelCalls).toBe(3);
    expect(outcome.tokens.input).toBe(360);
    expect(outcome.actions).toHaveLength(2);
    // The opening prompt carries the brief, then the whole screen once; later turns only changes.
    expect(model.prompts[0]).toContain('Step 1 (act): add a todo "Buy milk"');
    expect(model.prompts[0]!.match(FULL_SCREEN)).toHaveLength(1);
    expect(model.prompts[2]!.match(FULL_SCREEN)).toHaveLength(1);
    expect(transcripts).toHaveLength(1);
    expect(transcripts[0]).toContain('→ tap {"target":"#add"}');
    expect(transcripts[0]).toContain('passed: The list shows Buy milk.');
  });

  it.each([
    ['failed', 'ACTION_FAILED'],
    ['blocked', 'AUTOMATION_UNSUPPORTED'],
  ] as const)('returns a %s verdict with its code as the model gave it', async (status, errorCode) => {
    const model = scriptedModel([() => callTools(['complete_step', { status, summary: 'Cannot do this here.', errorCode }])]);
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor: createAgent({ model }) });
    const outcome = await runner.runStep('act', 'upload a photo');
    expect(outcome.verdict).toEqual({ status, summary: 'Cannot do this here.', errorCode });
  });

  it('concludes in the same model call as the final action when its result shows a change', async () => {
    const app = memoryApp();
    const model = scriptedModel([
      ({ text }) =>
        callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'Tea' }], ['complete_step', { status: 'passed', summary: 'Typed Tea.' }]),
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { executor: createAgent({ model }) });
    const outcome = await runner.runStep('act', 'type Tea');
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'Typed Tea.' });
    expect(outcome.modelCalls).toBe(1);
    expect(app.state.draft).toBe('Tea');
  });

  it('refuses a passed verdict with an action that changed nothing, and one placed before the actions', async () => {
    const app = memoryApp();
    const model = scriptedModel([
      ({ text }) => callTools(['tap', { target: findId(text, 'button', 'Nothing') }], ['complete_step', { status: 'passed', summary: 'early' }]),
      ({ latest, text }) => {
        expect(latest).toContain('Verdict not recorded: the action before it changed nothing on screen');
        return callTools(['complete_step', { status: 'passed', summary: 'too early' }], ['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'Tea' }]);
      },
      ({ latest }) => {
        expect(latest).toContain('Verdict not recorded: complete_step comes last in a turn');
        return callTools(['complete_step', { status: 'passed', summary: 'Checked the result first.' }]);
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { executor: createAgent({ model }) });
    const outcome = await runner.runStep('act', 'type Tea');
    expect(outcome.verdict.summary).toBe('Checked the result first.');
    expect(outcome.modelCalls).toBe(3);
  });

  it('ends with STEP_BUDGET_EXHAUSTED when the forced last model call still gives no verdict', async () => {
    const app = memoryApp();
    const model = scriptedModel([
      ({ text }) => callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'Tea' }]),
      ({ options, latest }) => {
        expect(options.toolChoice).toEqual({ type: 'tool', toolName: 'complete_step' });
        expect(latest).toContain('This is the last model call the step allows.');
        return replyText('I would like to keep going.');
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { executor: createAgent({ model }), limits: { maxModelCalls: 2 } });
    const outcome = await runner.runStep('act', 'add something');
    expect(outcome.verdict.status).toBe('failed');
    expect(outcome.verdict.errorCode).toBe('STEP_BUDGET_EXHAUSTED');
    expect(outcome.modelCalls).toBe(2);
  });

  it('forces the verdict on the first turn when the deadline is inside the wind-down window', async () => {
    const model = scriptedModel([
      ({ options, latest }) => {
        expect(options.toolChoice).toEqual({ type: 'tool', toolName: 'complete_step' });
        expect(latest).toContain('The step deadline is close.');
        return callTools(['complete_step', { status: 'failed', summary: 'No time to act.', errorCode: 'ACTION_FAILED' }]);
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor: createAgent({ model, windDownMs: 10 * 60_000 }) });
    const outcome = await runner.runStep('act', 'add something');
    expect(outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'ACTION_FAILED' });
  });

  it('elides superseded full screens from the transcript and the prompt', async () => {
    const app = memoryApp();
    const model = scriptedModel([
      ({ text }) => callTools(['tap', { target: findId(text, 'button', 'Broken') }]),
      ({ latest, text }) => {
        // The failure came back with the current screen; the opening screen is now a marker.
        expect(latest).toContain('failed');
        expect(latest).toContain('Current screen:');
        expect(text).toContain(elisionMarker('1'));
        expect(text.match(FULL_SCREEN)).toHaveLength(1);
        return callTools(['complete_step', { status: 'failed', summary: 'The Broken button is covered.', errorCode: 'ACTION_FAILED' }]);
      },
    ]);
    const { runner, handouts: { transcripts } } = startAttempt(onMemoryApp(app), { executor: createAgent({ model }), debug: true });
    await runner.runStep('act', 'press the broken button');
    const transcript = transcripts[0]!;
    expect(transcript).toContain(elisionMarker('1'));
    expect(transcript.match(FULL_SCREEN)).toHaveLength(1);
  });

  it('tells the model what a replay already did and asks it to carry on from the current screen', async () => {
    const model = scriptedModel([
      ({ text }) => {
        expect(text).toContain('It ran 1 of its 2 actions, then stopped.');
        expect(text).toContain('1. type textbox "What needs to be done?" "Buy milk"');
        expect(text).toContain('Why it stopped: target-not-found (at action 2 of 2, tap button "Save": not found within 15 s).');
        expect(text).toContain('did not take effect');
        expect(text).toContain('Do not repeat the actions already done.');
        return callTools(['complete_step', { status: 'passed', summary: 'Carried on.' }]);
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(memoryApp()), {
      executor: createAgent({ model }),
      stepInterceptor: () =>
        Promise.resolve({
          continueWith: {
            actions: ['type textbox "What needs to be done?" "Buy milk"'],
            total: 2,
            reason: 'target-not-found',
            detail: 'at action 2 of 2, tap button "Save": not found within 15 s',
            lastMayHaveCommitted: false,
          },
        }),
    });
    const outcome = await runner.runStep('act', 'add milk and save');
    expect(outcome.verdict.status).toBe('passed');
  });

  it('types secrets by name, never sees their values, and closes screenshots and point taps after the fill', async () => {
    const tapTakesPoints = (options: { tools?: unknown[] | undefined }): boolean =>
      JSON.stringify((options.tools ?? []).find((tool) => (tool as { name?: string }).name === 'tap')).includes('"x"');
    const app = memoryApp();
    const model = scriptedModel([
      ({ options, text }) => {
        const names = (options.tools ?? []).map((tool) => tool.name);
        expect(names).toEqual(expect.arrayContaining(['type_secret', 'screenshot', 'tap']));
        // A point of a screenshot is tapped with tap({ x, y }) (DESIGN's tap_at) while pictures may be shown.
        expect(tapTakesPoints(options)).toBe(true);
        expect(text).toContain('Secrets this step may type, by name with type_secret: password');
        return callTools(['type_secret', { target: findId(text, 'textbox', 'Password'), secret: 'password' }]);
      },
      ({ text }) => callTools(['tap', { target: findId(text, 'button', 'Sign in') }]),
      ({ text }) => {
        expect(text).toContain('heading "Welcome back"');
        expect(text).not.toContain('hunter2');
        return callTools(['complete_step', { status: 'passed', summary: 'Signed in.' }]);
      },
      ({ options }) => {
        const names = (options.tools ?? []).map((tool) => tool.name);
        expect(names).not.toContain('screenshot');
        expect(tapTakesPoints(options)).toBe(false);
        return callTools(['complete_step', { status: 'passed', summary: 'Nothing to do.' }]);
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { executor: createAgent({ model }), secrets: { password: 'hunter2' } });
    const signIn = await runner.runStep('act', 'sign in with {password}', { params: { password: secret('password') } });
    expect(signIn.verdict.status).toBe('passed');
    expect(app.state.signedIn).toBe(true);
    await runner.runStep('act', 'look around');
    expect(model.prompts.join('\n')).not.toContain('hunter2');
  });

  it('serves a call to a DESIGN tool that the prompt folds into another (back, tap_at), though it is not offered', async () => {
    // An app with a location: it navigates and goes back.
    const app = memoryApp({ at: 'http://127.0.0.1:4173/' });
    const model = scriptedModel([
      ({ options }) => {
        const names = (options.tools ?? []).map((tool) => tool.name);
        expect(names).not.toContain('back');
        expect(names).not.toContain('tap_at');
        return callTools(['navigate', { url: 'http://127.0.0.1:4173/next' }]);
      },
      () => callTools(['back', {}]),
      ({ latest }) => {
        expect(latest).toMatch(/^back: done\./);
        return callTools(['navigate', { url: 'back' }], ['tap_at', { x: 5, y: 5 }]);
      },
      ({ latest }) => {
        expect(latest).toContain('tap at (5, 5): done.');
        return callTools(['complete_step', { status: 'passed', summary: 'Went back twice.' }]);
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { executor: createAgent({ model }), origins: ['http://127.0.0.1:4173'] });
    const outcome = await runner.runStep('act', 'go somewhere and come back');
    expect(outcome.verdict.status).toBe('passed');
    expect(app.performed).toEqual(['navigate:page', 'back:page', 'back:page']);
    expect(outcome.actions).toHaveLength(4);
    expect(outcome.actions[3]).toMatch(/^tap at \(5, 5\)/);
  });

  it('offers only the tools for the verbs the engine declares, and find, which only observes', async () => {
    const model = scriptedModel([
      ({ options }) => {
        expect((options.tools ?? []).map((tool) => tool.name).sort()).toEqual(['complete_step', 'find', 'tap', 'type']);
        return callTools(['complete_step', { status: 'passed', summary: 'Looked.' }]);
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(memoryApp(), ['tap', 'type']), { executor: createAgent({ model }) });
    expect((await runner.runStep('act', 'look')).verdict.status).toBe('passed');
  });

  it('sends a screenshot to a provider of unknown abilities as an image of the next user message, not inside the tool result', async () => {
    const model = scriptedModel([
      () => callTools(['screenshot', {}]),
      ({ options }) => {
        const [tool, user] = options.prompt.slice(-2);
        const part = tool?.role === 'tool' ? tool.content[0] : undefined;
        expect(part?.type === 'tool-result' && part.output).toEqual({ type: 'text', value: expect.stringMatching(/^Screenshot at revision \d+\.\n\[The picture follows in the next message\.\]$/) });
        expect(user?.role === 'user' && user.content.map((item) => (item.type === 'file' ? item.mediaType : item.type))).toEqual(['text', 'image/png']);
        return callTools(['complete_step', { status: 'passed', summary: 'Saw the page.' }]);
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor: createAgent({ model }) });
    expect((await runner.runStep('act', 'look at the page')).verdict.status).toBe('passed');
  });
});

describe('the built-in agent on demand (the runner loads it, and the AI SDK, on its first step)', () => {
  it('names itself as createAgent does before it is loaded: name, version, vision, model, judge, cache', () => {
    const model = scriptedModel([]);
    const judge = scriptedModel([]);
    const identity = ({ runStep: _runStep, ...rest }: ReturnType<typeof createAgent>) => rest;
    expect(identity(agentOnDemand({ model }))).toEqual(identity(createAgent({ model })));
    expect(identity(agentOnDemand({ model, judge }))).toEqual(identity(createAgent({ model, judge })));
    expect(identity(agentOnDemand({}))).toEqual(identity(createAgent({})));
  });

  it('acts and concludes on its first and later steps as the agent it loads', async () => {
    const app = memoryApp();
    const model = scriptedModel([
      ({ text }) => callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'Tea' }], ['complete_step', { status: 'passed', summary: 'Typed Tea.' }]),
      () => callTools(['complete_step', { status: 'blocked', summary: 'Cannot do this here.', errorCode: 'AUTOMATION_UNSUPPORTED' }]),
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { executor: agentOnDemand({ model }) });
    expect((await runner.runStep('act', 'type Tea')).verdict).toEqual({ status: 'passed', summary: 'Typed Tea.' });
    expect((await runner.runStep('act', 'upload a photo')).verdict).toEqual({ status: 'blocked', summary: 'Cannot do this here.', errorCode: 'AUTOMATION_UNSUPPORTED' });
    expect(model.prompts).toHaveLength(2);
  });
});

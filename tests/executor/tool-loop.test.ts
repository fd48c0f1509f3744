import { APICallError, type LanguageModelV3GenerateResult, type LanguageModelV3Prompt } from '@ai-sdk/provider';
import { tool, type ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../../executor/create-agent.js';
import { defineTool } from '../../executor/define-tool.js';
import { createGrammarTools } from '../../executor/grammar-tools.js';
import { BASE_RULES } from '../../executor/rules.js';
import { createToolLoopExecutor, type ToolLoopOptions } from '../../executor/tool-loop.js';
import { memoryApp, onMemoryApp } from './support/memory-app.js';
import { callTools, findId, replyText, scriptedModel, throwScriptErrors } from './support/scripted-model.js';
import { startAttempt } from '../support/attempt-harness.js';

afterEach(() => throwScriptErrors());

const conclude = (status: 'passed' | 'failed', summary: string, errorCode?: string) =>
  callTools(['complete_step', { status, summary, ...(errorCode === undefined ? {} : { errorCode }) }]);

function grammarLoop(model: ReturnType<typeof scriptedModel>, extra: Partial<ToolLoopOptions> = {}) {
  return createToolLoopExecutor({
    name: 'grammar-loop',
    system: BASE_RULES,
    buildPrompt: async (ctx) => `${ctx.step.instruction}\n${(await ctx.observe()).text}`,
    tools: (ctx, helpers) => createGrammarTools(ctx, helpers),
    model,
    ...extra,
  });
}

describe('tool loop guards', () => {
  it('warns after three failed actions in a row and forces a verdict after five', async () => {
    const missing = (index: number) => () => callTools(['tap', { target: `gone${index}` }]);
    const model = scriptedModel([
      missing(1),
      missing(2),
      missing(3),
      ({ latest }) => {
        expect(latest).toContain('3 actions in a row failed. Stop repeating them');
        return callTools(['tap', { target: 'gone4' }]);
      },
      missing(5),
      ({ options, latest }) => {
        expect(options.toolChoice).toEqual({ type: 'tool', toolName: 'complete_step' });
        expect(latest).toContain('5 actions in a row failed.');
        return conclude('failed', 'Nothing I tapped was there.', 'LOCATOR_NOT_FOUND');
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor: grammarLoop(model) });
    const outcome = await runner.runStep('act', 'tap things');
    expect(outcome.verdict).toEqual({ status: 'failed', summary: 'Nothing I tapped was there.', errorCode: 'LOCATOR_NOT_FOUND' });
    expect(outcome.modelCalls).toBe(6);
  });

  it('stops an identical call that keeps giving the same result', async () => {
    const tapBroken = ({ text }: { text: string }) => callTools(['tap', { target: findId(text, 'button', 'Broken') }]);
    const model = scriptedModel([
      tapBroken,
      tapBroken,
      tapBroken,
      ({ options, latest }) => {
        expect(options.toolChoice).toEqual({ type: 'tool', toolName: 'complete_step' });
        expect(latest).toMatch(/The same call \(tap \{"target":"broken"\}\) gave the same result 3 times in a row\./);
        return conclude('failed', 'The Broken button never responds.', 'ACTION_FAILED');
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor: grammarLoop(model) });
    expect((await runner.runStep('act', 'press broken')).verdict.errorCode).toBe('ACTION_FAILED');
  });

  it('stops a short cycle of two calls that undo each other', async () => {
    const app = memoryApp();
    app.state.todos.push({ id: '7', title: 'Tea', done: false });
    const toggle = (checked: boolean) => ({ text }: { text: string }) => callTools(['check', { target: findId(text, 'checkbox', 'Toggle'), checked }]);
    const model = scriptedModel([
      toggle(true),
      toggle(false),
      toggle(true),
      toggle(false),
      ({ latest }) => {
        expect(latest).toContain('The calls went in a circle twice');
        return conclude('failed', 'I kept toggling.', 'ACTION_FAILED');
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { executor: grammarLoop(model) });
    expect((await runner.runStep('act', 'complete tea')).verdict.summary).toBe('I kept toggling.');
  });

  it('nudges a reply without a tool call and refuses new work once it is concluding', async () => {
    const app = memoryApp();
    const model = scriptedModel([
      () => replyText('Let me think about the screen first.'),
      ({ latest }) => {
        expect(latest).toContain('Your reply called no tool.');
        return callTools(['type', { target: 'input', text: 'Tea' }]);
      },
      ({ options, text }) => {
        // Last call of the budget: the loop forces the verdict; a tap in this turn is refused.
        expect(options.toolChoice).toEqual({ type: 'tool', toolName: 'complete_step' });
        return callTools(['tap', { target: findId(text, 'button', 'Add') }], ['complete_step', { status: 'passed', summary: 'Typed Tea.' }]);
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(app), { executor: grammarLoop(model), limits: { maxModelCalls: 3 } });
    const outcome = await runner.runStep('act', 'type Tea');
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'Typed Tea.' });
    expect(app.state.todos).toEqual([]);
    expect(outcome.actions).toHaveLength(1);
  });

  it('asks for a verdict when prepareMessages reports no progress', async () => {
    const model = scriptedModel([
      ({ text }) => callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'A' }]),
      ({ options, latest }) => {
        expect(options.toolChoice).toEqual({ type: 'tool', toolName: 'complete_step' });
        expect(latest).toContain('The executor found the step is not making progress.');
        return conclude('failed', 'Stopped by the executor.', 'ACTION_FAILED');
      },
    ]);
    const executor = grammarLoop(model, { prepareMessages: (messages, { turn }) => ({ messages, stop: turn >= 1 }) });
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor });
    expect((await runner.runStep('act', 'type A')).verdict.summary).toBe('Stopped by the executor.');
  });
});

describe('tool loop history', () => {
  const withReasoning = (result: LanguageModelV3GenerateResult, thought: string): LanguageModelV3GenerateResult => ({
    ...result,
    content: [{ type: 'reasoning', text: thought }, ...result.content],
  });
  const reasoningOf = (prompt: LanguageModelV3Prompt): string[] =>
    prompt.flatMap((message) => (message.role === 'assistant' ? message.content.filter((part) => part.type === 'reasoning').map((part) => part.text) : []));

  it('drops reasoning from a rewritten message on, and keeps the reasoning of later turns', async () => {
    const model = scriptedModel([
      ({ text }) => withReasoning(callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'A' }]), 'first thought'),
      ({ options }) => {
        expect(reasoningOf(options.prompt)).toEqual(['first thought']);
        return withReasoning(callTools(['type', { target: 'input', text: 'B' }]), 'second thought');
      },
      ({ options }) => {
        // prepareMessages rewrote the opening message: the reasoning of turns 1 and 2 is no longer sent.
        expect(reasoningOf(options.prompt)).toEqual([]);
        return withReasoning(callTools(['type', { target: 'input', text: 'C' }]), 'third thought');
      },
      ({ options }) => {
        expect(reasoningOf(options.prompt)).toEqual(['third thought']);
        return conclude('passed', 'Typed three times.');
      },
    ]);
    const executor = grammarLoop(model, {
      prepareMessages: (messages, { turn }) => (turn >= 2 ? [{ role: 'user', content: 'Type into the field (shortened brief).' }, ...messages.slice(1)] : messages),
    });
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor });
    expect((await runner.runStep('act', 'type things')).verdict.status).toBe('passed');
  });

  it('sends the whole history every turn, each message checked once and a malformed one refused as the SDK refuses it', async () => {
    const roles = (prompt: LanguageModelV3Prompt): string[] => prompt.map((message) => message.role);
    const model = scriptedModel([
      ({ text, options }) => {
        expect(roles(options.prompt)).toEqual(['system', 'user']);
        return callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'A' }]);
      },
      ({ options }) => {
        expect(roles(options.prompt)).toEqual(['system', 'user', 'assistant', 'tool']);
        return callTools(['type', { target: 'input', text: 'B' }]);
      },
      ({ options, text }) => {
        expect(roles(options.prompt)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
        // The first turn's call and result are still there, word for word.
        expect(text).toContain('"text":"A"');
        return callTools(['type', { target: 'input', text: 'C' }]);
      },
    ]);
    // From the third turn on, prepareMessages hands in a message the SDK's schema refuses (a tool result without output).
    const malformed = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'x', toolName: 'type' }] } as unknown as ModelMessage;
    const executor = grammarLoop(model, { prepareMessages: (messages, { turn }) => (turn >= 3 ? [...messages, malformed] : messages) });
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor });
    const outcome = await runner.runStep('act', 'type things');
    expect(outcome.modelCalls).toBe(3);
    // What the SDK itself answers such a history with (the same before the check moved out of the request).
    expect(outcome.verdict).toEqual({
      status: 'blocked',
      summary: 'The model call failed: AI_InvalidPromptError: Invalid prompt: The messages do not match the ModelMessage[] schema.',
      errorCode: 'MODEL_PROVIDER_FAILED',
    });
  });

  const overflow = () =>
    new APICallError({
      message: "This model's maximum context length is 8192 tokens.",
      url: 'http://127.0.0.1/v1/chat/completions',
      requestBodyValues: {},
      statusCode: 400,
      responseBody: '{"error":{"code":"context_length_exceeded"}}',
    });

  it('shrinks the history once when the provider says the prompt is too long', async () => {
    const model = scriptedModel([
      ({ text }) => callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'A' }]),
      ({ text }) => callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'B' }]),
      ({ text }) => callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'C' }]),
      () => {
        throw overflow();
      },
      ({ text }) => {
        // Only the last two turns survive word for word; the first is a condensed line.
        expect(text).toContain('Earlier turns of this step, condensed');
        expect(text).toContain('type {"target":"input","text":"A"} → type into #input: done.');
        return conclude('passed', 'Done after shrinking.');
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor: grammarLoop(model) });
    const outcome = await runner.runStep('act', 'type');
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'Done after shrinking.' });
    expect(outcome.modelCalls).toBe(4);
  });

  it('fails with CONTEXT_OVERFLOW when the shrunk prompt is still too long', async () => {
    const model = scriptedModel([
      () => {
        throw overflow();
      },
      () => {
        throw overflow();
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor: grammarLoop(model) });
    const outcome = await runner.runStep('act', 'anything');
    expect(outcome.verdict.status).toBe('failed');
    expect(outcome.verdict.errorCode).toBe('CONTEXT_OVERFLOW');
    expect(outcome.verdict.summary).toMatch(/longer than the model accepts/);
  });
});

describe('tool loop hard stops and project tools', () => {
  it('ends the step when the action budget is spent, whatever the model wanted next', async () => {
    const model = scriptedModel([
      ({ text }) => callTools(['type', { target: findId(text, 'textbox', 'What needs to be done?'), text: 'A' }]),
      ({ options, latest }) => {
        expect(latest).toContain('The step has no actions left in its budget.');
        expect(options.toolChoice).toEqual({ type: 'tool', toolName: 'complete_step' });
        return conclude('passed', 'Typed A.');
      },
    ]);
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor: grammarLoop(model), limits: { maxSteps: 1 } });
    expect((await runner.runStep('act', 'type A')).verdict.status).toBe('passed');
  });

  it('lets a policy refusal end the step instead of handing it to the model', async () => {
    const model = scriptedModel([() => callTools(['navigate', { url: 'https://elsewhere.example/' }])]);
    // The app needs a location for an origin policy to refuse anything.
    const { runner } = startAttempt(onMemoryApp(memoryApp({ at: 'http://127.0.0.1:4173/' })), { executor: grammarLoop(model) });
    const outcome = await runner.runStep('act', 'go elsewhere');
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(model.prompts).toHaveLength(1);
  });

  it('runs project tools inside the budgets, records a gap for a mutating one, and cuts long results', async () => {
    const seeded: string[] = [];
    const model = scriptedModel([
      () => callTools(['seed_todo', { title: 'From the API' }]),
      ({ latest }) => {
        expect(latest).toBe('{"created":"From the API"}');
        return callTools(['read_log', {}]);
      },
      ({ latest }) => {
        expect(latest).toMatch(/^x{50}\n\[… 950 more characters cut\]$/);
        return conclude('passed', 'Seeded a todo.');
      },
    ]);
    const agent = createAgent({
      model,
      tools: {
        seed_todo: defineTool(
          tool({
            description: 'Create a todo through the API',
            inputSchema: z.strictObject({ title: z.string() }),
            execute: ({ title }) => {
              seeded.push(title);
              return Promise.resolve({ created: title });
            },
          }),
          { mutates: true },
        ),
        read_log: defineTool(
          tool({ description: 'Read the server log', inputSchema: z.strictObject({}), execute: () => Promise.resolve('x'.repeat(1000)) }),
          { mutates: false, maxOutputChars: 50 },
        ),
      },
    });
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor: agent });
    const outcome = await runner.runStep('act', 'seed a todo');
    expect(outcome.verdict.status).toBe('passed');
    expect(seeded).toEqual(['From the API']);
    expect(outcome.actions).toEqual(['run tool seed_todo']);
  });

  it('refuses a custom tool named like the verdict tool', async () => {
    const executor = createToolLoopExecutor({
      name: 'clash',
      system: 'x',
      buildPrompt: () => 'x',
      tools: () => ({ complete_step: tool({ inputSchema: z.object({}), execute: () => 'mine' }) }),
      model: scriptedModel([]),
    });
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor });
    const outcome = await runner.runStep('act', 'anything');
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'INVALID_ARGUMENT' });
  });

  it('reports MODEL_UNAVAILABLE when neither the executor nor the entry has a model', async () => {
    const executor = createToolLoopExecutor({ name: 'no-model', system: 'x', buildPrompt: () => 'x', tools: () => ({}) });
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor });
    const outcome = await runner.runStep('act', 'anything');
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'MODEL_UNAVAILABLE' });
  });
});

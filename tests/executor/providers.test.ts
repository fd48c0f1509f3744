/**
 * Every provider we document, through its real AI SDK package against a loopback server of
 * our own that answers like an imperfect model: the OpenAI-compatible chat API at the
 * package's defaults (no structured outputs, text-only tool messages), the OpenAI Responses
 * API (`@ai-sdk/openai`'s default), and the Anthropic Messages API (with reasoning). Each
 * test names the rule of the agent README's providers table it backs.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../../executor/create-agent.js';
import { createToolLoopExecutor } from '../../executor/tool-loop.js';
import { createGrammarTools } from '../../executor/grammar-tools.js';
import { startAnthropicServer } from '../support/anthropic-server.js';
import { imperfectTodoModel, idOf } from '../support/imperfect-todo-model.js';
import { carriesBase64Text, chatResponder, exchangeText, type Brain, type ExchangeReply, type ExchangeRequest } from '../support/model-exchange.js';
import { startOpenAIServer } from '../support/openai-server.js';
import { startResponsesServer } from '../support/responses-server.js';
import { memoryApp, onMemoryApp } from './support/memory-app.js';
import { startAttempt } from '../support/attempt-harness.js';

interface Loopback {
  model: LanguageModel;
  requests: ExchangeRequest[];
  close(): Promise<void>;
}

/** The wire formats, plus OpenAI's own chat API on the chat completions server. */
type Protocol = ExchangeRequest['protocol'] | 'openai-chat';

const START: Record<Protocol, (brain: Brain) => Promise<Loopback>> = {
  chat: async (brain) => {
    const requests: ExchangeRequest[] = [];
    const server = await startOpenAIServer(chatResponder(brain, requests));
    // The package's defaults: supportsStructuredOutputs is left unset (false).
    return { model: createOpenAICompatible({ baseURL: server.url, name: 'zoo', apiKey: 'test-key' }).chatModel('zoo-model'), requests, close: server.close };
  },
  'openai-chat': async (brain) => {
    const requests: ExchangeRequest[] = [];
    const server = await startOpenAIServer(chatResponder(brain, requests));
    return { model: createOpenAI({ baseURL: server.url, apiKey: 'test-key' }).chat('gpt-zoo'), requests, close: server.close };
  },
  responses: async (brain) => {
    const server = await startResponsesServer(brain);
    return { model: createOpenAI({ baseURL: server.url, apiKey: 'test-key' })('gpt-zoo'), requests: server.requests, close: server.close };
  },
  messages: async (brain) => {
    const server = await startAnthropicServer(brain);
    return { model: createAnthropic({ baseURL: server.url, apiKey: 'test-key' })('claude-zoo-1'), requests: server.requests, close: server.close };
  },
};

const open: Loopback[] = [];
let printed: string[] = [];

beforeEach(() => {
  printed = [];
  for (const method of ['warn', 'info', 'log'] as const) vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(' ')));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((loopback) => loopback.close()));
});

async function serve(protocol: Protocol, brain: Brain): Promise<Loopback> {
  const loopback = await START[protocol](brain);
  open.push(loopback);
  return loopback;
}

function harness(loopback: Loopback) {
  const app = memoryApp();
  const debug: string[] = [];
  const logger = { debug: (line: string) => void debug.push(line), warn: (line: string) => void debug.push(line) };
  const { runner } = startAttempt(onMemoryApp(app), { model: loopback.model, logger });
  return { app, runner, debug };
}

/** A brain that plays `turns` in order for act requests and defers to the imperfect model otherwise. */
function scripted(...turns: Array<(request: ExchangeRequest) => ExchangeReply>): Brain {
  let turn = 0;
  return (request) => (request.tools.length === 0 ? imperfectTodoModel(request) : (turns[turn++] ?? (() => ({ calls: [{ name: 'complete_step', arguments: { status: 'failed', summary: 'out of script' } }] })))(request));
}

const toolMessages = (request: ExchangeRequest) => request.messages.filter((message) => message.role === 'tool');
const PROTOCOLS: Protocol[] = ['chat', 'openai-chat', 'responses', 'messages'];
/** Where a provider takes pictures: inside tool results, or in the next user message. */
const PICTURES_IN_TOOL_RESULTS: Record<Protocol, boolean> = { chat: false, 'openai-chat': false, responses: true, messages: true };

describe.each(PROTOCOLS)('judgments on the %s API', (protocol) => {
  it('state the shape, read a fenced answer with extra keys and #ids, and print no SDK warning', async () => {
    const loopback = await serve(protocol, imperfectTodoModel);
    const { runner } = harness(loopback);
    expect((await runner.runStep('act', 'add todos "Tea" and "Milk"')).verdict.status).toBe('passed');
    const outcome = await runner.runStep('assert', 'the list shows "Tea" and "Milk"');
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'The list shows Tea and Milk.' });
    expect(outcome.modelCalls).toBe(1);
    const judged = loopback.requests.at(-1)!;
    expect(exchangeText(judged)).toContain('A JSON object with these keys:\n- "verdict": "holds" or "fails" or "inconclusive"');
    // Structured output where the provider has it; plain JSON mode (no schema, no warning) where it does not.
    expect(judged.responseFormat).toBe(protocol === 'chat' ? 'json' : 'schema');
    expect(printed).toEqual([]);
    expect((globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS).toBeUndefined();
  });

  it('read "true" and "1" as a boolean and a number in an answer written inside prose', async () => {
    const loopback = await serve(protocol, imperfectTodoModel);
    const { runner } = harness(loopback);
    await runner.runStep('act', 'add todos "Tea"');
    const outcome = await runner.runStep('extract', 'how many todos are left', { schema: z.number() });
    expect(outcome.verdict).toMatchObject({ status: 'passed', value: 1 });
  });

  it('fail MODEL_OUTPUT_INVALID after the repair round, naming what was missing', async () => {
    const loopback = await serve(protocol, () => ({ text: 'Probably yes: {"verdict": "holds"}' }));
    const { runner } = harness(loopback);
    const outcome = await runner.runStep('assert', 'the status says Ready');
    expect(outcome.verdict).toEqual({
      status: 'failed',
      errorCode: 'MODEL_OUTPUT_INVALID',
      summary: 'The judgment gave no usable answer after a repair round: "reason" is missing; "evidence" is missing.',
    });
    expect(loopback.requests).toHaveLength(2);
    expect(loopback.requests[1]!.messages.at(-1)!.text).toMatch(/^The answer could not be read: "reason" is missing; "evidence" is missing\. Reply with JSON only\. A JSON object/);
  });
});

describe.each(PROTOCOLS)('the act loop on the %s API', (protocol) => {
  it('runs several calls of one turn in order, with text beside them, #ids and string booleans', async () => {
    const loopback = await serve(protocol, imperfectTodoModel);
    const { app, runner } = harness(loopback);
    const outcome = await runner.runStep('act', 'add todos "Tea" and "Milk"');
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'Added Tea and Milk.' });
    expect(app.state.todos.map((todo) => todo.title)).toEqual(['Tea', 'Milk']);
    expect(outcome.actions).toHaveLength(4);
    // Two turns of two calls each, then the verdict.
    expect(loopback.requests).toHaveLength(3);
    expect(toolMessages(loopback.requests[1]!).map((message) => message.text).join('\n')).toMatch(/type into #input: done[\s\S]*press Enter on #input: done/);
  });

  it('answers an unknown tool with the tool list and a missing argument with the arguments the tool takes', async () => {
    const loopback = await serve(
      protocol,
      scripted(
        () => ({ calls: [{ name: 'click', arguments: { target: 'n1' } }] }),
        (request) => ({ calls: [{ name: 'type', arguments: { target: idOf(exchangeText(request), 'textbox', 'What needs to be done?')! } }] }),
        () => ({ calls: [{ name: 'complete_step', arguments: { status: 'failed', summary: 'Gave up.' } }] }),
      ),
    );
    const { runner } = harness(loopback);
    const outcome = await runner.runStep('act', 'type something');
    expect(outcome.verdict).toMatchObject({ status: 'failed', summary: 'Gave up.' });
    expect(toolMessages(loopback.requests[1]!).at(-1)!.text).toMatch(/^There is no tool named "click"\. The tools are: tap, .*type, .*complete_step\.$/);
    expect(toolMessages(loopback.requests[2]!).at(-1)!.text).toBe(
      'The call to type was not valid: "text" is missing. type takes { "target": string, "text": string, "replace" (optional): boolean }.',
    );
  });

  it('stops a turn at its first failed call and answers the rest as not run', async () => {
    const loopback = await serve(
      protocol,
      scripted(
        (request) => {
          const text = exchangeText(request);
          return {
            calls: [
              { name: 'tap', arguments: { target: idOf(text, 'button', 'Broken')! } },
              { name: 'type', arguments: { target: idOf(text, 'textbox', 'What needs to be done?')!, text: 'Tea' } },
            ],
          };
        },
        () => ({ calls: [{ name: 'complete_step', arguments: { status: 'failed', summary: 'The button is broken.' } }] }),
      ),
    );
    const { app, runner } = harness(loopback);
    const outcome = await runner.runStep('act', 'tap broken, then type Tea');
    expect(outcome.verdict.summary).toBe('The button is broken.');
    expect(app.state.draft).toBe('');
    expect(outcome.actions).toEqual([]);
    expect(toolMessages(loopback.requests[1]!).at(-1)!.text).toContain('Not run: tap failed before it in this turn.');
  });
});

describe('the act loop on a streamed OpenAI-compatible chat', () => {
  it('repairs string arguments and runs several calls of one turn as in a plain turn', async () => {
    const loopback = await serve('chat', imperfectTodoModel);
    const app = memoryApp();
    const { runner } = startAttempt(onMemoryApp(app), { executor: createAgent({ model: loopback.model, streaming: true }) });
    const outcome = await runner.runStep('act', 'add todos "Tea" and "Milk"');
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'Added Tea and Milk.' });
    expect(app.state.todos.map((todo) => todo.title)).toEqual(['Tea', 'Milk']);
    expect(loopback.requests.every((request) => request.body['stream'] === true)).toBe(true);
  });
});

describe.each(PROTOCOLS)('pictures on the %s API', (protocol) => {
  it('reach the model as images, never as base64 text, and every action after a screenshot brings a fresh one', async () => {
    const loopback = await serve(protocol, imperfectTodoModel);
    const { runner } = harness(loopback);
    await runner.runStep('act', 'add todos "Tea"');
    const before = loopback.requests.length;
    const outcome = await runner.runStep('act', 'complete "Tea"');
    expect(outcome.verdict.status).toBe('passed');
    const step = loopback.requests.slice(before);
    // Requests: the opening, then after click (unknown), after screenshot, after check (answered with complete_step).
    expect(step).toHaveLength(4);
    expect(step.every((request) => !carriesBase64Text(request))).toBe(true);
    const [, , afterScreenshot, afterCheck] = step.map((request) => request.messages.slice(-2));
    const inToolResults = PICTURES_IN_TOOL_RESULTS[protocol];
    for (const tail of [afterScreenshot!, afterCheck!]) {
      const images = tail.filter((message) => message.images > 0).map((message) => message.role);
      expect(images).toEqual([inToolResults ? 'tool' : 'user']);
    }
    // Only the newest picture stays in the history.
    expect(step[3]!.messages.reduce((total, message) => total + message.images, 0)).toBe(1);
    expect(exchangeText(step[3]!)).toContain('[Picture left out: a newer one follows.]');
  });
});

describe('reasoning on the Anthropic Messages API', () => {
  it('is sent back until a rewrite, and not from the rewritten message on; later turns keep theirs', async () => {
    let turn = 0;
    const loopback = await serve('messages', (request) => {
      turn++;
      const text = exchangeText(request);
      if (turn < 4) return { reasoning: `thought ${turn}`, calls: [{ name: 'tap', arguments: { target: idOf(text, 'button', 'Nothing')! } }] };
      return { reasoning: `thought ${turn}`, calls: [{ name: 'complete_step', arguments: { status: 'passed', summary: 'Done.' } }] };
    });
    const executor = createToolLoopExecutor({
      name: 'rewriting',
      system: 'Act.',
      buildPrompt: () => 'Tap Nothing three times.',
      tools: (ctx, helpers) => createGrammarTools(ctx, helpers),
      // Before the third turn, the opening message is rewritten.
      prepareMessages: (messages, info) => (info.turn >= 2 ? [{ role: 'user', content: 'Tap Nothing three times (rewritten).' }, ...messages.slice(1)] : messages),
      model: loopback.model,
      limits: { identicalRepeats: 10 },
    });
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor });
    expect((await runner.runStep('act', 'tap nothing')).verdict).toEqual({ status: 'passed', summary: 'Done.' });
    const sent = loopback.requests.map((request) => request.messages.filter((message) => message.role === 'assistant').map((message) => message.reasoning.map((block) => block.text)));
    expect(sent[1]).toEqual([['thought 1']]);
    expect(sent[2]).toEqual([[], []]);
    expect(sent[3]).toEqual([[], [], ['thought 3']]);
    expect(loopback.requests[1]!.messages.find((message) => message.role === 'assistant')!.reasoning[0]!.signature).toBe('signature-0');
  });
});

describe('AI SDK warnings', () => {
  it('of an act turn and of a judgment go to the --debug output, never to the console', async () => {
    const model = new MockLanguageModelV3({
      provider: 'mock.chat',
      modelId: 'warns',
      doGenerate: async (options) => ({
        content:
          (options.tools ?? []).length > 0
            ? [{ type: 'tool-call', toolCallId: 'c1', toolName: 'complete_step', input: JSON.stringify({ status: 'passed', summary: 'Nothing to do.' }) }]
            : [{ type: 'text', text: JSON.stringify({ verdict: 'holds', reason: 'It says Ready.', evidence: ['state'] }) }],
        finishReason: { unified: (options.tools ?? []).length > 0 ? 'tool-calls' : 'stop', raw: undefined },
        usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
        warnings: [{ type: 'unsupported', feature: 'topK', details: 'topK is ignored' }],
      }),
    });
    const { runner, debug } = harness({ model, requests: [], close: async () => undefined });
    expect((await runner.runStep('act', 'do nothing')).verdict.status).toBe('passed');
    expect((await runner.runStep('assert', 'the status says Ready')).verdict.status).toBe('passed');
    expect(debug.filter((line) => line.startsWith('AI SDK warning'))).toEqual(Array(2).fill('AI SDK warning from mock.chat (warns): topK is not supported: topK is ignored'));
    expect(printed).toEqual([]);
  });
});

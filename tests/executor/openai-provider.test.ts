/**
 * The real provider path: the built-in agent and judgments talk to a scripted
 * OpenAI-compatible server on loopback through `@ai-sdk/openai-compatible`, and every
 * provider fault is produced for real (status codes, headers, stalls, broken streams).
 */
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, type AgentOptions } from '../../executor/create-agent.js';
import { createBuiltInAgent } from '../../executor/built-in.js';
import { requestText, startOpenAIServer, type ChatRequest, type OpenAIServer, type Responder, type ScriptedReply } from '../support/openai-server.js';
import { memoryApp, onMemoryApp } from './support/memory-app.js';
import { findId } from './support/scripted-model.js';
import { startAttempt } from '../support/attempt-harness.js';

const servers: OpenAIServer[] = [];
let resourcesBefore: string[] = [];

beforeAll(() => {
  resourcesBefore = process.getActiveResourcesInfo();
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  // Every server closed cleanly and no request left a socket or timer behind.
  const count = (list: string[], kind: string) => list.filter((item) => item === kind).length;
  for (let waited = 0; waited < 2_000; waited += 50) {
    const now = process.getActiveResourcesInfo();
    if (count(now, 'TCPSocketWrap') <= count(resourcesBefore, 'TCPSocketWrap') && count(now, 'Timeout') <= count(resourcesBefore, 'Timeout')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(process.getActiveResourcesInfo()).toEqual(resourcesBefore);
});

async function serve(responder: Responder): Promise<OpenAIServer> {
  const server = await startOpenAIServer(responder);
  servers.push(server);
  return server;
}

function modelOf(server: OpenAIServer) {
  return createOpenAICompatible({ baseURL: server.url, name: 'scripted', apiKey: 'test-key', supportsStructuredOutputs: true }).chatModel('scripted-model');
}

/** A responder that plays the given replies in order, then fails loudly. */
function inOrder(...replies: Array<ScriptedReply | ((request: ChatRequest) => ScriptedReply)>): Responder {
  return (request) => {
    const reply = replies[request.index];
    if (reply === undefined) return { kind: 'error', status: 500, message: `no scripted reply for request ${request.index}` };
    return typeof reply === 'function' ? reply(request) : reply;
  };
}

/** The add-a-todo conversation, reading ids from what the server received. */
const addTodo: Array<(request: ChatRequest) => ScriptedReply> = [
  (request) => ({ kind: 'tool-calls', calls: [{ name: 'type', input: { target: findId(requestText(request), 'textbox', 'What needs to be done?'), text: 'Tea' } }] }),
  (request) => ({ kind: 'tool-calls', calls: [{ name: 'tap', input: { target: findId(requestText(request), 'button', 'Add') } }] }),
  () => ({ kind: 'tool-calls', calls: [{ name: 'complete_step', input: { status: 'passed', summary: 'Tea is listed.' } }], usage: { input: 300, output: 20 } }),
];

async function act(server: OpenAIServer, options: Partial<AgentOptions> = {}) {
  const app = memoryApp();
  const { runner } = startAttempt(onMemoryApp(app), { executor: createAgent({ model: modelOf(server), provider: { backoffMs: 50 }, ...options }) });
  return { app, outcome: await runner.runStep('act', 'add a todo "Tea"') };
}

describe('the OpenAI-compatible provider path', () => {
  it.each([false, true])('runs an act step with tool calls (streamed: %s)', async (streaming) => {
    const server = await serve(inOrder(...addTodo));
    const { app, outcome } = await act(server, { streaming });
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'Tea is listed.' });
    expect(app.state.todos.map((todo) => todo.title)).toEqual(['Tea']);
    expect(server.requests).toHaveLength(3);
    expect(server.requests.every((request) => request.stream === streaming)).toBe(true);
    expect(server.requests[0]!.tools).toEqual(expect.arrayContaining(['tap', 'type', 'press', 'check', 'complete_step']));
    expect(outcome.tokens).toMatchObject({ input: 500, output: 40 });
  });

  it('judges an assert through structured output', async () => {
    const server = await serve(
      inOrder((request) => ({ kind: 'text', text: JSON.stringify({ verdict: 'holds', reason: 'It says Ready.', evidence: [findId(requestText(request), 'status', 'Ready')] }) })),
    );
    const { runner } = startAttempt(onMemoryApp(memoryApp()), { model: modelOf(server), builtIn: createBuiltInAgent() });
    const outcome = await runner.runStep('assert', 'the status says Ready');
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'It says Ready.' });
    expect(server.requests[0]!.body['response_format']).toMatchObject({ type: 'json_schema' });
  });
});

describe('provider faults', () => {
  it('waits as long as retry-after asks, then succeeds', async () => {
    const limited: ScriptedReply = { kind: 'error', status: 429, message: 'Rate limit reached', headers: { 'retry-after': '1' } };
    const server = await serve(inOrder(limited, ...addTodo));
    const { outcome } = await act(server);
    expect(outcome.verdict.status).toBe('passed');
    expect(server.requests).toHaveLength(4);
    const [first, second] = server.requests;
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(950);
  });

  it('gives up on a rate limit after a bounded number of attempts', async () => {
    const server = await serve(() => ({ kind: 'error', status: 429, message: 'Rate limit reached', headers: { 'retry-after-ms': '150' } }));
    const { outcome } = await act(server);
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'MODEL_PROVIDER_FAILED' });
    expect(outcome.verdict.summary).toMatch(/HTTP 429.*Gave up after 3 attempts/);
    expect(server.requests).toHaveLength(3);
    const gaps = server.requests.slice(1).map((request, index) => request.receivedAt - server.requests[index]!.receivedAt);
    expect(gaps.every((gap) => gap >= 140)).toBe(true);
    expect(outcome.modelCalls).toBe(0);
  });

  it.each([
    ['gives up on a server that keeps failing with 503', 503, 'Service unavailable', /HTTP 503/, 3],
    ['does not retry refused credentials', 401, 'Incorrect API key provided', /refused the credentials \(HTTP 401/, 1],
    ['does not retry a rejected request', 400, "Invalid value for 'tool_choice'", /rejected the request \(HTTP 400/, 1],
  ] as const)('%s', async (_title, status, message, summary, requests) => {
    const server = await serve(() => ({ kind: 'error', status, message }));
    const { outcome } = await act(server);
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'MODEL_PROVIDER_FAILED' });
    expect(outcome.verdict.summary).toMatch(summary);
    expect(server.requests).toHaveLength(requests);
  });

  it('shrinks once on a context overflow, then fails with CONTEXT_OVERFLOW', async () => {
    const server = await serve(() => ({ kind: 'error', status: 400, message: "This model's maximum context length is 8192 tokens.", code: 'context_length_exceeded' }));
    const { outcome } = await act(server);
    expect(outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'CONTEXT_OVERFLOW' });
    expect(server.requests).toHaveLength(2);
  });

  it('abandons a request that gets no answer within the request timeout', async () => {
    const server = await serve(() => ({ kind: 'stall' }));
    const { outcome } = await act(server, { provider: { requestTimeoutMs: 400 } });
    // The request timeout ended it (not the step's deadline, whose code is STEP_TIMEOUT), after one request.
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'MODEL_PROVIDER_FAILED' });
    expect(outcome.verdict.summary).toMatch(/did not answer within 0\.4 s/);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a stream whose connection drops midway', async () => {
    const server = await serve(inOrder({ kind: 'broken-stream', how: 'drop' }, ...addTodo));
    const { outcome } = await act(server, { streaming: true });
    expect(outcome.verdict.status).toBe('passed');
    expect(server.requests).toHaveLength(4);
  });

  it('fails on a stream that reports an error midway', async () => {
    const server = await serve(() => ({ kind: 'broken-stream', how: 'error-event' }));
    const { outcome } = await act(server, { streaming: true });
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'MODEL_PROVIDER_FAILED' });
    expect(outcome.verdict.summary).toContain('The server broke off the answer.');
  });

  it('reports a provider without an API key before any request', async () => {
    const server = await serve(inOrder(...addTodo));
    const saved = process.env['OPENAI_API_KEY'];
    delete process.env['OPENAI_API_KEY'];
    try {
      const model = createOpenAI({ baseURL: server.url }).chat('gpt-test');
      const { runner } = startAttempt(onMemoryApp(memoryApp()), { executor: createAgent({ model }) });
      const outcome = await runner.runStep('act', 'add a todo');
      expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'MODEL_PROVIDER_FAILED' });
      expect(outcome.verdict.summary).toMatch(/no API key/);
      expect(server.requests).toHaveLength(0);
    } finally {
      if (saved !== undefined) process.env['OPENAI_API_KEY'] = saved;
    }
  });
});

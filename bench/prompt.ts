/**
 * Bench section `prompt`: what the built-in agent sends a provider, measured on the wire. The
 * agent talks to an OpenAI-compatible server of our own on loopback through the real
 * `@ai-sdk/openai-compatible` package, and every request body is kept as the server got it.
 *
 * Figures:
 * - `agent_fixed_prompt_bytes`: bytes of the system message and the tool definitions of one
 *   act request (the JSON the provider package sends), for a step with no secrets on the web
 *   engine's verbs; the part every request repeats; goal ≤ 5,000;
 * - `act_input_tokens_todomvc`: input tokens (request body bytes / 4) over every request of
 *   "add two todos and complete the first" on TodoMVC `vanillajs`, with a scripted model that
 *   does one action per turn; goal ≤ 10,000;
 * - `act_requests_todomvc`: the number of those requests (five actions, the verdict with the last);
 * - `act_input_tokens_todomvc_request_<n>`: each request's input tokens (what it repeats of the
 *   conversation shows as growth from one to the next), and `act_fixed_share_todomvc`: the share of
 *   the step's input that is the fixed part, repeated by every request.
 *
 * Run alone with `node --import tsx bench/prompt.ts`.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgent } from '../executor/create-agent.js';
import { web } from '../engines/web/index.js';
import { requestText, startOpenAIServer, type ChatRequest, type ScriptedReply } from '../tests/support/openai-server.js';
import { serveStatic } from '../tests/support/static-server.js';
import { startAttempt, startPoliced } from '../tests/support/attempt-harness.js';
import type { BenchContext, BenchSection } from './run.js';

// Served from `examples/`, so todomvc-common finds no learn.json and adds no sidebar.
const EXAMPLES = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples');
const INSTRUCTION = 'add two todos and complete the first';
const TODOS = ['Buy milk', 'Walk the dog'];

/** The last id of a `#id role "name"` line in `text`, or undefined. */
function lastId(text: string, role: string, name: string): string | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [...text.matchAll(new RegExp(`#(\\S+) ${role} "${escaped}"`, 'g'))].pop()?.[1];
}

/**
 * The id of the checkbox that belongs to the list item named `todo`, in what the model was
 * shown (whole screens and change reports): the first checkbox at or after the newest line,
 * not a removal, that names the item.
 */
function toggleOf(text: string, todo: string): string | undefined {
  const lines = text.split('\n').filter((line) => !line.startsWith('removed '));
  const named = lines.map((line) => line.includes(`listitem "${todo}"`)).lastIndexOf(true);
  if (named < 0) return undefined;
  for (const line of lines.slice(named)) {
    const toggle = /#(\S+) checkbox /.exec(line);
    if (toggle !== null) return toggle[1];
  }
  return undefined;
}

/**
 * A model that adds the todos one action per turn (type, Enter, type, Enter), ticks the first,
 * then concludes, reading every id off what the server received.
 */
function todoScript(request: ChatRequest): ScriptedReply {
  const text = requestText(request);
  const call = (name: string, input: unknown): ScriptedReply => ({ kind: 'tool-calls', calls: [{ name, input }] });
  const turn = request.messages.filter((message) => message.role === 'assistant').length;
  const field = lastId(text, 'textbox', 'What needs to be done?');
  if (turn < 4) {
    if (field === undefined) return { kind: 'error', status: 500, message: 'the script found no new-todo field' };
    return turn % 2 === 0 ? call('type', { target: field, text: TODOS[turn / 2] }) : call('press', { key: 'Enter', target: field });
  }
  if (turn === 4) {
    const toggle = toggleOf(text, TODOS[0]!);
    if (toggle === undefined) return { kind: 'error', status: 500, message: `the script found no checkbox for "${TODOS[0]}"` };
    // The verdict comes with the final action: the runner records it once the tick's result shows a change.
    return {
      kind: 'tool-calls',
      calls: [
        { name: 'check', input: { target: toggle } },
        { name: 'complete_step', input: { status: 'passed', summary: 'Two todos added, the first completed.' } },
      ],
    };
  }
  // A refused tick must fail the bench, not pass it.
  const last = request.messages[request.messages.length - 1];
  if (last?.role === 'tool' && typeof last.content === 'string' && / failed/.test(last.content.split('\n')[0] ?? '')) {
    return call('complete_step', { status: 'failed', errorCode: 'ACTION_FAILED', summary: last.content.split('\n')[0] });
  }
  return call('complete_step', { status: 'passed', summary: 'Two todos added, the first completed.' });
}

/** Bytes of a value as JSON text. */
const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '');

/** Run the TodoMVC step against the loopback model and return every request it received. */
export async function recordTodoRequests(context: BenchContext): Promise<ChatRequest[]> {
  const site = await serveStatic(EXAMPLES);
  const modelServer = await startOpenAIServer(todoScript);
  const engine = web({ env: context.env });
  try {
    const model = createOpenAICompatible({ baseURL: modelServer.url, name: 'bench', apiKey: 'bench-key' }).chatModel('scripted');
    const { instance, police } = await startPoliced(engine, site.url);
    try {
      await instance.session.open(`${site.url}vanillajs/index.html`);
      const { runner } = police(startAttempt({ instance, engine, origin: site.origin }, { executor: createAgent({ model }), context: '', debug: true }));
      context.log(`bench: prompt "${INSTRUCTION}" on todomvc vanillajs…`);
      const outcome = await runner.runStep('act', INSTRUCTION);
      if (outcome.verdict.status !== 'passed') throw new Error(`the prompt bench step did not pass: ${outcome.verdict.summary}`);
    } finally {
      await instance.close();
    }
    return modelServer.requests;
  } finally {
    await engine.dispose?.();
    await modelServer.close();
    await site.close();
  }
}

/** Run the prompt bench and return its figures. */
export async function runPromptBench(context: BenchContext): Promise<Record<string, number>> {
  const requests = await recordTodoRequests(context);
  const first = requests[0];
  if (first === undefined) throw new Error('the prompt bench sent no request');
  const system = first.messages.filter((message) => message.role === 'system');
  const bodyBytes = requests.reduce((total, request) => total + jsonBytes(request.body), 0);
  const fixed = system.reduce((total, message) => total + jsonBytes(message), 0) + jsonBytes(first.body['tools'] ?? []);
  const perRequest = Object.fromEntries(requests.map((request, index) => [`act_input_tokens_todomvc_request_${index + 1}`, Math.round(jsonBytes(request.body) / 4)]));
  context.log(`  per request: ${Object.values(perRequest).join(', ')} tokens; fixed part ${fixed} B`);
  return {
    agent_fixed_prompt_bytes: fixed,
    act_input_tokens_todomvc: Math.round(bodyBytes / 4),
    act_requests_todomvc: requests.length,
    act_fixed_share_todomvc: Number(((fixed * requests.length) / bodyBytes).toFixed(3)),
    ...perRequest,
  };
}

/** The `prompt` section for `bench/run.ts`. */
export const promptSection: BenchSection = { name: 'prompt', run: runPromptBench };

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const log = (line: string): void => {
    process.stderr.write(line + '\n');
  };
  runPromptBench({ env: process.env, log }).then(
    (figures) => process.stdout.write(JSON.stringify(figures, null, 2) + '\n'),
    (error: unknown) => {
      process.stderr.write(`prompt bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

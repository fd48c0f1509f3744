/**
 * A small OpenAI-compatible chat completions server on 127.0.0.1 for tests: each request is
 * answered by a scripted responder (tool calls, text, errors, stalls, broken streams), in
 * plain JSON or as an SSE stream, and every request is kept with its arrival time.
 */
import { answerOr500, listenOnLoopback } from './loopback-listen.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One chat message as the provider sends it. */
export interface ChatMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string; image_url?: { url: string } }> | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** A received chat completions request. */
export interface ChatRequest {
  /** 0-based arrival order. */
  index: number;
  /** `Date.now()` at arrival. */
  receivedAt: number;
  stream: boolean;
  messages: ChatMessage[];
  /** Names of the offered tools. */
  tools: string[];
  toolChoice: unknown;
  headers: IncomingMessage['headers'];
  /** The raw body, parsed. */
  body: Record<string, unknown>;
}

/** What the server does with one request. */
export type ScriptedReply =
  /** Tool calls, with `text` beside them if set; `raw` sends the arguments string exactly as given. */
  | { kind: 'tool-calls'; calls: Array<{ name: string; input: unknown; raw?: string }>; text?: string; usage?: { input: number; output: number } }
  | { kind: 'text'; text: string; usage?: { input: number; output: number } }
  | { kind: 'error'; status: number; message: string; code?: string; headers?: Record<string, string> }
  /** Accept the request and never answer (until the server closes). */
  | { kind: 'stall' }
  /** Start a stream, send one chunk, then break: `drop` cuts the connection, `error-event` sends an error chunk. */
  | { kind: 'broken-stream'; how: 'drop' | 'error-event' };

/** Answers one request. */
export type Responder = (request: ChatRequest) => ScriptedReply | Promise<ScriptedReply>;

/** A running server. */
export interface OpenAIServer {
  /** Base URL for `createOpenAICompatible({ baseURL })`. */
  url: string;
  requests: ChatRequest[];
  close(): Promise<void>;
}

/** All text a request's messages carry (system, user, assistant text, tool results), joined. */
export function requestText(request: ChatRequest): string {
  return request.messages
    .map((message) => {
      if (typeof message.content === 'string') return message.content;
      if (Array.isArray(message.content)) return message.content.map((part) => part.text ?? '').join('\n');
      return '';
    })
    .join('\n');
}

function completion(reply: Extract<ScriptedReply, { kind: 'tool-calls' | 'text' }>, index: number): Record<string, unknown> {
  const usage = reply.usage ?? { input: 100, output: 10 };
  const message =
    reply.kind === 'text'
      ? { role: 'assistant', content: reply.text }
      : {
          role: 'assistant',
          content: reply.text ?? null,
          tool_calls: reply.calls.map((call, position) => ({
            id: `call_${index}_${position}`,
            type: 'function',
            function: { name: call.name, arguments: call.raw ?? JSON.stringify(call.input) },
          })),
        };
  return {
    id: `chatcmpl-${index}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'scripted',
    choices: [{ index: 0, message, finish_reason: reply.kind === 'text' ? 'stop' : 'tool_calls' }],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  };
}

function sse(response: ServerResponse, data: unknown): void {
  response.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

function streamCompletion(response: ServerResponse, reply: Extract<ScriptedReply, { kind: 'tool-calls' | 'text' }>, index: number): void {
  const usage = reply.usage ?? { input: 100, output: 10 };
  const base = { id: `chatcmpl-${index}`, object: 'chat.completion.chunk', created: 1_700_000_000, model: 'scripted' };
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(response, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] });
  if (reply.kind === 'text') {
    for (const piece of reply.text.match(/.{1,16}/gs) ?? []) sse(response, { ...base, choices: [{ index: 0, delta: { content: piece } }] });
  } else {
    if (reply.text !== undefined) sse(response, { ...base, choices: [{ index: 0, delta: { content: reply.text } }] });
    reply.calls.forEach((call, position) => {
      const toolCall = { index: position, id: `call_${index}_${position}`, type: 'function', function: { name: call.name, arguments: call.raw ?? JSON.stringify(call.input) } };
      sse(response, { ...base, choices: [{ index: 0, delta: { tool_calls: [toolCall] } }] });
    });
  }
  sse(response, { ...base, choices: [{ index: 0, delta: {}, finish_reason: reply.kind === 'text' ? 'stop' : 'tool_calls' }] });
  sse(response, { ...base, choices: [], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } });
  sse(response, '[DONE]');
  response.end();
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Start a server on a free loopback port; `responder` answers each chat completions request. */
export async function startOpenAIServer(responder: Responder): Promise<OpenAIServer> {
  const requests: ChatRequest[] = [];
  const server: Server = createServer((incoming, response) => {
    answerOr500(response, async () => {
      const text = await readBody(incoming);
      if (!(incoming.url ?? '').endsWith('/chat/completions')) {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const body = JSON.parse(text) as Record<string, unknown>;
      const tools = Array.isArray(body['tools']) ? (body['tools'] as Array<{ function?: { name?: string } }>).map((item) => item.function?.name ?? '') : [];
      const request: ChatRequest = {
        index: requests.length,
        receivedAt: Date.now(),
        stream: body['stream'] === true,
        messages: (body['messages'] as ChatMessage[] | undefined) ?? [],
        tools,
        toolChoice: body['tool_choice'],
        headers: incoming.headers,
        body,
      };
      requests.push(request);
      const reply = await responder(request);
      switch (reply.kind) {
        case 'stall':
          return;
        case 'error': {
          const payload = { error: { message: reply.message, type: 'scripted_error', code: reply.code ?? null } };
          response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(payload));
          return;
        }
        case 'broken-stream': {
          const base = { id: `chatcmpl-${request.index}`, object: 'chat.completion.chunk', created: 1_700_000_000, model: 'scripted' };
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          sse(response, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Let me' } }] });
          if (reply.how === 'error-event') {
            sse(response, { error: { message: 'The server broke off the answer.', type: 'server_error', code: 'stream_broken' } });
            response.end();
          } else {
            setTimeout(() => response.socket?.destroy(), 20);
          }
          return;
        }
        default:
          if (request.stream) streamCompletion(response, reply, request.index);
          else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(reply, request.index)));
      }
    });
  });
  return listenOnLoopback(server, requests);
}

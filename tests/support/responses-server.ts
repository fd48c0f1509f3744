/**
 * A small OpenAI Responses API server (`POST /v1/responses`, the default API of
 * `@ai-sdk/openai`) on 127.0.0.1 for tests. Each request is normalized to an
 * {@link ExchangeRequest} and answered by a scripted model, non-streamed. Items the client
 * sends back by reference (`item_reference`, the SDK's default with `store`) are resolved from
 * what this server answered before.
 */
import { answerOr500, listenOnLoopback } from './loopback-listen.js';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { argumentsText, type Brain, type ExchangeMessage, type ExchangeRequest } from './model-exchange.js';

/** A running server. */
export interface ResponsesServer {
  /** Base URL for `createOpenAI({ baseURL })`. */
  url: string;
  requests: ExchangeRequest[];
  close(): Promise<void>;
}

type Item = Record<string, unknown> & { type?: string; role?: string };
type Part = { type: string; text?: string; image_url?: string };

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function partsOf(content: unknown): Part[] {
  if (typeof content === 'string') return [{ type: 'input_text', text: content }];
  return Array.isArray(content) ? (content as Part[]) : [];
}

function textOf(parts: Part[]): string {
  return parts
    .map((part) => part.text ?? '')
    .filter((text) => text !== '')
    .join('\n');
}

function empty(role: ExchangeMessage['role']): ExchangeMessage {
  return { role, text: '', images: 0, toolCalls: [], reasoning: [] };
}

/** The input items as messages: adjacent items of one side (assistant text and calls, or tool outputs) merge. */
function normalize(items: Item[], known: Map<string, Item>): { system: string; messages: ExchangeMessage[] } {
  const system: string[] = [];
  const messages: ExchangeMessage[] = [];
  const into = (role: ExchangeMessage['role']): ExchangeMessage => {
    const last = messages.at(-1);
    if (last !== undefined && last.role === role && role !== 'user') return last;
    const next = empty(role);
    messages.push(next);
    return next;
  };
  const append = (message: ExchangeMessage, text: string): void => {
    if (text !== '') message.text = message.text === '' ? text : `${message.text}\n${text}`;
  };
  for (const raw of items) {
    const item = raw.type === 'item_reference' ? (known.get(String(raw['id'])) ?? raw) : raw;
    if (item.role === 'system' || item.role === 'developer') system.push(textOf(partsOf(item['content'])));
    else if (item.role === 'user') {
      const parts = partsOf(item['content']);
      const message = into('user');
      append(message, textOf(parts));
      message.images += parts.filter((part) => part.type === 'input_image').length;
    } else if (item.role === 'assistant' || item.type === 'message') append(into('assistant'), textOf(partsOf(item['content'])));
    else if (item.type === 'function_call') {
      into('assistant').toolCalls.push({ id: String(item['call_id']), name: String(item['name']), arguments: String(item['arguments']) });
    } else if (item.type === 'function_call_output') {
      const parts = partsOf(item['output']);
      const message = into('tool');
      append(message, textOf(parts));
      message.images += parts.filter((part) => part.type === 'input_image').length;
    }
  }
  return { system: system.join('\n'), messages };
}

/** Start a server on a free loopback port; `brain` answers each request. */
export async function startResponsesServer(brain: Brain): Promise<ResponsesServer> {
  const requests: ExchangeRequest[] = [];
  const known = new Map<string, Item>();
  const server: Server = createServer((incoming, response) => {
    answerOr500(response, async () => {
      const text = await readBody(incoming);
      if (!(incoming.url ?? '').endsWith('/responses')) {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const body = JSON.parse(text) as Record<string, unknown>;
      if (body['stream'] === true) {
        response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'this server does not stream', type: 'invalid_request_error', code: 'stream' } }));
        return;
      }
      const { system, messages } = normalize((body['input'] as Item[] | undefined) ?? [], known);
      const format = ((body['text'] as { format?: { type?: string } } | undefined)?.format?.type) ?? 'none';
      const request: ExchangeRequest = {
        index: requests.length,
        protocol: 'responses',
        system: [typeof body['instructions'] === 'string' ? body['instructions'] : '', system].filter((part) => part !== '').join('\n'),
        messages,
        tools: ((body['tools'] as Array<{ name?: string }> | undefined) ?? []).map((tool) => tool.name ?? ''),
        responseFormat: format === 'json_schema' ? 'schema' : format === 'json_object' ? 'json' : 'none',
        toolChoice: body['tool_choice'],
        body,
      };
      requests.push(request);
      const reply = await brain(request);
      const index = request.index;
      const output: Item[] = [];
      if (reply.text !== undefined && reply.text !== '') {
        output.push({ type: 'message', role: 'assistant', id: `msg_${index}`, content: [{ type: 'output_text', text: reply.text, annotations: [] }] });
      }
      (reply.calls ?? []).forEach((call, position) => {
        output.push({ type: 'function_call', id: `fc_${index}_${position}`, call_id: `call_${index}_${position}`, name: call.name, arguments: argumentsText(call) });
      });
      for (const item of output) known.set(String(item['id']), item);
      const usage = reply.usage ?? { input: 100, output: 10 };
      const payload = {
        id: `resp_${index}`,
        created_at: 1_700_000_000,
        model: String(body['model'] ?? 'scripted'),
        output,
        usage: { input_tokens: usage.input, output_tokens: usage.output, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
      };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    });
  });
  return listenOnLoopback(server, requests);
}

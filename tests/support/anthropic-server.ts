/**
 * A small Anthropic Messages API server (`POST /v1/messages`, what `@ai-sdk/anthropic`
 * speaks) on 127.0.0.1 for tests. Each request is normalized to an {@link ExchangeRequest}
 * (a user turn's `tool_result` blocks become a tool message) and answered by a scripted
 * model, non-streamed; a reply's reasoning goes out as a signed `thinking` block.
 */
import { answerOr500, listenOnLoopback } from './loopback-listen.js';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Brain, ExchangeMessage, ExchangeRequest } from './model-exchange.js';

/** A running server. */
export interface AnthropicServer {
  /** Base URL for `createAnthropic({ baseURL })`. */
  url: string;
  requests: ExchangeRequest[];
  close(): Promise<void>;
}

type Block = Record<string, unknown> & { type: string; text?: string };

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

function textOf(blocks: Block[]): string {
  return blocks
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('\n');
}

function normalize(messages: Array<{ role: string; content: unknown }>): ExchangeMessage[] {
  const result: ExchangeMessage[] = [];
  for (const message of messages) {
    const blocks = blocksOf(message.content);
    if (message.role === 'assistant') {
      result.push({
        role: 'assistant',
        text: textOf(blocks),
        images: 0,
        toolCalls: blocks.filter((block) => block.type === 'tool_use').map((block) => ({ id: String(block['id']), name: String(block['name']), arguments: JSON.stringify(block['input']) })),
        reasoning: blocks.filter((block) => block.type === 'thinking').map((block) => ({ text: String(block['thinking']), signature: String(block['signature']) })),
      });
      continue;
    }
    const results = blocks.filter((block) => block.type === 'tool_result');
    if (results.length > 0) {
      const inner = results.flatMap((block) => blocksOf(block['content']));
      result.push({ role: 'tool', text: textOf(inner), images: inner.filter((block) => block.type === 'image').length, toolCalls: [], reasoning: [] });
    }
    const rest = blocks.filter((block) => block.type !== 'tool_result');
    if (rest.length > 0) result.push({ role: 'user', text: textOf(rest), images: rest.filter((block) => block.type === 'image').length, toolCalls: [], reasoning: [] });
  }
  return result;
}

function parsedArguments(value: string | Record<string, unknown>): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return {};
  }
}

/** Start a server on a free loopback port; `brain` answers each request. */
export async function startAnthropicServer(brain: Brain): Promise<AnthropicServer> {
  const requests: ExchangeRequest[] = [];
  const server: Server = createServer((incoming, response) => {
    answerOr500(response, async () => {
      const text = await readBody(incoming);
      if (!(incoming.url ?? '').endsWith('/messages')) {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'not found' } }));
        return;
      }
      const body = JSON.parse(text) as Record<string, unknown>;
      if (body['stream'] === true) {
        response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'this server does not stream' } }));
        return;
      }
      const format = (body['output_config'] as { format?: unknown } | undefined)?.format ?? body['output_format'];
      const request: ExchangeRequest = {
        index: requests.length,
        protocol: 'messages',
        system: textOf(blocksOf(body['system'])),
        messages: normalize((body['messages'] as Array<{ role: string; content: unknown }> | undefined) ?? []),
        tools: ((body['tools'] as Array<{ name?: string }> | undefined) ?? []).map((tool) => tool.name ?? ''),
        responseFormat: format === undefined ? 'none' : 'schema',
        toolChoice: body['tool_choice'],
        body,
      };
      requests.push(request);
      const reply = await brain(request);
      const index = request.index;
      const content: Block[] = [];
      if (reply.reasoning !== undefined) content.push({ type: 'thinking', thinking: reply.reasoning, signature: `signature-${index}` });
      if (reply.text !== undefined && reply.text !== '') content.push({ type: 'text', text: reply.text });
      (reply.calls ?? []).forEach((call, position) => {
        content.push({ type: 'tool_use', id: `toolu_${index}_${position}`, name: call.name, input: parsedArguments(call.arguments) });
      });
      const usage = reply.usage ?? { input: 100, output: 10 };
      const payload = {
        type: 'message',
        id: `msg_${index}`,
        role: 'assistant',
        model: String(body['model'] ?? 'scripted'),
        content,
        stop_reason: (reply.calls ?? []).length > 0 ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    });
  });
  return listenOnLoopback(server, requests);
}

/**
 * One shape for a model request and its answer across the loopback model servers (OpenAI
 * chat completions, OpenAI Responses, Anthropic Messages), so one scripted model can answer
 * on every wire format, and a test can ask where the pictures and the reasoning went.
 */
import type { ChatRequest, Responder, ScriptedReply } from './openai-server.js';

/** One message of a request, whatever the wire format. */
export interface ExchangeMessage {
  role: 'user' | 'assistant' | 'tool';
  /** Every text the message carries, joined by newlines. */
  text: string;
  /** Image parts the message carries as images. */
  images: number;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  /** Reasoning blocks sent back to the model (Anthropic `thinking`, with its signature). */
  reasoning: Array<{ text: string; signature: string }>;
}

/** A request, normalized. */
export interface ExchangeRequest {
  index: number;
  protocol: 'chat' | 'responses' | 'messages';
  system: string;
  messages: ExchangeMessage[];
  tools: string[];
  /** How the request asked for JSON: with a schema, plain JSON mode, or not at all. */
  responseFormat: 'schema' | 'json' | 'none';
  toolChoice: unknown;
  body: Record<string, unknown>;
}

/** What the scripted model answers. */
export interface ExchangeReply {
  text?: string;
  /** Tool calls; a string `arguments` is sent exactly as given (broken JSON included). */
  calls?: Array<{ name: string; arguments: string | Record<string, unknown> }>;
  /** Reasoning to answer with (Anthropic only: a `thinking` block with a signature). */
  reasoning?: string;
  usage?: { input: number; output: number };
}

/** A scripted model. */
export type Brain = (request: ExchangeRequest) => ExchangeReply | Promise<ExchangeReply>;

/** All texts of a request's messages (not the system prompt), joined. */
export function exchangeText(request: ExchangeRequest): string {
  return request.messages.map((message) => message.text).join('\n');
}

/** True when some text of the request looks like an image sent as base64 text. */
export function carriesBase64Text(request: ExchangeRequest): boolean {
  return request.messages.some((message) => /iVBORw0KGgo|[A-Za-z0-9+/]{2000,}/.test(message.text));
}

/** The arguments of a call as a JSON string. */
export function argumentsText(call: { arguments: string | Record<string, unknown> }): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

function chatMessage(message: ChatRequest['messages'][number]): ExchangeMessage {
  const parts = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content ?? []);
  return {
    role: message.role === 'assistant' ? 'assistant' : message.role === 'tool' ? 'tool' : 'user',
    text: parts.map((part) => part.text ?? '').filter((text) => text !== '').join('\n'),
    images: parts.filter((part) => part.type === 'image_url').length,
    toolCalls: (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
    reasoning: [],
  };
}

/** A chat completions request, normalized. */
export function fromChatRequest(request: ChatRequest): ExchangeRequest {
  const format = (request.body['response_format'] as { type?: string } | undefined)?.type;
  return {
    index: request.index,
    protocol: 'chat',
    system: request.messages
      .filter((message) => message.role === 'system')
      .map((message) => chatMessage(message).text)
      .join('\n'),
    messages: request.messages.filter((message) => message.role !== 'system').map(chatMessage),
    tools: request.tools,
    responseFormat: format === 'json_schema' ? 'schema' : format === 'json_object' ? 'json' : 'none',
    toolChoice: request.toolChoice,
    body: request.body,
  };
}

/** A chat completions responder answering with `brain`. */
export function chatResponder(brain: Brain, seen: ExchangeRequest[] = []): Responder {
  return async (request): Promise<ScriptedReply> => {
    const exchange = fromChatRequest(request);
    seen.push(exchange);
    const reply = await brain(exchange);
    const usage = reply.usage ?? { input: 100, output: 10 };
    if (reply.calls === undefined || reply.calls.length === 0) return { kind: 'text', text: reply.text ?? '', usage };
    const calls = reply.calls.map((call) => ({ name: call.name, input: null, raw: argumentsText(call) }));
    return { kind: 'tool-calls', calls, usage, ...(reply.text === undefined ? {} : { text: reply.text }) };
  };
}

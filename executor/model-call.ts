/**
 * One model turn: a single request to the model (no automatic tool execution, no SDK
 * retries), optionally streamed, under the provider policy of `provider-errors.ts`.
 */
import {
  asSchema,
  generateText,
  InvalidPromptError,
  jsonSchema,
  modelMessageSchema,
  streamText,
  ToolChoiceViolationError,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  type ToolChoice,
  type ToolSet,
} from 'ai';
import type { JSONSchema7 } from '@ai-sdk/provider';
import { safeValidateTypes, type ProviderOptions } from '@ai-sdk/provider-utils';
import { withProviderPolicy, type ProviderCallContext, type ProviderPolicy } from './provider-errors.js';
import { withoutSdkPrinting, type SdkWarning } from './sdk-warnings.js';

/** A tool call the model asked for in a turn. */
export interface RequestedToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Set when the SDK could not parse the input or does not know the tool. */
  invalid?: { message: string };
}

/** What one turn asks of the model. */
export interface TurnRequest {
  model: LanguageModel;
  system: string;
  messages: ModelMessage[];
  tools?: ToolSet;
  toolChoice?: ToolChoice<ToolSet>;
  providerOptions?: ProviderOptions;
  /** Stream the answer; the request timeout then restarts on every chunk. */
  streaming?: boolean;
}

/** What the model answered in one turn. */
export interface TurnResponse {
  /** The assistant message(s) to append to the history (tool calls, text, reasoning). */
  assistantMessages: ModelMessage[];
  /** Tool calls to run, in the order the model gave them. */
  toolCalls: RequestedToolCall[];
  /** Any text the model wrote. */
  text: string;
  usage: LanguageModelUsage | undefined;
  /** The provider's warnings about this request (unsupported settings and the like). */
  warnings: readonly SdkWarning[];
}

/**
 * The input schema as sent, without `$schema` and a top-level `additionalProperties: false`:
 * every request repeats every tool's schema, and neither helps a model call the tool.
 * Validation stays the original's, so extra keys are still refused.
 */
function leanSchema(inputSchema: ToolSet[string]['inputSchema']): ToolSet[string]['inputSchema'] {
  const schema = asSchema(inputSchema);
  return jsonSchema(
    () => {
      const { $schema: _draft, additionalProperties, ...rest } = schema.jsonSchema as JSONSchema7;
      void _draft;
      return additionalProperties === false ? rest : { ...rest, ...(additionalProperties === undefined ? {} : { additionalProperties }) };
    },
    schema.validate === undefined ? {} : { validate: schema.validate.bind(schema) },
  ) as ToolSet[string]['inputSchema'];
}

/** Remove `execute` so the SDK only reports tool calls and the loop runs them itself; send lean schemas. */
export function withoutExecute(tools: ToolSet): ToolSet {
  const result: ToolSet = {};
  for (const [name, definition] of Object.entries(tools)) {
    if (definition.type === 'provider') {
      result[name] = definition;
      continue;
    }
    const { execute: _execute, ...rest } = definition as typeof definition & { execute?: unknown };
    void _execute;
    result[name] = { ...rest, inputSchema: leanSchema(rest.inputSchema) } as ToolSet[string];
  }
  return result;
}

/**
 * Make the JSON schemas of `tools` (as {@link withoutExecute} leaves them) now rather than in the
 * step's first request, which makes each once: a step's first look at the screen waits for the app
 * to mount, and this is done in that wait.
 */
export function prepareToolSchemas(tools: ToolSet): void {
  for (const definition of Object.values(tools)) {
    if (definition.type === 'provider') continue;
    try {
      void asSchema(definition.inputSchema).jsonSchema;
    } catch {
      // A schema that cannot be made fails in the request, where such failures are reported.
    }
  }
}

interface RawStep {
  content: ReadonlyArray<{ type: string }>;
  responseMessages: readonly ModelMessage[];
  text: string;
  usage: LanguageModelUsage | undefined;
  warnings: readonly SdkWarning[] | undefined;
}

function toResponse(step: RawStep): TurnResponse {
  const toolCalls: RequestedToolCall[] = [];
  for (const item of step.content) {
    const part = item as { type: string } & Record<string, unknown>;
    if (part.type !== 'tool-call' || part['providerExecuted'] === true) continue;
    const call: RequestedToolCall = {
      toolCallId: String(part['toolCallId']),
      toolName: String(part['toolName']),
      input: part['input'],
    };
    if (part['invalid'] === true) {
      const error = part['error'];
      call.invalid = { message: error instanceof Error ? error.message : String(error ?? 'invalid input') };
    }
    toolCalls.push(call);
  }
  return {
    assistantMessages: step.responseMessages.filter((message) => message.role === 'assistant'),
    toolCalls,
    text: step.text,
    usage: step.usage,
    warnings: step.warnings ?? [],
  };
}

/**
 * Ask the model for one turn. Throws `E2EError`s only (see `withProviderPolicy`); a
 * `CONTEXT_OVERFLOW` is left for the caller to shrink the history and ask again.
 */
export async function requestTurn(context: ProviderCallContext, policy: ProviderPolicy | undefined, request: TurnRequest): Promise<TurnResponse> {
  return withProviderPolicy(context, policy, async ({ signal, onActivity }) => {
    const settings: TurnSettings = {
      model: request.model,
      system: request.system,
      messages: request.messages,
      maxRetries: 0,
      abortSignal: signal,
      ...(request.tools === undefined ? {} : { tools: request.tools }),
      ...(request.toolChoice === undefined ? {} : { toolChoice: request.toolChoice }),
      ...(request.providerOptions === undefined ? {} : { providerOptions: request.providerOptions }),
    };
    try {
      return await withoutSdkPrinting(() => attemptTurn(settings, request.streaming === true, onActivity));
    } catch (error) {
      // A forced verdict the model did not give is an answer without tool calls, not a provider fault.
      if (!ToolChoiceViolationError.isInstance(error)) throw error;
      const text = (error.content ?? [])
        .map((part) => (part.type === 'text' ? part.text : ''))
        .join('')
        .trim();
      const assistantMessages: ModelMessage[] = text === '' ? [] : [{ role: 'assistant', content: text }];
      return { assistantMessages, toolCalls: [], text, usage: undefined, warnings: [] };
    }
  });
}

/** The settings of one request, shared by the plain and the streamed call. */
interface TurnSettings {
  model: LanguageModel;
  system: string;
  messages: ModelMessage[];
  maxRetries: number;
  abortSignal: AbortSignal;
  tools?: ToolSet;
  toolChoice?: ToolChoice<ToolSet>;
  providerOptions?: ProviderOptions;
  prepareStep?: () => { messages: ModelMessage[] };
}

/** History messages already checked against the SDK's message schema (a history only grows between turns). */
const checkedMessages = new WeakSet<ModelMessage>();

/**
 * The settings with the history checked once per message rather than once per turn. The SDK
 * checks every message of a request against its schema, about 45 µs each, so a step of n turns
 * spends O(n²) on it before each call. Here each message not seen before is checked with the
 * SDK's own schema (the SDK's error when one fails), the request opens with the first message
 * only, and the whole history goes in as the request's one step (`prepareStep`, which the SDK
 * does not check again). A history with a system message or a tool approval answer, which the
 * SDK treats specially when it opens a request, is passed as it is.
 */
async function checkedOnce(settings: TurnSettings): Promise<TurnSettings> {
  const { messages } = settings;
  const last = messages.at(-1);
  const special =
    messages.some((message) => message.role === 'system') ||
    (last?.role === 'tool' && last.content.some((part) => part.type === 'tool-approval-response'));
  if (messages.length < 2 || special) return settings;
  for (const message of messages) {
    if (checkedMessages.has(message)) continue;
    const checked = await safeValidateTypes({ value: message, schema: modelMessageSchema });
    if (!checked.success) throw new InvalidPromptError({ prompt: messages, message: 'The messages do not match the ModelMessage[] schema.', cause: checked.error });
    checkedMessages.add(message);
  }
  return { ...settings, messages: messages.slice(0, 1), prepareStep: () => ({ messages }) };
}

async function attemptTurn(unchecked: TurnSettings, streaming: boolean, onActivity: () => void): Promise<TurnResponse> {
  const settings = await checkedOnce(unchecked);
  if (!streaming) {
    const result = await generateText(settings);
    return toResponse({ content: result.content, responseMessages: result.response.messages, text: result.text, usage: result.usage, warnings: result.warnings });
  }
  let streamError: unknown;
  const result = streamText({
    ...settings,
    onChunk: () => onActivity(),
    onError: ({ error }) => {
      streamError ??= error;
    },
  });
  await result.consumeStream({ onError: (error) => (streamError ??= error) });
  if (streamError !== undefined) throw streamError;
  const [content, response, text, usage, warnings] = await Promise.all([result.content, result.response, result.text, result.usage, result.warnings]);
  return toResponse({ content, responseMessages: response.messages, text, usage, warnings });
}

/**
 * What a provider's model can take, read off the model object itself (its `provider` string
 * and the flags providers expose), so a request never asks for a feature the provider would
 * drop with a warning or turn into text. The agent README's providers table documents the
 * same rules.
 */
import type { LanguageModel } from 'ai';

interface ModelFacts {
  provider?: unknown;
  supportsStructuredOutputs?: unknown;
}

/** The model's provider string (`openai.responses`, `anthropic.messages`, `ollama.chat`…), or '' for a model id. */
export function providerOf(model: LanguageModel): string {
  if (typeof model === 'string') return '';
  const provider = (model as ModelFacts).provider;
  return typeof provider === 'string' ? provider : '';
}

/**
 * Whether the model follows a JSON schema for its answer. OpenAI-compatible models say so
 * with `supportsStructuredOutputs` (off by default: the SDK would then send `json_object`
 * without the schema and warn); every other provider either has structured output or
 * emulates it with a tool.
 */
export function followsSchemas(model: LanguageModel): boolean {
  if (typeof model === 'string') return true;
  const flag = (model as ModelFacts).supportsStructuredOutputs;
  return typeof flag === 'boolean' ? flag : true;
}

/**
 * Whether an image may travel inside a tool result. The Anthropic Messages API and the
 * OpenAI Responses API take images there; chat-completions APIs (OpenAI chat and every
 * OpenAI-compatible server) and unknown providers get the picture as an image part of the
 * next user message instead, since their tool messages are text only (the SDK would send the
 * image as base64 text).
 */
export function takesImagesInToolResults(model: LanguageModel): boolean {
  const provider = providerOf(model);
  return provider.startsWith('anthropic.') || provider.includes('.anthropic.') || provider.endsWith('.responses');
}

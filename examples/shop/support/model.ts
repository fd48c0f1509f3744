/**
 * Which model records the example, chosen by environment variable. Replay (`npm run example`)
 * needs none of them: a fully cached suite makes no model call and needs no key.
 *
 * - `OPENAI_API_KEY`: OpenAI (`E2E_MODEL` picks the model, default `gpt-5-mini`).
 * - `ANTHROPIC_API_KEY`: Anthropic (`E2E_MODEL`, default `claude-sonnet-4-5`).
 * - `E2E_OPENAI_COMPATIBLE_URL`: any OpenAI-compatible server, e.g. a local one
 *   (`E2E_MODEL` names the model; `E2E_OPENAI_COMPATIBLE_KEY` if it wants a key).
 * - `E2E_EXAMPLE_STAND_IN=1`: the stand-in model of `stand-in-model.ts`, which knows only this
 *   example's steps. The committed cache was recorded with it, since this repository's CI has
 *   no model key.
 */
import { anthropic } from '@ai-sdk/anthropic';
import { openai } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { standInModel } from './stand-in-model.js';
import type { StandInScript } from './stand-in-model.js';
import { standInScript } from './stand-in-script.js';

type Environment = Record<string, string | undefined>;

/** The model the environment asks for, or undefined (replay needs none); the stand-in plays `script`. */
export function exampleModel(environment: Environment = process.env, script: StandInScript = standInScript) {
  const chosen = environment['E2E_MODEL'];
  if (environment['E2E_EXAMPLE_STAND_IN'] === '1') return standInModel(script);
  if (environment['OPENAI_API_KEY']) return openai(chosen ?? 'gpt-5-mini');
  if (environment['ANTHROPIC_API_KEY']) return anthropic(chosen ?? 'claude-sonnet-4-5');
  const compatible = environment['E2E_OPENAI_COMPATIBLE_URL'];
  if (compatible) {
    const key = environment['E2E_OPENAI_COMPATIBLE_KEY'];
    const provider = createOpenAICompatible({ name: 'local', baseURL: compatible, ...(key === undefined ? {} : { apiKey: key }) });
    return provider.chatModel(chosen ?? 'local-model');
  }
  return undefined;
}

/**
 * Scripted models for agent tests: `MockLanguageModelV3` whose turns are functions of the
 * prompt they receive, so a script reads node ids off the screen it was shown instead of
 * hard-coding them.
 */
import { APICallError, type LanguageModelV3CallOptions, type LanguageModelV3GenerateResult, type LanguageModelV3Prompt } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';

/** Everything a prompt carries as text: system, user text, tool results (text and JSON), assistant tool calls. */
export function promptText(prompt: LanguageModelV3Prompt): string {
  const lines: string[] = [];
  for (const message of prompt) {
    if (message.role === 'system') {
      lines.push(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text') lines.push(part.text);
      else if (part.type === 'tool-call') lines.push(`call ${part.toolName} ${JSON.stringify(part.input)}`);
      else if (part.type === 'tool-result') {
        const output = part.output;
        if (output.type === 'text' || output.type === 'error-text') lines.push(output.value);
        else if (output.type === 'content') lines.push(output.value.map((item) => (item.type === 'text' ? item.text : `[${item.type}]`)).join('\n'));
        else lines.push(JSON.stringify(output));
      }
    }
  }
  return lines.join('\n');
}

/** The text of the latest user or tool message only (what the model just learned). */
export function latestText(prompt: LanguageModelV3Prompt): string {
  const last = prompt[prompt.length - 1];
  return last === undefined ? '' : promptText([last]);
}

/**
 * The id of the last line `#id role "name"` (or `#id role "…" text="name"`) in `text`, or
 * throws: a script must find what it needs on the screen it was shown.
 */
export function findId(text: string, role: string, name: string): string {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`#(\\S+) ${role} (?:"${escaped}"|"[^"]*" text="${escaped}")`, 'g');
  const last = [...text.matchAll(pattern)].pop();
  if (last === undefined) throw new Error(`The script found no ${role} "${name}" in the prompt.`);
  return last[1]!;
}

const usage = (input: number, output: number): LanguageModelV3GenerateResult['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

let callCounter = 0;

/** A turn that calls tools. */
export function callTools(...calls: Array<[name: string, input: unknown]>): LanguageModelV3GenerateResult {
  return {
    content: calls.map(([toolName, input]) => ({ type: 'tool-call', toolCallId: `call-${++callCounter}`, toolName, input: JSON.stringify(input) })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: usage(120, 12),
    warnings: [],
  };
}

/** A turn that answers with text only. */
export function replyText(text: string): LanguageModelV3GenerateResult {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(100, 8), warnings: [] };
}

/** A structured answer (JSON text), as a judgment or decision call returns it. */
export function replyJson(value: unknown): LanguageModelV3GenerateResult {
  return replyText(JSON.stringify(value));
}

/** What a script turn receives. */
export interface TurnInput {
  /** All prompt text. */
  text: string;
  /** Text of the last message only. */
  latest: string;
  options: LanguageModelV3CallOptions;
  /** 0-based call number. */
  call: number;
}

/** A script turn. */
export type ScriptTurn = (input: TurnInput) => LanguageModelV3GenerateResult;

const scriptErrors: unknown[] = [];

/**
 * Rethrow the first error a script raised (a failed `expect` inside a turn reaches the agent
 * as a provider failure; this surfaces it as the test's own failure). Call it in `afterEach`.
 */
export function throwScriptErrors(): void {
  const first = scriptErrors[0];
  scriptErrors.length = 0;
  if (first !== undefined) throw first;
}

function play(turn: ScriptTurn, input: TurnInput): Promise<LanguageModelV3GenerateResult> {
  try {
    return Promise.resolve(turn(input));
  } catch (error) {
    // Provider errors are what a script throws on purpose; anything else is a broken script.
    if (!APICallError.isInstance(error)) scriptErrors.push(error);
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/** A model that plays `turns` in order and fails the test if called once more than scripted. */
export function scriptedModel(turns: ScriptTurn[]): MockLanguageModelV3 & { prompts: string[] } {
  const prompts: string[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: (options) => {
      const call = prompts.length;
      const text = promptText(options.prompt);
      prompts.push(text);
      const turn = turns[call];
      const script: ScriptTurn =
        turn ??
        (() => {
          throw new Error(`The scripted model was called ${call + 1} times but has ${turns.length} turns.`);
        });
      return play(script, { text, latest: latestText(options.prompt), options, call });
    },
  });
  return Object.assign(model, { prompts });
}

/** A model that answers every call with the same turn (for budget and guard tests). */
export function repeatingModel(turn: ScriptTurn): MockLanguageModelV3 & { prompts: string[] } {
  const prompts: string[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: (options) => {
      const text = promptText(options.prompt);
      prompts.push(text);
      return play(turn, { text, latest: latestText(options.prompt), options, call: prompts.length - 1 });
    },
  });
  return Object.assign(model, { prompts });
}

/**
 * A stand-in language model for recording the example's cache on a machine with no model
 * key. It is an AI SDK `LanguageModelV3` (a plain object of the provider interface, so a replay,
 * which never calls it, loads nothing of the SDK for it) that plays the part of a real model for
 * the example's instructions only: it reads the screen it is sent, finds the
 * controls by role and name, and answers with the same tool calls and JSON judgments a real
 * model would. The built-in agent, the runner and the cache treat it like any provider.
 *
 * Use a real provider (see `model.ts`) for anything beyond this example.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3Prompt } from '@ai-sdk/provider';

/** One move of a plan: a tool call whose target is found on the screen by role and name. */
export type Move =
  | { tool: 'tap'; role: string; name: string; within?: string }
  | { tool: 'type'; role: string; name: string; text: string }
  | { tool: 'type_secret'; role: string; name: string; secret: string }
  | { tool: 'select'; role: string; name: string; value: string }
  | { tool: 'check'; role: string; name: string }
  | { tool: 'press'; key: string };

/** A judgment answer: the lines (by role and name) that prove it. */
export interface Judgment {
  evidence: Array<{ role: string; name: string; within?: string }>;
  /** For extract: the value read. */
  value?: unknown;
}

/** What the stand-in knows: act plans and judgments, each keyed by a phrase of the instruction. */
export interface StandInScript {
  acts: Record<string, Move[]>;
  judgments: Record<string, Judgment>;
}

function textOf(prompt: LanguageModelV3Prompt): string {
  const lines: string[] = [];
  for (const message of prompt) {
    if (message.role === 'system') {
      lines.push(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text') lines.push(part.text);
      else if (part.type === 'tool-result') {
        const output = part.output;
        if (output.type === 'text' || output.type === 'error-text') lines.push(output.value);
        else if (output.type === 'content') lines.push(output.value.map((item) => (item.type === 'text' ? item.text : '')).join('\n'));
        else if (output.type === 'json' || output.type === 'error-json') lines.push(JSON.stringify(output.value));
      }
    }
  }
  return lines.join('\n');
}

function toolCallsSoFar(prompt: LanguageModelV3Prompt): number {
  let count = 0;
  for (const message of prompt) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) if (part.type === 'tool-call') count++;
  }
  return count;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The id of the newest line `#id role "name"` on the screens in `text`, optionally inside the line of a named container. */
function findId(text: string, role: string, name: string, within?: string): string {
  const lines = text.split('\n');
  const pattern = new RegExp(`#(\\S+) ${escapeRegExp(role)} (?:"${escapeRegExp(name)}"|"[^"]*" text="${escapeRegExp(name)}")`);
  if (within === undefined) {
    for (let index = lines.length - 1; index >= 0; index--) {
      const match = pattern.exec(lines[index]!);
      if (match !== null) return match[1]!;
    }
  } else {
    const container = new RegExp(`^( *)#\\S+ \\S+ "${escapeRegExp(within)}"`);
    for (let index = lines.length - 1; index >= 0; index--) {
      const head = container.exec(lines[index]!);
      if (head === null) continue;
      const depth = head[1]!.length;
      for (let inner = index + 1; inner < lines.length; inner++) {
        const line = lines[inner]!;
        if ((/^( *)/.exec(line)?.[1]?.length ?? 0) <= depth) break;
        const match = pattern.exec(line);
        if (match !== null) return match[1]!;
      }
    }
  }
  throw new Error(`The stand-in model found no ${role} "${name}"${within === undefined ? '' : ` in "${within}"`} on the screen.`);
}

function result(content: LanguageModelV3GenerateResult['content'], finish: 'tool-calls' | 'stop'): LanguageModelV3GenerateResult {
  return {
    content,
    finishReason: { unified: finish, raw: finish === 'stop' ? 'stop' : 'tool_calls' },
    usage: { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } },
    warnings: [],
  };
}

let callCounter = 0;

function toolCall(toolName: string, input: unknown): LanguageModelV3GenerateResult {
  return result([{ type: 'tool-call', toolCallId: `stand-in-${++callCounter}`, toolName, input: JSON.stringify(input) }], 'tool-calls');
}

function moveInput(move: Move, text: string): Record<string, unknown> {
  if (move.tool === 'press') return { key: move.key };
  const target = findId(text, move.role, move.name, move.tool === 'tap' ? move.within : undefined);
  switch (move.tool) {
    case 'tap':
      return { target };
    case 'type':
      return { target, text: fillFromInstruction(move.text, text) };
    case 'type_secret':
      return { target, secret: move.secret };
    case 'select':
      return { target, value: move.value };
    case 'check':
      return { target, checked: true };
  }
}

/** `{email}` in a planned text stands for the email address the instruction carries (a `unique()` value). */
function fillFromInstruction(planned: string, text: string): string {
  if (planned !== '{email}') return planned;
  const email = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/.exec(text);
  if (email === null) throw new Error('The stand-in model found no email address in the step.');
  return email[0];
}

function answer(options: LanguageModelV3CallOptions, script: StandInScript): LanguageModelV3GenerateResult {
  const text = textOf(options.prompt);
  const judgment = Object.entries(script.judgments).find(([phrase]) => text.includes(phrase));
  if (options.tools === undefined || options.tools.length === 0 || judgment !== undefined) {
    if (judgment === undefined) throw new Error('The stand-in model has no judgment for this question.');
    const evidence = judgment[1].evidence.map((line) => findId(text, line.role, line.name, line.within));
    const body =
      judgment[1].value === undefined
        ? { verdict: 'holds', reason: 'The screen shows it.', evidence }
        : { found: true, value: judgment[1].value, reason: 'Read off the screen.', evidence };
    return result([{ type: 'text', text: JSON.stringify(body) }], 'stop');
  }
  // The step being asked is on its own line (`Step 3 (act): …`); earlier steps show in the ledger.
  const task = /^Step \d+ \(act\): (.*)$/m.exec(text)?.[1] ?? '';
  const plan = Object.entries(script.acts).find(([phrase]) => task.includes(phrase));
  if (plan === undefined) throw new Error('The stand-in model has no plan for this step.');
  const done = toolCallsSoFar(options.prompt);
  const move = plan[1][done];
  if (move === undefined) return toolCall('complete_step', { status: 'passed', summary: `Done: ${plan[0]}.` });
  return toolCall(move.tool, moveInput(move, text));
}

/** A stand-in model for `script`. Counts its calls in `calls`. */
export function standInModel(script: StandInScript): LanguageModelV3 & { readonly calls: number } {
  let calls = 0;
  return {
    specificationVersion: 'v3',
    provider: 'stand-in',
    modelId: 'example-stand-in',
    supportedUrls: {},
    doGenerate: (options) => {
      calls++;
      return Promise.resolve(answer(options, script));
    },
    doStream: () => Promise.reject(new Error('The stand-in model does not stream; the example records with plain calls.')),
    get calls() {
      return calls;
    },
  };
}

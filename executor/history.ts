/**
 * The tool loop's message history between turns: condensing old turns, noticing when a turn's
 * messages rewrite what was sent before, and dropping reasoning from a rewritten point on
 * (providers that bind reasoning to the exact request prefix reject edited prefixes).
 */
import type { AssistantModelMessage, ModelMessage } from 'ai';
import { messageTexts } from './screen-elision.js';
import { clipLine } from '../contract/text.js';

/** A turn: one assistant message and the tool results and notices that follow it. */
interface TurnGroup {
  messages: ModelMessage[];
}

function splitTurns(messages: readonly ModelMessage[]): { opening: ModelMessage[]; turns: TurnGroup[] } {
  const opening: ModelMessage[] = [];
  const turns: TurnGroup[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') turns.push({ messages: [message] });
    else if (turns.length === 0) opening.push(message);
    else turns[turns.length - 1]!.messages.push(message);
  }
  return { opening, turns };
}

function oneLine(text: string, limit: number): string {
  return clipLine(text, limit + 1);
}

/** A condensed line per tool call of the given turns: `tap {"target":"n5"} → first line of its result`. */
function condense(turns: readonly TurnGroup[]): string[] {
  const lines: string[] = [];
  for (const turn of turns) {
    const results = new Map<string, string>();
    for (const message of turn.messages) {
      if (message.role !== 'tool') continue;
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const text = messageTexts({ role: 'tool', content: [part] }).join(' ');
        results.set(part.toolCallId, text.split('\n')[0] ?? '');
      }
    }
    const assistant = turn.messages[0] as AssistantModelMessage;
    const parts = typeof assistant.content === 'string' ? [] : assistant.content;
    let calls = 0;
    for (const part of parts) {
      if (part.type !== 'tool-call') continue;
      calls++;
      const outcome = results.get(part.toolCallId) ?? 'no result';
      lines.push(`${part.toolName} ${oneLine(JSON.stringify(part.input ?? {}), 120)} → ${oneLine(outcome, 160)}`);
    }
    if (calls === 0) {
      const text = typeof assistant.content === 'string' ? assistant.content : parts.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
      lines.push(`(replied without a tool call: ${oneLine(text, 120)})`);
    }
  }
  return lines;
}

/** How {@link compactHistory} condenses. */
export interface CompactionOptions {
  /** Recent turns kept word for word. */
  keepTurns: number;
  /**
   * Condense in steps of `keepTurns` once more than twice that many turns exist, so the
   * condensed prefix stays the same for several turns. Default true; false condenses to
   * exactly `keepTurns` (used when a provider reports the prompt is too long).
   */
  chunked?: boolean;
}

/**
 * The history with older turns replaced by one condensed note after the opening messages.
 * Tool calls and their results leave together, so the history stays well formed.
 */
export function compactHistory(messages: readonly ModelMessage[], options: CompactionOptions): ModelMessage[] {
  const keep = Math.max(1, Math.floor(options.keepTurns));
  const { opening, turns } = splitTurns(messages);
  let cut: number;
  if (options.chunked === false) cut = Math.max(0, turns.length - keep);
  else cut = turns.length > 2 * keep ? keep * Math.floor((turns.length - keep) / keep) : 0;
  if (cut <= 0) return [...messages];
  const note = ['Earlier turns of this step, condensed (call → first line of its result):', ...condense(turns.slice(0, cut))];
  const condensed: ModelMessage = { role: 'user', content: note.join('\n') };
  return [...opening, condensed, ...turns.slice(cut).flatMap((turn) => turn.messages)];
}

function hasReasoning(message: ModelMessage): boolean {
  return message.role === 'assistant' && typeof message.content !== 'string' && message.content.some((part) => part.type === 'reasoning');
}

function withoutReasoning(message: AssistantModelMessage): AssistantModelMessage {
  if (typeof message.content === 'string') return message;
  return { ...message, content: message.content.filter((part) => part.type !== 'reasoning') };
}

function reasoningFreeKey(message: AssistantModelMessage): string {
  return JSON.stringify(withoutReasoning(message).content);
}

function sameMessage(left: ModelMessage, right: ModelMessage): boolean {
  return left === right || JSON.stringify(left) === JSON.stringify(right);
}

/**
 * Tracks what the loop sent and drops reasoning parts from the first rewritten message on.
 * Each turn, {@link ReasoningGate.outgoing} gets the messages about to be sent and the
 * messages appended to the history since the previous send; when the new list differs from
 * "previous send + appended" before its end, every assistant message from that point on loses
 * its reasoning for the rest of the step. Messages added later keep theirs.
 */
export class ReasoningGate {
  private readonly dropped = new Set<string>();
  private previous: ModelMessage[] = [];

  /** The index of the first rewritten message in the last call, if any (for tests and transcripts). */
  lastRewriteIndex: number | undefined;

  /** The messages to send this turn, with reasoning removed where a rewrite requires it. */
  outgoing(prepared: readonly ModelMessage[], appended: readonly ModelMessage[]): ModelMessage[] {
    const expected = [...this.previous, ...appended];
    let rewrite: number | undefined;
    const common = Math.min(prepared.length, expected.length);
    for (let index = 0; index < common; index++) {
      if (!sameMessage(prepared[index]!, expected[index]!)) {
        rewrite = index;
        break;
      }
    }
    if (rewrite === undefined && prepared.length < expected.length) rewrite = prepared.length;
    this.lastRewriteIndex = rewrite;
    if (rewrite !== undefined) {
      for (const message of prepared.slice(rewrite)) {
        if (message.role === 'assistant' && hasReasoning(message)) this.dropped.add(reasoningFreeKey(message));
      }
    }
    this.previous = [...prepared];
    if (this.dropped.size === 0) return [...prepared];
    return prepared.map((message) =>
      message.role === 'assistant' && hasReasoning(message) && this.dropped.has(reasoningFreeKey(message)) ? withoutReasoning(message) : message,
    );
  }
}

/** Rough size of a history in characters of text, for size-based condensing. */
export function historyChars(messages: readonly ModelMessage[]): number {
  let total = 0;
  for (const message of messages) {
    if (message.role === 'assistant') total += typeof message.content === 'string' ? message.content.length : JSON.stringify(message.content).length;
    else for (const text of messageTexts(message)) total += text.length;
  }
  return total;
}

/**
 * What a step leaves behind about its model turns: a readable transcript (attached under
 * `--debug`) and clipped turn records (shown under a failed step).
 */
import type { ModelMessage } from 'ai';
import type { TurnRecord } from '../contract/step-contract.js';
import { messageTexts } from './screen-elision.js';
import { clipLine as clipOneLine } from '../contract/text.js';

/** Turn records kept on a step (the last ones). */
export const KEPT_TURN_RECORDS = 12;
const RECORD_TEXT_LIMIT = 240;

/** Clip a text to one short line for a turn record. */
export function clipLine(text: string, limit = RECORD_TEXT_LIMIT): string {
  return clipOneLine(text, limit + 1);
}

/** Collects turn records and keeps only the last {@link KEPT_TURN_RECORDS}. */
export class TurnLog {
  private readonly records: TurnRecord[] = [];

  /** Add one turn. */
  add(index: number, calls: string[], outcome: string): void {
    this.records.push({ index, calls: calls.map((call) => clipLine(call)), outcome: clipLine(outcome) });
    if (this.records.length > KEPT_TURN_RECORDS) this.records.shift();
  }

  /** The kept records, oldest first. */
  list(): TurnRecord[] {
    return [...this.records];
  }
}

function renderMessage(message: ModelMessage): string {
  switch (message.role) {
    case 'system':
      return `--- system ---\n${message.content}`;
    case 'user': {
      const images = typeof message.content === 'string' ? 0 : message.content.filter((part) => part.type !== 'text').length;
      return `--- user ---\n${messageTexts(message).join('\n')}${images > 0 ? `\n[${images} image(s)]` : ''}`;
    }
    case 'assistant': {
      if (typeof message.content === 'string') return `--- assistant ---\n${message.content}`;
      const lines = message.content.map((part) => {
        switch (part.type) {
          case 'text':
            return part.text;
          case 'reasoning':
            return `(reasoning, ${part.text.length} characters)`;
          case 'tool-call':
            return `→ ${part.toolName} ${JSON.stringify(part.input ?? {})}`;
          default:
            return `(${part.type})`;
        }
      });
      return `--- assistant ---\n${lines.join('\n')}`;
    }
    case 'tool': {
      const lines = message.content.map((part) => {
        if (part.type !== 'tool-result') return `(${part.type})`;
        const text = messageTexts({ role: 'tool', content: [part] }).join('\n');
        const flag = part.output.type === 'error-text' || part.output.type === 'error-json' ? ' (failed)' : '';
        return `← ${part.toolName}${flag}\n${text}`;
      });
      return `--- tool ---\n${lines.join('\n')}`;
    }
  }
}

/** A plain-text transcript of a step's conversation: system prompt, then every message as sent. */
export function renderTranscript(system: string, messages: readonly ModelMessage[], footer: readonly string[] = []): string {
  const sections = [`--- system ---\n${system}`, ...messages.map(renderMessage)];
  if (footer.length > 0) sections.push(`--- outcome ---\n${footer.join('\n')}`);
  return `${sections.join('\n\n')}\n`;
}

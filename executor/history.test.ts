import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { compactHistory, ReasoningGate } from './history.js';

function turn(index: number, reasoning = false): ModelMessage[] {
  return [
    {
      role: 'assistant',
      content: [
        ...(reasoning ? [{ type: 'reasoning' as const, text: `thinking ${index}` }] : []),
        { type: 'tool-call' as const, toolCallId: `c${index}`, toolName: 'tap', input: { target: `n${index}` } },
      ],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${index}`, toolName: 'tap', output: { type: 'text', value: `tap #n${index}: done.\nadded #m${index} status "Saved"` } }] },
  ];
}

const opening: ModelMessage = { role: 'user', content: 'Step 1 (act): save things' };

function hasReasoning(message: ModelMessage | undefined): boolean {
  return message?.role === 'assistant' && typeof message.content !== 'string' && message.content.some((part) => part.type === 'reasoning');
}

describe('history condensing', () => {
  it('leaves a short history alone', () => {
    const history = [opening, ...turn(1), ...turn(2)];
    expect(compactHistory(history, { keepTurns: 2 })).toEqual(history);
  });

  it('condenses old turns into one note in chunks, keeping calls and results paired', () => {
    const history = [opening, ...Array.from({ length: 6 }, (_, index) => turn(index + 1)).flat()];
    const compacted = compactHistory(history, { keepTurns: 2 });
    // 6 turns > 2 × 2: condense a multiple of 2 turns (2 × floor(4 / 2) = 4), keep 2 word for word.
    expect(compacted[0]).toBe(opening);
    expect(compacted[1]).toMatchObject({ role: 'user' });
    const note = compacted[1]!.content as string;
    expect(note).toContain('tap {"target":"n1"} → tap #n1: done.');
    expect(note).toContain('tap {"target":"n4"}');
    expect(note).not.toContain('n5');
    expect(compacted.slice(2)).toEqual(history.slice(9));
    // One more turn does not move the cut, so the condensed prefix is unchanged.
    const longer = compactHistory([...history, ...turn(7)], { keepTurns: 2 });
    expect(longer[1]).toEqual(compacted[1]);
    expect(longer).toHaveLength(compacted.length + 2);
  });

  it('condenses to exactly the kept turns when asked to shrink', () => {
    const history = [opening, ...turn(1), ...turn(2), ...turn(3)];
    const shrunk = compactHistory(history, { keepTurns: 1, chunked: false });
    expect(shrunk).toHaveLength(4);
    expect(shrunk.slice(2)).toEqual(turn(3));
  });
});

describe('reasoning after a rewritten message', () => {
  it('keeps reasoning while the history only grows', () => {
    const gate = new ReasoningGate();
    const history = [opening, ...turn(1, true)];
    gate.outgoing(history, history);
    const next = [...history, ...turn(2, true)];
    const sent = gate.outgoing(next, turn(2, true));
    expect(gate.lastRewriteIndex).toBeUndefined();
    expect(hasReasoning(sent[1])).toBe(true);
    expect(hasReasoning(sent[3])).toBe(true);
  });

  it('drops reasoning from the rewritten message on, for the rest of the step, and keeps it on later turns', () => {
    const gate = new ReasoningGate();
    const history = [opening, ...turn(1, true), ...turn(2, true)];
    gate.outgoing(history, history);
    // The caller rewrites the first tool result (index 2): reasoning of turns 1 and 2 is dropped from there on.
    const rewritten = [...history];
    rewritten[2] = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'tap', output: { type: 'text', value: 'shortened' } }] };
    const sent = gate.outgoing(rewritten, []);
    expect(gate.lastRewriteIndex).toBe(2);
    expect(hasReasoning(sent[1])).toBe(true);
    expect(hasReasoning(sent[3])).toBe(false);
    // Next turn: the history grows by turn 3; turn 2 stays without reasoning, turn 3 keeps its own.
    const grown = [...rewritten, ...turn(3, true)];
    const later = gate.outgoing(grown, turn(3, true));
    expect(gate.lastRewriteIndex).toBeUndefined();
    expect(hasReasoning(later[3])).toBe(false);
    expect(hasReasoning(later[5])).toBe(true);
  });
});

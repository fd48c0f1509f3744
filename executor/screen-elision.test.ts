import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { elideSupersededScreens, elisionMarker, findScreenBlocks, messageTexts } from './screen-elision.js';

const screen = (revision: number, label: string): string =>
  `Screen (revision ${revision}, path /, 2 nodes):\n#root document "Todos"\n #n${revision} button "${label}"`;

function toolResult(id: string, text: string): ModelMessage {
  return { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'tap', output: { type: 'text', value: text } }] };
}

function assistantCall(id: string): ModelMessage {
  return { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'tap', input: { target: 'n1' } }] };
}

describe('screen elision', () => {
  it('finds a screen block as its header plus the node lines under it', () => {
    const text = `Before\n${screen(3, 'Add')}\nadded #n9 listitem "Milk"`;
    const [block] = findScreenBlocks(text);
    expect(block?.revision).toBe('3');
    expect(text.slice(block!.start, block!.end)).toBe(screen(3, 'Add'));
  });

  it('keeps only the newest full screen and leaves a marker for the older ones', () => {
    const history: ModelMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Step 1 (act): add milk' }, { type: 'text', text: `The screen now:\n${screen(1, 'Add')}` }] },
      assistantCall('a'),
      toolResult('a', 'tap #n1: done.\nadded #n5 listitem "Milk"'),
      assistantCall('b'),
      toolResult('b', `tap #n7 failed: gone\nCurrent screen:\n${screen(4, 'Retry')}`),
    ];
    const elided = elideSupersededScreens(history);
    const all = elided.flatMap(messageTexts).join('\n');
    expect(all).toContain(elisionMarker('1'));
    expect(all).not.toContain('#n1 button "Add"');
    expect(all).toContain('#n4 button "Retry"');
    expect(all).toContain('added #n5 listitem "Milk"');
    // The brief before the screen is untouched, so the prompt prefix up to it stays stable.
    const opening = elided[0] as { content: Array<{ text: string }> };
    expect(opening.content[0]!.text).toBe('Step 1 (act): add milk');
    // Messages without a superseded screen keep their identity.
    expect(elided[2]).toBe(history[2]);
  });

  it('returns the same elided message on every turn, so the prefix stays byte-identical', () => {
    const history: ModelMessage[] = [{ role: 'user', content: screen(1, 'A') }, assistantCall('a'), toolResult('a', screen(2, 'B'))];
    const first = elideSupersededScreens(history);
    history.push(assistantCall('b'), toolResult('b', 'tap #n2: done.\nNothing changed on screen.'));
    const second = elideSupersededScreens(history);
    expect(second[0]).toBe(first[0]);
    expect(JSON.stringify(second.slice(0, 3))).toBe(JSON.stringify(first));
  });

  it('elides earlier screens inside one text when a tool result holds two', () => {
    const text = `${screen(1, 'A')}\nthen\n${screen(2, 'B')}`;
    const [message] = elideSupersededScreens([{ role: 'user', content: text }]);
    expect(message!.content).toBe(`${elisionMarker('1')}\nthen\n${screen(2, 'B')}`);
  });
});

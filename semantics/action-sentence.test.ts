import { describe, expect, it } from 'vitest';
import { describeSentence, nounPhrase } from './action-sentence.js';

const save = { role: 'button', name: 'Save' };

describe('the action sentence grammar', () => {
  it.each([
    [{ verb: 'tap', target: save }, 'tap button "Save"'],
    [{ verb: 'doubleTap', target: save }, 'double-tap button "Save"'],
    [{ verb: 'tap', target: save, modifiers: ['Shift'] }, 'tap button "Save" with Shift'],
    [{ verb: 'typeSecret', target: { role: 'textbox', name: 'Password' }, value: { kind: 'secret', name: 'pin' } }, 'type <secret:pin> into textbox "Password"'],
    [{ verb: 'type', target: { role: 'textbox', name: 'Email' }, value: { kind: 'unique', param: 'email' } }, 'type {unique:email} into textbox "Email"'],
    [{ verb: 'typeText', value: { kind: 'literal', value: 'hello' } }, 'type "hello" into the focused field'],
    [{ verb: 'press', key: 'Enter' }, 'press Enter'],
    [{ verb: 'scroll', direction: 'down', target: { role: 'list', name: 'Todos' } }, 'scroll down in list "Todos"'],
    [{ verb: 'upload', target: { role: 'button', name: 'Attach' }, paths: ['a.txt', 'b.txt'] }, 'upload "a.txt", "b.txt" to button "Attach"'],
    [{ verb: 'drag', target: { role: 'listitem', name: 'A' }, destination: { role: 'list', name: 'Done' } }, 'drag listitem "A" onto list "Done"'],
    [{ verb: 'tapAt', point: { x: 10.4, y: 19.6 } }, 'tap at (10, 20)'],
    [{ verb: 'dragAt', point: { x: 1, y: 2 }, to: { x: 3, y: 4 } }, 'drag from (1, 2) to (3, 4)'],
    [{ verb: 'resize', size: { width: 390, height: 844 } }, 'resize the viewport to 390×844'],
    [{ verb: 'tool', tool: 'seed' }, 'run tool seed'],
    [{ verb: 'gap', rule: 'mutating project tool', tool: 'seed' }, 'gap: mutating project tool seed'],
  ] as const)('says %j as %j', (input, sentence) => {
    expect(describeSentence(input)).toBe(sentence);
  });

  it('names a control by its label, else its text, placeholder or test id, with twins, states and container', () => {
    expect(nounPhrase({ role: 'textbox', name: ' ', placeholder: 'Search' })).toBe('textbox with placeholder "Search"');
    expect(nounPhrase({ role: 'generic', name: '', testId: 'count' })).toBe('generic with test id "count"');
    expect(nounPhrase({ role: 'checkbox', name: '' })).toBe('unnamed checkbox');
    expect(nounPhrase(undefined)).toBe('an unknown control');
    expect(nounPhrase({ role: 'checkbox', name: 'Toggle', twinIndex: 1, twinCount: 3, states: ['checked'], container: { role: 'listitem', name: 'Buy milk' } })).toBe(
      'checkbox "Toggle" (2nd of 3) [checked] in listitem "Buy milk"',
    );
  });

  it('quotes a text on one line, escaped and shortened', () => {
    expect(nounPhrase({ role: 'button', name: 'Say "hi"\n  now' })).toBe('button "Say \\"hi\\" now"');
    expect(describeSentence({ verb: 'type', target: save, value: { kind: 'literal', value: 'y'.repeat(100) } })).toMatch(/^type "y{79}…" into button "Save"$/);
  });
});

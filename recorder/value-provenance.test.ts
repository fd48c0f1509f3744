import { describe, expect, it } from 'vitest';
import { node, screen } from '../tests/support/hand-built-tree.js';
import { VALUE_GAP_RULES, appearsOnScreen, classifyTypedValue } from './value-provenance.js';

const todoScreen = screen(
  node('textbox', 'What needs to be done?', { id: 'new-todo', value: 'draft text' }),
  node('listitem', 'Call Alice about invoice INV-7731', [node('button', 'Delete')]),
  node('status', '', { text: 'Your code is 4417' }),
);

describe('classifyTypedValue', () => {
  const base = { instruction: 'add a todo "Buy milk" for {email}', screenBefore: todoScreen, targetId: 'new-todo' };

  it('names a unique() value by its param', () => {
    expect(classifyTypedValue('user-1712@example.test', { ...base, uniqueValues: { email: 'user-1712@example.test' } })).toEqual({
      kind: 'unique',
      param: 'email',
    });
  });

  it('names a secret and never keeps its value', () => {
    const result = classifyTypedValue('hunter2!', { ...base, secretNameOf: (value) => (value === 'hunter2!' ? 'adminPassword' : undefined) });
    expect(result).toEqual({ kind: 'secret', name: 'adminPassword' });
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });

  it('treats a value composed around a unique() value as a gap', () => {
    expect(classifyTypedValue('Hello user-1712@example.test', { ...base, uniqueValues: { email: 'user-1712@example.test' } })).toEqual({
      kind: 'gap',
      rule: VALUE_GAP_RULES.containsUnique,
    });
  });

  it('keeps values from the instruction or a literal param as literals, whatever their case', () => {
    expect(classifyTypedValue('buy MILK', base)).toEqual({ kind: 'literal', value: 'buy MILK' });
    expect(classifyTypedValue('Berlin', { ...base, literalParams: { city: 'Berlin' } })).toEqual({ kind: 'literal', value: 'Berlin' });
    expect(classifyTypedValue('', base)).toEqual({ kind: 'literal', value: '' });
  });

  it('marks a value read off the screen as a gap', () => {
    expect(classifyTypedValue('INV-7731', base)).toEqual({ kind: 'gap', rule: VALUE_GAP_RULES.readOffScreen });
    expect(classifyTypedValue('4417', base)).toEqual({ kind: 'gap', rule: VALUE_GAP_RULES.readOffScreen });
  });

  it("does not count the target field's own value as read off the screen", () => {
    expect(classifyTypedValue('draft text', base)).toEqual({ kind: 'literal', value: 'draft text' });
  });

  it('marks dates, times and minted tokens as gaps', () => {
    expect(classifyTypedValue('2025-03-14', base)).toEqual({ kind: 'gap', rule: VALUE_GAP_RULES.dateOrTime });
    expect(classifyTypedValue('9:30 AM', base)).toEqual({ kind: 'gap', rule: VALUE_GAP_RULES.dateOrTime });
    expect(classifyTypedValue('3f2504e0-4f89-11d3-9a0c-0305e82c3301', base)).toEqual({ kind: 'gap', rule: VALUE_GAP_RULES.mintedToken });
  });

  it('keeps a plain value the model composed from the intent as a literal', () => {
    expect(classifyTypedValue('Walk the dog', base)).toEqual({ kind: 'literal', value: 'Walk the dog' });
    expect(classifyTypedValue('5551234567', base)).toEqual({ kind: 'literal', value: '5551234567' });
  });

  it('keeps selected options literal even when they are on the screen', () => {
    expect(classifyTypedValue('INV-7731', { ...base, purpose: 'select' })).toEqual({ kind: 'literal', value: 'INV-7731' });
  });
});

describe('appearsOnScreen', () => {
  it('matches whole words only and ignores very short values', () => {
    expect(appearsOnScreen('Alice', todoScreen)).toBe(true);
    expect(appearsOnScreen('Ali', todoScreen)).toBe(false);
    expect(appearsOnScreen('ab', screen(node('button', 'ab')))).toBe(false);
  });
});

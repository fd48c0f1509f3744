import { describe, expect, it } from 'vitest';
import type { TargetDescription } from '../cache-format/entry.js';
import { describeAction, describeStateControl } from './describe-action.js';

const apply: TargetDescription = { role: 'button', name: 'Apply', twinIndex: 0, twinCount: 1 };
const newTodo: TargetDescription = { role: 'textbox', name: 'What needs to be done?', twinIndex: 0, twinCount: 1 };
const password: TargetDescription = { role: 'textbox', name: 'Password', twinIndex: 0, twinCount: 1 };
const deleteInRow: TargetDescription = { role: 'button', name: 'Delete', container: { role: 'listitem', name: 'Walk the dog' }, twinIndex: 0, twinCount: 1 };

describe('describeAction', () => {
  it.each([
    [{ verb: 'tap', target: apply } as const, 'tap button "Apply"'],
    [{ verb: 'type', target: newTodo, value: { kind: 'literal', value: 'Buy milk' }, replace: false } as const, 'type "Buy milk" into textbox "What needs to be done?"'],
    [{ verb: 'tap', target: deleteInRow } as const, 'tap button "Delete" in listitem "Walk the dog"'],
    [{ verb: 'type', target: password, value: { kind: 'secret', name: 'adminPassword' }, replace: true } as const, 'type <secret:adminPassword> into textbox "Password"'],
    [{ verb: 'type', target: newTodo, value: { kind: 'unique', param: 'title' }, replace: true } as const, 'type {unique:title} into textbox "What needs to be done?"'],
    [{ verb: 'tap', target: { ...apply, name: 'Add to cart', twinIndex: 1, twinCount: 3 } } as const, 'tap button "Add to cart" (2nd of 3)'],
    [{ verb: 'press', target: newTodo, key: 'Enter' } as const, 'press Enter in textbox "What needs to be done?"'],
    [{ verb: 'check', target: { ...apply, role: 'checkbox', name: 'Toggle' }, checked: false } as const, 'uncheck checkbox "Toggle"'],
    [{ verb: 'navigate', url: 'http://127.0.0.1:4173/settings' } as const, 'navigate to http://127.0.0.1:4173/settings'],
    [{ verb: 'back' } as const, 'go back'],
    [{ verb: 'secondaryTap', target: apply } as const, 'right-click button "Apply"'],
    [{ verb: 'gap', rule: 'mutating project tool', tool: 'seedDatabase' } as const, 'gap: mutating project tool seedDatabase'],
    [{ verb: 'gap', rule: 'value read off the screen' } as const, 'gap: value read off the screen'],
    [{ verb: 'scroll', direction: 'down' } as const, 'scroll down'],
    [{ verb: 'tapAt', point: { x: 10, y: 20 } } as const, 'tap at (10, 20)'],
    [{ verb: 'select', target: { ...apply, role: 'combobox', name: 'Size' }, value: { kind: 'literal', value: 'Large' } } as const, 'select "Large" in combobox "Size"'],
  ])('says %j as %j', (action, sentence) => {
    expect(describeAction(action)).toBe(sentence);
  });

  it('describes unnamed controls by placeholder and shortens long values', () => {
    const unnamed: TargetDescription = { role: 'textbox', name: '', placeholder: 'Search', twinIndex: 0, twinCount: 1 };
    const sentence = describeAction({ verb: 'type', target: unnamed, value: { kind: 'literal', value: 'x'.repeat(200) }, replace: false });
    expect(sentence).toMatch(/^type "x{79}…" into textbox with placeholder "Search"$/);
  });
});

describe('describeStateControl', () => {
  it('shows states and container', () => {
    expect(describeStateControl({ role: 'checkbox', name: 'Toggle', states: ['checked'], container: { role: 'listitem', name: 'Buy milk' } })).toBe(
      'checkbox "Toggle" [checked] in listitem "Buy milk"',
    );
    expect(describeStateControl({ role: 'status', name: '', text: '1 item left', states: [] })).toBe('status with text "1 item left"');
  });
});

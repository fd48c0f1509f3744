/**
 * Step titles: quoted the way a test writes the instruction, on one line, shortened.
 */
import { describe, expect, it } from 'vitest';
import { stepTitle } from './step-title.js';

describe('stepTitle', () => {
  it('quotes so that quotes inside need no escaping', () => {
    expect(stepTitle('act', 'add two todos')).toBe('agent.act "add two todos"');
    expect(stepTitle('act', 'add a todo "Buy milk"')).toBe(`agent.act 'add a todo "Buy milk"'`);
    expect(stepTitle('assert', `the "Buy milk" todo's box is ticked`)).toBe(`agent.assert "the \\"Buy milk\\" todo's box is ticked"`);
  });

  it('puts the instruction on one line and shortens it to 80 characters', () => {
    expect(stepTitle('waitFor', 'the list\n  shows two items')).toBe('agent.waitFor "the list shows two items"');
    expect(stepTitle('act', 'x'.repeat(100))).toBe(`agent.act "${'x'.repeat(79)}…"`);
  });
});

import { describe, expect, it } from 'vitest';
import { formatTestId, splitTestId } from './test-id.js';

describe('test ids', () => {
  it('split back into the file and the title path they were formatted from', () => {
    const id = formatTestId('tests\\todos.e2e.ts', ['todos', 'adds :: two']);
    expect(id).toBe('tests/todos.e2e.ts::todos › adds :: two');
    expect(splitTestId(id)).toEqual({ file: 'tests/todos.e2e.ts', title: 'todos › adds :: two' });
  });

  it('read a bare title as a title without a file', () => {
    expect(splitTestId('todos › adds')).toEqual({ file: undefined, title: 'todos › adds' });
  });
});

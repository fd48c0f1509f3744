import { describe, expect, it } from 'vitest';
import { TerminalLocator } from './terminal-screen.js';

describe('TerminalLocator', () => {
  it('reads as a Locator by its constructor name, which Playwright 1.56 checks before its matchers run', () => {
    expect(TerminalLocator.name).toBe('Locator');
  });
});

import { describe, expect, it } from 'vitest';
import { keyBytes, textBytes } from './key-codes.js';

const normal = { applicationCursorKeys: false };
const application = { applicationCursorKeys: true };

describe('keys as a terminal sends them', () => {
  it('sends named keys as xterm does, cursor keys in the mode the program asked for', () => {
    expect(['Enter', 'Tab', 'Escape', 'Backspace', 'Space'].map((key) => keyBytes(key, normal))).toEqual(['\r', '\t', '\x1b', '\x7f', ' ']);
    expect(keyBytes('ArrowDown', normal)).toBe('\x1b[B');
    expect(keyBytes('ArrowDown', application)).toBe('\x1bOB');
    expect(keyBytes('Down', application)).toBe('\x1bOB');
    expect([keyBytes('PageDown', normal), keyBytes('F1', normal), keyBytes('F5', normal), keyBytes('Delete', normal)]).toEqual(['\x1b[6~', '\x1bOP', '\x1b[15~', '\x1b[3~']);
  });

  it('sends chords: Control letters as control characters, Shift+Tab as back-tab, modified cursor keys with their parameter', () => {
    expect(keyBytes('Control+C', normal)).toBe('\x03');
    expect(keyBytes('ControlOrMeta+a', normal)).toBe('\x01');
    expect(keyBytes('Shift+Tab', normal)).toBe('\x1b[Z');
    expect(keyBytes('Alt+x', normal)).toBe('\x1bx');
    expect(keyBytes('Control+ArrowRight', application)).toBe('\x1b[1;5C');
    expect(keyBytes('Shift+a', normal)).toBe('A');
    expect(keyBytes('+', normal)).toBe('+');
  });

  it('refuses a key it does not know, naming the keys it does', () => {
    expect(() => keyBytes('Hyper+Q', normal)).toThrow(expect.objectContaining({ engineCode: 'NOT_ACTIONABLE', message: expect.stringContaining('Shift+Tab') }));
    expect(() => keyBytes('Launch', normal)).toThrow(expect.objectContaining({ engineCode: 'NOT_ACTIONABLE' }));
  });

  it('types line breaks as Enter', () => {
    expect(textBytes('one\ntwo\r\n')).toBe('one\rtwo\r');
  });
});

import { describe, expect, it } from 'vitest';
import { hasHiddenCharacters, visibleLines, visibleOutput, visibleText } from './visible-text.js';

describe('text a person reads', () => {
  it('spells out controls as escapes and invisible characters by code point', () => {
    expect(visibleText('Safe\u001b[2K\u001b[1AHIDDEN')).toBe('Safe\\u001b[2K\\u001b[1AHIDDEN');
    expect(visibleText('Pay \u202eBIDI-RLO\u202c now')).toBe('Pay ⟨U+202E⟩BIDI-RLO⟨U+202C⟩ now');
    expect(visibleText('a\rb\nc\td\u0085e\u007f')).toBe('a\\rb\\nc\\td\\u0085e\\u007f');
    expect(visibleText('zero\u200bwidth\u200d\u2060\ufeff\u00ad')).toBe('zero⟨U+200B⟩width⟨U+200D⟩⟨U+2060⟩⟨U+FEFF⟩⟨U+00AD⟩');
    expect(visibleText('\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028')).toBe('⟨U+2066⟩⟨U+2067⟩⟨U+2068⟩⟨U+2069⟩⟨U+200E⟩⟨U+200F⟩⟨U+061C⟩⟨U+2028⟩');
    expect(visibleText('tag\u{e0041} lone\ud800')).toBe('tag⟨U+E0041⟩ lone⟨U+D800⟩');
  });

  it('leaves every visible character of every script as it is', () => {
    const plain = 'Buy milk — Čaj, 茶, شاي, चाय, 🍵 "quoted" \\ back';
    expect(visibleText(plain)).toBe(plain);
    expect(hasHiddenCharacters(plain)).toBe(false);
    expect(hasHiddenCharacters('a\u202eb')).toBe(true);
  });

  it('keeps line breaks of a message and of a whole output, and keeps JSON valid and equal', () => {
    expect(visibleLines('first \u001b[1A\nsecond \u202e')).toBe('first \\u001b[1A\nsecond ⟨U+202E⟩');
    const data = { name: 'Pay \u202e1\u202c \u001b]8;;http://x\u0007link\u001b]8;;\u0007 \u200b\r\u{e0041}' };
    const printed = visibleOutput(`${JSON.stringify(data, null, 2)}\n`);
    expect(hasHiddenCharacters(printed.replaceAll('\n', ''))).toBe(false);
    expect(JSON.parse(printed)).toEqual(data);
    expect(visibleOutput('line\u001b[2K\nnext')).toBe('line\\u001b[2K\nnext');
  });
});

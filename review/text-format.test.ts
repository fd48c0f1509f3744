import { describe, expect, it } from 'vitest';
import { alignColumns, formatAge, formatBytes, markdownBlock, markdownCode, markdownText } from './text-format.js';

describe('text helpers of the cache commands', () => {
  it('formats sizes and ages briefly', () => {
    expect([formatBytes(512), formatBytes(1536), formatBytes(5 * 1024 * 1024)]).toEqual(['512 B', '1.5 KiB', '5.0 MiB']);
    expect([formatAge(-5), formatAge(59_000), formatAge(5 * 60_000), formatAge(3 * 3_600_000), formatAge(12 * 86_400_000)]).toEqual(['just now', 'just now', '5 min', '3 h', '12 d']);
  });

  it('aligns columns without padding the last one', () => {
    expect(alignColumns([['a', 'bb', 'c'], ['ddd', 'e', 'f']], '  ')).toEqual(['  a    bb  c', '  ddd  e   f']);
  });

  it('keeps user text inside markdown code it cannot close', () => {
    expect(markdownCode('tap button "Apply"')).toBe('`tap button "Apply"`');
    expect(markdownCode('a `b` c')).toBe('``a `b` c``');
    expect(markdownCode('`edge')).toBe('`` `edge ``');
    expect(markdownCode('two\nlines')).toBe('`two lines`');
    expect(markdownBlock(['type "```" into textbox'], 'diff')).toEqual(['````diff', 'type "```" into textbox', '````']);
  });

  it('keeps a lone carriage return, a line separator and controls inside the code span, spelled out', () => {
    expect(markdownCode('a\r</details><img src=x>')).toBe('`a\\r</details><img src=x>`');
    expect(markdownCode('a\u2028# b\u001b[2K')).toBe('`a⟨U+2028⟩# b\\u001b[2K`');
    expect(markdownBlock(['tap "a\rb"', 'x\u202ey'])).toEqual(['```', 'tap "a\\rb"', 'x⟨U+202E⟩y', '```']);
  });

  it('escapes every ASCII punctuation character in plain text', () => {
    expect(markdownText('a *b* [c](d) <e> | f')).toBe('a \\*b\\* \\[c\\]\\(d\\) \\<e\\> \\| f');
    expect(markdownText('#1 @you &amp; !x\r\n# h')).toBe('\\#1 \\@you \\&amp\\; \\!x \\# h');
  });
});

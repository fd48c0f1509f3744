import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeShape, jsonShapeOf, readAnswer } from './answer-shape.js';

const verdict = z.strictObject({
  verdict: z.enum(['holds', 'fails']),
  reason: z.string().describe('One sentence'),
  evidence: z.array(z.string()),
});
const verdictShape = jsonShapeOf(verdict);

describe('stating the shape', () => {
  it('lists each key with its type and description, not a schema dump', () => {
    expect(describeShape(verdictShape)).toBe(
      ['A JSON object with these keys:', '- "verdict": "holds" or "fails"', '- "reason": string (One sentence)', '- "evidence": list of string'].join('\n'),
    );
  });

  it('writes nested and optional fields inline', () => {
    const shape = jsonShapeOf(z.object({ value: z.object({ count: z.number().int(), note: z.string().optional() }).nullable() }));
    expect(describeShape(shape)).toBe('A JSON object with these keys:\n- "value": { "count": whole number, "note" (optional): string } or null');
  });
});

describe('reading an answer', () => {
  const exact = { verdict: 'holds', reason: 'It says so.', evidence: ['n3'] };

  it.each([
    ['plain JSON', JSON.stringify(exact)],
    ['JSON after a sentence', `Sure, here it is: ${JSON.stringify(exact)} Hope that helps.`],
    ['a fenced block', `Answer:\n\`\`\`json\n${JSON.stringify(exact, null, 2)}\n\`\`\``],
    ['extra keys', JSON.stringify({ ...exact, confidence: 0.9, notes: { a: 1 } })],
    ['a lone id where a list was asked for', JSON.stringify({ ...exact, evidence: 'n3' })],
    ['an option in another case', JSON.stringify({ ...exact, verdict: 'Holds' })],
  ])('reads %s', (_label, text) => {
    expect(readAnswer(text, verdict, verdictShape)).toEqual({ kind: 'ok', value: exact });
  });

  it('turns "true" and "1" into a boolean and a number where the schema asks for them', () => {
    const schema = z.object({ found: z.boolean(), value: z.number().nullable() });
    expect(readAnswer('{"found": "true", "value": "1"}', schema, jsonShapeOf(schema))).toEqual({ kind: 'ok', value: { found: true, value: 1 } });
  });

  it('leaves a string alone where the schema asks for a string', () => {
    const schema = z.object({ value: z.string() });
    expect(readAnswer('{"value": "1"}', schema, jsonShapeOf(schema))).toEqual({ kind: 'ok', value: { value: '1' } });
  });

  it('names what is missing or wrong', () => {
    expect(readAnswer('{"verdict": "maybe", "reason": "x"}', verdict, verdictShape)).toEqual({
      kind: 'invalid',
      problem: '"verdict" must be "holds" or "fails"; "evidence" is missing',
    });
  });

  it('says when there is no JSON at all', () => {
    expect(readAnswer('I think it holds.', verdict, verdictShape)).toEqual({ kind: 'invalid', problem: 'the reply holds no JSON object' });
    expect(readAnswer('  ', verdict, verdictShape)).toEqual({ kind: 'invalid', problem: 'the reply was empty' });
  });
});

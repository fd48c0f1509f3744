import { tool, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ignoredKeysNote, repairCall } from './call-repair.js';

const tools: ToolSet = {
  check: tool({ inputSchema: z.strictObject({ target: z.string(), checked: z.boolean().optional() }) }),
  tap_at: tool({ inputSchema: z.strictObject({ x: z.number(), y: z.number() }) }),
};

describe('repairing a tool call', () => {
  it.each([
    ['string booleans', { target: 'n3', checked: 'false' }, { target: 'n3', checked: false }],
    ['null for an optional argument', { target: 'n3', checked: null }, { target: 'n3' }],
    ['arguments double-encoded as a JSON string', JSON.stringify(JSON.stringify({ target: 'n3' })), { target: 'n3' }],
  ])('accepts %s', async (_label, input, repaired) => {
    expect(await repairCall(tools, { toolName: 'check', input })).toEqual({ kind: 'repaired', input: repaired, ignored: [] });
  });

  it('turns numeric strings into numbers', async () => {
    expect(await repairCall(tools, { toolName: 'tap_at', input: { x: '12', y: '40.5' } })).toEqual({ kind: 'repaired', input: { x: 12, y: 40.5 }, ignored: [] });
  });

  it('ignores a key the tool does not take, naming it, and uses the known ones', async () => {
    expect(await repairCall(tools, { toolName: 'check', input: { target: 'n3', note: 'typing', checked: 'true' } })).toEqual({
      kind: 'repaired',
      input: { target: 'n3', checked: true },
      ignored: ['note'],
    });
    expect(ignoredKeysNote('check', ['note', 'force'])).toBe('(Ignored the keys "note", "force": check does not take them.)');
  });

  it('still refuses a call that lacks a required argument once the unknown keys are gone, naming what the tool takes', async () => {
    expect(await repairCall(tools, { toolName: 'check', input: { node: 'n3' } })).toEqual({
      kind: 'refused',
      text: 'The call to check was not valid: "target" is missing. (Ignored the key "node": check does not take it.) check takes { "target": string, "checked" (optional): boolean }.',
    });
  });

  it('answers an unknown tool with the tools there are, and broken JSON with what the tool takes', async () => {
    expect(await repairCall(tools, { toolName: 'click', input: {} })).toEqual({ kind: 'refused', text: 'There is no tool named "click". The tools are: check, tap_at.' });
    expect(await repairCall(tools, { toolName: 'tap_at', input: '{"x": 1,' })).toEqual({
      kind: 'refused',
      text: 'The arguments of tap_at are not valid JSON. tap_at takes { "x": number, "y": number }.',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { isE2EError } from '../errors/index.js';
import { rejectionOf, thrownBy } from '../tests/support/caught.js';
import { sampleKeyParts } from '../tests/support/sample-entries.js';
import type { KeyParts } from './entry.js';
import { assertKeyPartsSafe, computeKey, explainKeyChange, isCacheKey, normalizeInstruction, REPLAY_POLICY_VERSION } from './key.js';

/** One changed value per key part. */
const CHANGED_PARTS: Array<[keyof KeyParts, Partial<KeyParts>, string]> = [
  ['projectId', { projectId: 'firefox' }, 'the project'],
  ['testId', { testId: 'todos.spec.ts › todos › deletes' }, 'the test'],
  ['target', { target: 'android' }, 'the target'],
  ['engine', { engine: 'web-next' }, 'the engine'],
  ['engineContract', { engineContract: 2 }, 'the engine'],
  ['kind', { kind: 'assert' }, 'the step kind'],
  ['instruction', { instruction: 'add three todos and complete the first' }, 'the instruction'],
  ['params', { params: { user: '<secret:admin>', title: '<unique:title>' } }, 'the params'],
  ['occurrence', { occurrence: 1 }, 'the occurrence index'],
  ['appIdentity', { appIdentity: 'http://127.0.0.1:5173' }, 'the app identity'],
  ['agent', { agent: 'careful' }, 'the agent'],
  ['contextDigest', { contextDigest: '0000000000000000' }, "the agent's context"],
  ['replayPolicy', { replayPolicy: REPLAY_POLICY_VERSION + 1 }, 'the replay policy'],
];

describe('computeKey', () => {
  it('returns 16 lower-case hex digits', async () => {
    const key = await computeKey(sampleKeyParts());
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(isCacheKey(key)).toBe(true);
  });

  it('gives the same key for the same parts in this release and the next (pinned value)', async () => {
    // Changing this value makes every committed cache miss: bump REPLAY_POLICY_VERSION instead, on purpose.
    expect(await computeKey(sampleKeyParts())).toBe('de33d7e356f4108e');
  });

  it.each(CHANGED_PARTS)('gives a new key when %s changes', async (_part, change) => {
    expect(await computeKey(sampleKeyParts(change))).not.toBe(await computeKey(sampleKeyParts()));
  });

  it('gives the same key for instructions that differ only in surrounding or repeated whitespace or Unicode normalization', async () => {
    const base = await computeKey(sampleKeyParts({ instruction: 'type café  into\tthe box' }));
    expect(await computeKey(sampleKeyParts({ instruction: '  type cafe\u0301 into the box \n' }))).toBe(base);
  });

  it('keeps case: "Save" and "save" are different instructions', async () => {
    expect(await computeKey(sampleKeyParts({ instruction: 'tap Save' }))).not.toBe(await computeKey(sampleKeyParts({ instruction: 'tap save' })));
  });

  it('does not depend on the order params were given in', async () => {
    const forward = await computeKey(sampleKeyParts({ params: { a: '1', b: '2' } }));
    expect(await computeKey(sampleKeyParts({ params: { b: '2', a: '1' } }))).toBe(forward);
  });

  it('refuses key parts with an extra part such as the model, as a programmer error', async () => {
    const withModel = { ...sampleKeyParts(), model: 'gpt-x' } as KeyParts;
    const error = await rejectionOf(computeKey(withModel));
    expect(isE2EError(error) && error.code).toBe('INVALID_ARGUMENT');
  });

  it('refuses a reserved param name that a reader would refuse', async () => {
    const error = await rejectionOf(computeKey(sampleKeyParts({ params: { constructor: 'x' } })));
    expect(isE2EError(error) && error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('normalizeInstruction', () => {
  it('trims, collapses whitespace and applies NFC without lowercasing', () => {
    expect(normalizeInstruction('  Add\n\n a  Todo\u0301 ')).toBe('Add a Todó');
  });
});

describe('assertKeyPartsSafe', () => {
  const secret = 'hunter2-correct-horse';

  it('accepts parts that hold secrets only as placeholders', () => {
    expect(thrownBy(() => assertKeyPartsSafe(sampleKeyParts(), [secret]))).toBeUndefined();
  });

  it.each([
    ['a param value', sampleKeyParts({ params: { password: secret } }), 'params.password'],
    ['the instruction', sampleKeyParts({ instruction: `log in with ${secret}` }), 'instruction'],
    ['the app identity', sampleKeyParts({ appIdentity: `https://user:${secret}@example.com` }), 'appIdentity'],
  ])('throws a programmer error naming the part, not the value, when %s holds a secret', (_label, parts, partName) => {
    const error = thrownBy(() => assertKeyPartsSafe(parts, [secret]));
    expect(isE2EError(error) && error.code).toBe('INVALID_STATE');
    expect(String((error as Error).message)).toContain(partName);
    expect(String((error as Error).message)).not.toContain(secret);
  });

  it('checks very short secrets for equality only, so ordinary words do not trip it', () => {
    expect(thrownBy(() => assertKeyPartsSafe(sampleKeyParts({ instruction: 'add a todo' }), ['a']))).toBeUndefined();
    expect(isE2EError(thrownBy(() => assertKeyPartsSafe(sampleKeyParts({ params: { pin: '42' } }), ['42'])))).toBe(true);
  });

  it('ignores empty secrets', () => {
    expect(thrownBy(() => assertKeyPartsSafe(sampleKeyParts(), ['']))).toBeUndefined();
  });
});

describe('explainKeyChange', () => {
  it.each(CHANGED_PARTS)('names %s when only it changed', (_part, change, phrase) => {
    expect(explainKeyChange(sampleKeyParts(), sampleKeyParts(change))).toEqual([phrase]);
  });

  it('names nothing for parts that hash alike', () => {
    expect(explainKeyChange(sampleKeyParts(), sampleKeyParts({ instruction: ' add two todos  and complete the first ' }))).toEqual([]);
  });

  it('names every changed part, most telling first', () => {
    const changed = sampleKeyParts({ contextDigest: 'ffff', instruction: 'add one todo' });
    expect(explainKeyChange(sampleKeyParts(), changed)).toEqual(['the instruction', "the agent's context"]);
  });
});

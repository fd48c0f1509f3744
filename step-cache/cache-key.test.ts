import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeKey, FileCacheStore, REPLAY_POLICY_VERSION } from '../cache-format/index.js';
import { sampleActEntry, sampleKeyParts } from '../tests/support/sample-entries.js';
import { contextDigest, OccurrenceCounter, occurrenceIdentity, stepKey, type KeyScope } from './cache-key.js';
import { NearestEntryIndex } from './nearest-entry.js';
import type { InterceptedStep } from '../contract/step-seams.js';

const SECRET = 'hunter2-password';

function step(overrides: Partial<InterceptedStep> = {}): InterceptedStep {
  return {
    info: { kind: 'act', instruction: 'sign in as {user} with <secret:adminPassword> and add {title}', params: {}, index: 0, secrets: ['adminPassword'] },
    template: '  sign in as {user}   with {password} and add {title} ',
    paramSources: {
      user: { kind: 'literal', value: 'admin' },
      password: { kind: 'secret', name: 'adminPassword' },
      title: { kind: 'unique', value: 'todo-1719' },
    },
    agent: { name: 'default', context: 'A todo app.' },
    executor: { name: 'built-in', cache: 'inherit' },
    attempt: { testId: 'todos.e2e.ts::todos › signs in', retry: 0, titlePath: ['todos', 'signs in'] },
    target: { name: 'web', platform: 'web', verbs: ['tap'] },
    ...overrides,
  };
}

const scope: KeyScope = {
  projectId: 'web',
  appIdentity: 'http://127.0.0.1:4173',
  engine: { name: 'web', contractVersion: 1 },
  redact: (text) => text.split(SECRET).join('<secret:adminPassword>'),
  secretValues: [SECRET],
};

describe('step keys', () => {
  it('keys the instruction as written, secrets by name and unique() values as placeholders', async () => {
    const { key, parts } = await stepKey(step(), 2, scope);
    expect(parts).toEqual({
      projectId: 'web',
      testId: 'todos.e2e.ts::todos › signs in',
      target: 'web',
      engine: 'web',
      engineContract: 1,
      kind: 'act',
      instruction: 'sign in as {user} with {password} and add {title}',
      params: { user: 'admin', password: '<secret:adminPassword>', title: '<unique:title>' },
      occurrence: 2,
      appIdentity: 'http://127.0.0.1:4173',
      agent: 'default',
      contextDigest: contextDigest('A todo app.'),
      replayPolicy: REPLAY_POLICY_VERSION,
    });
    expect(key).toBe(await computeKey(parts));
    expect(JSON.stringify(parts)).not.toContain('todo-1719');
  });

  it('gives the same key for another unique() value and another model, a different one for another context', async () => {
    const first = await stepKey(step(), 0, scope);
    const otherValue = await stepKey(step({ paramSources: { ...step().paramSources, title: { kind: 'unique', value: 'todo-2000' } } }), 0, scope);
    const otherContext = await stepKey(step({ agent: { name: 'default', context: 'A shop.' } }), 0, scope);
    expect(otherValue.key).toBe(first.key);
    expect(otherContext.key).not.toBe(first.key);
  });

  it('redacts a secret value passed as a literal param before it can reach the key', async () => {
    const leaky = step({ paramSources: { user: { kind: 'literal', value: SECRET } } });
    const { parts } = await stepKey(leaky, 0, scope);
    expect(parts.params).toEqual({ user: '<secret:adminPassword>' });
  });

  it('refuses to key a part that still holds a secret value', async () => {
    const unredacted = { ...scope, redact: (text: string) => text };
    const leaky = step({ paramSources: { user: { kind: 'literal', value: SECRET } } });
    await expect(stepKey(leaky, 0, unredacted)).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });

  it('counts occurrences by instruction and key params, not by this run’s unique() values', () => {
    const identity = (intercepted: InterceptedStep) =>
      occurrenceIdentity({ kind: intercepted.info.kind, template: intercepted.template, paramSources: intercepted.paramSources }, scope.redact);
    const one = identity(step());
    const two = identity(step({ paramSources: { ...step().paramSources, title: { kind: 'unique', value: 'other' } } }));
    expect(two).toBe(one);
  });

  it('counts occurrences as the cache key does: two acts that differ only in their unique() value are 0 and 1', () => {
    const counter = new OccurrenceCounter();
    const seen: Array<[string, number]> = [];
    const call = (kind: InterceptedStep['info']['kind'], instruction: string, title: InterceptedStep['paramSources'][string]) => {
      const intercepted = step({ info: { kind, instruction, params: {}, index: seen.length, secrets: [] }, template: 'add {title}', paramSources: { title } });
      seen.push([instruction, counter.next(intercepted, scope.redact)]);
    };
    call('act', 'add todo-1', { kind: 'unique', value: 'todo-1' });
    call('act', 'add todo-2', { kind: 'unique', value: 'todo-2' });
    call('act', 'add Milk', { kind: 'literal', value: 'Milk' });
    call('assert', 'add todo-3', { kind: 'unique', value: 'todo-3' });
    expect(seen).toEqual([
      ['add todo-1', 0],
      ['add todo-2', 1],
      ['add Milk', 0],
      ['add todo-3', 0],
    ]);
  });
});

describe('miss explanations', () => {
  it('name the key parts in which the nearest entry of the same test differs', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'e2e-nearest-'));
    try {
      const store = new FileCacheStore(folder);
      await store.write(await sampleActEntry(sampleKeyParts()));
      await store.write(await sampleActEntry(sampleKeyParts({ testId: 'other.e2e.ts::other', instruction: 'add one todo' })));
      await store.write(await sampleActEntry(sampleKeyParts({ testId: 'todos.e2e.ts::todos › adds' })));
      const index = new NearestEntryIndex(store);
      expect(await index.explain(sampleKeyParts({ instruction: 'add one todo' }))).toBe('no entry; nearest entry of this test differs in the instruction');
      expect(await index.explain(sampleKeyParts({ contextDigest: 'ffff', occurrence: 1 }))).toBe(
        "no entry; nearest entry of this test differs in the agent's context and the occurrence index",
      );
      expect(await index.explain(sampleKeyParts({ testId: 'new.e2e.ts::new' }))).toBe('no entry; this test has no recorded entries');
      // Same file, same instruction, another title: the test was likely renamed.
      expect(await index.explain(sampleKeyParts({ testId: 'todos.e2e.ts::todos › adds two' }))).toBe(
        "no entry; this test has no recorded entries, but \"todos.e2e.ts::todos › adds\" in the same file has one for the same instruction (renamed? move its entries: `e2e cache mv 'todos.e2e.ts::todos › adds' 'todos.e2e.ts::todos › adds two'`)",
      );
      // A title with a quote stays one shell word in the suggested command.
      expect(await index.explain(sampleKeyParts({ testId: "todos.e2e.ts::todos › adds Bob's todo" }))).toContain(
        "`e2e cache mv 'todos.e2e.ts::todos › adds' 'todos.e2e.ts::todos › adds Bob'\\''s todo'`",
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

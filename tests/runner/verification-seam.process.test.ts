/**
 * The one `onVerification` seam, through the real `e2e` binary and real Chromium: the same
 * locator assertion written with the `expect` from `@playwright/test` and with e2e's delivers
 * equal verification events (the same report entry and the same end check in the recording,
 * which rests on what the locator matched), and attempts in one worker (`--repeat-each 2`,
 * then another test) never see each other's verifications.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../cache-format/index.js';
import type { ActEntry } from '../../cache-format/entry.js';
import { ensureBuilt } from './support/build.js';
import { runE2E, type E2ERun } from './support/e2e-process.js';
import { startHabitsApp, type HabitsApp } from './support/habits-app.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/verification-seam/', import.meta.url));
const PLAYWRIGHT = 'the same check with the expect from Playwright Test';
const E2E = 'the same check with the expect from e2e';
const UNCHECKED = 'a step after other attempts verified theirs';

let app: HabitsApp;
let work: string;
let recorded: E2ERun;

function attemptsOf(title: string): NonNullable<E2ERun['report']>['tests'][number]['attempts'] {
  const runs = recorded.report?.tests.filter((test) => test.titlePath.at(-1) === title) ?? [];
  return runs.flatMap((test) => test.attempts);
}

/** The recorded `act` entry of a test, by its title. */
async function entryOf(title: string): Promise<ActEntry> {
  const store = new FileCacheStore(join(work, 'cache'), { readOnly: true });
  for (const ref of await store.list()) {
    const read = await store.read(ref.key);
    if (read.kind === 'hit' && read.entry.kind === 'act' && read.entry.keyParts.testId.includes(title)) return read.entry;
  }
  throw new Error(`no act entry recorded for "${title}"`);
}

beforeAll(async () => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'e2e-verification-seam-'));
  app = await startHabitsApp(join(work, 'cache'));
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  recorded = await runE2E(['record', '--', '--repeat-each', '2'], { cwd: FIXTURE, env: app.env });
}, scaledTimeout(240_000));

afterAll(async () => {
  await app.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
});

describe('one onVerification seam', () => {
  it('delivers equal verification events for the same locator assertion from either expect', async () => {
    expect(recorded.exitCode, `${recorded.stdout}\n${recorded.stderr}`).toBe(0);
    const events = (title: string) => attemptsOf(title).map((attempt) => attempt.verifications);
    expect(events(PLAYWRIGHT)).toEqual([[{ kind: 'expect', detail: 'toHaveText', afterStep: 0 }], [{ kind: 'expect', detail: 'toHaveText', afterStep: 0 }]]);
    expect(events(E2E)).toEqual(events(PLAYWRIGHT));
    const [fromPlaywright, fromE2E] = [await entryOf(PLAYWRIGHT), await entryOf(E2E)];
    const endCheck = (entry: ActEntry) => ({ appeared: entry.appeared, gone: entry.gone, acted: entry.acted, verified: entry.verified, verifiedBy: entry.provenance.verifiedBy });
    expect(endCheck(fromE2E)).toEqual(endCheck(fromPlaywright));
    // What the locator matched reached the recording: its end check names the verified todo.
    expect(JSON.stringify(fromPlaywright.appeared)).toContain('Buy milk');
  });

  it('keeps every attempt in the worker to its own verifications', () => {
    for (const attempt of [...attemptsOf(PLAYWRIGHT), ...attemptsOf(E2E)]) expect(attempt.verifications).toHaveLength(1);
    const unchecked = attemptsOf(UNCHECKED);
    expect(unchecked).toHaveLength(2);
    for (const attempt of unchecked) expect(attempt.verifications).toEqual([]);
    expect(`${recorded.stdout}${recorded.stderr}`).toMatch(/Not recorded: nothing verified these 2 steps\..*\n {4}tests\/unchecked\.e2e\.ts:6 .*\n {4}tests\/unchecked\.e2e\.ts:6 /);
  });
});

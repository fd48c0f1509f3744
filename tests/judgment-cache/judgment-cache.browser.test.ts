/**
 * Model-free judgments end to end: the real step runner on real Chromium, the
 * built-in judgments with a scripted judge (an AI SDK mock model that cites node ids it
 * reads off the screen in its prompt), the attempt cache on the runner's seams, and a real
 * file store. Every regression is a real change of the fixture page.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FileCacheStore, type JudgmentEntry } from '../../cache-format/index.js';
import { entryChanges } from '../../review/entry-changes.js';
import { endCheckLines, entryLines } from '../../review/entry-text.js';
import type { CacheOutcome } from '../../contract/cache-outcome.js';
import type { StepExecutor } from '../../contract/step-contract.js';
import { summarize, toReportStep, type ReportTest } from '../../runner/report.js';
import { throwScriptErrors } from '../executor/support/scripted-model.js';
import { snapshotTree } from '../support/directory-snapshot.js';
import { liveScreenPerFile, type LiveScreen } from '../support/live-screen.js';
import { tempFolders } from '../support/temp-folders.js';
import { startAttempt, type AttemptOptions, type HarnessCache } from '../support/attempt-harness.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { screenJudge, type JudgeRule, type Screen } from './support/screen-judge.js';

let live: LiveScreen;
// The todo page as a judgment sees it: a named list, no Delete buttons, no times of day.
liveScreenPerFile((started) => (live = started), { '/todos.html': { page: 'todos.html', knobs: 'delete=0&stamp=0&testid=0&list=Todos' } });
const tempFolder = tempFolders('e2e-judgment-cache-');
afterEach(() => {
  throwScriptErrors();
});

function newStore(): { dir: string; store: FileCacheStore } {
  const dir = join(tempFolder(), 'cache');
  return { dir, store: new FileCacheStore(dir) };
}

/** The todo page with its knobs in the fragment (the route stays `/todos.html`). */
function page(knobs: Record<string, string> = {}): string {
  return `todos.html#${new URLSearchParams(knobs).toString()}`;
}

async function read(store: FileCacheStore, key: string): Promise<JudgmentEntry | undefined> {
  const result = await store.read(key);
  return result.kind === 'hit' && result.entry.kind !== 'act' ? result.entry : undefined;
}

// --- a faithful judge: each rule decides from the screen it was shown -------------------

const holds = (evidence: string[], reason: string) => ({ verdict: 'holds' as const, reason, evidence });
const fails = (reason: string) => ({ verdict: 'fails' as const, reason, evidence: [] });

function checkboxOf(screen: Screen, title: string): { id: string; checked: boolean } | undefined {
  const item = screen.all('listitem', title)[0];
  const box = item === undefined ? undefined : screen.lines.find((line) => line.parent === item && line.role === 'checkbox');
  return box === undefined ? undefined : { id: box.id, checked: box.states.includes('checked') };
}

const RULES: Record<string, JudgeRule> = {
  // Cites the list item only: the cache adds the checkbox inside it.
  'Buy milk is completed': (screen) => {
    const box = checkboxOf(screen, 'Buy milk');
    return box?.checked === true ? holds([screen.id('listitem', 'Buy milk')], 'Buy milk is ticked.') : fails('Buy milk is not ticked.');
  },
  'only one todo remains open': (screen) => {
    const open = screen.lines.filter((line) => line.role === 'checkbox' && !line.states.includes('checked'));
    return open.length === 1 ? holds([open[0]!.id], 'Only Walk the dog is open.') : fails(`${open.length} todos are open.`);
  },
  'the status reads "Saved to the cloud"': (screen) => {
    const status = screen.lines.find((line) => line.role === 'status');
    return status?.text === 'Saved to the cloud' ? holds([status.id], 'The status says so.') : fails('The status says something else.');
  },
  'Walk the dog is on the list': (screen) =>
    screen.all('listitem', 'Walk the dog').length === 1 ? holds([screen.id('listitem', 'Walk the dog')], 'It is listed.') : fails('It is not listed.'),
  'no todo is completed': (screen) => {
    const boxes = screen.lines.filter((line) => line.role === 'checkbox');
    return boxes.every((box) => !box.states.includes('checked')) ? holds(boxes.map((box) => box.id), 'Every todo is open.') : fails('A todo is completed.');
  },
  'the status says Synced': (screen) => {
    const status = screen.lines.find((line) => line.role === 'status');
    return status?.text === 'Synced' ? holds([status.id], 'It says Synced.') : { verdict: 'fails', reason: 'Not yet.', evidence: status === undefined ? [] : [status.id] };
  },
  'the order total': (screen) => {
    const line = screen.lines.find((candidate) => candidate.name.startsWith('Total: $'));
    return line === undefined
      ? { found: false, value: null, reason: 'No total.', evidence: [] }
      : { found: true, value: { total: Number(line.name.slice('Total: $'.length)) }, reason: 'The total line.', evidence: [line.id] };
  },
  'Tea is listed': () => holds(['n999'], 'Tea is listed.'),
  'the new todo box holds Buy bread': (screen) => holds([screen.id('textbox', 'New todo')], 'The box holds Buy bread.'),
  'Buy bread is on the list': (screen) => holds([screen.id('listitem', 'Buy bread')], 'Buy bread is listed.'),
};

/** Types `params.title` into the new-todo box; an instruction starting with "add" also presses Enter. */
function typist(): StepExecutor {
  return {
    name: 'typist',
    async runStep(context) {
      const screen = await context.observe({ tree: true });
      const box = /#(\S+) textbox "New todo"/.exec(screen.text)?.[1];
      if (box === undefined) return { status: 'failed', summary: 'No new-todo box.' };
      await context.actions.type({ id: box }, context.step.params.title ?? '', { replace: true });
      if (context.step.instruction.startsWith('add')) await context.actions.press({ id: box }, 'Enter');
      return { status: 'passed', summary: `Typed ${context.step.params.title ?? ''}.` };
    },
  };
}

/** A judged attempt: its cache, the `default` agent's judge (none: a model-free run, as `e2e replay`), the executor of the `typist` agent that runs `act` steps. */
type Options = HarnessCache & Pick<AttemptOptions, 'retry'> & { judge?: object; typist?: StepExecutor };

/** An attempt on the live page whose `default` agent judges with `judge` and whose acts go to the `typist` agent. */
function judgedAttempt({ judge, typist, retry, ...cache }: Options) {
  return startAttempt(live, {
    cache: { waitForTargetMs: 300, ...cache },
    agents: {
      default: { ...(judge === undefined ? {} : { model: judge }), context: 'A todo app.', limits: {} },
      typist: { ...(typist === undefined ? {} : { executor: typist }), context: 'A todo app.', limits: {} },
    },
    actingAgent: 'typist',
    retry,
  });
}

/** One attempt on `path` with one assert; returns the step's outcome, its final cache outcome and the judge. */
async function assertOnce(path: string, question: string, options: Options) {
  await live.open(path);
  const attempt = judgedAttempt(options);
  const outcome = await attempt.assert(question);
  const reports = await attempt.finish();
  return { outcome, cache: outcome.cache as CacheOutcome | undefined, write: reports.find((report) => report.stepIndex === outcome.index)?.outcome, records: attempt.runner.records };
}

/** Record `question` live on `path` and return the saved entry's key. */
async function record(store: FileCacheStore, path: string, question: string): Promise<string> {
  const judge = screenJudge(RULES);
  const run = await assertOnce(path, question, { store, judge });
  expect(run.outcome.verdict.status).toBe('passed');
  expect(run.write).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'saved' });
  return run.write!.entry!;
}

const TWO_TODOS = { seed: 'Buy milk,Walk the dog', done: 'Buy milk' };

describe('an assert recorded live replays with no model', () => {
  it('records the evidence as checks by description and passes on replay with no model configured', async () => {
    const { store } = newStore();
    const key = await record(store, page(TWO_TODOS), 'Buy milk is completed');
    const entry = (await read(store, key))!;
    expect(endCheckLines(entry)).toEqual([
      'expect listitem "Buy milk" in list "Todos" present',
      'expect checkbox "Toggle" [checked] in listitem "Buy milk" present',
    ]);
    expect(entry).toMatchObject({ kind: 'assert', keyParts: { kind: 'assert', instruction: 'Buy milk is completed', preceding: [] }, provenance: { verifiedBy: 'assert', executor: 'e2e-judgment' } });

    const replay = await assertOnce(page(TWO_TODOS), 'Buy milk is completed', { store });
    expect(replay.outcome.verdict).toEqual({ status: 'passed', summary: 'Buy milk is ticked.' });
    expect(replay.outcome.modelCalls).toBe(0);
    expect(replay.cache).toEqual({ mode: 'self-finalized', entry: key });
    expect(replay.write).toEqual({ mode: 'self-finalized', entry: key, write: 'no-change' });
    // The report counts it like a replayed act.
    const test = { outcome: 'expected', attempts: [{ steps: replay.records.map(toReportStep) }] } as unknown as ReportTest;
    expect(summarize([test])).toMatchObject({ modelCalls: 0, cache: { replayed: 1, handedOff: 0, missed: 0 } });
  });

  it('replays in read-only mode and leaves the cache folder byte-identical', async () => {
    const { store, dir } = newStore();
    const key = await record(store, page(TWO_TODOS), 'Buy milk is completed');
    const before = snapshotTree(dir);
    const readOnly = new FileCacheStore(dir, { readOnly: true });
    const replay = await assertOnce(page(TWO_TODOS), 'Buy milk is completed', { store: readOnly, mode: 'read-only' });
    expect(replay.cache).toEqual({ mode: 'self-finalized', entry: key });
    expect(snapshotTree(dir)).toEqual(before);
  });

  it('asks the judge again on a retry of a read-write run, and replays again on a retry of a read-only one', async () => {
    const { store, dir } = newStore();
    const key = await record(store, page(TWO_TODOS), 'Buy milk is completed');
    const judge = screenJudge(RULES);
    const rerun = await assertOnce(page(TWO_TODOS), 'Buy milk is completed', { store, judge, retry: 1 });
    expect(rerun.cache).toMatchObject({ mode: 'missed', reason: 'retry' });
    expect(rerun.outcome.modelCalls).toBeGreaterThan(0);
    const readOnly = new FileCacheStore(dir, { readOnly: true });
    const replay = await assertOnce(page(TWO_TODOS), 'Buy milk is completed', { store: readOnly, mode: 'read-only', retry: 1 });
    expect(replay.cache).toEqual({ mode: 'self-finalized', entry: key });
    expect(replay.outcome.modelCalls).toBe(0);
  });

  it('shows the entry in `cache show` with its question and evidence sentences', async () => {
    const { store } = newStore();
    const key = await record(store, page(TWO_TODOS), 'only one todo remains open');
    const entry = (await read(store, key))!;
    const text = entryLines(entry, { blob: 'b', storedVersion: 1 }).join('\n');
    expect(text).toContain('step:           assert "only one todo remains open"');
    expect(text).toContain('after:          no act step');
    expect(endCheckLines(entry)).toEqual([
      'expect 1 × checkbox "Toggle" [unchecked] in listitem "Walk the dog" present',
      'expect 1 × checkbox [checked] present',
      'expect 1 × checkbox [unchecked] present',
    ]);
  });
});

describe('a planted regression is never passed by cached evidence', () => {
  const cases = [
    {
      kind: 'wrong count',
      question: 'only one todo remains open',
      recorded: TWO_TODOS,
      regressed: { seed: 'Buy milk,Walk the dog,Feed the cat', done: 'Buy milk' },
      failing: 'expect 1 × checkbox [unchecked] present, but there are 2',
    },
    {
      kind: 'wrong text',
      question: 'the status reads "Saved to the cloud"',
      recorded: { status: 'Saved to the cloud' },
      regressed: { status: 'Saved to the clouds' },
      failing: 'expect status with text "Saved to the cloud" present, but there is none (nearest: status "Saved to the clouds")',
    },
    {
      kind: 'state not set',
      question: 'Buy milk is completed',
      recorded: TWO_TODOS,
      regressed: { seed: 'Buy milk,Walk the dog' },
      failing: 'expect checkbox "Toggle" [checked] in listitem "Buy milk" present, but there is none (present as [no state])',
    },
    {
      kind: 'control absent',
      question: 'Walk the dog is on the list',
      recorded: TWO_TODOS,
      regressed: { seed: 'Buy milk', done: 'Buy milk' },
      failing: 'expect listitem "Walk the dog" in list "Todos" present, but there is none',
    },
    {
      kind: 'control present',
      question: 'no todo is completed',
      recorded: { seed: 'Buy milk,Walk the dog' },
      regressed: { seed: 'Buy milk,Walk the dog,Feed the cat', done: 'Feed the cat' },
      failing: 'expect checkbox [checked] absent, but 1 is on the screen',
    },
  ];

  it.each(cases)('$kind: REPLAY_STALE without a model, a live judgment with one (the entry kept)', async ({ question, recorded, regressed, failing }) => {
    const { store, dir } = newStore();
    const key = await record(store, page(recorded), question);
    const before = snapshotTree(dir);

    const stale = await assertOnce(page(regressed), question, { store });
    expect(stale.outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'REPLAY_STALE' });
    expect(stale.outcome.verdict.summary).toContain(`its cached evidence no longer holds (end-mismatch: ${failing}`);
    expect(stale.outcome.verdict.summary).toContain('agents.default has no model to judge it live');
    expect(stale.outcome.modelCalls).toBe(0);
    expect(snapshotTree(dir)).toEqual(before);

    const strict = await assertOnce(page(regressed), question, { store, judge: screenJudge(RULES), strict: true });
    expect(strict.outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'REPLAY_STALE' });
    expect(strict.outcome.verdict.summary).toContain('strict mode makes no model call');
    expect(strict.outcome.modelCalls).toBe(0);

    const judge = screenJudge(RULES);
    const relive = await assertOnce(page(regressed), question, { store, judge });
    expect(judge.calls()).toBe(1);
    expect(relive.outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'ASSERTION_FAILED' });
    expect(relive.cache).toMatchObject({ mode: 'missed', reason: 'end-mismatch', entry: key });
    expect(relive.cache?.detail).toContain(failing);
    // The judge's failing answer keeps the recorded evidence: only a newer verified recording replaces it.
    expect(relive.write).toMatchObject({ write: 'kept', writeDetail: 'the step failed, nothing replaced the recorded entry' });
    expect(await store.read(key)).toMatchObject({ kind: 'hit' });
  });

  it('saves nothing for a failing judgment', async () => {
    const { store, dir } = newStore();
    const run = await assertOnce(page({ seed: 'Buy milk' }), 'Buy milk is completed', { store, judge: screenJudge(RULES) });
    expect(run.outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'ASSERTION_FAILED' });
    expect(run.write).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'no-change' });
    expect(snapshotTree(dir)).toEqual({});
  });
});

describe('evidence a judgment cannot rest on', () => {
  it('repairs unknown evidence ids once, then passes uncached; a model-free run then needs a model', async () => {
    const { store, dir } = newStore();
    const judge = screenJudge(RULES);
    const run = await assertOnce(page({ seed: 'Tea' }), 'Tea is listed', { store, judge });
    expect(run.outcome.verdict).toEqual({ status: 'passed', summary: 'Tea is listed.' });
    expect(run.outcome.modelCalls).toBe(2);
    expect(judge.prompts[1]).toContain('These evidence ids are not on the screen: n999.');
    expect(run.write).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'no-change' });
    expect(snapshotTree(dir)).toEqual({});

    const modelFree = await assertOnce(page({ seed: 'Tea' }), 'Tea is listed', { store });
    expect(modelFree.outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'MODEL_UNAVAILABLE' });
  });

  it('never rests on text the attempt typed, and keys a judgment after the acts before it', async () => {
    const { store } = newStore();
    await live.open(page());
    const judge = screenJudge(RULES);
    const first = judgedAttempt({ store, judge, typist: typist() });
    expect((await first.act('type {title} into the new todo box', { title: 'Buy bread' })).verdict.status).toBe('passed');
    const typed = await first.assert('the new todo box holds Buy bread');
    expect(typed.verdict.status).toBe('passed');
    expect((await first.act('add {title}', { title: 'Buy bread' })).verdict.status).toBe('passed');
    const listed = await first.assert('Buy bread is on the list');
    const reports = await first.finish();
    const typedKey = (typed.cache as CacheOutcome).entry!;
    expect(reports.find((report) => report.stepIndex === typed.index)?.outcome.write).toBe('no-change');
    expect(await store.read(typedKey)).toMatchObject({ kind: 'absent' });
    const listedEntry = (await read(store, (listed.cache as CacheOutcome).entry!))!;
    const actKeys = reports.filter((report) => report.stepIndex === 0 || report.stepIndex === 2).map((report) => report.outcome.entry);
    expect(listedEntry.keyParts.preceding).toEqual(actKeys);
    expect(endCheckLines(listedEntry)).toEqual([
      'expect listitem "Buy bread" in list "Todos" present',
      'expect checkbox "Toggle" [unchecked] in listitem "Buy bread" present',
    ]);

    // The same question after other acts is another key: a miss that names the change.
    await live.open(page());
    const other = judgedAttempt({ store, judge: screenJudge(RULES), typist: typist() });
    await other.act('add {title}', { title: 'Buy bread' });
    const after = await other.assert('Buy bread is on the list');
    await other.finish();
    expect(after.cache).toMatchObject({ mode: 'missed', reason: 'no-entry', detail: 'no entry; nearest entry of this test differs in the steps before it' });
  });
});

describe('waitFor', () => {
  it('replays by waiting for the recorded evidence, with no model', async () => {
    const { store } = newStore();
    await live.open(page({ synced: '500' }));
    const judge = screenJudge(RULES);
    const recording = judgedAttempt({ store, judge });
    const waited = await recording.waitFor('the status says Synced', { interval: 100 });
    expect(waited.verdict.status).toBe('passed');
    // How many looks it took depends on the machine's speed (a busy one may first look after the 500 ms); at least one judged.
    expect(judge.calls()).toBeGreaterThanOrEqual(1);
    expect((await recording.finish())[0]?.outcome.write).toBe('saved');

    await live.open(page({ synced: '500' }));
    const replay = judgedAttempt({ store });
    const outcome = await replay.waitFor('the status says Synced', { interval: 100 });
    await replay.finish();
    expect(outcome.verdict).toEqual({ status: 'passed', summary: 'It says Synced.' });
    expect(outcome.modelCalls).toBe(0);
    expect(outcome.cache).toMatchObject({ mode: 'self-finalized' });

    await live.open(page());
    const never = judgedAttempt({ store });
    // Long enough for a first look on a busy machine; the status never says Synced, so the replay waits it out.
    const stale = await never.waitFor('the status says Synced', { timeout: scaledTimeout(1_200) });
    await never.finish();
    expect(stale.verdict).toMatchObject({ status: 'blocked', errorCode: 'REPLAY_STALE' });
    expect(stale.verdict.summary).toMatch(/expect status with text "Synced" present, but there is none \(waited [\d.]+ s\)/);
  });
});

describe('extract', () => {
  const schema = z.object({ total: z.number() });

  async function extractOnce(path: string, options: Options, withSchema: z.ZodType = schema) {
    await live.open(path);
    const attempt = judgedAttempt(options);
    const outcome = await attempt.extract('the order total', withSchema);
    const reports = await attempt.finish();
    return { outcome, cache: outcome.cache as CacheOutcome | undefined, write: reports[0]?.outcome };
  }

  it('replays the value from the re-read nodes, and goes live or stale when they changed', async () => {
    const { store } = newStore();
    const recorded = await extractOnce(page({ total: '12.50' }), { store, judge: screenJudge(RULES) });
    expect(recorded.outcome.verdict).toMatchObject({ status: 'passed', value: { total: 12.5 } });
    expect(recorded.write).toMatchObject({ write: 'saved' });
    const key = recorded.write!.entry!;
    const entry = (await read(store, key))!;
    expect(entry.extracted).toBe('{"total":12.5}');
    expect(endCheckLines(entry)).toEqual(['expect text "Total: $12.50" present (exact text)']);

    const replay = await extractOnce(page({ total: '12.50' }), { store });
    expect(replay.outcome.verdict).toEqual({ status: 'passed', summary: 'The total line.', value: { total: 12.5 } });
    expect(replay.outcome.modelCalls).toBe(0);
    expect(replay.cache).toEqual({ mode: 'self-finalized', entry: key });

    const changed = await extractOnce(page({ total: '13.75' }), { store });
    expect(changed.outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'REPLAY_STALE' });
    expect(changed.outcome.verdict.summary).toContain('expect text "Total: $12.50" present (exact text), but there is none (nearest: text "Total: $13.75")');

    const reschema = await extractOnce(page({ total: '12.50' }), { store }, z.object({ total: z.string() }));
    expect(reschema.outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'REPLAY_STALE' });
    expect(reschema.outcome.verdict.summary).toContain('the recorded value no longer matches the schema');

    const judge = screenJudge(RULES);
    const relive = await extractOnce(page({ total: '13.75' }), { store, judge });
    expect(judge.calls()).toBe(1);
    expect(relive.outcome.verdict).toMatchObject({ status: 'passed', value: { total: 13.75 } });
    expect(relive.cache).toMatchObject({ mode: 'missed', reason: 'end-mismatch' });
    expect(relive.write).toMatchObject({ write: 'saved', entry: key });
    expect((await read(store, key))?.extracted).toBe('{"total":13.75}');
  });
});

describe('cache diff of judgment entries', () => {
  it('shows changed evidence as a line diff of sentences', async () => {
    const { store } = newStore();
    const key = await record(store, page({ status: 'Saved to the cloud' }), 'the status reads "Saved to the cloud"');
    const base = (await read(store, key))!;
    const head: JudgmentEntry = { ...base, evidence: [{ ...base.evidence[0]!, control: { ...base.evidence[0]!.control, text: 'Saved' } }] };
    expect(entryChanges(base, head).endChecks).toEqual([
      { change: 'removed', text: 'expect status with text "Saved to the cloud" present' },
      { change: 'added', text: 'expect status with text "Saved" present' },
    ]);
  });
});

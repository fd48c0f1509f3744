/**
 * A terminal target through the real `e2e` binary: the coffee order of examples/terminal in a
 * pseudo-terminal, recorded by the built-in agent through `@ai-sdk/openai-compatible` against a
 * loopback model server, then replayed model-free with the server stopped: no model call, and
 * no browser among the processes the run started (the process tree is sampled while it runs;
 * a Chromium path that does not exist is set, so a launch would fail). A planted regression in
 * the program fails as a regression (exit 1), a renamed menu item stops as drift (exit 2);
 * `cache diff` says the terminal steps in sentences, `cache mv` moves a renamed test's entries,
 * `cache prune` sweeps a dropped test's, and `cache audit` proves the entries can fail.
 *
 * The steps build on each other, in order. Once both tests are recorded, the runs that only read
 * the recorded cache (the planted bug, the renamed item, the diff, the example) and the chain that
 * moves, audits and prunes a copy of it start side by side with the hand-off, each in a lane of
 * the fixture (`tests/support/fixture-lane.ts`: a run writes its folder's `.e2e/`), and model-free
 * (`e2e replay` and the cache commands call no model): most of their time is a replay waiting
 * out the target wait of a step that cannot replay, or the program settling, not CPU. The
 * model-free replay of every recorded step is the moved cache's, once the hand-off is done and
 * the model server stopped: one replay checked for both (no replay of its own before the move).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportStep } from '../../runner/report.js';
import { coffeeModel } from '../support/coffee-model.js';
import { chatResponder, type ExchangeRequest } from '../support/model-exchange.js';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.js';
import { contentsOf } from '../support/directory-snapshot.js';
import { watchDescendants } from '../support/process-watch.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { ensureBuilt, ROOT } from '../runner/support/build.js';
import { startE2E, type E2ERun } from '../runner/support/e2e-process.js';
import { fixtureLane, type FixtureLane } from '../support/fixture-lane.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/terminal-coffee', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'terminal');
const LATTE = 'orders a latte with oat milk for Ada';
const ESPRESSO = 'orders an espresso with an extra shot for Bo';

let model: OpenAIServer;
const requests: ExchangeRequest[] = [];
let work: string;
let cacheDir: string;
/** The lanes of the runs that go side by side (removed at the end). */
const lanes: FixtureLane[] = [];

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    E2E_COFFEE_PROGRAM: join(ROOT, 'examples', 'terminal', 'app', 'coffee.mjs'),
    E2E_COFFEE_MODEL_URL: model.url,
    E2E_FIXTURE_CACHE_DIR: cacheDir,
    // Were a browser launched, it would fail: nothing here may need one.
    E2E_CHROMIUM_PATH: join(work, 'no-chromium-here'),
    ...extra,
  };
}

/** Run the binary (in the fixture project unless `cwd` says otherwise); the command lines of every process it started come back with it. */
async function e2e(args: string[], extra: Record<string, string> = {}, cwd = FIXTURE): Promise<E2ERun & { started: string[] }> {
  const { child, done } = startE2E(args, { cwd, env: env(extra) });
  const watch = watchDescendants(child.pid!);
  const run = await done;
  return { ...run, started: watch.stop() };
}

function output(run: E2ERun): string {
  return `${run.stdout}\n${run.stderr}`;
}

function stepsOf(run: E2ERun, title: string): ReportStep[] {
  const test = run.report?.tests.find((each) => each.titlePath.at(-1) === title);
  if (test === undefined) throw new Error(`no test "${title}" in the report:\n${output(run)}`);
  return test.attempts.at(-1)?.steps ?? [];
}

type Run = E2ERun & { started: string[] };

/** A lane of the fixture project for one side-by-side chain of runs (the cache stays where `E2E_FIXTURE_CACHE_DIR` says). */
function projectOfItsOwn(name: string): string {
  const lane = fixtureLane(FIXTURE, name);
  lanes.push(lane);
  return lane.folder;
}

/** A copy of the recorded cache, for a chain of runs that changes it. */
function cacheCopy(name: string): string {
  const copy = join(work, name);
  cpSync(cacheDir, copy, { recursive: true });
  return copy;
}

/** The latte test renamed: `cache mv` moves its entries; the audit and prune after it see the new title. */
const RENAMED = { E2E_COFFEE_LATTE_TITLE: 'orders a latte for Ada' };

/** `cache mv` as the miss suggests, on a copy of the cache: the replay that misses and the move. */
interface MoveRuns {
  missed: Run;
  moved: Run;
  /** The moved cache. */
  cache: string;
  /** The lane the move ran in. */
  project: string;
}

/** The replay of the moved cache, with the model server stopped once the hand-off recording is done: the model calls counted before and after it. */
interface ModelFreeReplay {
  replayed: Run;
  requestsBefore: number;
  requestsAfter: number;
}

/** `cache prune` of the dropped espresso test on the moved cache, then `cache ls` and a replay. */
interface PruneRuns {
  pruned: Run;
  listed: Run;
  replayed: Run;
}

/** Model-free runs that read the recorded cache, or change a copy of it, started together once it is recorded. */
interface SideBySide {
  /** `e2e record --grep espresso` on a copy of the cache, the program's OK button called Done: the one run here that calls the model. */
  handOff: Promise<Run & { requestsBefore: number }>;
  regression: Promise<Run>;
  drift: Promise<Run>;
  /** `e2e cache diff <an empty folder> <the cache>`: the two tests that read it look at different lines of the same diff. */
  emptyDiff: Promise<Run>;
  example: Promise<Run & { before: unknown; after: unknown }>;
  move: Promise<MoveRuns>;
  modelFree: Promise<ModelFreeReplay>;
  audit: Promise<Run>;
  prune: Promise<PruneRuns>;
}

let sideBySide: SideBySide | undefined;

/** Start (once) the model-free runs after the recording; each test awaits its own. */
function runsSideBySide(): SideBySide {
  if (sideBySide !== undefined) return sideBySide;
  const empty = join(work, 'empty-cache');
  mkdirSync(empty);
  const exampleCache = join(EXAMPLE, '.e2e', 'cache');
  const handOffCache = cacheCopy('hand-off-cache');
  const requestsBefore = requests.length;
  // The OK button is called Done: the recorded check mark replays, the tap on OK cannot.
  const handOff = e2e(['record', '--grep', 'espresso'], { COFFEE_FAULT: 'done-button', E2E_FIXTURE_CACHE_DIR: handOffCache }).then((run) => ({ ...run, requestsBefore }));
  const move = (async (): Promise<MoveRuns> => {
    const cache = cacheCopy('moved-cache');
    const project = projectOfItsOwn('move');
    const renamed = { ...RENAMED, E2E_FIXTURE_CACHE_DIR: cache };
    const missed = await e2e(['replay'], renamed, project);
    const moved = await e2e(['cache', 'mv', `tests/coffee.e2e.ts::${LATTE}`, 'orders a latte for Ada'], renamed, project);
    return { missed, moved, cache, project };
  })();
  // The moved cache replays model-free, with the model server stopped: the one model-free replay of all the recorded steps.
  const modelFree = move.then(async ({ cache, project }): Promise<ModelFreeReplay> => {
    await handOff.catch(() => undefined);
    await model.close();
    const before = requests.length;
    const replayed = await e2e(['replay'], { ...RENAMED, E2E_FIXTURE_CACHE_DIR: cache }, project);
    return { replayed, requestsBefore: before, requestsAfter: requests.length };
  });
  // The audit and the prune each work on a copy of the moved cache, taken before anything replays it.
  const audit = move.then(({ cache }) => {
    const audited = join(work, 'audited-cache');
    cpSync(cache, audited, { recursive: true });
    // The filters a user gives a run: a grep anchored at the title's end (the test's copies, its mutants, match it too) and the target.
    return e2e(['cache', 'audit', '--grep', 'latte for Ada$', '--project', 'terminal', '--json'], { ...RENAMED, E2E_FIXTURE_CACHE_DIR: audited }, projectOfItsOwn('audit'));
  });
  const prune = move.then(async ({ cache }): Promise<PruneRuns> => {
    const project = projectOfItsOwn('prune');
    const pruneCache = join(work, 'pruned-cache');
    cpSync(cache, pruneCache, { recursive: true });
    const dropped = { ...RENAMED, E2E_COFFEE_ESPRESSO: 'dropped', E2E_FIXTURE_CACHE_DIR: pruneCache };
    const pruned = await e2e(['cache', 'prune'], dropped, project);
    const listed = await e2e(['cache', 'ls', '--cache-dir', pruneCache], dropped, project);
    const replayed = await e2e(['replay'], dropped, project);
    return { pruned, listed, replayed };
  });
  sideBySide = {
    handOff,
    regression: e2e(['replay'], { COFFEE_FAULT: 'forget-extras' }, projectOfItsOwn('regression')),
    drift: e2e(['replay'], { COFFEE_FAULT: 'rename' }, projectOfItsOwn('drift')),
    emptyDiff: e2e(['cache', 'diff', empty, cacheDir, '--cache-dir', cacheDir], {}, projectOfItsOwn('diff')),
    example: (async () => {
      const before = contentsOf(exampleCache);
      const run = await e2e(['replay'], {}, EXAMPLE);
      return { ...run, before, after: contentsOf(exampleCache) };
    })(),
    move,
    modelFree,
    audit,
    prune,
  };
  // A run that fails to start rejects when its test awaits it, not before as an unhandled rejection.
  for (const started of Object.values(sideBySide)) started.catch(() => undefined);
  return sideBySide;
}

function browsersAmong(started: string[]): string[] {
  return started.filter((command) => /chrom|headless_shell|firefox|webkit/i.test(command));
}

beforeAll(async () => {
  ensureBuilt();
  model = await startOpenAIServer(chatResponder(coffeeModel, requests));
  work = mkdtempSync(join(tmpdir(), 'e2e-terminal-target-'));
  cacheDir = join(work, 'cache');
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
}, scaledTimeout(60_000));

afterAll(async () => {
  await model?.close();
  // Every run started has ended before its test did; a test that failed early may leave some running.
  if (sideBySide !== undefined) await Promise.allSettled(Object.values(sideBySide));
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
  for (const lane of lanes) lane.remove();
  rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
});

describe('a terminal target through the e2e binary', () => {
  it('records both tests through the provider package, saving every verified step, with no browser started', async () => {
    const run = await e2e(['record']);
    expect(run.exitCode, output(run)).toBe(0);
    expect(requests.length).toBeGreaterThan(0);
    expect(stepsOf(run, LATTE).map((step) => [step.kind, step.instruction, step.status, step.cache?.write])).toEqual([
      ['act', 'pick Latte from the drinks', 'passed', 'saved'],
      ['act', 'tick Oat milk', 'passed', 'saved'],
      ['act', 'confirm the extras', 'passed', 'saved'],
      ['act', 'give Ada as the name for the cup', 'passed', 'saved'],
      ['assert', 'the order placed is a Latte with oat milk for Ada', 'passed', 'saved'],
    ]);
    expect(stepsOf(run, ESPRESSO).map((step) => step.cache?.write)).toEqual(['saved', 'saved', 'saved', 'saved']);
    // The program ran in the pty; no browser did.
    expect(run.started.some((command) => command.includes('coffee.mjs'))).toBe(true);
    expect(browsersAmong(run.started)).toEqual([]);
  }, scaledTimeout(240_000));

  it('hands a step whose replay stopped part-way over to the agent with the actions that ran, on e2e record', async () => {
    // The runs after the recording start now, side by side: the hand-off, and the model-free ones that need only the recorded cache.
    const run = await runsSideBySide().handOff;
    const before = run.requestsBefore;
    expect(run.exitCode, output(run)).toBe(0);
    const steps = stepsOf(run, ESPRESSO);
    // (The first step's recorded outcome showed the OK button, so it is handed over too, from its start.)
    expect(steps.map((step) => step.cache?.mode)).toEqual([expect.any(String), 'agent-concluded', 'self-finalized', 'self-finalized']);
    expect(steps[1]).toMatchObject({ status: 'passed', cache: { reason: 'target-not-found', classification: 'drift', write: 'saved' } });
    const openings = requests.slice(before).map((request) => request.messages[0]?.text ?? '');
    const handedOver = openings.find((text) => text.includes('It ran 1 of its 2 actions, then stopped.'));
    expect(handedOver).toContain('1. check checkbox "Extra shot" in group "Extras for your Espresso"');
    // The agent did only what was left: one tap, on the button now called Done.
    expect(steps[1]?.modelCalls).toBeGreaterThan(0);
    expect(output(run)).not.toContain('REPLAY_STALE');
  }, scaledTimeout(240_000));

  it('replays every step model-free with the model server stopped: 0 model calls, 0 browsers', async () => {
    // The replay of the moved cache (the latte renamed, below): every step the recording saved, under the new title for the latte's.
    const { replayed: run, requestsBefore, requestsAfter } = await runsSideBySide().modelFree;
    expect(run.exitCode, output(run)).toBe(0);
    expect(run.report?.summary).toMatchObject({ modelCalls: 0, cache: { replayed: 9, handedOff: 0, recorded: 0, missed: 0, regressed: 0, stale: 0 } });
    expect(output(run)).toContain('Cache  9 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified');
    expect(requestsAfter).toBe(requestsBefore);
    expect(run.started.some((command) => command.includes('coffee.mjs'))).toBe(true);
    expect(browsersAmong(run.started)).toEqual([]);
  }, scaledTimeout(240_000));

  it('fails the step whose outcome the planted bug took away as a regression: exit 1', async () => {
    const run = await runsSideBySide().regression;
    expect(run.exitCode, output(run)).toBe(1);
    const latte = stepsOf(run, LATTE);
    expect(latte.slice(0, 3).map((step) => step.cache?.mode)).toEqual(['self-finalized', 'self-finalized', 'self-finalized']);
    expect(latte[3]).toMatchObject({ status: 'failed', errorCode: 'ASSERTION_FAILED', modelCalls: 0, cache: { reason: 'end-mismatch', classification: 'regression' } });
    expect(latte[3]?.cache?.detail).toContain('text "Order placed: Latte with oat milk for Ada"');
    // The espresso's extra shot is forgotten too: its naming step regresses the same way.
    expect(stepsOf(run, ESPRESSO)[2]).toMatchObject({ status: 'failed', errorCode: 'ASSERTION_FAILED', cache: { classification: 'regression' } });
    expect(run.report?.summary.cache).toMatchObject({ regressed: 2, stale: 0 });
  }, scaledTimeout(240_000));

  it('stops at the renamed menu item as drift before any key is sent: exit 2', async () => {
    const run = await runsSideBySide().drift;
    expect(run.exitCode, output(run)).toBe(2);
    expect(stepsOf(run, LATTE)[0]).toMatchObject({ status: 'blocked', errorCode: 'REPLAY_STALE', modelCalls: 0, cache: { reason: 'target-not-found', classification: 'drift' } });
    expect(stepsOf(run, LATTE)[0]?.cache?.detail).toContain('nearest: menuitem "Caffe latte"');
    expect(run.report?.summary.cache).toMatchObject({ regressed: 0, stale: 1 });
  }, scaledTimeout(240_000));

  it("rests a step's end check on what the test's own expect on the screen fixture looked at", async () => {
    const run = await runsSideBySide().emptyDiff;
    expect(run.exitCode, output(run)).toBe(0);
    // The espresso test checks the next screen's heading with expect(screen.getByText(…)); the latte test does not.
    expect(run.stdout).toContain('appeared: text "Extras for your Espresso" in dialog "Coffee" (verified)');
    expect(run.stdout).toContain('appeared: text "Extras for your Latte" in dialog "Coffee" (incidental)');
  }, scaledTimeout(60_000));

  it('describes the terminal steps in sentences in cache diff', async () => {
    const run = await runsSideBySide().emptyDiff;
    expect(run.exitCode, output(run)).toBe(0);
    expect(run.stdout).toContain('0 changed, 0 re-keyed, 9 added, 0 removed');
    for (const sentence of [
      '1. tap menuitem "Latte" in menu "Pick a drink"',
      '1. check checkbox "Oat milk" in group "Extras for your Latte"',
      '1. tap button "OK" in dialog "Coffee"',
      '1. type "Ada" into textbox "Name for the cup"',
      '2. press Enter',
      'expect text "Order placed: Latte with oat milk for Ada" present',
    ]) {
      expect(run.stdout).toContain(sentence);
    }
  }, scaledTimeout(60_000));

  it('moves a renamed test with cache mv, as the miss suggests, and replays it', async () => {
    const { missed, moved } = await runsSideBySide().move;
    const { replayed } = await runsSideBySide().modelFree;
    expect(missed.exitCode, output(missed)).toBe(2);
    expect(output(missed)).toContain(`e2e cache mv 'tests/coffee.e2e.ts::${LATTE}' 'tests/coffee.e2e.ts::orders a latte for Ada'`);
    expect(moved.exitCode, output(moved)).toBe(0);
    expect(moved.stdout).toContain(`Moved 5 entries of tests/coffee.e2e.ts::${LATTE} to tests/coffee.e2e.ts::orders a latte for Ada`);
    expect(replayed.exitCode, output(replayed)).toBe(0);
    expect(replayed.report?.summary).toMatchObject({ modelCalls: 0, cache: { replayed: 9 } });
  }, scaledTimeout(240_000));

  it('proves the latte entries can fail with cache audit, model-free', async () => {
    const run = await runsSideBySide().audit;
    expect(run.exitCode, output(run).slice(-4000)).toBe(0);
    const audit = JSON.parse(run.stdout) as { caught: number; total: number; entries: Array<{ testId: string; caught: number; total: number; survivors: string[] }>; notAudited: Array<{ reason: string; mutants: number; entries: Array<{ testId: string }>; include: string }> };
    expect(audit.entries).toHaveLength(5);
    expect(audit.entries.every((entry) => entry.testId.endsWith('::orders a latte for Ada'))).toBe(true);
    // The espresso test's entries, which the grep leaves out, are said to be, with how to audit them.
    expect(audit.notAudited).toEqual([expect.objectContaining({ reason: 'filter', include: "run the audit without --grep 'latte for Ada$' --project terminal, or with a filter that selects their tests" })]);
    expect(audit.notAudited[0]!.mutants).toBeGreaterThan(0);
    expect(audit.notAudited[0]!.entries.length).toBeGreaterThan(0);
    expect(audit.notAudited[0]!.entries.every((entry) => entry.testId.endsWith(`${ESPRESSO}`))).toBe(true);
    // Every action skipped, every keystroke swallowed (the break-handlers mutant) and the judgment's evidence hidden is caught.
    expect(audit.entries.flatMap((entry) => entry.survivors)).toEqual([]);
    expect({ caught: audit.caught, total: audit.total }).toEqual({ caught: 11, total: 11 });
    expect(browsersAmong(run.started)).toEqual([]);
  }, scaledTimeout(600_000));

  it('sweeps the entries of a dropped test with cache prune, and the rest still replays', async () => {
    const { pruned, listed, replayed } = await runsSideBySide().prune;
    expect(pruned.exitCode, output(pruned)).toBe(0);
    // The espresso's 4 entries: a ref and a blob each.
    expect(pruned.stdout).toMatch(/^Removed 8 items, [\d.]+ (B|KiB) freed; 5 entries kept\./);
    expect(pruned.stdout).toContain(ESPRESSO);
    expect(listed.stdout).toContain('5 entries in 1 test');
    expect(listed.stdout).not.toContain('espresso');
    expect(replayed.exitCode, output(replayed)).toBe(0);
    expect(replayed.report?.summary).toMatchObject({ modelCalls: 0, cache: { replayed: 5 } });
  }, scaledTimeout(240_000));
});

describe('the terminal example (examples/terminal)', () => {
  it('replays from its committed cache with no model, no key and no browser, and leaves the cache as it was', async () => {
    const run = await runsSideBySide().example;
    expect(run.exitCode, output(run)).toBe(0);
    expect(run.report?.summary).toMatchObject({ tests: { passed: 1, failed: 0 }, modelCalls: 0, cache: { replayed: 5, handedOff: 0, missed: 0, regressed: 0, stale: 0 } });
    expect(browsersAmong(run.started)).toEqual([]);
    expect(run.after).toEqual(run.before);
  }, scaledTimeout(240_000));
});

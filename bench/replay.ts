/**
 * Bench section `replay` (DESIGN §10: replaying a cached step costs close to the actions
 * themselves). A 10-action `act` step is recorded once through the real step runner and the
 * attempt cache; then, in one run and interleaved round by round on the same freshly loaded
 * page, the cached step is replayed (key, verified store read, target matching, policed
 * actions with settling, end check) and a plain Playwright script does the same 10 actions
 * and waits for the same outcome, as a hand-written test would.
 *
 * Figures, on a 1,000-element page: `replay_step_ms` and `playwright_step_ms` (medians of one
 * 10-action step) and `replay_vs_playwright_ratio` (goal ≤ 1.15, must be ≤ 1.3); and
 * `replay_vs_playwright_ratio_small_page`, the same on the form alone. Before and after
 * a full replay stopped recording its actions (its step is never written), side by side:
 * `replay_step_ms_recording_all` is the same replay, interleaved with it, with every replayed
 * action also fed to a step recorder as it happens (what the cache did with each before), and
 * `replay_recording_ms` is how much of that time the recorder took.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { FileCacheStore, initHashing } from '../cache-format/index.js';
import { surfaceOf, web } from '../engines/web/index.js';
import type { ScreenNode } from '../contract/engine.js';
import type { ActionEvent } from '../contract/step-seams.js';
import { StepRecorder } from '../recorder/record-step.js';
import type { StepContext, StepExecutor } from '../contract/step-contract.js';
import { startAttempt } from '../tests/support/attempt-harness.js';
import type { LiveScreen } from '../tests/support/live-screen.js';
import { htmlPages, serveStatic } from '../tests/support/static-server.js';
import { generatedPage } from './observe.js';
import type { BenchContext, BenchSection } from './run.js';

const INSTRUCTION = 'fill in the booking for {name} and submit it';
const NAME = 'Ada Lovelace';
const ROUNDS = 9;
const WARMUP_ROUNDS = 2;

/** A booking form on top of the observe bench's generated page of about `elements` elements (0: the form alone). */
function bookingPage(elements: number): string {
  const form =
    '<form id="booking" onsubmit="event.preventDefault(); document.getElementById(\'status\').textContent = \'Booked \' + this.elements.name.value">' +
    '<label>Name <input name="name" autocomplete="off"></label> <label>Email <input name="email" autocomplete="off"></label> ' +
    '<label>City <input name="city" autocomplete="off"></label> <label>Plan <select name="plan"><option>Basic</option><option>Pro</option></select></label> ' +
    '<label><input type="checkbox" name="news"> Newsletter</label> <label><input type="checkbox" name="terms"> Accept terms</label> ' +
    '<button type="button" onclick="const g = document.getElementById(\'guests\'); g.textContent = String(Number(g.textContent) + 1)">Add guest</button> ' +
    'Guests: <output id="guests">0</output> <label>Notes <textarea name="notes"></textarea></label> <button>Book</button></form>' +
    '<div role="status" id="status"></div>';
  if (elements === 0) return `<!doctype html><html><head><meta charset="utf-8"><title>Booking</title></head><body><main>${form}</main></body></html>`;
  return generatedPage(elements).replace('<main class="mx-auto max-w-3xl">', `<main class="mx-auto max-w-3xl">${form}`);
}

function find(root: ScreenNode, role: string, name: string): ScreenNode {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.role === role && node.name === name) return node;
    stack.push(...node.children);
  }
  throw new Error(`bench page lost ${role} "${name}"`);
}

/** The recording run's stand-in for the model: the ten actions, each found on a fresh screen. */
const bookingExecutor: StepExecutor = {
  name: 'bench-script',
  async runStep(context: StepContext) {
    const target = async (role: string, name: string) => ({ id: find((await context.observe({ tree: true })).tree!, role, name).id });
    await context.actions.type(await target('textbox', 'Name'), NAME, { replace: true });
    await context.actions.type(await target('textbox', 'Email'), 'ada@example.com', { replace: true });
    await context.actions.type(await target('textbox', 'City'), 'London', { replace: true });
    await context.actions.select(await target('combobox', 'Plan'), 'Pro');
    await context.actions.check(await target('checkbox', 'Newsletter'), true);
    await context.actions.check(await target('checkbox', 'Accept terms'), true);
    await context.actions.tap(await target('button', 'Add guest'));
    await context.actions.tap(await target('button', 'Add guest'));
    await context.actions.type(await target('textbox', 'Notes'), 'Window seat', { replace: true });
    await context.actions.tap(await target('button', 'Book'));
    return { status: 'passed', summary: `Booked for ${NAME}.` };
  },
};

/** The same ten actions as a hand-written Playwright script, ending on the same outcome. */
async function playwrightScript(page: Page): Promise<void> {
  await page.getByRole('textbox', { name: 'Name' }).fill(NAME);
  await page.getByRole('textbox', { name: 'Email' }).fill('ada@example.com');
  await page.getByRole('textbox', { name: 'City' }).fill('London');
  await page.getByRole('combobox', { name: 'Plan' }).selectOption('Pro');
  await page.getByRole('checkbox', { name: 'Newsletter' }).check();
  await page.getByRole('checkbox', { name: 'Accept terms' }).check();
  await page.getByRole('button', { name: 'Add guest' }).click();
  await page.getByRole('button', { name: 'Add guest' }).click();
  await page.getByRole('textbox', { name: 'Notes' }).fill('Window seat');
  await page.getByRole('button', { name: 'Book' }).click();
  await page.getByRole('status').filter({ hasText: `Booked ${NAME}` }).waitFor();
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Figures of one page, medians over the measured rounds. */
interface Comparison {
  replayMs: number;
  /** The same replay recording every replayed action as it goes, as replays did before a full replay stopped recording. */
  replayRecordingMs: number;
  scriptMs: number;
  observeMs: number;
  actionMs: number;
  /** Of `replayRecordingMs`, the time spent in the recorder. */
  recordingMs: number;
}

/**
 * Median milliseconds of the cached step's replay (as it is now, and recording its actions as
 * before) and of the script, interleaved round by round on `path`; the two replays swap order
 * every round so neither always runs on a page the other just warmed.
 */
async function compare(live: LiveScreen, page: Page, path: string, folder: string): Promise<Comparison> {
  const open = async (): Promise<void> => {
    await live.instance.session.open('about:blank');
    await live.instance.session.open(`${live.server.origin}${path}`);
  };
  const store = new FileCacheStore(join(folder, path.slice(1)));
  await open();
  const recording = startAttempt(live, { cache: { store }, executor: bookingExecutor });
  const recorded = await recording.act(INSTRUCTION, { name: NAME });
  recording.verify();
  const [report] = await recording.finish();
  if (recorded.verdict.status !== 'passed' || report?.outcome.write !== 'saved') {
    throw new Error(`the bench step was not recorded on ${path}: ${recorded.verdict.summary} (${JSON.stringify(report?.outcome)})`);
  }
  /** One replay; `recordAll`: every action also goes to a recorder as it happens (the work replays did before). */
  const replay = async (round: number, recordAll: boolean): Promise<{ ms: number; observeMs: number; actionMs: number; recordingMs: number }> => {
    await open();
    const recorder = new StepRecorder({ instruction: INSTRUCTION, literalParams: { name: NAME } });
    let recordingMs = 0;
    const onAction = (event: ActionEvent): void => {
      const started = performance.now();
      recorder.recordEvent(event);
      recordingMs += performance.now() - started;
    };
    const attempt = startAttempt(live, { cache: { store, waitForTargetMs: 5_000 }, onAction: recordAll ? onAction : undefined });
    const started = performance.now();
    const replayed = await attempt.act(INSTRUCTION, { name: NAME });
    const ms = performance.now() - started;
    await attempt.finish();
    const mode = (replayed.cache as { mode?: string } | undefined)?.mode;
    if (mode !== 'self-finalized') throw new Error(`${path} round ${round}: the step did not replay (${JSON.stringify(replayed.cache)})`);
    if (recordAll && recorder.actions.length !== 10) throw new Error(`${path} round ${round}: ${recorder.actions.length} of 10 replayed actions recorded`);
    const timing = attempt.runner.records[0]?.timing;
    return { ms, observeMs: timing?.observeMs ?? 0, actionMs: timing?.actionMs ?? 0, recordingMs };
  };
  const times = { replay: [] as number[], replayRecording: [] as number[], script: [] as number[], observe: [] as number[], action: [] as number[], recording: [] as number[] };
  for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
    const first = round % 2 === 0;
    const now = first ? await replay(round, false) : undefined;
    const before = await replay(round, true);
    const after = now ?? (await replay(round, false));

    await open();
    const started = performance.now();
    await playwrightScript(page);
    const scriptMs = performance.now() - started;
    if (round >= WARMUP_ROUNDS) {
      times.replay.push(after.ms);
      times.replayRecording.push(before.ms);
      times.script.push(scriptMs);
      times.observe.push(after.observeMs);
      times.action.push(after.actionMs);
      times.recording.push(before.recordingMs);
    }
  }
  return {
    replayMs: median(times.replay),
    replayRecordingMs: median(times.replayRecording),
    scriptMs: median(times.script),
    observeMs: median(times.observe),
    actionMs: median(times.action),
    recordingMs: median(times.recording),
  };
}

/** The `replay` section. */
export const replaySection: BenchSection = {
  name: 'replay',
  async run(context: BenchContext): Promise<Record<string, number>> {
    await initHashing();
    const server = await serveStatic(undefined);
    const pages = new Map([
      ['/booking', bookingPage(1000)],
      ['/booking-small', bookingPage(0)],
    ]);
    server.route(htmlPages(pages));
    const engine = web({ env: { PATH: context.env['PATH'], E2E_CHROMIUM_PATH: context.env['E2E_CHROMIUM_PATH'] } });
    const folder = mkdtempSync(join(tmpdir(), 'e2e-bench-replay-'));
    try {
      const instance = await engine.start({ baseUrl: server.url });
      const live: LiveScreen = { server, engine, instance, open: async () => instance.observe(), close: async () => undefined };
      const page = surfaceOf(engine).page();
      const large = await compare(live, page, '/booking', folder);
      context.log(
        `  1k-element page: replay ${large.replayMs.toFixed(1)} ms (observing ${large.observeMs.toFixed(1)}, acting ${large.actionMs.toFixed(1)}) vs Playwright ${large.scriptMs.toFixed(1)} ms for 10 actions; ` +
          `recording every replayed action as before: ${large.replayRecordingMs.toFixed(1)} ms (${large.recordingMs.toFixed(2)} of it in the recorder)`,
      );
      const small = await compare(live, page, '/booking-small', folder);
      context.log(`  form-only page: replay ${small.replayMs.toFixed(1)} ms (observing ${small.observeMs.toFixed(1)}, acting ${small.actionMs.toFixed(1)}) vs Playwright ${small.scriptMs.toFixed(1)} ms for 10 actions`);
      await instance.close();
      return {
        replay_step_ms: Number(large.replayMs.toFixed(1)),
        replay_observe_ms: Number(large.observeMs.toFixed(1)),
        replay_action_ms: Number(large.actionMs.toFixed(1)),
        replay_step_ms_recording_all: Number(large.replayRecordingMs.toFixed(1)),
        replay_recording_ms: Number(large.recordingMs.toFixed(2)),
        playwright_step_ms: Number(large.scriptMs.toFixed(1)),
        replay_vs_playwright_ratio: Number((large.replayMs / large.scriptMs).toFixed(3)),
        replay_vs_playwright_ratio_small_page: Number((small.replayMs / small.scriptMs).toFixed(3)),
      };
    } finally {
      await engine.dispose?.();
      await server.close();
      rmSync(folder, { recursive: true, force: true });
    }
  },
};

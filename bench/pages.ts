/**
 * Bench section `pages` (issue 34): a page of 200,000 list items in Chromium (a log viewer with
 * no virtualisation, `engines/web/fixtures/huge.html`), measured through the real step runner
 * and attempt cache, in one run:
 *
 * - `observe_ms_200k`: one `ctx.observe()` as an executor gets it, its text read (median of
 *   {@link OBSERVE_RUNS}); `observe_nodes_200k`, `observe_text_bytes_200k`, `observe_left_out_200k`:
 *   the nodes the engine read, the screen text's size, the nodes it says it left out;
 * - `observe_ms_200k_unbounded`: the engine reading every node (what `ctx.observe()` cost
 *   before screens were bounded), once, for comparison;
 * - `find_ms_200k`: `ctx.observe({ find })` reaching an item the screen left out;
 * - `replay_step_ms_200k`: the model-free replay of a recorded step that taps an item only
 *   `find` reaches, then "Last" (median of {@link ROUNDS} rounds, each on a freshly loaded page,
 *   the load not counted).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileCacheStore, initHashing } from '../cache-format/index.js';
import { surfaceOf, web } from '../engines/web/index.js';
import type { Engine, EngineInstance } from '../contract/engine.js';
import type { StepContext, StepExecutor } from '../contract/step-contract.js';
import { startAttempt } from '../tests/support/attempt-harness.js';
import { serveStatic } from '../tests/support/static-server.js';
import type { BenchContext, BenchSection } from './run.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'engines', 'web', 'fixtures');
const INSTRUCTION = 'select item 150,000 of the log, then go to the last item';
const OBSERVE_RUNS = 7;
const ROUNDS = 5;
const WARMUP_ROUNDS = 1;
/** Loading 200,000 items takes Chromium seconds, more on a busy machine. */
const LOAD_TIMEOUT_MS = 180_000;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The id of the line `#id role "name"` of a screen text. */
function idOn(text: string, role: string, name: string): string {
  const match = new RegExp(`#(\\S+) ${role} "${name}"`).exec(text);
  if (match === null) throw new Error(`the bench page lost ${role} "${name}"`);
  return match[1]!;
}

/** What the recording run measured from inside the step. */
interface StepFigures {
  observeMs: number[];
  findMs: number;
  textBytes: number;
  leftOut: number;
  nodes: number;
}

/** The recording run's stand-in for the model: observes (timed), finds item 150,000 and taps it, then taps "Last". */
function pagesExecutor(figures: StepFigures): StepExecutor {
  return {
    name: 'bench-pages',
    async runStep(context: StepContext) {
      let text = '';
      for (let run = 0; run < OBSERVE_RUNS; run++) {
        const started = performance.now();
        const screen = await context.observe();
        text = screen.text;
        figures.observeMs.push(performance.now() - started);
        figures.leftOut = screen.leftOut ?? 0;
        figures.nodes = screen.nodeCount;
      }
      figures.textBytes = Buffer.byteLength(text);
      if (text.includes('"Item 150,000"')) throw new Error('the bounded screen showed item 150,000; the bench needs it left out');
      const started = performance.now();
      const found = await context.observe({ find: 'Item 150,000' });
      figures.findMs = performance.now() - started;
      const item = found.found?.ids[0];
      if (item === undefined) throw new Error(`find did not reach item 150,000: ${JSON.stringify(found.found)}`);
      await context.actions.tap({ id: item });
      await context.actions.tap({ id: idOn((await context.observe()).text, 'button', 'Last') });
      return { status: 'passed', summary: 'Selected item 150,000, then went to the last item.' };
    },
  };
}

/** The `pages` section. */
export const pagesSection: BenchSection = {
  name: 'pages',
  async run(context: BenchContext): Promise<Record<string, number>> {
    await initHashing();
    const server = await serveStatic(FIXTURES);
    const engine = web({ env: { PATH: context.env['PATH'], E2E_CHROMIUM_PATH: context.env['E2E_CHROMIUM_PATH'] } });
    const folder = mkdtempSync(join(tmpdir(), 'e2e-bench-pages-'));
    try {
      // Each run is an attempt of its own, as each test is: a fresh browser context on the page, loaded.
      const attempt = async (): Promise<{ instance: EngineInstance; engine: Engine; origin: string }> => {
        const instance = await engine.start({ baseUrl: server.url });
        const page = surfaceOf(engine).page();
        await page.goto(`${server.origin}/huge.html`, { waitUntil: 'load', timeout: LOAD_TIMEOUT_MS });
        // Until the list is laid out and drawn once, the page is still loading: two frames.
        await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
        return { instance, engine, origin: server.origin };
      };
      const store = new FileCacheStore(join(folder, 'cache'));

      let screen = await attempt();
      const figures: StepFigures = { observeMs: [], findMs: 0, textBytes: 0, leftOut: 0, nodes: 0 };
      const recording = startAttempt(screen, { cache: { store }, executor: pagesExecutor(figures) });
      const recorded = await recording.act(INSTRUCTION);
      recording.verify();
      const [report] = await recording.finish();
      if (recorded.verdict.status !== 'passed' || report?.outcome.write !== 'saved') {
        throw new Error(`the bench step was not recorded: ${recorded.verdict.summary} (${JSON.stringify(report?.outcome)})`);
      }
      await screen.instance.close();
      // The first observation of a page warms it up; the median is of the rest.
      const observeMs = median(figures.observeMs.slice(1));
      context.log(`  200,000 items: ctx.observe() ${observeMs.toFixed(0)} ms, ${figures.nodes} nodes read, text ${figures.textBytes} B, ${figures.leftOut} left out; find ${figures.findMs.toFixed(0)} ms`);

      const replayTimes: number[] = [];
      for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
        screen = await attempt();
        const replaying = startAttempt(screen, { cache: { store, waitForTargetMs: 10_000 } });
        const started = performance.now();
        const replayed = await replaying.act(INSTRUCTION);
        const replayMs = performance.now() - started;
        await replaying.finish();
        await screen.instance.close();
        const mode = (replayed.cache as { mode?: string } | undefined)?.mode;
        if (mode !== 'self-finalized') throw new Error(`round ${round}: the step did not replay (${JSON.stringify(replayed.cache)})`);
        if (round >= WARMUP_ROUNDS) replayTimes.push(replayMs);
      }
      const replayMs = median(replayTimes);
      context.log(`  200,000 items: model-free replay of the step (find-only item, then "Last") ${replayMs.toFixed(0)} ms`);

      screen = await attempt();
      const started = performance.now();
      const unbounded = await screen.instance.observe();
      const unboundedMs = performance.now() - started;
      context.log(`  200,000 items, every node read: ${unboundedMs.toFixed(0)} ms, ${unbounded.nodeCount} nodes`);
      await screen.instance.close();
      return {
        observe_ms_200k: Number(observeMs.toFixed(1)),
        observe_nodes_200k: figures.nodes,
        observe_text_bytes_200k: figures.textBytes,
        observe_left_out_200k: figures.leftOut,
        observe_ms_200k_unbounded: Number(unboundedMs.toFixed(1)),
        find_ms_200k: Number(figures.findMs.toFixed(1)),
        replay_step_ms_200k: Number(replayMs.toFixed(1)),
      };
    } finally {
      await engine.dispose?.();
      await server.close();
      rmSync(folder, { recursive: true, force: true });
    }
  },
};

/**
 * Bench section `agent` (DESIGN §10: runner overhead per agent turn, with an instant model,
 * on a 1,000-node page ≤ 50 ms). The built-in agent runs one act step of many turns through
 * the real step runner over real Chromium; the model answers instantly from a script, so the
 * time per turn is the runner's and the agent's own work plus the browser's.
 *
 * Figures (milliseconds are means per turn; a turn is one model call and its tool call):
 * - `agent_turn_overhead_ms`: time outside the model and outside the engine's action call
 *   (observing, settling, diffing, prompt building, tool plumbing); goal ≤ 50;
 * - `agent_turn_runner_ms`: the part of it inside `ctx.actions` / `ctx.observe` (authorize,
 *   settle after the action, observe, diff), i.e. the step runner's share;
 * - `agent_turn_screen_ms`: the part of the runner's share spent in the engine observing and
 *   waiting for change (settling), the rest being redaction, rendering and diffing;
 * - `agent_turn_loop_ms`: the rest, the agent's own share (history, elision, tool results,
 *   the AI SDK call with an instant model);
 * - `agent_turn_ms`: wall time, the engine's action included;
 * - `agent_step_start_ms`: from the step's start to its first model call (the first screen: the
 *   wait for the freshly loaded page to hold still, what is left of `MOUNT_QUIET_MS` since its
 *   load, with the first observation inside it), once per step, included above divided over
 *   the model calls;
 * - `agent_turn_overhead_after_start_ms`: `agent_turn_overhead_ms` without that start, i.e. per
 *   model call after the first (informational; the target is on `agent_turn_overhead_ms`);
 * - `agent_turn_engine_action_ms`: time inside the engine's action call;
 * - `agent_engine_observations_per_turn`: engine observations per turn;
 * - `agent_engine_change_waits_per_turn`: `waitForChange` calls per turn (settling in the engine);
 * - `agent_page_nodes`: listed nodes of the page (the text screen's node count);
 * - `agent_prompt_bytes_per_turn`: mean bytes of the prompt messages sent per model call;
 * - `agent_prompt_bytes_first_turn`: bytes of the opening prompt (brief + whole screen).
 *
 * Run alone with `node --import tsx bench/agent.ts`.
 */
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { fileURLToPath } from 'node:url';
import { createAgent } from '../executor/create-agent.js';
import { web } from '../engines/web/index.js';
import type { EngineInstance } from '../contract/engine.js';
import type { StepContext, StepExecutor } from '../contract/step-contract.js';
import { htmlPages, serveStatic } from '../tests/support/static-server.js';
import { startAttempt, startPoliced } from '../tests/support/attempt-harness.js';
import type { BenchContext, BenchSection } from './run.js';

const TURNS = 20;
const ROWS = 495;

/** A page of about 1,000 listed nodes: rows of a list item and a button, plus a counter. */
function thousandNodePage(): string {
  const rows = Array.from({ length: ROWS }, (_, index) => `<li>Row ${index} <button type="button">Archive ${index}</button></li>`).join('');
  return (
    '<!doctype html><html><head><meta charset="utf-8"><title>Rows</title></head><body><main>' +
    '<button type="button" id="next" onclick="document.getElementById(\'count\').textContent = \'Count \' + (++window.count)">Next</button>' +
    `<p role="status" id="count">Count 0</p><ul aria-label="Rows">${rows}</ul></main><script>window.count = 0;</script></body></html>`
  );
}

/** The engine instance with its action calls timed and its observations counted. */
function timedInstance(instance: EngineInstance, spent: { ms: number; observations: number; changeWaits: number; screenMs: number }): EngineInstance {
  const timing =
    (field: 'ms' | 'screenMs') =>
    async <T>(work: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      try {
        return await work();
      } finally {
        spent[field] += performance.now() - started;
      }
    };
  const timed = timing('ms');
  const screen = timing('screenMs');
  const wrapper: EngineInstance = {
    session: instance.session,
    observe: (options) => {
      spent.observations++;
      return screen(() => instance.observe(options));
    },
    perform: (ref, action, options) => timed(() => instance.perform(ref, action, options)),
    performOnPage: (action, options) => timed(() => instance.performOnPage(action, options)),
    screenshot: (options) => instance.screenshot(options),
    close: () => instance.close(),
  };
  if (instance.onNavigationRequest !== undefined) wrapper.onNavigationRequest = (listener) => instance.onNavigationRequest!(listener);
  // Waiting in the engine is settling, the runner's overhead: forwarded, not timed as action.
  if (instance.waitForChange !== undefined) {
    wrapper.waitForChange = (since, options) => {
      spent.changeWaits++;
      return screen(() => instance.waitForChange!(since, options));
    };
  }
  return wrapper;
}

/** An instant model: taps Next `turns` times (the id is read off the first screen), then concludes. */
function instantModel(turns: number, promptBytes: number[], firstCall: { at?: number } = {}): MockLanguageModelV3 {
  let nextId: string | undefined;
  const result = (toolName: string, input: unknown) => ({
    content: [{ type: 'tool-call' as const, toolCallId: `call-${promptBytes.length}`, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage: { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } },
    warnings: [],
  });
  return new MockLanguageModelV3({
    doGenerate: (options: LanguageModelV3CallOptions) => {
      firstCall.at ??= performance.now();
      promptBytes.push(Buffer.byteLength(JSON.stringify(options.prompt)));
      if (nextId === undefined) {
        const opening = JSON.stringify(options.prompt);
        nextId = /#(\S+) button \\"Next\\"/.exec(opening)?.[1] ?? 'missing';
      }
      if (promptBytes.length > turns) return Promise.resolve(result('complete_step', { status: 'passed', summary: 'Counted.' }));
      return Promise.resolve(result('tap', { target: nextId }));
    },
  });
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** The executor with the time it spends inside `ctx.actions` and `ctx.observe` added to `inside.ms`. */
function timedExecutor(executor: StepExecutor, inside: { ms: number }): StepExecutor {
  const timed =
    <Arguments extends unknown[], Result>(work: (...args: Arguments) => Promise<Result>) =>
    async (...args: Arguments): Promise<Result> => {
      const started = performance.now();
      try {
        return await work(...args);
      } finally {
        inside.ms += performance.now() - started;
      }
    };
  return {
    ...executor,
    runStep: (ctx: StepContext) => {
      const actions = Object.fromEntries(
        Object.entries(ctx.actions).map(([name, action]) => [name, timed(action as (...args: unknown[]) => Promise<unknown>)]),
      ) as unknown as StepContext['actions'];
      return executor.runStep({ ...ctx, actions, observe: timed((options) => ctx.observe(options)) });
    },
  };
}

/** Run the agent bench and return its figures. */
export async function runAgentBench(context: BenchContext): Promise<Record<string, number>> {
  const server = await serveStatic(undefined);
  server.route(htmlPages(new Map([['/rows', thousandNodePage()]])));
  const engine = web({ env: context.env });
  try {
    const measure = async (turns: number) => {
      const { instance, police } = await startPoliced(engine, server.url);
      try {
        await instance.session.open(`${server.origin}/rows`);
        const spent = { ms: 0, observations: 0, changeWaits: 0, screenMs: 0 };
        const inside = { ms: 0 };
        const promptBytes: number[] = [];
        const firstCall: { at?: number } = {};
        const model = instantModel(turns, promptBytes, firstCall);
        const { runner } = police(
          startAttempt(
            { instance: timedInstance(instance, spent), engine, origin: server.origin },
            { executor: timedExecutor(createAgent({ model }), inside), context: '', limits: { maxModelCalls: turns + 2, maxSteps: turns + 2 }, debug: true },
          ),
        );
        const started = performance.now();
        const outcome = await runner.runStep('act', `tap Next ${turns} times`);
        const elapsed = performance.now() - started;
        if (outcome.verdict.status !== 'passed') throw new Error(`the bench step did not pass: ${outcome.verdict.summary}`);
        const nodes = (await instance.observe()).nodeCount;
        return { elapsed, start: (firstCall.at ?? started) - started, spent: spent.ms, observations: spent.observations, changeWaits: spent.changeWaits, screenMs: spent.screenMs, inside: inside.ms, calls: promptBytes.length, promptBytes, nodes };
      } finally {
        await instance.close();
      }
    };
    context.log('bench: agent warm-up…');
    await measure(3);
    context.log(`bench: agent ${TURNS} turns on a 1,000-node page…`);
    const run = await measure(TURNS);
    const perTurn = run.elapsed / run.calls;
    const actionPerTurn = run.spent / run.calls;
    const runnerPerTurn = (run.inside - run.spent) / run.calls;
    return {
      agent_turn_overhead_ms: round(perTurn - actionPerTurn),
      agent_turn_runner_ms: round(runnerPerTurn),
      agent_turn_loop_ms: round(perTurn - actionPerTurn - runnerPerTurn),
      agent_turn_screen_ms: round(run.screenMs / run.calls),
      agent_engine_observations_per_turn: round(run.observations / run.calls),
      agent_engine_change_waits_per_turn: round(run.changeWaits / run.calls),
      agent_turn_ms: round(perTurn),
      agent_step_start_ms: round(run.start),
      agent_turn_overhead_after_start_ms: round((run.elapsed - run.start - run.spent) / Math.max(1, run.calls - 1)),
      agent_turn_engine_action_ms: round(actionPerTurn),
      agent_page_nodes: run.nodes,
      agent_prompt_bytes_per_turn: Math.round(run.promptBytes.reduce((total, bytes) => total + bytes, 0) / run.promptBytes.length),
      agent_prompt_bytes_first_turn: run.promptBytes[0] ?? 0,
    };
  } finally {
    await engine.dispose?.();
    await server.close();
  }
}

/** The `agent` section for `bench/run.ts`. */
export const agentSection: BenchSection = { name: 'agent', run: runAgentBench };

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const log = (line: string): void => {
    process.stderr.write(line + '\n');
  };
  runAgentBench({ env: process.env, log }).then(
    (figures) => process.stdout.write(JSON.stringify(figures, null, 2) + '\n'),
    (error: unknown) => {
      process.stderr.write(`agent bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

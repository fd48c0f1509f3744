/**
 * The terminal corpus, both ways: an order recorded once through the cache on one program, then
 * replayed model-free (read-only, strict, no executor call) on the same program, on the other
 * program drawing the same script's dialogs (dialog ↔ whiptail), and on the other release of
 * @inquirer/prompts (v7 ↔ v3); and on planted bugs that the cache must never pass: Banana
 * renamed in the menu (drift: the replay stops before any key lands) and the wrong fruit in the
 * summary (a regression: every key landed, the recorded outcome did not appear). Every key of a
 * replay lands on the control it was recorded on.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../cache-format/file-cache-store.js';
import type { CacheOutcome } from '../../contract/cache-outcome.js';
import type { ScreenNode } from '../../contract/engine.js';
import type { StepContext, StepExecutor, StepVerdict } from '../../contract/step-contract.js';
import type { TerminalApp } from '../../engines/terminal/index.js';
import { startAttempt, type AttemptHarness } from '../support/attempt-harness.js';
import { temporaryFolder } from '../support/cache-fixtures.js';
import { nodesOf, openTerminal, orderPrompts, orderScript, shows, type OpenTerminal, type OrderFault } from '../support/terminal-programs.js';
import { corpusTable } from './support/corpus-step.js';

/** A node of `tree` by role and name (case folded), for the scripted recording. */
function find(tree: ScreenNode, role: string, name: string): { id: string } {
  const node = nodesOf(tree).find((each) => each.role === role && each.name.toLowerCase() === name.toLowerCase());
  if (node === undefined) throw new Error(`No ${role} "${name}" on the screen.`);
  return { id: node.id };
}

/** One step of the flow: what it asks, how the recording executor does it, and the user's own check. */
interface FlowStep {
  instruction: string;
  perform(ctx: StepContext, tree: ScreenNode): Promise<void>;
  /** The screen shows this once the step happened. */
  shows: string;
}

/** A step that answers a field: type the value, then Enter. */
function answerStep(instruction: string, field: string, value: string, shows: string): FlowStep {
  return {
    instruction,
    perform: async (ctx, tree) => {
      await ctx.actions.type(find(tree, 'textbox', field), value);
      await ctx.actions.press(undefined, 'Enter');
    },
    shows,
  };
}

const DIALOG_FLOW: FlowStep[] = [
  { instruction: 'pick Banana', perform: async (ctx, tree) => void (await ctx.actions.tap(find(tree, 'menuitem', 'b Banana'))), shows: 'Toppings' },
  {
    instruction: 'add nuts to the toppings and go on',
    perform: async (ctx, tree) => {
      await ctx.actions.check(find(tree, 'checkbox', 'nuts Nuts'));
      const after = (await ctx.observe({ tree: true })).tree!;
      await ctx.actions.tap(find(after, 'button', 'OK'));
    },
    shows: 'Your name',
  },
  answerStep('give the name Ada', 'Your name', 'Ada', 'Password'),
  answerStep('sign with the password', 'Password', 'pantry42', 'Place the order?'),
  { instruction: 'place the order', perform: async (ctx, tree) => void (await ctx.actions.tap(find(tree, 'button', 'Yes'))), shows: 'Order for Ada: Banana with nuts honey, placed: yes' },
];

const PROMPTS_FLOW: FlowStep[] = [
  { instruction: 'pick Banana', perform: async (ctx, tree) => void (await ctx.actions.tap(find(tree, 'menuitem', 'Banana'))), shows: 'Your name' },
  answerStep('give the name Bob', 'Your name', 'Bob', 'Password'),
  answerStep('sign with the password', 'Password', 'pantry42', 'Place the order?'),
  answerStep('confirm the order', 'Place the order?', 'y', 'Order for Bob: Banana, placed: yes'),
];

/** The recording executor: does each step as scripted, counting its calls (a replay makes none). */
function scriptedExecutor(flow: readonly FlowStep[]): StepExecutor & { calls: number } {
  const executor = {
    name: 'terminal-script',
    calls: 0,
    async runStep(ctx: StepContext): Promise<StepVerdict> {
      executor.calls++;
      const step = flow.find((each) => each.instruction === ctx.step.instruction)!;
      await step.perform(ctx, (await ctx.observe({ tree: true })).tree!);
      return { status: 'passed', summary: `Did: ${step.instruction}.` };
    },
  };
  return executor;
}

const open: OpenTerminal[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((each) => each.close()));
});

/** How one run of a flow went. */
interface FlowRun {
  outcomes: Array<CacheOutcome | undefined>;
  /** What the cache wrote when the attempt ended, per step. */
  writes: string[];
  codes: Array<string | undefined>;
  /** What the screen showed when a step did not pass (its text lines), for the details under the table. */
  shown?: string;
  executorCalls: number;
  /** The sentences of the actions the steps performed, in order. */
  performed: string[];
}

async function runFlow(app: TerminalApp, flow: readonly FlowStep[], cacheFolder: string, mode: 'read-write' | 'read-only'): Promise<FlowRun> {
  const program = await openTerminal(app);
  open.push(program);
  await program.settled();
  const executor = scriptedExecutor(flow);
  const performed: string[] = [];
  const attempt: AttemptHarness = startAttempt(
    { instance: program.instance, engine: program.engine, origin: 'order' },
    {
      executor: mode === 'read-write' ? executor : undefined,
      cache: { store: new FileCacheStore(cacheFolder, { readOnly: mode === 'read-only' }), mode, strict: mode === 'read-only', waitForTargetMs: 3000 },
      onAction: (event) => void performed.push(event.sentence),
    },
  );
  const run: FlowRun = { outcomes: [], writes: [], codes: [], executorCalls: 0, performed };
  for (const step of flow) {
    const outcome = await attempt.act(step.instruction);
    run.outcomes.push(outcome.cache as CacheOutcome | undefined);
    run.codes.push(outcome.verdict.status === 'passed' ? undefined : outcome.verdict.errorCode);
    if (outcome.verdict.status !== 'passed') {
      const screen = await program.instance.observe();
      run.shown = nodesOf(screen.root).filter((node) => node.role === 'text' || node.role === 'button').map((node) => `${node.role} "${node.name}"${node.states.includes('focused') ? ' [focused]' : ''}`).join(', ') + (screen.root.value === undefined ? '' : ` (${screen.root.value})`);
      break;
    }
    // The user's own check: the step's outcome shows (waited for, as an expect would).
    const screen = await program.after(() => Promise.resolve(), shows(step.shows)).catch(() => undefined);
    if (screen === undefined) {
      run.codes[run.codes.length - 1] = 'EXPECT_FAILED';
      break;
    }
    // As the fixture's expect watch does: what the check looked at, when the runner wants it (the line it read).
    const lookedAt = nodesOf(screen.root).filter((node) => node.name.toLowerCase() === step.shows.toLowerCase()).map((node) => node.id);
    attempt.runner.recordVerification('expect', 'toContain', attempt.runner.wantsLookedAt() ? { tree: screen.root, url: screen.url, nodeIds: lookedAt } : undefined);
  }
  run.writes = (await attempt.finish()).map((report) => report.outcome.write ?? 'none');
  run.executorCalls = executor.calls;
  return run;
}

const details: string[] = [];
const rows: string[][] = [['recorded on', 'replayed on', 'steps', 'replayed', 'regression', 'drift', 'false passes']];
afterAll(() => {
  console.log(`\nTerminal corpus (model-free replays)\n${corpusTable(rows)}\n${details.join('\n')}\n`);
});

function tally(recordedOn: string, replayedOn: string, flow: readonly FlowStep[], run: FlowRun): { replayed: number; regression: number; drift: number; falsePasses: number } {
  const replayed = run.outcomes.filter((outcome, index) => outcome?.mode === 'self-finalized' && run.codes[index] === undefined).length;
  const regression = run.codes.filter((code) => code === 'ASSERTION_FAILED').length;
  const drift = run.codes.filter((code) => code === 'REPLAY_STALE').length;
  const falsePasses = run.codes.filter((code) => code === 'EXPECT_FAILED').length;
  rows.push([recordedOn, replayedOn, String(flow.length), String(replayed), String(regression), String(drift), String(falsePasses)]);
  run.outcomes.forEach((outcome, index) => {
    if (outcome?.mode !== 'self-finalized' || run.codes[index] !== undefined) {
      // What the screen showed tells a key that landed elsewhere from an outcome that never came.
      const shown = index === run.codes.length - 1 && run.shown !== undefined ? `; the screen shows: ${run.shown}` : '';
      details.push(`${recordedOn} → ${replayedOn}, step ${index + 1}: ${outcome?.mode ?? 'no cache'} ${outcome?.reason ?? ''} ${outcome?.detail ?? ''} ${run.codes[index] ?? ''}${shown}`);
    }
  });
  return { replayed, regression, drift, falsePasses };
}

describe.each([
  { name: 'dialog', flow: DIALOG_FLOW, record: orderScript('dialog'), same: (fault: OrderFault) => orderScript('dialog', fault), other: { name: 'whiptail', app: orderScript('whiptail') } },
  { name: 'whiptail', flow: DIALOG_FLOW, record: orderScript('whiptail'), same: (fault: OrderFault) => orderScript('whiptail', fault), other: { name: 'dialog', app: orderScript('dialog') } },
  { name: '@inquirer/prompts v7', flow: PROMPTS_FLOW, record: orderPrompts('v7'), same: (fault: OrderFault) => orderPrompts('v7', fault), other: { name: '@inquirer/prompts v3', app: orderPrompts('v3') } },
  { name: '@inquirer/prompts v3', flow: PROMPTS_FLOW, record: orderPrompts('v3'), same: (fault: OrderFault) => orderPrompts('v3', fault), other: { name: '@inquirer/prompts v7', app: orderPrompts('v7') } },
])('recorded on $name', ({ name, flow, record, same, other }) => {
  let cacheFolder = '';
  let recordedActions: string[] = [];

  it('records every step once through the cache', async () => {
    cacheFolder = await temporaryFolder('terminal-corpus-');
    const run = await runFlow(record, flow, cacheFolder, 'read-write');
    expect(run.codes).toEqual(flow.map(() => undefined));
    expect(run.executorCalls).toBe(flow.length);
    expect(run.writes).toEqual(flow.map(() => 'saved'));
    recordedActions = run.performed;
  });

  it('replays every step model-free on the same program, each key on the recorded control', async () => {
    const run = await runFlow(same('none'), flow, cacheFolder, 'read-only');
    expect(tally(name, `${name} (same)`, flow, run)).toEqual({ replayed: flow.length, regression: 0, drift: 0, falsePasses: 0 });
    expect(run.performed).toEqual(recordedActions);
  });

  it(`replays every step model-free on ${other.name}`, async () => {
    const run = await runFlow(other.app, flow, cacheFolder, 'read-only');
    expect(tally(name, other.name, flow, run)).toEqual({ replayed: flow.length, regression: 0, drift: 0, falsePasses: 0 });
    // The other program may spell a button in another case (dialog's OK, whiptail's Ok): the same control.
    expect(run.performed.map((sentence) => sentence.toLowerCase())).toEqual(recordedActions.map((sentence) => sentence.toLowerCase()));
  });

  it('stops at the renamed menu item as drift, with no key sent for that step', async () => {
    const run = await runFlow(same('rename'), flow, cacheFolder, 'read-only');
    expect(tally(name, `${name}, Banana renamed`, flow, run)).toMatchObject({ replayed: 0, drift: 1, falsePasses: 0 });
    expect(run.performed).toEqual([]);
  });

  it('fails the step whose outcome did not appear as a regression, never a pass', async () => {
    const run = await runFlow(same('wrong-fruit'), flow, cacheFolder, 'read-only');
    expect(tally(name, `${name}, wrong fruit shown`, flow, run)).toEqual({ replayed: flow.length - 1, regression: 1, drift: 0, falsePasses: 0 });
    expect(run.codes.at(-1)).toBe('ASSERTION_FAILED');
  });
});

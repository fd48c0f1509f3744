/**
 * The step runner against an in-memory engine (a contract double at the engine edge: a tiny
 * todo screen whose tree changes with each action). Real-browser behaviour is covered by
 * tests/runner; these pin the runner's own rules fast: verdicts, hard stops, serialization,
 * tool scopes, secrets and pixels, and the cache seams.
 */
import { describe, expect, it } from 'vitest';
import type { EngineAction, EngineInstance, EngineObservation, NodeRef, ScreenNode, SessionAction } from '../contract/engine.js';
import { VERBS } from '../contract/engine.js';
import { SecretVault, secret, unique } from '../secrets/vault.js';
import type { StepContext, StepExecutor, StepVerdict } from '../contract/step-contract.js';
import { createAttemptRunner, type AttemptRunnerOptions } from './step-runner.js';
import { SETTLE_TIMEOUT_MS } from './budgets.js';
import { createScreenObserver, type ScreenObserver } from './screen-observer.js';
import { TOOL_SETTLE_MS } from './step-context.js';
import type { ActionEvent, InterceptResult, StepInterceptor } from '../contract/step-seams.js';

const CANARY = 'Zq-canary-4417';
const PNG = new Uint8Array([137, 80, 78, 71]);

/** A todo screen in memory: a textbox, a password field, an Add button, and the items. */
class MemoryEngine implements EngineInstance {
  url = 'http://127.0.0.1:4000/';
  draft = '';
  password = '';
  items: string[] = [];
  navigations: string[] = [];
  allowNavigation: (url: string) => boolean = () => true;
  readonly session = {
    open: async (url: string) => {
      this.url = url;
    },
    back: async () => undefined,
    restart: async () => undefined,
    url: () => this.url,
  };

  async observe(): Promise<EngineObservation> {
    const node = (id: string, role: string, name: string, extra: Partial<ScreenNode> = {}): ScreenNode => ({
      id,
      role,
      name,
      states: [],
      depth: 1,
      children: [],
      ...extra,
    });
    const children = [
      node('n1', 'textbox', 'New todo', { value: this.draft, rect: { x: 0, y: 0, width: 100, height: 20 } }),
      node('n2', 'textbox', 'Password', { value: this.password, states: ['secure'] }),
      node('n3', 'button', 'Add', { rect: { x: 0, y: 30, width: 50, height: 20 } }),
      ...this.items.map((item, index) => node(`i${index}`, 'listitem', item)),
    ];
    return { root: { id: 'root', role: 'document', name: 'Todos', states: [], depth: 0, children }, url: this.url, title: 'Todos', nodeCount: children.length + 1 };
  }

  async perform(ref: NodeRef, action: EngineAction): Promise<void> {
    if (action.verb === 'type' && ref.id === 'n1') this.draft = action.replace ? action.value : this.draft + action.value;
    else if (action.verb === 'type' && ref.id === 'n2') this.password = action.value;
    else if (action.verb === 'tap' && ref.id === 'n3') {
      this.items.push(this.draft);
      this.draft = '';
    } else throw new Error(`cannot ${action.verb} #${ref.id}`);
  }

  async performOnPage(action: SessionAction): Promise<void> {
    if (action.verb === 'navigate') {
      this.navigations.push(action.url);
      if (this.allowNavigation(action.url)) this.url = action.url;
    } else if (action.verb === 'press') this.items.push(`pressed ${action.key}`);
  }

  async screenshot(): Promise<Uint8Array> {
    return PNG;
  }

  async close(): Promise<void> {}
}

function executor(runStep: (ctx: StepContext) => Promise<unknown>, extra: Partial<StepExecutor> = {}): StepExecutor {
  return { name: 'test', runStep: runStep as (ctx: StepContext) => Promise<StepVerdict>, ...extra };
}

function setup(run: (ctx: StepContext) => Promise<unknown>, options: Partial<AttemptRunnerOptions> = {}) {
  const engine = new MemoryEngine();
  const events: ActionEvent[] = [];
  const attached: string[] = [];
  const runner = createAttemptRunner({
    engine,
    target: { name: 'web', platform: 'web', verbs: VERBS, location: 'url' },
    secrets: new SecretVault({ password: { value: CANARY } }),
    origins: ['http://127.0.0.1:4000'],
    projectRoot: process.cwd(),
    agents: { default: { executor: executor(run), context: 'A todo app.', limits: {} } },
    attempt: { testId: 't1', retry: 0, titlePath: ['file', 'test'] },
    onAction: (event) => events.push(event),
    artifacts: { attach: async ({ name }) => void attached.push(name) },
    ...options,
  });
  engine.allowNavigation = (url) => runner.allowNavigation(url);
  return { engine, runner, events, attached };
}

const passed = { status: 'passed', summary: 'done' } as const;

describe('the step runner', () => {
  it('reads screens within the attempt\'s screen budget, says what it left out, and finds the rest', async () => {
    const seen: { full: string; bounded: string; found: string[] } = { full: '', bounded: '', found: [] };
    const items = Array.from({ length: 200 }, (_, index) => `Note ${index + 1}`);
    const whole = setup(async (ctx) => {
      seen.full = (await ctx.observe()).text;
      return passed;
    });
    whole.engine.items = [...items];
    await whole.runner.runStep('act', 'look');
    expect(seen.full).toMatch(/^Screen \(revision 1, path \/, 204 nodes\):/);

    let leftOut = 0;
    const bounded = setup(
      async (ctx) => {
        const screen = await ctx.observe();
        seen.bounded = screen.text;
        leftOut = screen.leftOut ?? 0;
        expect(screen.leftOut).toBeGreaterThan(100);
        const found = await ctx.observe({ find: 'note 150' });
        seen.found = found.found?.ids ?? [];
        await ctx.actions.type({ id: 'n1' }, 'Found it');
        return passed;
      },
      { screenBudget: { maxNodes: 50, maxChars: 100_000 } },
    );
    bounded.engine.items = [...items];
    expect((await bounded.runner.runStep('act', 'find note 150')).verdict).toEqual(passed);
    expect(seen.bounded).toMatch(/^Screen \(revision 1, path \/, \d+ nodes shown, [\d,]+ left out\):/);
    expect(seen.bounded).toMatch(/… \d+ more listitem \("Note \d+" … "Note \d+"\) — use find to reach one/);
    expect(seen.bounded.split('\n').length).toBeLessThanOrEqual(1 + 50 + 5);
    expect(seen.found).toEqual(['i149']);
    // The step's record (what report.json shows) says so too: one screen read as text left nodes out; the whole screen's step says nothing.
    expect(bounded.runner.records[0]!.leftOut).toEqual({ screens: 1, most: leftOut });
    expect(whole.runner.records[0]).not.toHaveProperty('leftOut');
  });

  it('reports committed actions as sentences with their change reports', async () => {
    let changes = '';
    const { runner, engine } = setup(async (ctx) => {
      await ctx.observe();
      await ctx.actions.type({ id: 'n1' }, 'Buy milk');
      changes = (await ctx.actions.tap({ id: 'n3' })).changes;
      return passed;
    });
    const outcome = await runner.runStep('act', 'add a todo');
    expect(outcome.verdict).toEqual(passed);
    expect(outcome.actions).toEqual(['type "Buy milk" into textbox "New todo"', 'tap button "Add"']);
    expect(changes).toContain('added #i0 listitem "Buy milk"');
    expect(engine.items).toEqual(['Buy milk']);
  });

  it('runs concurrent actions one at a time, in call order', async () => {
    const order: string[] = [];
    const { runner } = setup(async (ctx) => {
      await ctx.observe();
      await Promise.all([
        ctx.actions.type({ id: 'n1' }, 'a').then(() => order.push('first')),
        ctx.actions.type({ id: 'n1' }, 'b').then(() => order.push('second')),
      ]);
      return passed;
    });
    const outcome = await runner.runStep('act', 'type twice');
    expect(order).toEqual(['first', 'second']);
    expect(outcome.actions).toEqual(['type "a" into textbox "New todo"', 'type "b" into textbox "New todo"']);
  });

  it('ends the step STEP_BUDGET_EXHAUSTED at the action past maxSteps, whatever the executor returns', async () => {
    const { runner } = setup(async (ctx) => {
      await ctx.observe();
      for (const text of ['a', 'b', 'c']) await ctx.actions.type({ id: 'n1' }, text).catch(() => undefined);
      return passed;
    });
    const outcome = await runner.runStep('act', 'type thrice', { maxSteps: 2 });
    expect(outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'STEP_BUDGET_EXHAUSTED' });
    expect(outcome.actions).toHaveLength(2);
  });

  it('fails INVALID_STATE instead of deadlocking when a tool body acts', async () => {
    const { runner } = setup(async (ctx) => {
      await ctx.observe();
      await ctx.budgets.runTool({ name: 'seed', mutates: true }, () => ctx.actions.tap({ id: 'n3' }));
      return passed;
    });
    const outcome = await runner.runStep('act', 'seed through a tool');
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'INVALID_STATE' });
    expect(outcome.verdict.summary).toContain("budgets.runTool('seed')");
  });

  it('refuses calls on a context after its step ended', async () => {
    let saved: StepContext | undefined;
    const { runner } = setup(async (ctx) => {
      saved = ctx;
      return passed;
    });
    await runner.runStep('act', 'keep the context');
    await expect(saved!.observe()).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });

  it('times out a step whose executor ignores the signal', async () => {
    const { runner } = setup(() => new Promise(() => undefined));
    // The executor never settles: only the step's own deadline (50 ms, shown as 0.1 s) can end the step.
    const outcome = await runner.runStep('act', 'hang', { timeout: 50 });
    expect(outcome.verdict).toMatchObject({ status: 'failed', errorCode: 'STEP_TIMEOUT' });
    expect(outcome.verdict.summary).toContain('within 0.1 s');
  });

  it('types a declared secret, redacts it everywhere, and withholds pixels from then on', async () => {
    let text = '';
    let withheld: boolean | undefined;
    const { runner, engine, events, attached } = setup(async (ctx) => {
      await ctx.observe();
      await ctx.actions.typeSecret({ id: 'n2' }, 'password');
      await ctx.actions.type({ id: 'n1' }, 'note');
      text = (await ctx.observe()).text;
      withheld = (await ctx.observe({ pixels: true })).pixelsWithheld;
      return { status: 'passed', summary: `typed ${CANARY}` };
    });
    const outcome = await runner.runStep('act', 'sign in with {pw}', { params: { pw: secret('password') } });
    expect(engine.password).toBe(CANARY);
    expect(outcome.verdict.summary).toBe('typed <secret:password>');
    expect(outcome.actions[0]).toBe('type <secret:password> into textbox "Password"');
    expect(text).toContain('value=<secure>');
    expect(withheld).toBe(true);
    expect(runner.secretFilled()).toBe(true);
    expect(attached).toEqual([]);
    expect(JSON.stringify(events)).not.toContain(CANARY);
    expect(events[0]).toMatchObject({ verb: 'typeSecret', args: { name: 'password' }, value: { kind: 'secret', name: 'password' }, outcome: 'ok' });
  });

  it('refuses a secret the step did not declare', async () => {
    const { runner, engine } = setup(async (ctx) => {
      await ctx.observe();
      await ctx.actions.typeSecret({ id: 'n2' }, 'password');
      return passed;
    });
    const outcome = await runner.runStep('act', 'sign in');
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(engine.password).toBe('');
  });

  it("refuses a secret whose name is only a word of the instruction, by name or by value", async () => {
    const tries: Array<(ctx: StepContext) => Promise<unknown>> = [
      (ctx) => ctx.actions.typeSecret({ id: 'n2' }, 'password'),
      (ctx) => ctx.actions.type({ id: 'n2' }, CANARY),
    ];
    for (const attempt of tries) {
      const { runner, engine } = setup(async (ctx) => {
        await ctx.observe();
        await attempt(ctx);
        return passed;
      });
      const outcome = await runner.runStep('act', 'open the forgot password help');
      expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
      expect(outcome.verdict.summary).toContain("secret('password')");
      expect(engine.password).toBe('');
    }
  });

  it('stops the step POLICY_DENIED when the engine reports a navigation to another origin', async () => {
    const { runner, engine } = setup(async (ctx) => {
      await ctx.observe();
      await engine.performOnPage({ verb: 'navigate', url: 'http://127.0.0.1:5000/away' });
      await new Promise(() => undefined);
      return passed;
    });
    const outcome = await runner.runStep('act', 'wander off');
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(outcome.verdict.summary).toContain('http://127.0.0.1:5000/away');
    expect(engine.url).toBe('http://127.0.0.1:4000/');
  });

  it("refuses another origin between steps too, except while the test's own app.open runs", async () => {
    const { runner } = setup(async () => passed);
    expect(runner.allowNavigation('http://127.0.0.1:5000/')).toBe(false);
    expect(runner.allowNavigation('http://127.0.0.1:4000/elsewhere')).toBe(true);
    expect(await runner.opening(async () => runner.allowNavigation('http://127.0.0.1:5000/'))).toBe(true);
    expect(runner.allowNavigation('http://127.0.0.1:5000/')).toBe(false);
  });

  it('does not act on a page that is on a refused origin, and says where it is', async () => {
    let ran = false;
    const { runner, engine } = setup(async () => {
      ran = true;
      return passed;
    });
    engine.url = 'http://127.0.0.1:5000/elsewhere?token=abc';
    const outcome = await runner.runStep('act', 'tap something');
    expect(ran).toBe(false);
    expect(outcome.verdict).toMatchObject({ status: 'blocked', errorCode: 'POLICY_DENIED' });
    expect(outcome.verdict.summary).toContain('The page is at http://127.0.0.1:5000/elsewhere?…');
  });

  it('tells the action listener the screens, the value origin and the outcome', async () => {
    const { runner, events } = setup(async (ctx) => {
      await ctx.observe();
      await ctx.actions.type({ id: 'n1' }, ctx.step.params['email']!);
      await ctx.actions.tap({ id: 'nope' }).catch(() => undefined);
      return passed;
    });
    await runner.runStep('act', 'register {email}', { params: { email: unique('a@b.c') } });
    expect(events).toHaveLength(1);
    const [typed] = events;
    expect(typed).toMatchObject({ step: { index: 0, kind: 'act' }, verb: 'type', ref: { id: 'n1' }, value: { kind: 'unique', param: 'email' }, outcome: 'ok' });
    expect(typed!.before.tree.children[0]!.value).toBe('');
    expect(typed!.after?.tree.children[0]!.value).toBe('a@b.c');
  });

  it('reports a failed action to the listener with the code and whether it may have committed', async () => {
    const { runner, events } = setup(async (ctx) => {
      await ctx.observe();
      await ctx.actions.tap({ id: 'n1' });
      return passed;
    });
    const outcome = await runner.runStep('act', 'tap the textbox');
    expect(outcome.verdict.errorCode).toBe('ENGINE_FAILURE');
    expect(events[0]).toMatchObject({ verb: 'tap', outcome: 'ENGINE_FAILURE', mayHaveCommitted: true });
  });

  it('lets an interceptor finish a step without the executor', async () => {
    let ran = false;
    const interceptor: StepInterceptor = async (step, services) => {
      expect(step).toMatchObject({ template: 'add {title}', agent: { name: 'default', context: 'A todo app.' }, executor: { name: 'test', cache: 'inherit' } });
      await services.observe();
      await services.actions.type({ id: 'n1' }, 'Cached');
      await services.actions.tap({ id: 'n3' });
      return { handled: { verdict: passed, cache: { mode: 'self-finalized' } } };
    };
    const { runner, engine } = setup(
      async () => {
        ran = true;
        return passed;
      },
      { stepInterceptor: interceptor },
    );
    const outcome = await runner.runStep('act', 'add {title}', { params: { title: 'x' } });
    expect(ran).toBe(false);
    expect(engine.items).toEqual(['Cached']);
    expect(outcome).toMatchObject({ verdict: passed, cache: { mode: 'self-finalized' }, actions: ['type "Cached" into textbox "New todo"', 'tap button "Add"'] });
  });

  it('gives an interceptor brief-settling actions that act through the same policed surface', async () => {
    const { runner, engine, events } = setup(async () => passed, {
      stepInterceptor: async (_step, services) => {
        await services.observe();
        await services.briefActions.type({ id: 'n1' }, 'Quick');
        await services.actions.tap({ id: 'n3' });
        return { handled: { verdict: passed } };
      },
    });
    const outcome = await runner.runStep('act', 'add quickly', { maxSteps: 2 });
    expect(engine.items).toEqual(['Quick']);
    expect(outcome.actions).toEqual(['type "Quick" into textbox "New todo"', 'tap button "Add"']);
    expect(events.map((event) => event.outcome)).toEqual(['ok', 'ok']);
  });

  it('settles after a mutating tool and authorizes the next action against the screen it left', async () => {
    let seeded: MemoryEngine | undefined;
    const { runner, events, engine } = setup(async (ctx) => {
      await ctx.observe();
      await ctx.budgets.runTool({ name: 'seed', mutates: true }, async () => {
        seeded!.draft = 'Seeded';
      });
      await ctx.actions.tap({ id: 'n3' });
      return passed;
    });
    seeded = engine;
    const outcome = await runner.runStep('act', 'seed and add');
    expect(outcome.verdict).toEqual(passed);
    const [tool, tap] = events;
    expect(tool).toMatchObject({ verb: 'tool', outcome: 'ok' });
    expect(tool?.after?.text).toContain('value="Seeded"');
    // The tap was resolved against the screen after the tool, not the one before it.
    expect(tap?.before).toBe(tool?.after);
    expect(outcome.actions).toEqual(['run tool seed', 'tap button "Add"']);
  });

  it('waits only briefly after a mutating tool that changes nothing on screen', async () => {
    const engine = new MemoryEngine();
    // The real observer; only the longest wait each settle was allowed is noted.
    const real = createScreenObserver(engine, new SecretVault({}));
    const settleCaps: (number | undefined)[] = [];
    const observer: ScreenObserver = {
      ...real,
      settle: (before, signal, options) => {
        settleCaps.push(options?.maxMs);
        return real.settle(before, signal, options);
      },
    };
    const { runner } = setup(
      async (ctx) => {
        await ctx.observe();
        await ctx.budgets.runTool({ name: 'seed the database', mutates: true }, async () => undefined);
        return passed;
      },
      { engine, observer },
    );
    expect((await runner.runStep('act', 'seed quietly')).verdict).toEqual(passed);
    expect(settleCaps).toEqual([TOOL_SETTLE_MS]);
    expect(TOOL_SETTLE_MS).toBeLessThan(SETTLE_TIMEOUT_MS);
  });

  it('records where a step spent its time: model calls as reported, observing, acting', async () => {
    const { runner } = setup(async (ctx) => {
      await ctx.observe();
      ctx.budgets.recordModelCall({ inputTokens: 10, outputTokens: 2, durationMs: 250 });
      ctx.budgets.recordModelCall({ inputTokens: 10, outputTokens: 2 });
      await ctx.actions.type({ id: 'n1' }, 'Timed');
      return passed;
    });
    await runner.runStep('act', 'add a timed todo');
    const timing = runner.records[0]?.timing;
    expect(timing?.modelMs).toBe(250);
    expect(timing?.observeMs).toBeGreaterThanOrEqual(0);
    expect(timing?.actionMs).toBeGreaterThanOrEqual(0);
    expect(Object.keys(timing ?? {}).sort()).toEqual(['actionMs', 'modelMs', 'observeMs']);
  });

  it('hands the executor a replayed prefix when the interceptor continues', async () => {
    let prefix: unknown;
    const result: InterceptResult = {
      continueWith: { actions: ['tap button "Add"'], total: 2, reason: 'target-not-found', detail: 'at action 2 of 2', lastMayHaveCommitted: false },
      cache: { mode: 'agent-concluded' },
    };
    const { runner } = setup(
      async (ctx) => {
        prefix = ctx.replayedPrefix;
        return passed;
      },
      { stepInterceptor: async () => result },
    );
    const outcome = await runner.runStep('act', 'add a todo');
    expect(prefix).toEqual('continueWith' in result ? result.continueWith : undefined);
    expect(outcome.cache).toEqual({ mode: 'agent-concluded' });
  });

  it('lets an interceptor replay a step for an agent without a model, and blocks MODEL_UNAVAILABLE when it does not', async () => {
    let replay = true;
    const { runner } = setup(async () => passed, {
      agents: { default: { context: '', limits: {} } },
      stepInterceptor: async (step) => {
        expect(step.executor).toBeUndefined();
        return replay ? { handled: { verdict: passed, cache: { mode: 'self-finalized' } } } : { cache: { mode: 'missed', reason: 'no-entry' } };
      },
    });
    expect((await runner.runStep('act', 'cached step')).verdict).toEqual(passed);
    replay = false;
    const missed = await runner.runStep('act', 'new step');
    expect(missed).toMatchObject({ verdict: { status: 'blocked', errorCode: 'MODEL_UNAVAILABLE' }, cache: { mode: 'missed', reason: 'no-entry' } });
  });

  it('keeps verifications with the step they followed, and the ledger of finished steps', async () => {
    const ledgers: unknown[] = [];
    const { runner } = setup(async (ctx) => {
      ledgers.push(ctx.ledger.map((entry) => entry.instruction));
      return passed;
    });
    runner.recordVerification('expect', 'before any step');
    await runner.runStep('act', 'first');
    runner.recordVerification('expect', 'toHaveCount');
    await runner.runStep('assert', 'second');
    expect(ledgers).toEqual([[], ['first']]);
    expect(runner.verifications).toEqual([
      { kind: 'expect', detail: 'before any step', afterStep: -1 },
      { kind: 'expect', detail: 'toHaveCount', afterStep: 0 },
    ]);
  });

  it('fails waitFor and extract MODEL_UNAVAILABLE without built-in judgments', async () => {
    const { runner } = setup(async () => passed);
    expect((await runner.runStep('waitFor', 'a todo shows')).verdict).toMatchObject({ status: 'blocked', errorCode: 'MODEL_UNAVAILABLE' });
    const schema = { safeParse: () => ({ success: true }) };
    expect((await runner.runStep('extract', 'the count', { schema })).verdict).toMatchObject({ errorCode: 'MODEL_UNAVAILABLE' });
  });

  it('routes a point action to the listed control under the point when the engine has no coordinate action', async () => {
    const { runner, engine } = setup(async (ctx) => {
      await ctx.observe();
      await ctx.actions.type({ id: 'n1' }, 'Pointed');
      await ctx.actions.tapAt({ x: 10, y: 40 });
      return passed;
    });
    const outcome = await runner.runStep('act', 'tap by point');
    expect(engine.items).toEqual(['Pointed']);
    expect(outcome.actions[1]).toBe('tap button "Add" at (10, 40)');
  });

  it('attaches a screenshot after each step until a secret is filled', async () => {
    const { runner, attached } = setup(async () => passed);
    await runner.runStep('act', 'one');
    await runner.runStep('act', 'two');
    expect(attached).toEqual(['e2e-screenshot-1', 'e2e-screenshot-2']);
    expect(runner.records.map((record) => record.artifacts.length)).toEqual([1, 1]);
  });
});

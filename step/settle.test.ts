import { describe, expect, it } from 'vitest';
import { isE2EError } from '../errors/index.js';
import type { ChangeWaitOptions, ChangeWaitResult, ScreenNode } from '../contract/engine.js';
import { copyTree, deepTree, nodeById, wideTree } from '../tests/support/page-sized-trees.js';
import { shapeOf } from './screen-text.js';
import { SETTLE_DEFAULTS, settleAfterAction, type SettleClock } from './settle.js';

/** A fake clock: sleeping advances time instantly. */
function fakeClock(): SettleClock & { elapsed(): number } {
  let now = 0;
  return {
    now: () => now,
    sleep: async (milliseconds, signal) => {
      if (signal?.aborted === true) throw new Error('aborted');
      now += milliseconds;
    },
    elapsed: () => now,
  };
}

function screen(title: string): { root: ScreenNode; url: string } {
  return { root: { id: 'root', role: 'document', name: title, states: [], depth: 0, children: [] }, url: 'http://x.test/' };
}

/** An app whose screen at time t is given by `at(t)`; counts observations. */
function app(clock: SettleClock, at: (time: number) => string): { observe: () => Promise<{ root: ScreenNode; url: string }>; calls: () => number } {
  let calls = 0;
  return {
    observe: async () => {
      calls++;
      return screen(at(clock.now()));
    },
    calls: () => calls,
  };
}

describe('settleAfterAction', () => {
  it('returns as soon as a changed screen holds still for the quiet period', async () => {
    const clock = fakeClock();
    const page = app(clock, (time) => (time < 300 ? 'before' : 'after'));
    const result = await settleAfterAction(page.observe, shapeOf(screen('before')), { clock });
    expect(result.root.name).toBe('after');
    expect(clock.elapsed()).toBeGreaterThanOrEqual(400);
    expect(clock.elapsed()).toBeLessThan(600);
  });

  it('in brief mode returns as soon as the screen changed, without the quiet period', async () => {
    const clock = fakeClock();
    const page = app(clock, (time) => (time < 300 ? 'before' : time < 350 ? 'loading' : 'after'));
    const result = await settleAfterAction(page.observe, shapeOf(screen('before')), { clock, mode: 'brief' });
    expect(result.root.name).toBe('loading');
    expect(clock.elapsed()).toBe(300);
  });

  it('waits the full budget when the action changed nothing', async () => {
    const clock = fakeClock();
    const page = app(clock, () => 'same');
    const result = await settleAfterAction(page.observe, shapeOf(screen('same')), { clock, maxMs: 2000 });
    expect(result.root.name).toBe('same');
    expect(clock.elapsed()).toBe(2000);
  });

  it('follows a screen that keeps changing until it settles, within the quiet bound', async () => {
    const clock = fakeClock();
    // Each intermediate screen lasts less than the 100 ms quiet period.
    const page = app(clock, (time) => (time < 80 ? 'loading 1' : time < 160 ? 'loading 2' : 'done'));
    const result = await settleAfterAction(page.observe, shapeOf(screen('before')), { clock });
    expect(result.root.name).toBe('done');
    expect(clock.elapsed()).toBeGreaterThanOrEqual(260);
    expect(clock.elapsed()).toBeLessThanOrEqual(400);
  });

  it('stops the quiet phase at its bound even if the screen never stops changing', async () => {
    const clock = fakeClock();
    const page = app(clock, (time) => `frame ${Math.floor(time / 50)}`.replace(/\d+/, (digits) => 'x'.repeat(Number(digits) + 1)));
    await settleAfterAction(page.observe, shapeOf(screen('before')), { clock, maxQuietMs: 500 });
    expect(clock.elapsed()).toBeLessThanOrEqual(500);
  });

  it('does not count a ticking clock as a change', async () => {
    const clock = fakeClock();
    const page = app(clock, (time) => `Now 12:00:${String(Math.floor(time / 1000)).padStart(2, '0')}`);
    await settleAfterAction(page.observe, shapeOf(screen('Now 12:00:00')), { clock, maxMs: 3000 });
    expect(clock.elapsed()).toBe(3000);
  });

  it('rejects with CANCELLED when the signal aborts', async () => {
    const clock = fakeClock();
    const page = app(clock, () => 'same');
    const controller = new AbortController();
    controller.abort();
    const error: unknown = await settleAfterAction(page.observe, shapeOf(screen('same')), { clock, signal: controller.signal }).catch((caught: unknown) => caught);
    expect(isE2EError(error) && error.code).toBe('CANCELLED');
    expect(page.calls()).toBe(0);
  });

  it('works on the real clock', async () => {
    let calls = 0;
    const observe = async (): Promise<{ root: ScreenNode; url: string }> => screen(++calls > 2 ? 'after' : 'before');
    // Settled on quiet: the cap (an hour) is far past the test's timeout, so reaching it would fail the test.
    const result = await settleAfterAction(observe, shapeOf(screen('before')), { maxMs: 3_600_000, pollMs: 10, quietMs: 30 });
    expect(result.root.name).toBe('after');
    expect(calls).toBeGreaterThan(2);
  });
});

/** A page on a fake clock whose screen changes at given times; the engine sees only `seen` changes. */
interface Change {
  at: number;
  screen: string;
  seen: boolean;
}

/** A fake engine over `changes`: observations carry marks, and `waitForChange` advances the clock. */
function markedApp(changes: Change[], initial = 'before') {
  let now = 0;
  let observations = 0;
  let waits = 0;
  const clock: SettleClock = {
    now: () => now,
    sleep: async (milliseconds) => {
      now += milliseconds;
    },
  };
  const screenAt = (time: number): string => changes.filter((change) => change.at <= time).at(-1)?.screen ?? initial;
  const seenBy = (time: number): Change[] => changes.filter((change) => change.seen && change.at <= time);
  const markAt = (time: number): string => `m${seenBy(time).length}`;
  const nextSeenAfter = (time: number): number | undefined => changes.find((change) => change.seen && change.at > time)?.at;
  const waitForChange = async (since: string, options: ChangeWaitOptions): Promise<ChangeWaitResult> => {
    waits++;
    const end = now + options.maxMs;
    if (options.until === 'change') {
      if (markAt(now) === since) {
        const next = nextSeenAfter(now);
        now = next !== undefined && next <= end ? next : end;
      }
    } else {
      for (;;) {
        const last = seenBy(now).at(-1)?.at ?? -Infinity;
        const quietAt = Math.max(now, last + (options.quietMs ?? 0));
        const next = nextSeenAfter(now);
        if (next !== undefined && next < Math.min(quietAt, end)) {
          now = next;
          continue;
        }
        now = Math.min(quietAt, end);
        break;
      }
    }
    return { changed: markAt(now) !== since, mark: markAt(now) };
  };
  const observe = async () => {
    observations++;
    return { ...screen(screenAt(now)), mark: markAt(now) };
  };
  return { clock, observe, waitForChange, observations: () => observations, waits: () => waits, now: () => now };
}

describe('settleAfterAction with the engine waiting for change', () => {
  it('observes once when the action already changed the screen, and keeps it once the page holds still', async () => {
    const page = markedApp([{ at: 0, screen: 'after', seen: true }]);
    const result = await settleAfterAction(page.observe, shapeOf(screen('before')), { clock: page.clock, waitForChange: page.waitForChange, beforeMark: 'm0' });
    expect(result.root.name).toBe('after');
    expect(page.observations()).toBe(1);
    expect(page.now()).toBe(SETTLE_DEFAULTS.changeQuietMs);
  });

  it('sees a mutation that comes after the action by waiting in the engine, not by polling', async () => {
    const page = markedApp([{ at: 700, screen: 'after', seen: true }]);
    const result = await settleAfterAction(page.observe, shapeOf(screen('before')), { clock: page.clock, waitForChange: page.waitForChange, beforeMark: 'm0' });
    expect(result.root.name).toBe('after');
    expect(page.now()).toBe(700 + SETTLE_DEFAULTS.changeQuietMs);
    // Polling every 50 ms would have observed 15 times by now.
    expect(page.observations()).toBeLessThanOrEqual(4);
  });

  it('re-observes when the screen changed again during the quiet period', async () => {
    const page = markedApp([
      { at: 0, screen: 'loading', seen: true },
      { at: 20, screen: 'done', seen: true },
    ]);
    const result = await settleAfterAction(page.observe, shapeOf(screen('before')), { clock: page.clock, waitForChange: page.waitForChange, beforeMark: 'm0' });
    expect(result.root.name).toBe('done');
    expect(page.observations()).toBe(2);
  });

  it('catches a change the engine cannot see at a sparse probe', async () => {
    const page = markedApp([{ at: 150, screen: 'after', seen: false }]);
    const result = await settleAfterAction(page.observe, shapeOf(screen('before')), { clock: page.clock, waitForChange: page.waitForChange, beforeMark: 'm0' });
    expect(result.root.name).toBe('after');
    expect(page.now()).toBe(300);
  });

  it('does not count a ticking clock as a change, and holds the 2 s cap with few observations', async () => {
    // The engine filters ticks, so it reports nothing; the screen's text ticks every second.
    const ticks = Array.from({ length: 5 }, (_, index) => ({ at: index * 1000 + 500, screen: `Now 12:00:0${index + 1}`, seen: false }));
    const page = markedApp(ticks, 'Now 12:00:00');
    await settleAfterAction(page.observe, shapeOf(screen('Now 12:00:00')), { clock: page.clock, waitForChange: page.waitForChange, beforeMark: 'm0', maxMs: 2000 });
    expect(page.now()).toBe(2000);
    expect(page.observations()).toBeLessThanOrEqual(8);
  });

  it('keeps waiting after a change the engine saw that left the shape alone', async () => {
    const page = markedApp([
      { at: 100, screen: 'before', seen: true },
      { at: 900, screen: 'after', seen: true },
    ]);
    const result = await settleAfterAction(page.observe, shapeOf(screen('before')), { clock: page.clock, waitForChange: page.waitForChange, beforeMark: 'm0' });
    expect(result.root.name).toBe('after');
    expect(page.now()).toBe(900 + SETTLE_DEFAULTS.changeQuietMs);
  });

  it('stops the quiet phase at its bound when the page never holds still', async () => {
    const frames = Array.from({ length: 200 }, (_, index) => ({ at: index * 10, screen: `frame ${'x'.repeat(index)}`, seen: true }));
    const page = markedApp(frames);
    await settleAfterAction(page.observe, shapeOf(screen('before')), { clock: page.clock, waitForChange: page.waitForChange, beforeMark: 'm0', maxQuietMs: 500 });
    expect(page.now()).toBeLessThanOrEqual(500);
  });

  it('hands each screen that may end the settle to meanwhile before the quiet wait, so work on it overlaps the wait', async () => {
    const page = markedApp([
      { at: 0, screen: 'loading', seen: true },
      { at: 20, screen: 'done', seen: true },
    ]);
    const handed: Array<{ name: string; at: number; waits: number }> = [];
    const result = await settleAfterAction(page.observe, shapeOf(screen('before')), {
      clock: page.clock,
      waitForChange: page.waitForChange,
      beforeMark: 'm0',
      meanwhile: (observation) => handed.push({ name: observation.root.name, at: page.now(), waits: page.waits() }),
    });
    expect(result.root.name).toBe('done');
    // "loading" was handed over before its quiet wait (which saw "done" come), then "done" before its own.
    expect(handed).toEqual([
      { name: 'loading', at: 0, waits: 0 },
      { name: 'done', at: 20 + SETTLE_DEFAULTS.changeQuietMs, waits: 1 },
    ]);
    expect(page.now()).toBe(20 + SETTLE_DEFAULTS.changeQuietMs);
  });

  it('in brief mode returns the first changed screen without waiting for the page to hold still', async () => {
    const page = markedApp([
      { at: 0, screen: 'loading', seen: true },
      { at: 20, screen: 'done', seen: true },
    ]);
    const result = await settleAfterAction(page.observe, shapeOf(screen('before')), { clock: page.clock, waitForChange: page.waitForChange, beforeMark: 'm0', mode: 'brief' });
    expect(result.root.name).toBe('loading');
    expect(page.observations()).toBe(1);
    expect(page.now()).toBe(0);
  });

  it('in brief mode still waits for the screen to leave the shape the action was resolved against', async () => {
    const page = markedApp([{ at: 700, screen: 'after', seen: true }]);
    const result = await settleAfterAction(page.observe, shapeOf(screen('before')), { clock: page.clock, waitForChange: page.waitForChange, beforeMark: 'm0', mode: 'brief' });
    expect(result.root.name).toBe('after');
    expect(page.now()).toBe(700);
  });

  it('polls when observations carry no mark', async () => {
    const page = markedApp([{ at: 300, screen: 'after', seen: true }]);
    const observe = async () => {
      const { mark: _mark, ...rest } = await page.observe();
      return rest;
    };
    const result = await settleAfterAction(observe, shapeOf(screen('before')), { clock: page.clock, waitForChange: page.waitForChange, beforeMark: 'm0' });
    expect(result.root.name).toBe('after');
    expect(page.waits()).toBe(0);
  });
});

describe('settleAfterAction and focus', () => {
  /** A form with a Show button and a Name field; `focused` names the focused one, `content` appears below. */
  function form(focused: 'none' | 'button' | 'field', content?: string): { root: ScreenNode; url: string } {
    const leaf = (id: string, role: string, name: string, isFocused: boolean): ScreenNode => ({ id, role, name, states: isFocused ? ['focused'] : [], depth: 1, children: [] });
    const children = [leaf('b1', 'button', 'Show', focused === 'button'), leaf('t1', 'textbox', 'Name', focused === 'field')];
    if (content !== undefined) children.push(leaf('s1', 'status', content, false));
    return { root: { id: 'root', role: 'document', name: 'Form', states: [], depth: 0, children }, url: 'http://x.test/' };
  }
  const clocked = (clock: SettleClock, at: (time: number) => { root: ScreenNode; url: string }) => async () => at(clock.now());

  it('keeps waiting when a tapped button only took focus, and reports the content that came 800 ms later', async () => {
    const clock = fakeClock();
    const before = form('none');
    const observe = clocked(clock, (time) => (time < 800 ? form('button') : form('button', 'Details loaded')));
    const result = await settleAfterAction(observe, shapeOf(before), { clock, before });
    expect(result.root.children.map((node) => node.name)).toContain('Details loaded');
    expect(clock.elapsed()).toBeGreaterThanOrEqual(800);
  });

  it('ends the wait at once when focus moved into a field, which is what tapping one is for', async () => {
    const clock = fakeClock();
    const before = form('button');
    const result = await settleAfterAction(clocked(clock, () => form('field')), shapeOf(before), { clock, before });
    expect(result.root.children.find((node) => node.role === 'textbox')?.states).toEqual(['focused']);
    expect(clock.elapsed()).toBeLessThan(SETTLE_DEFAULTS.maxMs / 2);
  });

  it('returns the focused screen after the full wait when nothing else ever changes', async () => {
    const clock = fakeClock();
    const before = form('none');
    const result = await settleAfterAction(clocked(clock, () => form('button')), shapeOf(before), { clock, before, maxMs: 2000 });
    expect(result.root.children[0]?.states).toEqual(['focused']);
    expect(clock.elapsed()).toBe(2000);
  });

  it('counts focus as a change in brief mode, so replayed actions wait no longer than before', async () => {
    const clock = fakeClock();
    const before = form('none');
    const observe = clocked(clock, (time) => (time < 800 ? form('button') : form('button', 'Details loaded')));
    const result = await settleAfterAction(observe, shapeOf(before), { clock, before, mode: 'brief' });
    expect(result.root.children).toHaveLength(2);
    expect(clock.elapsed()).toBe(0);
  });

  it('waits in the engine past a focus change for the content that follows', async () => {
    const page = markedApp([{ at: 800, screen: 'after', seen: true }]);
    // The engine saw the focus change at once (mark m0 stands for it); the screen's name changes at 800 ms.
    const before = { ...form('none'), mark: 'm0' };
    const observe = async () => {
      const observed = await page.observe();
      return { ...form('button', observed.root.name === 'after' ? 'Details loaded' : undefined), mark: observed.mark };
    };
    const result = await settleAfterAction(observe, shapeOf(before), { clock: page.clock, waitForChange: page.waitForChange, beforeMark: 'm0', before });
    expect(result.root.children.map((node) => node.name)).toContain('Details loaded');
    expect(page.now()).toBe(800 + SETTLE_DEFAULTS.changeQuietMs);
  });
});

describe('settling on page-sized screens', () => {
  it('settles after an action on a list of 200,000 siblings and on a chain nested 5,000 deep', async () => {
    for (const [tree, changedId] of [
      [wideTree(), 'i150000'],
      [deepTree(), 'deepest'],
    ] as const) {
      const before = { root: tree, url: 'http://x.test/' };
      const changed = copyTree(tree);
      nodeById(changed, changedId).states = ['pressed'];
      const clock = fakeClock();
      let observations = 0;
      const observe = async (): Promise<{ root: ScreenNode; url: string }> => ({ root: observations++ === 0 ? tree : changed, url: 'http://x.test/' });
      // `before` makes a full settle look for the focused node on both screens.
      const result = await settleAfterAction(observe, shapeOf(before), { clock, before });
      expect(result.root).toBe(changed);
    }
  });
});

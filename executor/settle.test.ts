import { describe, expect, it } from 'vitest';
import { isE2EError } from '../errors/index.js';
import type { ScreenNode } from './engine.js';
import { shapeOf } from './screen-text.js';
import { settleAfterAction, type SettleClock } from './settle.js';

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
    const started = performance.now();
    const result = await settleAfterAction(observe, shapeOf(screen('before')), { maxMs: 1000, pollMs: 10, quietMs: 30 });
    expect(result.root.name).toBe('after');
    expect(performance.now() - started).toBeLessThan(900);
  });
});

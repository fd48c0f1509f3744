import { describe, expect, it } from 'vitest';
import type { EngineInstance, EngineObservation, ScreenNode } from '../contract/engine.js';
import { SecretVault } from '../secrets/vault.js';
import { actionOutcome, createScreenObserver, presentObservation } from './screen-observer.js';
import { deepTree, nodeById, wideTree } from '../tests/support/page-sized-trees.js';
import { renderScreen } from './screen-text.js';

function tree(label: string): ScreenNode {
  return { id: 'root', role: 'document', name: 'Shop', states: [], depth: 0, children: [{ id: 'n1', role: 'button', name: label, states: [], depth: 1, children: [] }] };
}

/** An engine that only observes: each observation shows the next of `labels`. */
function engineShowing(labels: string[]): EngineInstance {
  let index = 0;
  const observe = async (): Promise<EngineObservation> => ({ root: tree(labels[Math.min(index++, labels.length - 1)]!), url: 'http://shop.test/cart', title: 'Shop', nodeCount: 2 });
  return { observe } as unknown as EngineInstance;
}

/**
 * An engine with a change wait whose screen shows `labels[state.shown]`; a wait for quiet first
 * runs `duringQuiet` (the page changing while the engine waits), then answers with the mark.
 */
function markedEngine(labels: string[], duringQuiet: () => void = () => undefined): { engine: EngineInstance; state: { shown: number; quietWaits: number } } {
  const state = { shown: 0, quietWaits: 0 };
  const engine = {
    observe: async (): Promise<EngineObservation> => {
      const label = labels[state.shown]!;
      const root: ScreenNode = { id: 'root', role: 'document', name: 'Shop', states: [], depth: 0, children: [{ id: 'list', role: 'list', name: 'Cart', states: [], depth: 1, children: Array.from({ length: 40 }, (_, index) => ({ id: `i${index}`, role: 'listitem', name: `${label} ${index}`, states: [], depth: 2, children: [] })) }] };
      return { root, url: 'http://shop.test/cart', title: 'Shop', nodeCount: 42, mark: `m${state.shown}` };
    },
    waitForChange: async (since: string, options: { until: string }) => {
      if (options.until === 'quiet') {
        state.quietWaits++;
        duringQuiet();
      }
      return { changed: `m${state.shown}` !== since, mark: `m${state.shown}` };
    },
  } as unknown as EngineInstance;
  return { engine, state };
}

describe('screen observer', () => {
  it('hands out the screen text as an ordinary first key, rendered from the redacted tree when read', async () => {
    const observer = createScreenObserver(engineShowing(['Pay with hunter2hunter2']), new SecretVault({ card: { value: 'hunter2hunter2' } }));
    const observation = await observer.capture();
    expect(Object.keys(observation)[0]).toBe('text');
    expect(observation.text).toBe(renderScreen({ root: observation.tree, url: observation.url }, { revision: observation.revision }));
    expect(observation.text).toContain('<secret:card>');
    expect(observation.text).not.toContain('hunter2');
    const copy = { ...observation };
    expect(copy.text).toBe(observation.text);
    expect((JSON.parse(JSON.stringify(observation)) as { text: string }).text).toBe(observation.text);
    const presented = presentObservation(observation, { tree: true });
    expect(Object.keys(presented)[0]).toBe('text');
    expect(presented.text).toBe(observation.text);
    presented.text = 'replaced';
    expect(presented.text).toBe('replaced');
    expect(observation.text).not.toBe('replaced');
  });

  it('keeps the engine tree as it is when no secret is configured, and the text still reads it', async () => {
    const observer = createScreenObserver(engineShowing(['Pay now']), new SecretVault({}));
    const observation = await observer.capture();
    expect(observation.tree.children[0]?.name).toBe('Pay now');
    expect(observation.text).toContain('button "Pay now"');
  });

  it('reports an action outcome whose change report is diffed once, on first read', async () => {
    const observer = createScreenObserver(engineShowing(['Add', 'Added']), new SecretVault({}));
    const before = await observer.capture();
    const after = await observer.capture();
    let diffs = 0;
    const outcome = actionOutcome(() => {
      diffs++;
      return observer.changes(before, after);
    }, presentObservation(after, { tree: true }));
    expect(diffs).toBe(0);
    expect(Object.keys(outcome)).toEqual(['changes', 'observation']);
    expect(outcome.changes).toContain('"Added"');
    expect(outcome.changes).toBe(observer.changes(before, after));
    expect(diffs).toBe(1);
  });

  it('settles on the same text and change report whether or not it prepared them while the engine waited for quiet', async () => {
    for (const readBefore of [true, false]) {
      const leftOut: number[] = [];
      const { engine, state } = markedEngine(['Apple', 'Pear']);
      const observer = createScreenObserver(engine, new SecretVault({}), { budget: { maxNodes: 20, maxChars: 10_000 }, onLeftOut: (count) => leftOut.push(count) });
      const before = await observer.capture();
      // An agent reads every screen; a replay reads none.
      if (readBefore) expect(before.text).toContain('"Apple 0"');
      state.shown = 1;
      const after = await observer.settle(before, new AbortController().signal);
      expect(state.quietWaits).toBe(1);
      // Nothing was said about what the text leaves out before the text was read.
      expect(leftOut).toEqual(readBefore ? [before.leftOut] : []);
      const fresh = createScreenObserver(engine, new SecretVault({}), { budget: { maxNodes: 20, maxChars: 10_000 } });
      const expected = await fresh.capture();
      expect(after.revision).toBe(2);
      expect(after.text).toBe(expected.text.replace('revision 1', 'revision 2'));
      expect(after.text).toContain('"Pear 0"');
      expect(leftOut).toHaveLength(readBefore ? 2 : 1);
      const changes = observer.changes(before, after);
      expect(changes).toContain('"Pear 0"');
      expect(changes).not.toContain('removed');
    }
  });

  it('reports the screen a change during the quiet wait made, not the one it prepared', async () => {
    let changed = false;
    const { engine, state } = markedEngine(['Apple', 'Pear', 'Plum'], () => {
      if (state.shown === 1 && !changed) {
        changed = true;
        state.shown = 2;
      }
    });
    const observer = createScreenObserver(engine, new SecretVault({}));
    const before = await observer.capture();
    expect(before.text).toContain('"Apple 0"');
    state.shown = 1;
    const after = await observer.settle(before, new AbortController().signal);
    expect(state.quietWaits).toBe(2);
    expect(after.revision).toBe(2);
    expect(after.text).toContain('Screen (revision 2');
    expect(after.text).toContain('"Plum 0"');
    expect(after.text).not.toContain('"Pear 0"');
    expect(observer.changes(before, after)).toContain('"Plum 0"');
    expect(observer.changes(before, after)).not.toContain('"Pear 0"');
  });

  it('captures, redacts and reports changes on a list of 200,000 siblings and a chain nested 5,000 deep', async () => {
    for (const [build, shown] of [
      [wideTree, 'last'],
      [deepTree, 'status'],
    ] as const) {
      let observations = 0;
      const engine = {
        observe: async (): Promise<EngineObservation> => {
          const root = build();
          // The second screen shows a secret in the status; redaction walks the whole tree to find it.
          if (observations++ > 0) nodeById(root, shown).name = 'Token tok-123456';
          return { root, url: 'http://x.test/log', title: 'Log', nodeCount: 0 };
        },
      } as unknown as EngineInstance;
      const observer = createScreenObserver(engine, new SecretVault({ token: { value: 'tok-123456' } }));
      const controller = new AbortController();
      // The first screen of a step looks for interactive content, which here sits at the far end of the tree.
      const first = await observer.mounted(controller.signal);
      const second = await observer.capture();
      expect(nodeById(second.tree, shown).name).toBe('Token <secret:token>');
      expect(observer.changes(first, second)).toContain('<secret:token>');
      expect(observer.changes(first, second)).not.toContain('tok-123456');
    }
  });

  it('finds nodes a bounded screen leaves out, keeps showing them, and never reports left-out lines as removed', async () => {
    let requests: unknown[] = [];
    const items = (count: number) => Array.from({ length: count }, (_, index) => ({ id: `i${index + 1}`, role: 'listitem', name: `Item ${index + 1}`, states: [], depth: 2, children: [] }));
    let count = 500;
    const engine = {
      observe: async (request: unknown): Promise<EngineObservation> => {
        requests.push(request);
        const root: ScreenNode = { id: 'root', role: 'document', name: 'Log', states: [], depth: 0, children: [{ id: 'log', role: 'list', name: 'Log', states: [], depth: 1, children: items(count) }] };
        return { root, url: 'http://x.test/log', title: 'Log', nodeCount: count + 2 };
      },
    } as unknown as EngineInstance;
    const observer = createScreenObserver(engine, new SecretVault({}), { budget: { maxNodes: 30, maxChars: 10_000 } });
    const first = await observer.capture();
    expect(first.leftOut).toBeGreaterThan(400);
    expect(first.text).not.toContain('#i250 ');
    expect(first.text).toContain('— use find to reach one');
    expect(requests[0]).toEqual({ bounds: { maxRun: 30 } });

    requests = [];
    const found = await observer.capture(undefined, { find: '  item 250 ' });
    expect(found.found).toEqual({ query: '  item 250 ', ids: ['i250'], total: 1 });
    expect(found.text).toContain('#i250 listitem "Item 250"');
    expect(requests[0]).toEqual({ bounds: { maxRun: 30 }, include: { ids: [], text: ['item 250'] } });
    const presented = presentObservation(found, { tree: false });
    expect(presented.found?.ids).toEqual(['i250']);
    expect(presented.leftOut).toBe(found.leftOut);

    // Later screens keep the found node, and ask the engine to read it.
    count = 501;
    requests = [];
    const later = await observer.capture();
    expect(later.text).toContain('#i250 listitem "Item 250"');
    expect(requests[0]).toEqual({ bounds: { maxRun: 30 }, include: { ids: ['i250'], text: [] } });
    // A node that only moved out of the text is not removed; one new to the tree but left out is not listed either.
    expect(observer.changes(first, later)).not.toContain('removed');
    expect(observer.changes(found, later)).toMatch(/no change|changes:/);
    await expect(observer.capture(undefined, { find: '   ' })).rejects.toThrow('find takes the words to look for');
  });
});

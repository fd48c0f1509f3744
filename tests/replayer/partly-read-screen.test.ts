/**
 * Replaying on a screen the engine reads in part (issue 34): a list longer than the screen
 * budget, read like the web engine reads one (its first and last items, what the request
 * includes, a placeholder for the rest), recorded and replayed through the real step runner
 * and attempt cache. The replay asks once for the words of every control it will match and
 * the runner holds them on the screens its actions settle on; the matching rules stay those of
 * a whole screen, so a lookalike the engine would have left out still stops the replay.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore, initHashing, type CacheStore } from '../../cache-format/index.js';
import { ENGINE_CONTRACT_VERSION, OMITTED_ROLE, VERBS, type EngineAction, type EngineInstance, type EngineObservation, type NodeRef, type ObserveRequest, type ScreenNode } from '../../contract/engine.js';
import type { StepContext, StepExecutor } from '../../contract/step-contract.js';
import { startAttempt, type AttemptScreen } from '../support/attempt-harness.js';
import { tempFolders } from '../support/temp-folders.js';

const ORIGIN = 'http://127.0.0.1:4100';
const ITEMS = 5_000;
/** What the engine keeps of a run read in part, as the web engine does. */
const HEAD = 20;
const TAIL = 5;
const INSTRUCTION = 'select item 3000, then go to the last item';
const tempFolder = tempFolders('e2e-partly-read-');

beforeAll(async () => {
  await initHashing();
});

function node(id: string, role: string, name: string, depth: number, extra: Partial<ScreenNode> = {}): ScreenNode {
  return { id, role, name, states: [], depth, children: [], ...extra };
}

/** A log viewer of {@link ITEMS} rows in memory that reads a long list in part, as the web engine does. */
class PartlyReadList implements EngineInstance {
  readonly names: string[] = Array.from({ length: ITEMS }, (_, index) => `Item ${index + 1}`);
  status = 'Nothing selected';
  /** Every observation asked, and what was performed after how many of them. */
  readonly reads: ObserveRequest[] = [];
  readonly performed: Array<{ id: string; afterReads: number }> = [];
  readonly session = {
    open: async () => undefined,
    back: async () => undefined,
    restart: async () => undefined,
    url: () => `${ORIGIN}/log`,
  };

  async observe(request: ObserveRequest = {}): Promise<EngineObservation> {
    this.reads.push(request);
    const maxRun = request.bounds?.maxRun ?? 0;
    const words = (request.include?.text ?? []).map((text) => text.toLowerCase());
    const ids = new Set(request.include?.ids ?? []);
    const items: ScreenNode[] = [];
    let left: string[] = [];
    const flush = (): void => {
      if (left.length === 0) return;
      items.push(node(`omitted${items.length}`, OMITTED_ROLE, '', 2, { omitted: { count: left.length, role: 'listitem', first: left[0]!, last: left[left.length - 1]! } }));
      left = [];
    };
    this.names.forEach((name, index) => {
      const id = `i${index}`;
      const kept = maxRun <= 0 || this.names.length <= maxRun || index < HEAD || index >= this.names.length - TAIL || ids.has(id) || words.some((word) => name.toLowerCase().includes(word));
      if (!kept) {
        left.push(name);
        return;
      }
      flush();
      items.push(node(id, 'listitem', name, 2));
    });
    flush();
    const children = [node('title', 'heading', 'Log', 1), node('status', 'status', '', 1, { text: this.status }), node('log', 'list', 'Log', 1, { children: items }), node('last', 'button', 'Last', 1)];
    const root = node('root', 'document', 'Log', 0, { children });
    return { root, url: `${ORIGIN}/log`, title: 'Log', nodeCount: 4 + items.length };
  }

  async perform(ref: NodeRef, action: EngineAction): Promise<void> {
    if (action.verb !== 'tap') throw new Error(`cannot ${action.verb}`);
    this.performed.push({ id: ref.id, afterReads: this.reads.length });
    if (ref.id === 'last') this.status = 'Went to the last item';
    else if (ref.id.startsWith('i')) this.status = `Selected ${this.names[Number(ref.id.slice(1))]}`;
    else throw new Error(`cannot tap #${ref.id}`);
  }

  async performOnPage(): Promise<void> {
    throw new Error('no page actions here');
  }

  async screenshot(): Promise<Uint8Array> {
    return new Uint8Array();
  }

  async close(): Promise<void> {}
}

function screenOf(instance: PartlyReadList): AttemptScreen {
  return { instance, engine: { name: 'partly-read', contractVersion: ENGINE_CONTRACT_VERSION, platform: 'web', verbs: VERBS, location: 'url' }, origin: ORIGIN };
}

/** The recording's stand-in for the model: finds item 3000 (left out of its first screen), taps it, then taps "Last". */
const selecting: StepExecutor = {
  name: 'selecting',
  async runStep(context: StepContext) {
    const first = await context.observe();
    if (first.text.includes('"Item 3000"')) throw new Error('the screen showed item 3000; the test needs it left out');
    const found = await context.observe({ find: 'Item 3000' });
    await context.actions.tap({ id: found.found!.ids[0]! });
    await context.actions.tap({ id: 'last' });
    return { status: 'passed', summary: 'Selected item 3000, then went to the last item.' };
  },
};

async function recorded(): Promise<CacheStore> {
  const store = new FileCacheStore(join(tempFolder(), 'cache'));
  const recording = startAttempt(screenOf(new PartlyReadList()), { executor: selecting, cache: { store } });
  const step = await recording.act(INSTRUCTION);
  expect(step.verdict.status).toBe('passed');
  recording.verify();
  const [write] = await recording.finish();
  expect(write?.outcome.write).toBe('saved');
  return store;
}

/** The recorded step replayed with no model on a list `change` made different. */
async function replayedOn(change: (list: PartlyReadList) => void): Promise<{ cache: unknown; list: PartlyReadList }> {
  const store = await recorded();
  const list = new PartlyReadList();
  change(list);
  const replaying = startAttempt(screenOf(list), { cache: { store } });
  const replayed = await replaying.act(INSTRUCTION);
  await replaying.finish();
  return { cache: replayed.cache, list };
}

describe('a replay on a screen the engine reads in part', () => {
  it('reads once before its first action, asking for the words of every control it matches, and the screens its actions settle on hold them', async () => {
    const store = await recorded();
    const list = new PartlyReadList();
    const replaying = startAttempt(screenOf(list), { cache: { store } });
    const replayed = await replaying.act(INSTRUCTION);
    await replaying.finish();
    expect(replayed.cache?.mode).toBe('self-finalized');
    expect(list.status).toBe('Went to the last item');
    expect(list.performed.map((action) => action.id)).toEqual(['i2999', 'last']);
    // One read served the start check, the end check's start and the first target; no read of its own before the tap.
    expect(list.performed[0]!.afterReads).toBe(1);
    // Every read of the step, the settling ones too, read both targets' words in full.
    expect(list.reads.length).toBeGreaterThan(1);
    for (const read of list.reads) expect(read.include?.text).toEqual(expect.arrayContaining(['item 3000', 'last']));
  });

  it('still refuses a twin the engine would have left out: a second "Item 3000" deep in the list stops the replay as ambiguous', async () => {
    const { cache, list } = await replayedOn((twinned) => (twinned.names[1_200] = 'Item 3000'));
    expect(cache).toMatchObject({ mode: 'missed', reason: 'target-ambiguous' });
    expect(list.performed).toEqual([]);
  });

  it('never takes a lookalike for the target: "Item 3000 (archived)" is read in full and still not item 3000', async () => {
    const { cache, list } = await replayedOn((renamed) => (renamed.names[2_999] = 'Item 3000 (archived)'));
    expect(cache).toMatchObject({ mode: 'missed', reason: 'target-not-found' });
    expect(list.performed).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { actEntrySchema, type KeyParts } from '../cache-format/entry.js';
import type { ScreenNode } from '../contract/engine.js';
import { node, screen } from '../tests/support/hand-built-tree.js';
import type { ActionEventLike } from './record-action.js';
import { StepRecorder, buildActEntry } from './record-step.js';

const URL = 'http://127.0.0.1:4173/shop';

interface Page {
  banner?: 'consent' | 'confirm';
  items?: string[];
  status?: string;
  draft?: string;
}

/** A shop page: an item field, Add, a list, a status, and maybe a dialog over it. */
function page({ banner, items = [], status = '', draft = '' }: Page): ScreenNode {
  const dialogs: ScreenNode[] = [];
  if (banner === 'consent') dialogs.push(node('dialog', 'Cookie consent', { id: 'consent' }, [node('text', '', { text: 'We use cookies.' }), node('button', 'Accept cookies', { id: 'accept' }), node('button', 'Settings', { id: 'settings' })]));
  if (banner === 'confirm') dialogs.push(node('dialog', 'Clear the list?', { id: 'confirm' }, [node('button', 'Clear', { id: 'clear-yes' })]));
  return screen(
    node('textbox', 'New item', { id: 'field', value: draft }),
    node('button', 'Add', { id: 'add' }),
    node('button', 'Clear list', { id: 'clear' }),
    node('list', 'Items', items.map((title) => node('listitem', title, { id: `item-${title}` }, [node('button', 'Delete', { id: `delete-${title}` })]))),
    node('status', '', { text: status }),
    ...dialogs,
  );
}

const tap = (id: string, before: ScreenNode, after: ScreenNode, afterUrl = URL): ActionEventLike => ({
  verb: 'tap', ref: { id }, args: {},
  before: { tree: before, url: URL },
  after: { tree: after, url: afterUrl },
  outcome: 'ok', mayHaveCommitted: true,
});

const type = (before: ScreenNode, after: ScreenNode): ActionEventLike => ({
  verb: 'type', ref: { id: 'field' }, args: { value: 'Oat milk' },
  before: { tree: before, url: URL },
  after: { tree: after, url: URL },
  outcome: 'ok', mayHaveCommitted: true,
});

function record(inputs: ActionEventLike[], lookedAt?: { screen: ScreenNode; nodeIds: string[] }) {
  const recorder = new StepRecorder({ instruction: 'add Oat milk' });
  for (const input of inputs) recorder.recordEvent(input);
  if (lookedAt !== undefined) recorder.lookedAt({ screen: { tree: lookedAt.screen, url: URL }, nodeIds: lookedAt.nodeIds });
  const result = recorder.finish();
  if (result.kind !== 'recorded') throw new Error(result.reason);
  return result.recording;
}

/** Accept the cookies, then type and add: the usual dismissal. */
function acceptThenAdd(): ActionEventLike[] {
  const withBanner = page({ banner: 'consent' });
  const clear = page({});
  const typed = page({ draft: 'Oat milk' });
  const added = page({ items: ['Oat milk'], status: 'Added Oat milk' });
  return [tap('accept', withBanner, clear), type(clear, typed), tap('add', typed, added)];
}

const CONSENT = { role: 'dialog', name: 'Cookie consent' };

describe('recognising a dismissal', () => {
  it('marks a tap that took away a dialog shown at the start that nothing else used', () => {
    const recording = record(acceptThenAdd());
    expect(recording.actions[0]).toMatchObject({ verb: 'tap', target: { name: 'Accept cookies', container: CONSENT }, dismisses: CONSENT });
    expect(recording.actions.filter((action) => 'dismisses' in action)).toHaveLength(1);
  });

  it('writes the mark into a valid entry, and the schema refuses a misspelt one', () => {
    const keyParts: KeyParts = {
      projectId: 'demo', testId: 'shop > adds', target: 'web', engine: 'web', engineContract: 1, kind: 'act', instruction: 'add Oat milk',
      params: {}, occurrence: 0, appIdentity: 'http://127.0.0.1:4173', agent: 'default', contextDigest: 'abc', replayPolicy: 1,
    };
    const built = buildActEntry(record(acceptThenAdd()), {
      key: 'k1',
      keyParts,
      summary: 'Added Oat milk.',
      provenance: { verifiedBy: 'expect', executor: 'scripted', toolVersion: '0.1.0', recordedAt: '2025-01-01T00:00:00.000Z' },
    });
    if (built.kind !== 'entry') throw new Error(built.reason);
    expect(built.entry.actions[0]).toHaveProperty('dismisses', CONSENT);
    const { dismisses, ...unmarked } = built.entry.actions[0] as { dismisses: unknown };
    expect(actEntrySchema.safeParse({ ...built.entry, actions: [{ ...unmarked, dismissed: dismisses }, ...built.entry.actions.slice(1)] }).success).toBe(false);
    expect(actEntrySchema.safeParse({ ...built.entry, actions: [unmarked, ...built.entry.actions.slice(1)] }).success).toBe(true);
  });

  it('does not mark it when another action of the step works inside the dialog', () => {
    const withBanner = page({ banner: 'consent' });
    const clear = page({});
    const typed = page({ draft: 'Oat milk' });
    const added = page({ items: ['Oat milk'], status: 'Added Oat milk' });
    // The dialog comes back later and the step taps inside it again.
    const again = page({ items: ['Oat milk'], status: 'Added Oat milk', banner: 'consent' });
    const recording = record([tap('accept', withBanner, clear), type(clear, typed), tap('add', typed, again), tap('settings', again, added)]);
    expect(recording.actions.some((action) => 'dismisses' in action)).toBe(false);
  });

  it('does not mark it when the verification after the step looked inside the dialog', () => {
    const inputs = acceptThenAdd();
    const recording = record(inputs, { screen: inputs[0]!.before.tree, nodeIds: ['accept'] });
    expect(recording.actions.some((action) => 'dismisses' in action)).toBe(false);
  });

  it('does not mark it when the dialog going away is all the end rests on', () => {
    const recording = record([tap('accept', page({ banner: 'consent' }), page({}))]);
    expect(recording.actions[0]).not.toHaveProperty('dismisses');
  });

  it('does not mark it when what the end rests on came from the dismissal itself', () => {
    // "Accept the cookies": the status the step is proven by is the dialog's own answer.
    const recording = record([tap('accept', page({ banner: 'consent' }), page({ status: 'Cookies accepted' }))]);
    expect(recording.appeared).toContainEqual(expect.objectContaining({ role: 'status', basis: 'announced' }));
    expect(recording.actions[0]).not.toHaveProperty('dismisses');
  });

  it('does not mark a confirmation the step itself opened', () => {
    const full = page({ items: ['Tea'] });
    const asking = page({ items: ['Tea'], banner: 'confirm' });
    const cleared = page({});
    const typed = page({ draft: 'Oat milk' });
    const added = page({ items: ['Oat milk'], status: 'Added Oat milk' });
    const recording = record([tap('clear', full, asking), tap('clear-yes', asking, cleared), type(cleared, typed), tap('add', typed, added)]);
    expect(recording.actions.some((action) => 'dismisses' in action)).toBe(false);
  });

  it('does not mark a delete that took its list item away', () => {
    const cleared = page({ items: ['Tea'] });
    const typed = page({ items: ['Tea'], draft: 'Oat milk' });
    const added = page({ items: ['Tea', 'Oat milk'], status: 'Added Oat milk' });
    const recording = record([tap('delete-Rice', page({ items: ['Rice', 'Tea'] }), cleared), type(cleared, typed), tap('add', typed, added)]);
    expect(recording.actions[0]).toMatchObject({ target: { container: { role: 'listitem', name: 'Rice' } } });
    expect(recording.actions[0]).not.toHaveProperty('dismisses');
  });

  it('does not mark a tap that left the page', () => {
    const inputs = acceptThenAdd();
    inputs[0] = tap('accept', page({ banner: 'consent' }), page({}), 'http://127.0.0.1:4173/welcome');
    inputs[1] = { ...inputs[1]!, before: { ...inputs[1]!.before, url: 'http://127.0.0.1:4173/welcome' } };
    const recording = record(inputs);
    expect(recording.actions[0]).not.toHaveProperty('dismisses');
  });
});

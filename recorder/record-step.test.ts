import { describe, expect, it } from 'vitest';
import type { KeyParts } from '../cache-format/entry.js';
import type { ScreenNode } from '../contract/engine.js';
import { node, screen } from '../tests/support/hand-built-tree.js';
import type { ActionEventLike } from './record-action.js';
import { StepRecorder, buildActEntry } from './record-step.js';

const ORIGIN = 'http://127.0.0.1:4173';

function todoScreen(items: string[], draft = ''): ScreenNode {
  return screen(
    node('textbox', 'What needs to be done?', { id: 'new-todo', value: draft }),
    node('list', '', items.map((title, position) => node('listitem', title, { id: `item-${position}` }, [node('button', 'Delete', { id: `delete-${position}` })]))),
    node('status', '', { text: `${items.length} items left` }),
  );
}

const keyParts: KeyParts = {
  projectId: 'demo',
  testId: 'todos.e2e.ts > adds a todo',
  target: 'web',
  engine: 'web',
  engineContract: 1,
  kind: 'act',
  instruction: 'add a todo "Buy milk"',
  params: {},
  occurrence: 0,
  appIdentity: ORIGIN,
  agent: 'default',
  contextDigest: 'abc',
  replayPolicy: 1,
};
const metadata = {
  key: 'k1',
  keyParts,
  summary: 'Added the todo.',
  provenance: { verifiedBy: 'expect', executor: 'scripted', toolVersion: '0.1.0', recordedAt: '2025-01-01T00:00:00.000Z' },
} as const;

function addTodoInputs(url = `${ORIGIN}/#/`): ActionEventLike[] {
  const empty = todoScreen([]);
  const typed = todoScreen([], 'Buy milk');
  const added = todoScreen(['Buy milk']);
  return [
    { verb: 'type', ref: { id: 'new-todo' }, args: { value: 'Buy milk' }, before: { tree: empty, url }, after: { tree: typed, url }, outcome: 'ok', mayHaveCommitted: true },
    { verb: 'press', ref: { id: 'new-todo' }, args: { key: 'Enter' }, before: { tree: typed, url }, after: { tree: added, url }, outcome: 'ok', mayHaveCommitted: true },
  ];
}

describe('StepRecorder', () => {
  it('keeps what the verification looked at in the end check however many other controls a dialog step changed', () => {
    const url = `${ORIGIN}/`;
    const before = screen(node('button', 'Account', { id: 'open' }));
    const options = Array.from({ length: 10 }, (_, position) => node('button', `Option ${position + 1}`));
    const after = screen(node('button', 'Account', { id: 'open-now' }), node('dialog', 'Account', options), node('paragraph', 'Signed in as Ann', { id: 'who' }));
    const recorder = new StepRecorder({ instruction: 'open the account dialog' });
    recorder.recordEvent({ verb: 'tap', ref: { id: 'open' }, args: {}, before: { tree: before, url }, after: { tree: after, url }, outcome: 'ok', mayHaveCommitted: true });
    recorder.lookedAt({ screen: { tree: after, url }, nodeIds: ['who'] });
    const result = recorder.finish();
    if (result.kind !== 'recorded') throw new Error(result.reason);
    expect(result.recording.appeared).toHaveLength(8);
    expect(result.recording.appeared).toContainEqual(expect.objectContaining({ role: 'paragraph', name: 'Signed in as Ann', basis: 'verified' }));
  });

  it('records actions, routes without fragment, origins and the controls that prove the outcome', () => {
    const recorder = new StepRecorder({ instruction: 'add a todo "Buy milk"' });
    for (const input of addTodoInputs()) recorder.recordEvent(input);
    const result = recorder.finish();
    expect(result.kind).toBe('recorded');
    if (result.kind !== 'recorded') return;
    const { recording } = result;
    expect(recording.actions).toEqual([
      { verb: 'type', target: { role: 'textbox', name: 'What needs to be done?', twinIndex: 0, twinCount: 1 }, value: { kind: 'literal', value: 'Buy milk' }, replace: false },
      { verb: 'press', target: { role: 'textbox', name: 'What needs to be done?', twinIndex: 0, twinCount: 1 }, key: 'Enter' },
    ]);
    expect(recording.startRoute).toEqual({ origin: ORIGIN, path: '/', query: '' });
    expect(recording.origins).toEqual([ORIGIN]);
    // Each check says why it proves the step (the status announces, the item shows the typed title)
    // and which action produced it (all of them changed right after Enter, action 2).
    expect(recording.appeared[0]).toEqual({ role: 'status', name: '', text: '1 items left', states: [], basis: 'announced', producedBy: [1] });
    expect(recording.appeared).toContainEqual({ role: 'listitem', name: 'Buy milk', states: [], basis: 'typed', producedBy: [1] });
    expect(recording.gone).toEqual([{ role: 'status', name: '', text: '0 items left', states: [], basis: 'announced', producedBy: [1] }]);

    const built = buildActEntry(recording, metadata);
    expect(built.kind).toBe('entry');
    if (built.kind === 'entry') expect(built.entry.actions).toHaveLength(2);
  });

  it('marks what changed right after an action as produced by it, and leaves out what changed between actions', () => {
    const url = `${ORIGIN}/`;
    const row = (checked: boolean, extras: ReturnType<typeof node>[]) =>
      screen(node('list', '', [node('listitem', 'Buy milk', { id: 'item' }, [node('checkbox', '', { id: 'tick', states: checked ? ['checked'] : [] })])]), ...extras);
    const before = row(false, [node('text', '1 item left', { id: 'count' })]);
    const after = row(true, [node('text', '0 items left', { id: 'count' })]);
    // While the agent read the screen, a chat badge arrived: nothing the step did.
    const later = row(true, [node('text', '0 items left', { id: 'count' }), node('status', 'New message from Ann')]);
    const recorder = new StepRecorder({ instruction: 'complete "Buy milk" and open the help' });
    recorder.recordEvent({ verb: 'check', ref: { id: 'tick' }, args: { checked: true }, before: { tree: before, url }, after: { tree: after, url }, outcome: 'ok', mayHaveCommitted: true });
    recorder.recordEvent({ verb: 'hover', ref: { id: 'count' }, args: {}, before: { tree: later, url }, after: { tree: later, url }, outcome: 'ok', mayHaveCommitted: true });
    const result = recorder.finish();
    if (result.kind !== 'recorded') throw new Error(result.reason);
    const { appeared, gone } = result.recording;
    expect(appeared).toContainEqual({ role: 'text', name: '0 items left', states: [], basis: 'incidental', producedBy: [0] });
    expect(gone).toContainEqual({ role: 'text', name: '1 item left', states: [], basis: 'incidental', producedBy: [0] });
    // The badge changed between the actions: nothing the step produced.
    expect(appeared).toContainEqual({ role: 'status', name: 'New message from Ann', states: [], basis: 'announced' });
  });

  it('keeps a secret by name only and refuses an entry that would hold a secret value', () => {
    const login = screen(node('textbox', 'Password', { id: 'password', states: ['secure'] }), node('button', 'Sign in', { id: 'sign-in' }));
    const welcome = screen(node('heading', 'Welcome'));
    const recorder = new StepRecorder({ instruction: 'sign in with <secret:adminPassword>' });
    recorder.recordEvent({ verb: 'typeSecret', ref: { id: 'password' }, args: { name: 'adminPassword' }, before: { tree: login, url: `${ORIGIN}/login` }, after: { tree: login, url: `${ORIGIN}/login` }, outcome: 'ok', mayHaveCommitted: true });
    recorder.recordEvent({ verb: 'tap', ref: { id: 'sign-in' }, args: {}, before: { tree: login, url: `${ORIGIN}/login` }, after: { tree: welcome, url: `${ORIGIN}/home` }, outcome: 'ok', mayHaveCommitted: true });
    const result = recorder.finish();
    if (result.kind !== 'recorded') throw new Error(result.reason);
    expect(result.recording.actions[0]).toMatchObject({ verb: 'type', value: { kind: 'secret', name: 'adminPassword' } });
    const built = buildActEntry(result.recording, metadata);
    expect(built.kind).toBe('entry');
    const clean = (text: string) => !text.includes('Welcome');
    expect(buildActEntry(result.recording, { ...metadata, clean })).toEqual({ kind: 'not-cacheable', reason: 'the entry would contain a secret value' });
  });

  it('writes unique() values as placeholders in targets and end checks', () => {
    const email = 'user-1712@example.test';
    const recorder = new StepRecorder({ instruction: `invite ${email}`, uniqueValues: { email } });
    const before = screen(node('textbox', 'Email', { id: 'email' }), node('button', 'Invite', { id: 'invite' }));
    const after = screen(node('textbox', 'Email', { id: 'email' }), node('listitem', `Invited ${email}`));
    recorder.recordEvent({ verb: 'type', ref: { id: 'email' }, args: { value: email }, before: { tree: before, url: `${ORIGIN}/team` }, after: { tree: before, url: `${ORIGIN}/team` }, outcome: 'ok', mayHaveCommitted: true });
    recorder.recordEvent({ verb: 'tap', ref: { id: 'invite' }, args: {}, before: { tree: before, url: `${ORIGIN}/team` }, after: { tree: after, url: `${ORIGIN}/team` }, outcome: 'ok', mayHaveCommitted: true });
    const result = recorder.finish();
    if (result.kind !== 'recorded') throw new Error(result.reason);
    expect(result.recording.actions[0]).toMatchObject({ value: { kind: 'unique', param: 'email' } });
    expect(result.recording.appeared).toContainEqual({ role: 'listitem', name: 'Invited {unique:email}', states: [], basis: 'typed', producedBy: [1] });
    expect(JSON.stringify(result.recording)).not.toContain(email);
  });

  it('leaves gaps for mutating project tools, values read off the screen and failed actions that may have committed', () => {
    const before = screen(node('status', 'Your code is 4417'), node('textbox', 'Code', { id: 'code' }), node('button', 'Verify', { id: 'verify' }));
    const after = screen(node('heading', 'Verified'));
    const url = `${ORIGIN}/verify`;
    const recorder = new StepRecorder({ instruction: 'verify the account' });
    recorder.recordEvent({ verb: 'tool', args: { name: 'seedAccount', mutates: true }, before: { tree: before, url }, outcome: 'ok', mayHaveCommitted: true });
    recorder.recordEvent({ verb: 'tool', args: { name: 'readInbox', mutates: false }, before: { tree: before, url }, outcome: 'ok', mayHaveCommitted: true });
    recorder.recordEvent({ verb: 'type', ref: { id: 'code' }, args: { value: '4417' }, before: { tree: before, url }, after: { tree: before, url }, outcome: 'ok', mayHaveCommitted: true });
    recorder.recordEvent({ verb: 'tap', ref: { id: 'verify' }, args: {}, before: { tree: before, url }, outcome: 'ACTION_FAILED', mayHaveCommitted: true });
    recorder.recordEvent({ verb: 'tap', ref: { id: 'verify' }, args: {}, before: { tree: before, url }, after: { tree: after, url }, outcome: 'ok', mayHaveCommitted: true });
    const result = recorder.finish();
    if (result.kind !== 'recorded') throw new Error(result.reason);
    expect(result.recording.actions.map((action) => action.verb === 'gap' ? `gap: ${action.rule}` : action.verb)).toEqual([
      'gap: mutating project tool',
      'gap: value read off the screen',
      'gap: a failed action that may have committed',
      'tap',
    ]);
    expect(result.recording.actions[0]).toEqual({ verb: 'gap', rule: 'mutating project tool', tool: 'seedAccount' });
  });

  it('refuses a step with more than 50 actions', () => {
    const recorder = new StepRecorder({ instruction: 'tap a lot' });
    const tree = screen(node('button', 'More', { id: 'more' }));
    for (let count = 0; count < 51; count++) recorder.recordEvent({ verb: 'tap', ref: { id: 'more' }, args: {}, before: { tree, url: `${ORIGIN}/` }, outcome: 'ok', mayHaveCommitted: true });
    expect(recorder.finish()).toEqual({ kind: 'not-cacheable', reason: 'the step took more than 50 recordable actions' });
  });

  it('refuses a typed value over 4,096 characters', () => {
    const recorder = new StepRecorder({ instruction: 'paste the essay' });
    const tree = screen(node('textbox', 'Essay', { id: 'essay' }));
    recorder.recordEvent({ verb: 'type', ref: { id: 'essay' }, args: { value: 'word '.repeat(1000) }, before: { tree, url: `${ORIGIN}/` }, outcome: 'ok', mayHaveCommitted: true });
    expect(recorder.finish()).toEqual({ kind: 'not-cacheable', reason: 'action 1 (type): its value is 5000 characters (at most 4096 are recorded)' });
  });

  it('refuses a step that took no action or changed nothing', () => {
    expect(new StepRecorder({ instruction: 'look around' }).finish()).toEqual({ kind: 'not-cacheable', reason: 'the step took no action that can be recorded' });
    const recorder = new StepRecorder({ instruction: 'hover the logo' });
    const tree = screen(node('img', 'Logo', { id: 'logo' }));
    recorder.recordEvent({ verb: 'hover', ref: { id: 'logo' }, args: {}, before: { tree, url: `${ORIGIN}/` }, after: { tree, url: `${ORIGIN}/#top` }, outcome: 'ok', mayHaveCommitted: true });
    expect(recorder.finish()).toEqual({ kind: 'not-cacheable', reason: `the step changed nothing a replay could check (still on ${ORIGIN}/)` });
  });

  it('counts a route change alone as something a replay can check', () => {
    const recorder = new StepRecorder({ instruction: 'open settings' });
    const tree = screen(node('link', 'Settings', { id: 'settings' }));
    recorder.recordEvent({ verb: 'tap', ref: { id: 'settings' }, args: {}, before: { tree, url: `${ORIGIN}/` }, after: { tree, url: `${ORIGIN}/settings` }, outcome: 'ok', mayHaveCommitted: true });
    const result = recorder.finish();
    expect(result.kind === 'recorded' && result.recording.endRoute).toEqual({ origin: ORIGIN, path: '/settings', query: '' });
  });

  it('keeps same-origin navigations as paths, and leaves gaps for ids read off the screen and secrets in URLs', () => {
    const tree = screen(node('link', 'Order 4521', { href: `${ORIGIN}/orders/4521` }));
    const recorder = new StepRecorder({ instruction: 'open the settings, then the newest order', uniqueValues: { search: 'milk run 42' } });
    const navigate = (url: string, to: string): ActionEventLike => ({
      verb: 'navigate', args: { url },
      before: { tree, url: `${ORIGIN}/` },
      after: { tree, url: to },
      outcome: 'ok', mayHaveCommitted: true,
    });
    recorder.recordEvent(navigate(`${ORIGIN}/settings?tab=profile#top`, `${ORIGIN}/settings?tab=profile`));
    recorder.recordEvent(navigate(`${ORIGIN}/search?q=milk%20run%2042`, `${ORIGIN}/search?q=milk%20run%2042`));
    recorder.recordEvent(navigate(`${ORIGIN}/orders/4521`, `${ORIGIN}/orders/4521`));
    recorder.recordEvent(navigate(`${ORIGIN}/login?token=<secret:apiToken>`, `${ORIGIN}/login`));
    recorder.recordEvent(navigate('http://127.0.0.1:9/elsewhere', 'http://127.0.0.1:9/elsewhere'));
    const result = recorder.finish();
    if (result.kind !== 'recorded') throw new Error(result.reason);
    expect(result.recording.actions).toEqual([
      { verb: 'navigate', url: '/settings?tab=profile#top' },
      { verb: 'navigate', url: '/search?q={unique:search}' },
      { verb: 'gap', rule: 'navigation to an id read off the screen' },
      { verb: 'gap', rule: 'navigation to a URL holding a secret' },
      { verb: 'navigate', url: 'http://127.0.0.1:9/elsewhere' },
    ]);
    expect(result.recording.origins).toEqual([ORIGIN, 'http://127.0.0.1:9']);
  });

  it('reads the runner’s action events, including their value origin', () => {
    const [first, second] = addTodoInputs();
    const recorder = new StepRecorder({ instruction: 'add a todo {title}' });
    recorder.recordEvent({ verb: 'type', ref: { id: 'new-todo' }, args: { value: 'Buy milk', replace: true }, value: { kind: 'param', name: 'title' }, before: first!.before, after: first!.after, outcome: 'ok', mayHaveCommitted: true });
    recorder.recordEvent({ verb: 'press', ref: { id: 'new-todo' }, args: { key: 'Enter' }, before: second!.before, after: second!.after, outcome: 'ok', mayHaveCommitted: true });
    recorder.recordEvent({ verb: 'tap', ref: { id: 'new-todo' }, args: {}, before: second!.after!, outcome: 'ACTION_FAILED', mayHaveCommitted: false });
    const result = recorder.finish();
    if (result.kind !== 'recorded') throw new Error(result.reason);
    expect(result.recording.actions).toHaveLength(2);
    expect(result.recording.actions[0]).toMatchObject({ verb: 'type', value: { kind: 'literal', value: 'Buy milk' }, replace: true });
  });

  it('refuses an event it cannot read', () => {
    const recorder = new StepRecorder({ instruction: 'x' });
    const [first] = addTodoInputs();
    recorder.recordEvent({ verb: 'teleport', args: {}, before: first!.before, outcome: 'ok', mayHaveCommitted: false });
    expect(recorder.finish()).toEqual({ kind: 'not-cacheable', reason: 'action 1 (teleport): its verb teleport is unknown' });
  });
});

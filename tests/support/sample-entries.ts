/**
 * Realistic cache entries for tests and benches: built through the real key function, so
 * every sample is an entry the store would write.
 */
import {
  computeKey,
  REPLAY_POLICY_VERSION,
  type ActEntry,
  type JudgmentEntry,
  type KeyParts,
} from '../../cache-format/index.js';

/** Key parts of a todo-app step; `overrides` replace parts. */
export function sampleKeyParts(overrides: Partial<KeyParts> = {}): KeyParts {
  return {
    projectId: 'chromium',
    testId: 'todos.spec.ts › todos › adds and completes',
    target: 'web',
    engine: 'web',
    engineContract: 1,
    kind: 'act',
    instruction: 'add two todos and complete the first',
    params: { user: '<secret:user>', title: '<unique:title>' },
    occurrence: 0,
    appIdentity: 'http://127.0.0.1:4173',
    agent: 'default',
    contextDigest: '5f0c1d2e3a4b5c6d',
    replayPolicy: REPLAY_POLICY_VERSION,
    ...overrides,
  };
}

/** An `act` entry for `keyParts`; `variant` changes the recorded flow (different bytes, same key). */
export async function sampleActEntry(keyParts: KeyParts = sampleKeyParts(), variant = 0): Promise<ActEntry> {
  const input = (name: string) => ({ role: 'textbox', name, placeholder: 'What needs to be done?', twinIndex: 0, twinCount: 1 });
  return {
    // With a location (routes): version 1.
    version: 1,
    kind: 'act',
    key: await computeKey(keyParts),
    keyParts,
    actions: [
      { verb: 'tap', target: input('New todo') },
      { verb: 'type', target: input('New todo'), value: { kind: 'literal', value: `Buy milk ${variant}` }, replace: true },
      { verb: 'press', key: 'Enter' },
      { verb: 'type', target: input('New todo'), value: { kind: 'unique', param: 'title' }, replace: true },
      { verb: 'press', key: 'Enter' },
      {
        verb: 'check',
        target: { role: 'checkbox', name: 'Toggle Todo', container: { role: 'listitem', name: `Buy milk ${variant}` }, twinIndex: 0, twinCount: 2 },
        checked: true,
      },
    ],
    startRoute: { origin: 'http://127.0.0.1:4173', path: '/', query: '' },
    endRoute: { origin: 'http://127.0.0.1:4173', path: '/', query: '' },
    origins: ['http://127.0.0.1:4173'],
    appeared: [
      { role: 'listitem', name: `Buy milk ${variant}`, states: [] },
      { role: 'status', name: '1 item left', text: '1 item left', states: [] },
    ],
    gone: [],
    summary: 'Added two todos and completed the first.',
    provenance: { verifiedBy: 'expect', executor: 'e2e/agent', toolVersion: '0.1.0', recordedAt: '2025-01-02T03:04:05.000Z' },
  };
}

/** An `assert` entry for `keyParts`. */
export async function sampleJudgmentEntry(keyParts: KeyParts = sampleKeyParts({ kind: 'assert', instruction: 'one todo is done' })): Promise<JudgmentEntry> {
  return {
    version: 1,
    kind: 'assert',
    key: await computeKey(keyParts),
    keyParts,
    route: { origin: 'http://127.0.0.1:4173', path: '/', query: '' },
    evidence: [{ control: { role: 'checkbox', name: 'Toggle Todo', states: ['checked'] }, expect: 'present', count: 1 }],
    summary: 'One todo is checked.',
    provenance: { verifiedBy: 'assert', executor: 'e2e/agent', toolVersion: '0.1.0', recordedAt: '2025-01-02T03:04:05.000Z' },
  };
}

/** The `index`-th of many distinct entries (different tests, so different keys). */
export async function numberedActEntry(index: number, variant = 0): Promise<ActEntry> {
  return sampleActEntry(sampleKeyParts({ testId: `suite-${Math.floor(index / 100)}.spec.ts › case ${index}` }), variant);
}

/** Key parts of a step on an engine without a location (a terminal menu); `overrides` replace parts. */
export function sampleTerminalKeyParts(overrides: Partial<KeyParts> = {}): KeyParts {
  return sampleKeyParts({
    projectId: 'terminal',
    testId: 'setup.e2e.ts › setup › picks a colour',
    target: 'terminal',
    engine: 'terminal',
    instruction: 'pick the colour blue',
    params: {},
    appIdentity: 'setup-wizard',
    ...overrides,
  });
}

/** An `act` entry of an engine without a location: no routes, no origins (version 2). */
export async function sampleTerminalActEntry(keyParts: KeyParts = sampleTerminalKeyParts()): Promise<ActEntry> {
  const item = (name: string) => ({ role: 'menuitem', name, container: { role: 'menu', name: 'Colour' }, twinIndex: 0, twinCount: 1 });
  return {
    version: 2,
    kind: 'act',
    key: await computeKey(keyParts),
    keyParts,
    actions: [
      { verb: 'press', target: item('Red'), key: 'ArrowDown' },
      { verb: 'press', target: item('Blue'), key: 'Enter' },
    ],
    appeared: [{ role: 'text', name: 'You picked blue', text: 'You picked blue', states: [], basis: 'announced' }],
    gone: [{ role: 'menu', name: 'Colour', states: [], basis: 'incidental' }],
    summary: 'Picked blue in the colour menu.',
    provenance: { verifiedBy: 'assert', executor: 'e2e/agent', toolVersion: '0.1.0', recordedAt: '2025-01-02T03:04:05.000Z' },
  };
}

/** An `assert` entry of an engine without a location: no route (version 2). */
export async function sampleTerminalJudgmentEntry(keyParts: KeyParts = sampleTerminalKeyParts({ kind: 'assert', instruction: 'blue was picked' })): Promise<JudgmentEntry> {
  return {
    version: 2,
    kind: 'assert',
    key: await computeKey(keyParts),
    keyParts,
    evidence: [{ control: { role: 'text', name: 'You picked blue', text: 'You picked blue', states: [] }, expect: 'present' }],
    summary: 'The program says blue was picked.',
    provenance: { verifiedBy: 'assert', executor: 'e2e/agent', toolVersion: '0.1.0', recordedAt: '2025-01-02T03:04:05.000Z' },
  };
}

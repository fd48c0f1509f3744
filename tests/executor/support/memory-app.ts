/**
 * A tiny todo app that lives in memory and speaks the Engine contract: a fixture app for the
 * agent tests that need many fast steps through the real step runner without a browser, and an
 * engine of its own (`memoryEngine()`, platform `memory`) for the conformance suite and runs
 * through the runner. It has an input and an Add button, todos with a toggle and a delete
 * button, a counter, a sign-in form with a password field, a button that always fails, and one
 * that does nothing. It has no location (no URL, no `navigate`) unless a test gives it one
 * (`memoryApp({ at })`), for the origin policy's tests.
 */
import type { AttemptScreen } from '../../support/attempt-harness.js';
import {
  ENGINE_CONTRACT_VERSION,
  EngineError,
  type Engine,
  type EngineAction,
  type EngineInstance,
  type EngineObservation,
  type NodeRef,
  type ScreenNode,
  type SessionAction,
  type Verb,
} from '../../../contract/engine.js';

/** The verbs the memory app declares. */
export const MEMORY_APP_VERBS: readonly Verb[] = ['tap', 'type', 'press', 'check', 'scroll', 'screenshot', 'tapAt'];
/** The verbs of a memory app with a location: it also navigates and goes back. */
export const LOCATED_MEMORY_APP_VERBS: readonly Verb[] = [...MEMORY_APP_VERBS, 'navigate', 'back'];

interface Todo {
  id: string;
  title: string;
  done: boolean;
}

/** The app's state, readable by tests. */
export interface MemoryAppState {
  draft: string;
  todos: Todo[];
  password: string;
  signedIn: boolean;
  /** Extra rows to make the screen large (for the bench). */
  filler: number;
  /** How deep a chain of groups nests, with the `Deepest` button at its bottom (0: no chain). */
  nesting: number;
  status: string;
}

/** A fixture app plus the engine instance that drives it. */
export interface MemoryApp extends EngineInstance {
  state: MemoryAppState;
  /** Actions performed, as `verb:id`. */
  performed: string[];
  /** With a location: the URL it opened at (`memoryApp({ at })`); undefined for the usual app, which has none. */
  at: string | undefined;
}

/** Ids that are always on the memory app's screen. */
const STATIC_IDS: ReadonlySet<string> = new Set(['root', 'input', 'add', 'list', 'count', 'state', 'password', 'signin', 'welcome', 'broken', 'idle', 'archive']);

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Start a memory app; `filler` adds that many static rows, `nesting` a chain of groups that
 * deep. `at` gives it a location: screens then have that URL (until it navigates), for tests of
 * the origin policy.
 */
export function memoryApp(options: { filler?: number; nesting?: number; status?: string; at?: string; brokenSubmit?: boolean } = {}): MemoryApp {
  let nextId = 100;
  const state: MemoryAppState = { draft: '', todos: [], password: '', signedIn: false, filler: options.filler ?? 0, nesting: options.nesting ?? 0, status: options.status ?? 'Ready' };
  const performed: string[] = [];
  // Without a location the app has no URL at all (the contract's `''`).
  let url = options.at ?? '';
  const history: string[] = [];

  const build = (): ScreenNode => {
    const leaf = (id: string, role: string, name: string, extra: Partial<ScreenNode> = {}): ScreenNode => ({ id, role, name, states: [], depth: 0, children: [], ...extra });
    const items = state.todos.map((todo) =>
      leaf(`t${todo.id}`, 'listitem', todo.title, {
        children: [leaf(`c${todo.id}`, 'checkbox', 'Toggle', { states: todo.done ? ['checked'] : [] }), leaf(`d${todo.id}`, 'button', 'Delete')],
      }),
    );
    const filler = Array.from({ length: state.filler }, (_, index) => leaf(`f${index}`, 'listitem', `Archived note ${index}`, { text: `Note body ${index}` }));
    const open = state.todos.filter((todo) => !todo.done).length;
    const root = leaf('root', 'document', 'Todos', {
      children: [
        leaf('input', 'textbox', 'What needs to be done?', { value: state.draft, states: ['focused'] }),
        leaf('add', 'button', 'Add'),
        leaf('list', 'list', 'Todos', { children: items }),
        leaf('count', 'status', `${open} items left`),
        leaf('state', 'status', state.status),
        leaf('password', 'textbox', 'Password', { value: state.password, states: ['secure'] }),
        leaf('signin', 'button', 'Sign in'),
        leaf('welcome', 'heading', state.signedIn ? 'Welcome back' : 'Signed out'),
        leaf('broken', 'button', 'Broken'),
        leaf('idle', 'button', 'Nothing'),
        leaf('archive', 'list', 'Archive', { children: filler }),
      ],
    });
    if (state.nesting > 0) {
      const chain = leaf('g1', 'group', 'Level 1');
      let parent = chain;
      for (let level = 2; level <= state.nesting; level++) {
        const group = leaf(`g${level}`, 'group', `Level ${level}`);
        parent.children.push(group);
        parent = group;
      }
      parent.children.push(leaf('deepest', 'button', 'Deepest'));
      root.children.push(chain);
    }
    // Depths with a stack: the chain may nest thousands deep.
    const stack = [root];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      for (const child of node.children) {
        child.depth = node.depth + 1;
        stack.push(child);
      }
    }
    return root;
  };

  const addDraft = (): void => {
    // A planted regression: Add and Enter do nothing (the conformance suite's broken app).
    if (options.brokenSubmit === true) return;
    if (state.draft.trim() === '') return;
    state.todos.push({ id: String(nextId++), title: state.draft.trim(), done: false });
    state.draft = '';
  };

  const initial = structuredClone(state);
  let closed = false;
  /** Every id of the screen now. */
  const idsNow = (): Set<string> => {
    const ids = new Set<string>();
    const stack = [build()];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      ids.add(node.id);
      // One by one: a page-sized screen has more children than a call takes arguments.
      for (const child of node.children) stack.push(child);
    }
    return ids;
  };
  /** As the contract says: a closed app answers nothing, and an id that is not on the screen is stale (the screen is read only for an id it does not know). */
  const refuse = (id?: string): EngineError | undefined => {
    if (closed) return new EngineError('ENGINE_FAILURE', 'The memory app is closed.');
    if (id !== undefined && !STATIC_IDS.has(id) && !/^[tcd]\d+$/.test(id) && !idsNow().has(id)) return new EngineError('NODE_STALE', `#${id} is not on the current screen of the memory app.`);
    if (id !== undefined && /^[tcd]\d+$/.test(id) && !state.todos.some((todo) => todo.id === id.slice(1))) return new EngineError('NODE_STALE', `#${id} is not on the current screen of the memory app.`);
    return undefined;
  };

  const app: MemoryApp = {
    state,
    performed,
    at: options.at,
    session: {
      open: (next) => {
        history.push(url);
        url = options.at === undefined ? '' : (next ?? url);
        return Promise.resolve();
      },
      back: () => {
        url = history.pop() ?? url;
        return Promise.resolve();
      },
      // A fresh app: everything an attempt typed or added is gone.
      restart: () => {
        Object.assign(state, structuredClone(initial));
        url = options.at ?? '';
        history.length = 0;
        return Promise.resolve();
      },
      url: () => url,
    },
    observe: (): Promise<EngineObservation> => {
      const refused = refuse();
      if (refused !== undefined) return Promise.reject(refused);
      const root = build();
      let count = 0;
      const stack = [root];
      while (stack.length > 0) {
        const node = stack.pop()!;
        count++;
        for (const child of node.children) stack.push(child);
      }
      return Promise.resolve({ root, url, title: 'Todos', nodeCount: count });
    },
    perform: (ref: NodeRef, action: EngineAction): Promise<void> => {
      const refused = refuse(ref.id);
      if (refused !== undefined) return Promise.reject(refused);
      performed.push(`${action.verb}:${ref.id}`);
      const todo = state.todos.find((item) => ref.id.slice(1) === item.id);
      if (ref.id === 'broken') return Promise.reject(new EngineError('NOT_ACTIONABLE', 'The Broken button is covered by an overlay.'));
      switch (action.verb) {
        case 'type':
          if (ref.id === 'input') state.draft = action.replace ? action.value : state.draft + action.value;
          else if (ref.id === 'password') state.password = action.value;
          else return Promise.reject(new EngineError('NOT_ACTIONABLE', `#${ref.id} is not editable.`));
          break;
        case 'tap':
          if (ref.id === 'add') addDraft();
          else if (ref.id === 'signin') state.signedIn = state.password === 'hunter2';
          else if (ref.id === 'deepest') state.status = 'Deepest pressed';
          else if (todo !== undefined && ref.id.startsWith('d')) state.todos = state.todos.filter((item) => item !== todo);
          else if (todo !== undefined && ref.id.startsWith('c')) todo.done = !todo.done;
          break;
        case 'press':
          if (ref.id === 'input' && action.key === 'Enter') addDraft();
          break;
        case 'check':
          if (todo !== undefined) todo.done = action.checked;
          break;
        default:
          break;
      }
      return Promise.resolve();
    },
    performOnPage: (action: SessionAction): Promise<void> => {
      performed.push(`${action.verb}:page`);
      if (action.verb === 'navigate') {
        history.push(url);
        url = action.url;
      } else if (action.verb === 'back') {
        url = history.pop() ?? url;
      }
      return Promise.resolve();
    },
    performAt: () => Promise.resolve(),
    screenshot: () => Promise.resolve(PNG),
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
  return app;
}

/**
 * The memory app as the screen an attempt runs on (`tests/support/attempt-harness.ts`),
 * declaring `verbs`: platform `memory`, with the `url` location only when the app has one.
 */
export function onMemoryApp(app: MemoryApp, verbs?: readonly Verb[]): AttemptScreen {
  if (app.at === undefined) return { instance: app, engine: { name: 'memory', contractVersion: ENGINE_CONTRACT_VERSION, platform: 'memory', verbs: verbs ?? MEMORY_APP_VERBS }, origin: 'memory-todos' };
  return { instance: app, engine: { name: 'memory', contractVersion: ENGINE_CONTRACT_VERSION, platform: 'memory', verbs: verbs ?? LOCATED_MEMORY_APP_VERBS, location: 'url' }, origin: new URL(app.at).origin };
}

/**
 * The memory app as an engine (`e2e/engine`): each attempt starts a fresh app. No location, no
 * browser: its host delegate checks that a target's `app` is an object (`{ brokenSubmit: true }`
 * plants a regression: Add and Enter do nothing) and names the app's identity. `started` lists
 * the attempts' apps, for tests that read their state.
 */
export function memoryEngine(options: { filler?: number; verbs?: readonly Verb[] } = {}): Engine & { started: MemoryApp[] } {
  const started: MemoryApp[] = [];
  return {
    name: 'memory',
    version: '1.0.0',
    contractVersion: ENGINE_CONTRACT_VERSION,
    platform: 'memory',
    verbs: options.verbs ?? MEMORY_APP_VERBS,
    started,
    host: {
      app: (config) =>
        typeof config === 'object' && config !== null
          ? { ok: true, app: { identity: 'memory-todos', config } }
          : { ok: false, problem: 'must be an object (the memory app takes no settings: `app: {}`)' },
    },
    start: (start) => {
      const config = (start.app ?? {}) as { brokenSubmit?: unknown };
      const app = memoryApp({ ...(options.filler === undefined ? {} : { filler: options.filler }), brokenSubmit: config.brokenSubmit === true });
      started.push(app);
      return Promise.resolve(app);
    },
  };
}

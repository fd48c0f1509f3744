/**
 * A tiny todo app that lives in memory and speaks the Engine contract: a fixture app for the
 * agent tests that need many fast steps through the real step runner without a browser.
 * It has an input and an Add button, todos with a toggle and a delete button, a counter, a
 * sign-in form with a password field, a button that always fails, and one that does nothing.
 */
import type { AttemptScreen } from '../../support/attempt-harness.js';
import { EngineError, type EngineAction, type EngineInstance, type EngineObservation, type NodeRef, type ScreenNode, type SessionAction, type Verb } from '../../../contract/engine.js';

/** The verbs the memory app declares. */
export const MEMORY_APP_VERBS: readonly Verb[] = ['tap', 'type', 'press', 'check', 'scroll', 'navigate', 'back', 'screenshot', 'tapAt'];

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
  status: string;
}

/** A fixture app plus the engine instance that drives it. */
export interface MemoryApp extends EngineInstance {
  state: MemoryAppState;
  /** Actions performed, as `verb:id`. */
  performed: string[];
}

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Start a memory app; `filler` adds that many static rows. */
export function memoryApp(options: { filler?: number; status?: string } = {}): MemoryApp {
  let nextId = 100;
  const state: MemoryAppState = { draft: '', todos: [], password: '', signedIn: false, filler: options.filler ?? 0, status: options.status ?? 'Ready' };
  const performed: string[] = [];
  let url = 'http://127.0.0.1:4173/';
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
    const setDepth = (node: ScreenNode, depth: number): number => {
      node.depth = depth;
      return 1 + node.children.reduce((total, child) => total + setDepth(child, depth + 1), 0);
    };
    setDepth(root, 0);
    return root;
  };

  const addDraft = (): void => {
    if (state.draft.trim() === '') return;
    state.todos.push({ id: String(nextId++), title: state.draft.trim(), done: false });
    state.draft = '';
  };

  const app: MemoryApp = {
    state,
    performed,
    session: {
      open: (next) => {
        history.push(url);
        url = next ?? url;
        return Promise.resolve();
      },
      back: () => {
        url = history.pop() ?? url;
        return Promise.resolve();
      },
      restart: () => Promise.resolve(),
      url: () => url,
    },
    observe: (): Promise<EngineObservation> => {
      const root = build();
      let count = 0;
      const stack = [root];
      while (stack.length > 0) {
        const node = stack.pop()!;
        count++;
        stack.push(...node.children);
      }
      return Promise.resolve({ root, url, title: 'Todos', nodeCount: count });
    },
    perform: (ref: NodeRef, action: EngineAction): Promise<void> => {
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
    close: () => Promise.resolve(),
  };
  return app;
}

/** The memory app as the screen an attempt runs on (`tests/support/attempt-harness.ts`), declaring `verbs`. */
export function onMemoryApp(app: MemoryApp, verbs: readonly Verb[] = MEMORY_APP_VERBS): AttemptScreen {
  return { instance: app, engine: { name: 'memory', contractVersion: 1, platform: 'web', verbs }, origin: 'http://127.0.0.1:4173' };
}

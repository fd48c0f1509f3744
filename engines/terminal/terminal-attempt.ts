/**
 * One attempt on the terminal engine: the program in its pseudo-terminal, observed as a node
 * tree, acted on with keys (and the mouse where the program reports it), settled by the rule
 * of engines/terminal/README.md.
 */
import { E2EError } from '../../errors/index.js';
import {
  EngineError,
  type ChangeMark,
  type ChangeWaitOptions,
  type ChangeWaitResult,
  type EngineAction,
  type EngineInstance,
  type EngineObservation,
  type EngineSession,
  type NodeRef,
  type Rect,
  type ScreenNode,
  type SessionAction,
} from '../../contract/engine.js';
import type { MutationSurface } from '../../contract/mutation.js';
import { keyBytes, textBytes } from './key-codes.js';
import { describeNode, moveToRow, tabTo, type MoveHost } from './key-moves.js';
import { readScreen, type ScreenElement, type ScreenReading } from './screen-elements.js';
import { buildTree, NodeIds, nodesOf } from './screen-tree.js';
import { TerminalProcess, describeExit, type ProgramSpec, type SettleRule } from './terminal-process.js';
import { textOf } from './screen-grid.js';
import { resolveSteps } from './screen-locator.js';
import { TerminalLocator, TerminalScreen } from './terminal-screen.js';
import { withoutHidden } from './hidden-nodes.js';

/** True when a read screen holds something a person could act on: a list, a field, a button or a mark. */
function hasControl(reading: ScreenReading): boolean {
  return reading.lists.length > 0 || reading.elements.some((element) => element.kind !== 'text');
}

/** What the test host reads of a terminal attempt (the contract's attempt host). */
export interface TerminalAttemptHost {
  /** The `screen` fixture: see terminal-screen.ts. */
  readonly screen: TerminalScreen;
  /** The audit's mutations: keystrokes swallowed, nodes hidden. */
  readonly mutations: MutationSurface;
  lookedAt(subject: unknown): Promise<readonly string[] | undefined>;
}

/** How `tap` and `check` reach a control (see `terminal({ tap })`). */
export type TapMode = 'keys' | 'mouse' | 'off';

/** What an attempt is made of. */
export interface AttemptSpec {
  program: ProgramSpec;
  tap: TapMode;
  rule: SettleRule;
}

interface Reading {
  reading: ScreenReading;
  nodes: Map<string, ScreenNode>;
  elements: Map<string, ScreenElement>;
}

/** The terminal program of one attempt. */
export class TerminalAttempt implements EngineInstance {
  readonly #spec: AttemptSpec;
  readonly #ids = new NodeIds();
  #process: TerminalProcess | undefined;
  #latest: Reading | undefined;
  #latestRoot: ScreenNode | undefined;
  #closed = false;
  /** Ids the audit hid (`hide-evidence`): left out of every observation while they stay. */
  readonly #hidden = new Set<string>();
  /** Where the hidden nodes are drawn, blanked in the screen's lines. */
  #hiddenRects: Rect[] = [];
  /** True while the audit's `break-handlers` mutant runs: every keystroke is swallowed. */
  #swallowing = false;
  readonly #screen: TerminalScreen;
  readonly session: EngineSession;
  /** What the test host reads of this attempt: the `screen` fixture, the audit's mutations, what a check looked at. */
  readonly host: TerminalAttemptHost;

  constructor(spec: AttemptSpec) {
    this.#spec = spec;
    this.session = {
      open: async () => {
        await this.#start();
      },
      back: () => Promise.reject(new EngineError('UNSUPPORTED_CAPABILITY', 'A terminal has no history to go back in; press the program\'s own key for it.')),
      restart: async () => {
        await this.#start();
      },
      url: () => this.location(),
    };
    this.#screen = new TerminalScreen({
      observe: () => this.observe(),
      waitForChange: (since, options) => this.waitForChange(since, options),
      lines: () => this.#lines(),
      press: async (key) => {
        const process = this.#running();
        this.#send(process, keyBytes(key, { applicationCursorKeys: process.applicationCursorKeys }));
      },
      type: async (text) => this.#send(this.#running(), textBytes(text)),
    });
    this.host = {
      screen: this.#screen,
      mutations: {
        silenceHandlers: () => {
          this.#swallowing = true;
          return Promise.resolve(() => {
            this.#swallowing = false;
            return Promise.resolve();
          });
        },
        hideNodes: (ids) => {
          for (const id of ids) this.#hidden.add(id);
          return Promise.resolve();
        },
      },
      lookedAt: (subject) => Promise.resolve(this.#lookedAt(subject)),
    };
  }

  /** The ids a passed check of `subject` (a locator of this attempt's screen) matches on the latest observation. */
  #lookedAt(subject: unknown): readonly string[] | undefined {
    if (!(subject instanceof TerminalLocator) || subject.screen !== this.#screen || this.#latestRoot === undefined) return undefined;
    const ids = resolveSteps(this.#latestRoot, subject.steps).map((node) => node.id);
    return ids.length === 0 ? undefined : ids;
  }

  /** Send keystrokes, unless the audit has the program swallow them. */
  #send(process: TerminalProcess, bytes: string): void {
    if (this.#swallowing) return;
    process.write(bytes);
  }

  /** The screen as drawn, a string per row, hidden nodes blanked, trailing blanks cut. */
  async #lines(): Promise<string[]> {
    const process = this.#process;
    if (process === undefined) return [];
    await process.frameClosed();
    const grid = process.grid();
    const lines = grid.cells.map((row, y) => {
      const cells = this.#hiddenRects.some((rect) => y >= rect.y && y < rect.y + rect.height) ? row.map((cell, x) => (this.#hiddenRects.some((rect) => y >= rect.y && y < rect.y + rect.height && x >= rect.x && x < rect.x + rect.width) ? { ...cell, char: ' ' } : cell)) : row;
      return textOf(cells, 0, cells.length).trimEnd();
    });
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    return lines;
  }

  /** A terminal has no location (the engine declares none): no routes, no origins, no navigation. */
  location(): string {
    return '';
  }

  /** The running program (tests read its pid). */
  get process(): TerminalProcess | undefined {
    return this.#process;
  }

  async #start(): Promise<void> {
    if (this.#closed) throw new E2EError('INVALID_STATE', 'The terminal attempt was closed.');
    const previous = this.#process;
    this.#process = undefined;
    await previous?.close();
    this.#ids.clear();
    this.#hidden.clear();
    this.#hiddenRects = [];
    this.#latest = undefined;
    this.#latestRoot = undefined;
    this.#process = await TerminalProcess.start({ ...this.#spec.program, args: [...this.#spec.program.args] }, this.#spec.rule);
  }

  #running(): TerminalProcess {
    if (this.#process === undefined) throw new EngineError('NOT_ACTIONABLE', 'No program runs yet; start it with app.open().');
    return this.#process;
  }

  async observe(): Promise<EngineObservation> {
    if (this.#closed) throw new E2EError('INVALID_STATE', 'The terminal attempt was closed; there is no screen to observe.');
    const process = this.#process;
    if (process === undefined) {
      const root: ScreenNode = { id: 'root', role: 'document', name: '', states: [], depth: 0, children: [] };
      return { root, url: '', title: '', nodeCount: 1 };
    }
    await process.frameClosed();
    const mark = process.mark();
    const grid = process.grid();
    const reading = readScreen(grid);
    const built = buildTree(grid, reading, { program: this.#spec.program.command.split('/').at(-1) ?? '', ids: this.#ids });
    const { root, nodeCount, hiddenRects } = withoutHidden(built.root, built.nodeCount, this.#hidden);
    this.#hiddenRects = hiddenRects;
    if (process.exit !== undefined) root.value = `ended, ${describeExit(process.exit)}`;
    const nodes = new Map<string, ScreenNode>();
    const elements = new Map<string, ScreenElement>();
    const byPlace = new Map<string, ScreenElement>();
    for (const element of reading.elements) byPlace.set(`${element.row}:${element.from}:${element.role}`, element);
    for (const node of nodesOf(root)) {
      nodes.set(node.id, node);
      const element = node.rect === undefined ? undefined : byPlace.get(`${node.rect.y}:${node.rect.x}:${node.role}`);
      if (element !== undefined) elements.set(node.id, element);
    }
    this.#latest = { reading, nodes, elements };
    this.#latestRoot = root;
    return { root, url: this.location(), title: grid.title, nodeCount, mark };
  }

  #element(ref: NodeRef): ScreenElement {
    const element = this.#latest?.elements.get(ref.id);
    if (element === undefined) {
      const node = this.#latest?.nodes.get(ref.id);
      if (node !== undefined) throw new EngineError('NOT_ACTIONABLE', `${describeNode(node, ref.id)} is a region, not a control.`);
      throw new EngineError('NODE_STALE', `#${ref.id} is not on the latest screen; observe again.`);
    }
    return element;
  }

  #describe(id: string): string {
    return describeNode(this.#latest?.nodes.get(id), id);
  }

  /** Send a key of a tap's moves and wait for its effect: a change (at most 2 s), then quiet (at most 2 s), so the tap ends on the screen it led to. */
  async #pressAndSettle(key: string, timeoutMs: number): Promise<boolean> {
    const process = this.#running();
    const before = process.mark();
    this.#send(process, keyBytes(key, { applicationCursorKeys: process.applicationCursorKeys }));
    const bound = Math.min(timeoutMs / 4, 2000);
    const changed = await process.waitForChange(before, { until: 'change', maxMs: bound });
    await this.waitForChange(changed.mark, { until: 'quiet', maxMs: bound });
    return changed.changed;
  }

  #moveHost(timeoutMs: number): MoveHost {
    return {
      pressAndSettle: (key) => this.#pressAndSettle(key, timeoutMs),
      find: (id) => {
        return this.#latest?.elements.get(id);
      },
      describe: (id) => this.#describe(id),
    };
  }

  /** The move host re-reads the screen before each look. */
  #freshHost(timeoutMs: number): MoveHost {
    const host = this.#moveHost(timeoutMs);
    return {
      ...host,
      pressAndSettle: async (key) => {
        const changed = await host.pressAndSettle(key);
        await this.observe();
        return changed;
      },
    };
  }

  async perform(ref: NodeRef, action: EngineAction, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
    const process = this.#running();
    const element = this.#element(ref);
    const keys = { applicationCursorKeys: process.applicationCursorKeys };
    switch (action.verb) {
      case 'type': {
        if (element.role !== 'textbox') throw new EngineError('NOT_ACTIONABLE', `${this.#describe(ref.id)} is not a field; text goes where the cursor is.`);
        if (!element.states.has('focused')) throw new EngineError('NOT_ACTIONABLE', `The cursor is not in ${this.#describe(ref.id)}; bring it there first (Tab, or the program's own key).`);
        const erase = action.replace ? '\x7f'.repeat([...(element.value ?? '')].length) : '';
        this.#send(process, erase + textBytes(action.value));
        return;
      }
      case 'press': {
        const bytes = keyBytes(action.key, keys);
        const listed = element.list !== undefined || element.role === 'button';
        if (listed && !element.states.has('selected') && !element.states.has('focused')) {
          throw new EngineError('NOT_ACTIONABLE', `${action.key} would go to the current control, not to ${this.#describe(ref.id)}; tap it, or press the key without a target.`);
        }
        if (element.role === 'textbox' && !element.states.has('focused')) throw new EngineError('NOT_ACTIONABLE', `The cursor is not in ${this.#describe(ref.id)}.`);
        this.#send(process, bytes);
        return;
      }
      case 'tap':
        return this.#tap(ref.id, element, options.timeoutMs);
      case 'check': {
        if (element.role !== 'checkbox' && element.role !== 'radio') throw new EngineError('NOT_ACTIONABLE', `${this.#describe(ref.id)} is not a check mark.`);
        if (element.states.has('checked') === action.checked) return;
        if (element.role === 'radio' && !action.checked) throw new EngineError('NOT_ACTIONABLE', `${this.#describe(ref.id)} is a radio mark; pick another one instead of clearing it.`);
        if (this.#spec.tap === 'mouse') return this.#click(element);
        await moveToRow(this.#freshHost(options.timeoutMs), ref.id);
        await this.#pressAndSettle('Space', options.timeoutMs);
        return;
      }
      case 'scroll':
        this.#send(process, keyBytes(action.direction === 'up' ? 'PageUp' : action.direction === 'down' ? 'PageDown' : action.direction === 'left' ? 'ArrowLeft' : 'ArrowRight', keys));
        return;
      default:
        throw new EngineError('UNSUPPORTED_CAPABILITY', `The terminal engine does not ${action.verb}.`);
    }
  }

  async #tap(id: string, element: ScreenElement, timeoutMs: number): Promise<void> {
    const process = this.#running();
    if (this.#spec.tap === 'off') throw new EngineError('UNSUPPORTED_CAPABILITY', 'This terminal engine offers no tap (terminal({ tap: "off" })).');
    if (this.#spec.tap === 'mouse') return this.#click(element);
    if (element.list !== undefined) {
      await moveToRow(this.#freshHost(timeoutMs), id);
      await this.#pressAndSettle(element.role === 'menuitem' ? 'Enter' : 'Space', timeoutMs);
      return;
    }
    if (element.role === 'button' || element.role === 'textbox') {
      const focusables = [...(this.#latest?.elements.values() ?? [])].filter((each) => each.role === 'button' || each.role === 'textbox').length + (this.#latest?.reading.lists.length ?? 0);
      await tabTo(this.#freshHost(timeoutMs), id, focusables);
      if (element.role === 'button') await this.#pressAndSettle('Enter', timeoutMs);
      return;
    }
    throw new EngineError('NOT_ACTIONABLE', `${this.#describe(id)} is text; there is nothing to tap.`);
  }

  #click(element: ScreenElement): void {
    const process = this.#running();
    const { tracking, sgr } = process.mouse;
    if (tracking === 'none') throw new EngineError('NOT_ACTIONABLE', `The program "${process.spec.command}" does not report the mouse, so a tap cannot reach it; use keys.`);
    const column = Math.floor((element.from + element.to - 1) / 2) + 1;
    const row = element.row + 1;
    if (sgr) this.#send(process, `\x1b[<0;${column};${row}M\x1b[<0;${column};${row}m`);
    else {
      if (column > 223 || row > 223) throw new EngineError('NOT_ACTIONABLE', 'The cell is beyond what the program\'s mouse encoding can report.');
      const at = String.fromCharCode(32 + column) + String.fromCharCode(32 + row);
      this.#send(process, `\x1b[M${String.fromCharCode(32)}${at}` + (tracking === 'x10' ? '' : `\x1b[M${String.fromCharCode(35)}${at}`));
    }
  }

  async performOnPage(action: SessionAction): Promise<void> {
    const process = this.#running();
    const keys = { applicationCursorKeys: process.applicationCursorKeys };
    switch (action.verb) {
      case 'press':
        return this.#send(process, keyBytes(action.key, keys));
      case 'typeText':
        return this.#send(process, textBytes(action.value));
      case 'scroll':
        return this.#send(process, keyBytes(action.direction === 'up' ? 'PageUp' : 'PageDown', keys));
      case 'resize':
        return process.resize(action.width, action.height);
      default:
        throw new EngineError('UNSUPPORTED_CAPABILITY', `A terminal cannot ${action.verb}; there is no location to go to.`);
    }
  }

  screenshot(): Promise<Uint8Array> {
    return Promise.reject(new EngineError('UNSUPPORTED_CAPABILITY', 'The terminal engine has no pixels; its screen is the observation\'s text.'));
  }

  async waitForChange(since: ChangeMark, options: ChangeWaitOptions): Promise<ChangeWaitResult> {
    const process = this.#process;
    if (process === undefined) return { changed: since !== 'none', mark: 'none' };
    const started = performance.now();
    const result = await process.waitForChange(since, options);
    if (options.until !== 'quiet' || process.exit !== undefined) return result;
    // A running program whose screen shows nothing to act on is often between two of its screens
    // (a script starting its next dialog): it must hold still longer to count as settled.
    const left = options.maxMs - (performance.now() - started);
    if (left <= 0 || hasControl(readScreen(process.grid()))) return result;
    const longer = await process.waitForChange(since, { ...options, maxMs: left, quietMs: Math.max(options.quietMs ?? 0, this.#spec.rule.bareQuietMs) });
    return longer;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const process = this.#process;
    this.#process = undefined;
    await process?.close();
  }
}

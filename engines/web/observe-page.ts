/**
 * Node side of observation: run {@link walkPage} once in the page and turn its compact JSON
 * into the contract's {@link ScreenNode} tree. The in-page function is sent as source text
 * with a no-op `__name` in scope, because TS runners (tsx, esbuild's keepNames) wrap inner
 * functions in a module-level `__name(...)` helper that does not exist inside the page.
 */
import type { Page } from '@playwright/test';
import { NODE_STATES, type EngineObservation, type NodeState, type ObserveRequest, type ScreenNode } from '../../contract/engine.js';
import { TICKING_RULES } from '../../semantics/volatile-text.js';
import { MASK_ATTRIBUTE } from './locate-node.js';
import { installChangeMonitor, type ChangeMonitorArguments } from './page-changes.js';
import { pageSemantics } from './page-semantics.js';
import { RUN_HEAD, RUN_NEAR_VIEWPORT, RUN_TAIL, STILL_GAP_MS, walkPage, type WalkArguments, type WalkedNode, type WalkResult } from './page-walk.js';

/** Longest name or text a node keeps. */
export const TEXT_LIMIT = 160;
/** Longest value a node keeps. */
export const VALUE_LIMIT = 500;

/** Source of an in-page function, callable with one JSON argument, `__name` made harmless. */
export function inPageExpression(source: string, argument: unknown): string {
  return `(() => { const __name = (target) => target; return (${source})(${JSON.stringify(argument)}); })()`;
}

/**
 * An in-page function for `ElementHandle.evaluate`, `__name` made harmless the same way, so its
 * body may name inner functions. Built once per function from its source.
 */
export function inPageFunction<A, R>(fn: (element: Element, argument: A) => R): (element: Element, argument: A) => R {
  return new Function('element', 'argument', `const __name = (target) => target; return (${fn.toString()})(element, argument);`) as (element: Element, argument: A) => R;
}

const WALK_SOURCE = walkPage.toString();
const SEMANTICS_SOURCE = pageSemantics.toString();
const MONITOR_SOURCE = installChangeMonitor.toString();
/** The monitor's arguments as JSON; built on first use (locate-node.js imports this module too). */
let monitorArguments: string | undefined;

/**
 * An expression that runs `body` with `changes`, the document's change monitor (installed on
 * first use; see page-changes.ts), in scope.
 */
export function withChangeMonitor(body: string): string {
  return (
    `(() => { let changes = window[Symbol.for('e2e.changes')];` +
    ` if (changes === undefined) { const __name = (target) => target; changes = (${MONITOR_SOURCE})(${monitorArgumentsOf()}); }` +
    ` ${body} })()`
  );
}

function monitorArgumentsOf(): string {
  return (monitorArguments ??= JSON.stringify({ ...TICKING_RULES, ownAttributes: [MASK_ATTRIBUTE] } satisfies ChangeMonitorArguments));
}

/**
 * A script for `BrowserContext.addInitScript`: in each top-level document it takes the page's
 * clock and timers before any script of the page runs, and installs the change monitor once the
 * document is parsed (the parser's own insertions are the load, not changes to count). So the
 * quiet a page kept before a step's first look counts toward the step's mount wait, which then
 * waits only for what is left of it. A document that never runs it gets the monitor on its first
 * observation, as before.
 */
export function changeMonitorInitScript(): string {
  return (
    `(() => { if (window !== window.top) return; const __name = (target) => target;` +
    ` const clock = { now: performance.now.bind(performance), setTimer: window.setTimeout.bind(window), clearTimer: window.clearTimeout.bind(window) };` +
    ` const install = () => { if (window[Symbol.for('e2e.changes')] === undefined) (${MONITOR_SOURCE})(${monitorArgumentsOf()}, clock); };` +
    ` if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', install, { once: true, capture: true }); else install(); })()`
  );
}

/**
 * Installs the walker (with its semantics helpers) once per document, since a warm JIT
 * makes later walks ~30% faster, then calls it. `Symbol.for` keys keep it off the page's own
 * globals. The answer is the change mark, a newline, then the walk's JSON.
 */
function walkExpression(argument: WalkArguments): string {
  return withChangeMonitor(
    `const key = Symbol.for('e2e.walk'); let walk = window[key];` +
      ` if (typeof walk !== 'function') { const __name = (target) => target; const walker = (${WALK_SOURCE});` +
      ` const semantics = (${SEMANTICS_SOURCE})(); walk = (argument, watch) => walker(argument, semantics, watch); window[key] = walk; }` +
      ` const mark = changes.mark(); return mark + '\\n' + walk(${JSON.stringify(argument)}, changes.watch);`,
  );
}

/**
 * The same walk once the document has the walker and the monitor: a few hundred bytes to send
 * instead of their ~20 kB of source. Answers null when either is missing (a new document).
 */
function installedWalkExpression(argument: WalkArguments): string {
  return (
    `(() => { const walk = window[Symbol.for('e2e.walk')]; const changes = window[Symbol.for('e2e.changes')];` +
    ` if (typeof walk !== 'function' || changes === undefined) return null;` +
    ` const mark = changes.mark(); return mark + '\\n' + walk(${JSON.stringify(argument)}, changes.watch); })()`
  );
}

/** The states of a bitmask (most nodes have none). */
function statesOf(mask: number): NodeState[] {
  const states: NodeState[] = [];
  if (mask === 0) return states;
  for (let index = 0; index < NODE_STATES.length; index++) if ((mask & (1 << index)) !== 0) states.push(NODE_STATES[index]!);
  return states;
}

/** One walked node as a screen node, without its children. */
function screenNodeOf(walked: WalkedNode, depth: number): ScreenNode {
  const node: ScreenNode = { id: walked.i, role: walked.r, name: walked.n, states: statesOf(walked.s), depth, children: [] };
  if (walked.o !== undefined) {
    const [count, role, first, last, holding] = walked.o;
    node.omitted = { count, role, ...(first === '' ? {} : { first }), ...(last === '' ? {} : { last }), ...(holding === undefined ? {} : { holding }) };
  }
  if (walked.t !== undefined) node.text = walked.t;
  if (walked.v !== undefined) node.value = walked.v;
  if (walked.d !== undefined) node.testId = walked.d;
  if (walked.h !== undefined) node.href = walked.h;
  if (walked.p !== undefined) node.placeholder = walked.p;
  if (walked.b !== undefined) node.rect = { x: walked.b[0], y: walked.b[1], width: walked.b[2], height: walked.b[3] };
  return node;
}

/**
 * Turn the walked tree into screen nodes, counting as it goes. An explicit stack, never
 * recursion: a page may nest thousands deep.
 */
function toScreenTree(walkedRoot: WalkedNode, counter: { nodes: number; textIds: Set<string> }): ScreenNode {
  const root = screenNodeOf(walkedRoot, 0);
  // Two stacks side by side: no record per node.
  const walkedStack: WalkedNode[] = [walkedRoot];
  const nodeStack: ScreenNode[] = [root];
  for (let walked = walkedStack.pop(); walked !== undefined; walked = walkedStack.pop()) {
    const node = nodeStack.pop()!;
    counter.nodes++;
    if (walked.r === 'text') counter.textIds.add(walked.i);
    const walkedChildren = walked.c;
    if (walkedChildren === undefined) continue;
    for (const walkedChild of walkedChildren) {
      const child = screenNodeOf(walkedChild, node.depth + 1);
      node.children.push(child);
      walkedStack.push(walkedChild);
      nodeStack.push(child);
    }
  }
  return root;
}

/** Options of {@link observePage}. */
export interface ObservePageOptions {
  testIdAttribute: string;
  /** Lowest id number to hand out (ids never repeat within an attempt). */
  firstId: number;
  /** What the runner asked for: runs read in part, and what to read in full in them. */
  request?: ObserveRequest | undefined;
}

/** An observation plus the next free id number, which ids are `text` nodes, and the page's change mark. */
export interface PageObservation {
  observation: EngineObservation;
  nextId: number;
  textIds: Set<string>;
  /** The in-page change mark when the walk ran (see page-changes.ts). */
  pageMark: string;
}

/** Playwright's messages for an evaluate whose document went away (a navigation). */
export const CONTEXT_GONE = /Execution context was destroyed|Cannot find context with specified id|frame was detached|navigating frame was detached/i;

/**
 * Observe the page with one in-page walk. A walk that races a navigation (the document went
 * away mid-evaluate) is repeated, at most twice: that is answering one query, not waiting.
 */
export async function observePage(page: Page, options: ObservePageOptions): Promise<PageObservation> {
  const { request } = options;
  const argument: WalkArguments = {
    testIdAttribute: options.testIdAttribute,
    firstId: options.firstId,
    textLimit: TEXT_LIMIT,
    valueLimit: VALUE_LIMIT,
    stillGapMs: STILL_GAP_MS,
    maxRun: Math.max(0, Math.floor(request?.bounds?.maxRun ?? 0)),
    includeText: (request?.include?.text ?? []).map((text) => text.replace(/\s+/g, ' ').trim().toLowerCase()).filter((text) => text !== ''),
    includeIds: [...(request?.include?.ids ?? [])],
    runHead: RUN_HEAD,
    runTail: RUN_TAIL,
    runNearViewport: RUN_NEAR_VIEWPORT,
  };
  const installed = installedWalkExpression(argument);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const answer = ((await page.evaluate(installed)) as string | null) ?? ((await page.evaluate(walkExpression(argument))) as string);
      const newline = answer.indexOf('\n');
      const result = JSON.parse(answer.slice(newline + 1)) as WalkResult;
      const counter = { nodes: 0, textIds: new Set<string>() };
      const root = toScreenTree(result.root, counter);
      const observation: EngineObservation = { root, url: page.url(), title: result.title, nodeCount: counter.nodes, viewport: { width: result.viewport[0], height: result.viewport[1] } };
      if (result.partial === true) observation.includePartial = true;
      return { observation, nextId: result.nextId, textIds: counter.textIds, pageMark: answer.slice(0, newline) };
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error) || !CONTEXT_GONE.test(error.message)) throw error;
    }
  }
  throw lastError;
}

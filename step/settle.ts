/**
 * Waiting after an action (DESIGN §4) until the screen left the shape the action was resolved
 * against, then a brief quiet. See step/README.md, "Settling".
 */
import { E2EError } from '../errors/index.js';
import { sleep } from '../contract/deadline.js';
import type { ChangeMark, ChangeWaitOptions, ChangeWaitResult, ScreenNode } from '../contract/engine.js';
import { shapeOf } from './screen-text.js';
import { EDITABLE_ROLES } from '../contract/roles.js';

/**
 * How far to settle: `full` waits for the screen to leave the shape the action was resolved
 * against and then to hold still; `brief` returns as soon as it has left that shape (no quiet
 * wait), for replaying recorded actions before the last one, where the replayer waits for each
 * next target itself and checks the end state after a full settle; `none` takes the screen
 * right after the action, for an audit's replay, which waits for change or a still screen itself.
 */
export type SettleMode = 'full' | 'brief' | 'none';

/** Time source and sleeping, injectable so tests can run on a fake clock. */
export interface SettleClock {
  now(): number;
  /** Resolve after `milliseconds`, or reject with `CANCELLED` when `signal` aborts. */
  sleep(milliseconds: number, signal?: AbortSignal): Promise<void>;
}

/** Options of {@link settleAfterAction}. */
export interface SettleOptions<T> {
  /** Longest total wait. Default 2000 ms. */
  maxMs?: number;
  /** Default `full`. */
  mode?: SettleMode;
  /** Cancels the wait (rejects with `CANCELLED`). */
  signal?: AbortSignal;
  /** How long a changed screen must hold still to count as settled. Default 100 ms. */
  quietMs?: number;
  /** Longest quiet phase after the first change. Default 500 ms. */
  maxQuietMs?: number;
  /** Pause between observations. Default 50 ms. */
  pollMs?: number;
  /** Shape of an observation. Default {@link shapeOf} of its tree and URL. */
  shape?: (observation: T) => string;
  clock?: SettleClock;
  /**
   * The engine's own change wait (`EngineInstance.waitForChange`). Used when it and
   * `beforeMark` are given and observations carry marks; otherwise observations are polled.
   */
  waitForChange?: (since: ChangeMark, options: ChangeWaitOptions) => Promise<ChangeWaitResult>;
  /** Mark of the observation the action was resolved against. */
  beforeMark?: ChangeMark | undefined;
  /**
   * The screen the action was resolved against. Given it, a `full` settle does not end on a
   * change of focus alone (a tapped button takes focus at once, its effect comes later)
   * unless focus moved into an editable field, which is what tapping or tabbing to one is for.
   */
  before?: Settleable;
  /** With `waitForChange`: how long a changed screen must hold still. Default 30 ms. */
  changeQuietMs?: number;
  /** With `waitForChange`: first pause before observing anyway, for changes the engine cannot see; doubles up to 500 ms. Default 100 ms. */
  probeMs?: number;
  /**
   * With `waitForChange`, in `full` mode: called with each observation that may end the settle
   * just before the wait for the screen to hold still, so the caller can prepare what it will
   * make of it while the engine waits (the wait is measured from the page's last change, so
   * this work hides inside it). The observation may still be superseded by a later one.
   */
  meanwhile?: (observation: T) => void;
}

/** Anything with a screen tree (and a URL, which counts as part of the shape). */
export type Settleable = { root: ScreenNode; url?: string; mark?: ChangeMark | undefined };

/** Defaults of {@link SettleOptions}. */
export const SETTLE_DEFAULTS = { maxMs: 2000, quietMs: 100, maxQuietMs: 500, pollMs: 50, changeQuietMs: 30, probeMs: 100, maxProbeMs: 500 } as const;

function cancelled(): E2EError {
  return new E2EError('CANCELLED', 'Waiting for the screen to settle was cancelled.');
}

/** The real clock. */
export const systemClock: SettleClock = {
  now: () => performance.now(),
  sleep: (milliseconds, signal) => sleep(milliseconds, signal, cancelled),
};

/**
 * Observe until the shape differs from `beforeShape` (then, in `full` mode, until it holds
 * still for `quietMs`, bounded) or `maxMs` passes; returns the last observation. An action
 * that changed nothing costs the full `maxMs`; one that changed the screen returns early.
 */
export async function settleAfterAction<T extends Settleable>(
  observe: (options: { signal?: AbortSignal }) => Promise<T>,
  beforeShape: string,
  options: SettleOptions<T> = {},
): Promise<T> {
  const clock = options.clock ?? systemClock;
  const shape = options.shape ?? ((observation: T) => shapeOf(observation));
  const signal = options.signal;
  const deadline = clock.now() + (options.maxMs ?? SETTLE_DEFAULTS.maxMs);
  if (signal?.aborted === true) throw cancelled();
  if (options.mode === 'none') return observe(signal === undefined ? {} : { signal });
  const run: SettleRun<T> = {
    observe,
    observeOptions: signal === undefined ? {} : { signal },
    beforeShape,
    left: leftTest(beforeShape, shape, options),
    clock,
    shape,
    deadline,
    options,
  };
  const { waitForChange, beforeMark } = options;
  if (waitForChange !== undefined && beforeMark !== undefined) return settleWithEngine(run, waitForChange, beforeMark);
  return settleByPolling(run, await observe(run.observeOptions));
}

/** The focused node of a tree, if any. */
function focusedNode(root: ScreenNode): ScreenNode | undefined {
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.states.includes('focused')) return node;
    // One push per child: spreading a page-sized list of children overflows the call stack.
    for (const child of node.children) stack.push(child);
  }
  return undefined;
}

/** Whether an observation has left the screen the action was resolved against. */
function leftTest<T extends Settleable>(beforeShape: string, shape: (observation: T) => string, options: SettleOptions<T>): (observation: T) => boolean {
  const before = options.before;
  if (before === undefined || options.mode === 'brief') return (observation) => shape(observation) !== beforeShape;
  const beforeUnfocused = shapeOf(before, { focus: false });
  const beforeFocus = focusedNode(before.root)?.id;
  return (observation) => {
    if (shape(observation) === beforeShape) return false;
    if (shapeOf(observation, { focus: false }) !== beforeUnfocused) return true;
    const focused = focusedNode(observation.root);
    return focused !== undefined && focused.id !== beforeFocus && EDITABLE_ROLES.has(focused.role);
  };
}

/** One settling, resolved options included. */
interface SettleRun<T> {
  observe: (options: { signal?: AbortSignal }) => Promise<T>;
  observeOptions: { signal?: AbortSignal };
  beforeShape: string;
  /** True once an observation counts as the action's effect. */
  left: (observation: T) => boolean;
  clock: SettleClock;
  shape: (observation: T) => string;
  deadline: number;
  options: SettleOptions<T>;
}

/** Settling by polling observations, starting from `first` (taken right after the action). */
async function settleByPolling<T extends Settleable>(run: SettleRun<T>, first: T): Promise<T> {
  const { clock, shape, deadline, options } = run;
  const quietMs = options.quietMs ?? SETTLE_DEFAULTS.quietMs;
  const pollMs = options.pollMs ?? SETTLE_DEFAULTS.pollMs;
  let observation = first;
  // Phase one: wait for the screen to leave the shape the action was resolved against.
  while (!run.left(observation)) {
    const left = deadline - clock.now();
    if (left <= 0) return observation;
    await clock.sleep(Math.min(pollMs, left), options.signal);
    observation = await run.observe(run.observeOptions);
  }
  let current = shape(observation);
  if (options.mode === 'brief') return observation;
  // Phase two: let it stop changing, briefly.
  const quietDeadline = Math.min(deadline, clock.now() + (options.maxQuietMs ?? SETTLE_DEFAULTS.maxQuietMs));
  let stableSince = clock.now();
  for (;;) {
    const now = clock.now();
    if (now - stableSince >= quietMs || now >= quietDeadline) return observation;
    await clock.sleep(Math.min(pollMs, quietDeadline - now, quietMs - (now - stableSince)), options.signal);
    observation = await run.observe(run.observeOptions);
    const next = shape(observation);
    if (next !== current) {
      current = next;
      stableSince = clock.now();
    }
  }
}

/**
 * Settling with the engine's change wait. The observation right after the action usually
 * shows the change already; the engine then waits in the page until the screen holds still,
 * and the observation stands when the engine saw nothing change after it. When the first
 * observation shows no change, the engine waits for one (sparse probes catch changes it cannot
 * see, such as pure CSS), so the screen is observed only when something happened.
 */
async function settleWithEngine<T extends Settleable>(
  run: SettleRun<T>,
  waitForChange: (since: ChangeMark, options: ChangeWaitOptions) => Promise<ChangeWaitResult>,
  beforeMark: ChangeMark,
): Promise<T> {
  const { clock, shape, deadline, options } = run;
  const signal = options.signal;
  const wait = (since: ChangeMark, wanted: Omit<ChangeWaitOptions, 'signal'>): Promise<ChangeWaitResult> =>
    waitForChange(since, signal === undefined ? wanted : { ...wanted, signal });
  let observation = await run.observe(run.observeOptions);
  if (observation.mark === undefined) return settleByPolling(run, observation);
  // Phase one: wait in the engine for a change, observing when it reports one (or at a probe).
  let probeMs = options.probeMs ?? SETTLE_DEFAULTS.probeMs;
  while (!run.left(observation)) {
    const left = deadline - clock.now();
    if (left <= 0) return observation;
    const report = await wait(observation.mark ?? beforeMark, { until: 'change', maxMs: Math.min(probeMs, left) });
    if (!report.changed) probeMs = Math.min(probeMs * 2, SETTLE_DEFAULTS.maxProbeMs);
    observation = await run.observe(run.observeOptions);
  }
  if (options.mode === 'brief') return observation;
  // Phase two: let it hold still; the observation stands when nothing changed after it.
  const quietMs = options.changeQuietMs ?? SETTLE_DEFAULTS.changeQuietMs;
  const quietDeadline = Math.min(deadline, clock.now() + (options.maxQuietMs ?? SETTLE_DEFAULTS.maxQuietMs));
  for (;;) {
    options.meanwhile?.(observation);
    // Since the before-mark, so requests the action started count as unfinished business.
    const report = await wait(beforeMark, { until: 'quiet', quietMs, maxMs: Math.max(0, quietDeadline - clock.now()) });
    if (observation.mark === undefined || report.mark === observation.mark) return observation;
    observation = await run.observe(run.observeOptions);
    if (clock.now() >= quietDeadline) return observation;
  }
}

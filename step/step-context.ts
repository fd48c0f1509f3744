/**
 * Builds the `StepContext` an executor receives (DESIGN §3): observations, budgets with
 * `runTool`, and the artifact hooks, every text redacted. See step/README.md, "The step context".
 */
import { E2EError, isE2EError } from '../errors/index.js';
import type { EngineInstance } from '../contract/engine.js';
import { presentObservation, type ScreenObserver } from './screen-observer.js';
import type {
  LedgerEntry,
  ModelUsage,
  Observation,
  ObserveOptions,
  OpaqueLanguageModel,
  ReplayedPrefix,
  StepActions,
  StepContext,
  StepExecutor,
  TargetInfo,
  TurnRecord,
} from '../contract/step-contract.js';
import type { ActionEvent, ServiceObserveOptions } from '../contract/step-seams.js';
import { toolScope, type StepSession } from './step-session.js';

/** What the attempt lends a step's context. */
export interface StepContextHost {
  engine: EngineInstance;
  observer: ScreenObserver;
  target: TargetInfo;
  attempt: { testId: string; retry: number; titlePath: string[]; attemptId: string };
  memory: Map<string, unknown>;
  attemptSignal: AbortSignal;
  secretFilled(): boolean;
  redact(text: string): string;
  ledger(): LedgerEntry[];
  emit(event: ActionEvent): void;
  /** Keep transcripts (`--debug`). */
  debug: boolean;
  /** A diagnostic line for the `--debug` output (it leaves by the console sink, redacted there). */
  log(message: string): void;
  /** A transcript on its way out (the outbound boundary redacts it, once). */
  transcript(text: string): string;
  /** Attach an artifact to the test (errors are the host's to log). */
  attach(artifact: { name: string; contentType: string; body: Uint8Array | string; label?: string }): Promise<void>;
  nextArtifactId(kind: 'screenshot' | 'transcript'): string;
}

/** What the step knows about its agent. */
export interface StepAgent {
  context: string;
  model?: OpaqueLanguageModel | undefined;
  judge?: OpaqueLanguageModel | undefined;
  providerOptions?: Record<string, Record<string, unknown>> | undefined;
}

/** Options of {@link observerFor}. */
export interface ObserverForOptions {
  /**
   * `mounted`: when the step has no screen yet, the first one waits (bounded) for a
   * client-rendered app to mount, as an executor's first look should. `now` (default): every
   * observation is immediate, as the replay cache wants them.
   */
  firstScreen?: 'mounted' | 'now';
}

/** `ctx.observe` for one step: serialized with the actions, updating the newest observation. */
export function observerFor(host: StepContextHost, session: StepSession, options: ObserverForOptions = {}): (options?: ServiceObserveOptions) => Promise<Observation> {
  const firstScreen = options.firstScreen ?? 'now';
  return async (options) => {
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      throw new E2EError('INVALID_ARGUMENT', 'ctx.observe takes { tree?: boolean, pixels?: boolean, find?: string }.');
    }
    const find = options?.find;
    if (find !== undefined && typeof find !== 'string') throw new E2EError('INVALID_ARGUMENT', 'ctx.observe({ find }) takes the words to look for as a string.');
    session.assertUsable('ctx.observe');
    return session.serialize(async () => {
      session.assertUsable('ctx.observe');
      const signal = session.deadline.signal;
      const mounting = firstScreen === 'mounted' && session.latest === undefined && find === undefined && options?.include === undefined && options?.unbounded !== true;
      if (options?.hold === true) host.observer.hold(options.include ?? []);
      const more = { find, include: options?.include, unbounded: options?.unbounded };
      const observation = await session.timed('observeMs', () => (mounting ? host.observer.mounted(signal) : host.observer.capture(signal, more)));
      session.latest = observation;
      const presented = presentObservation(observation, { tree: options?.tree });
      // Without a tree, pixels are all there is to go on: they come along unless policy withholds them.
      const unavailable = observation.treeUnavailable === true;
      if (options?.pixels === true || unavailable) {
        if (host.secretFilled()) presented.pixelsWithheld = true;
        else {
          try {
            presented.pixels = await session.timed('observeMs', () => session.deadline.race(host.engine.screenshot()));
          } catch (error) {
            if (!unavailable || options?.pixels === true || session.deadline.reason() !== undefined) throw error;
          }
        }
      }
      return presented;
    });
  };
}

/** Turn records a step keeps (the last ones), calls per turn, and characters per text. */
export const TURN_LIMITS = { turns: 10, calls: 10, text: 240 } as const;

function clipText(value: unknown): string {
  const line = String(value).replace(/\s+/g, ' ').trim();
  return line.length > TURN_LIMITS.text ? `${line.slice(0, TURN_LIMITS.text)}…` : line;
}

/** Keep well-formed turn records only, clipped to {@link TURN_LIMITS}, whatever an executor hands in. */
function clipTurns(turns: readonly unknown[]): TurnRecord[] {
  const kept: TurnRecord[] = [];
  for (const turn of turns.slice(-TURN_LIMITS.turns)) {
    if (typeof turn !== 'object' || turn === null) continue;
    const { index, calls, outcome } = turn as Partial<TurnRecord>;
    kept.push({
      index: typeof index === 'number' && Number.isFinite(index) ? index : kept.length,
      calls: Array.isArray(calls) ? calls.slice(0, TURN_LIMITS.calls).map(clipText) : [],
      outcome: clipText(outcome ?? ''),
    });
  }
  return kept;
}

/** Longest wait for the screen to change after a mutating tool (an action waits up to 2 s). */
export const TOOL_SETTLE_MS = 500;

async function runTool<T>(host: StepContextHost, session: StepSession, tool: { name: string; mutates: boolean }, body: () => Promise<T>): Promise<T> {
  if (typeof tool !== 'object' || tool === null || typeof tool.name !== 'string' || typeof tool.mutates !== 'boolean' || typeof body !== 'function') {
    throw new E2EError('INVALID_ARGUMENT', 'budgets.runTool takes ({ name, mutates }, body).');
  }
  const label = `budgets.runTool('${tool.name}')`;
  session.assertUsable(label);
  const run = () => toolScope.run({ name: tool.name }, () => session.deadline.race(Promise.resolve().then(body)));
  if (!tool.mutates) return run();
  return session.serialize(async () => {
    session.assertUsable(label);
    const before = session.latest ?? (await session.timed('observeMs', () => host.observer.capture(session.deadline.signal)));
    try {
      session.budget.takeActionSlot(`the tool ${tool.name}`);
    } catch (error) {
      if (isE2EError(error)) session.stop(error);
      throw error;
    }
    const sentence = `run tool ${tool.name}`;
    const event = {
      step: { index: session.info.index, kind: session.info.kind, instruction: session.info.instruction },
      verb: 'tool' as const,
      args: { name: tool.name, mutates: true },
      sentence,
      before,
    };
    try {
      const result = await run();
      // Like an action: wait for the tool's effect, and authorize what follows against that screen.
      // A tool need not change the screen, so the wait for a change is short.
      const after = await session.timed('observeMs', () => host.observer.settle(before, session.deadline.signal, { maxMs: TOOL_SETTLE_MS }));
      session.latest = after;
      session.sentences.push(sentence);
      if (!session.ended) host.emit({ ...event, after, outcome: 'ok', mayHaveCommitted: true });
      return result;
    } catch (error) {
      if (!session.ended) host.emit({ ...event, outcome: isE2EError(error) ? error.code : 'ACTION_FAILED', mayHaveCommitted: true });
      throw error;
    }
  });
}

/** The context of one step. */
export function buildStepContext(
  host: StepContextHost,
  step: { agent: StepAgent; executor: StepExecutor; session: StepSession; actions: StepActions; prefix: ReplayedPrefix | undefined },
): StepContext {
  const { agent, executor, session } = step;
  const context: StepContext = {
    step: session.info,
    observe: observerFor(host, session, { firstScreen: 'mounted' }),
    actions: step.actions,
    target: { ...host.target, verbs: [...host.target.verbs] },
    signal: session.deadline.signal,
    agentContext: agent.context,
    ledger: Object.freeze(host.ledger()),
    attempt: {
      ...host.attempt,
      titlePath: [...host.attempt.titlePath],
      memory: host.memory,
      signal: host.attemptSignal,
      secretFilled: () => host.secretFilled(),
    },
    budgets: {
      runTool: (tool, body) => runTool(host, session, tool, body),
      recordModelCall: (usage?: ModelUsage) => {
        try {
          session.budget.recordModelCall(usage);
        } catch (error) {
          if (isE2EError(error)) session.stop(error);
          throw error;
        }
      },
      remainingMs: () => session.deadline.remainingMs(),
      remainingActions: () => session.budget.remainingActions(),
      remainingModelCalls: () => session.budget.remainingModelCalls(),
    },
    attachTranscript: (text) => {
      if (!host.debug || typeof text !== 'string') return;
      const id = host.nextArtifactId('transcript');
      const label = `transcript of step ${session.info.index}`;
      session.artifacts.push({ id, kind: 'transcript', label });
      // Attached under its id (no label), so the id names the Playwright attachment.
      void host.attach({ name: id, contentType: 'text/plain', body: host.transcript(text) });
    },
    attachTurns: (turns) => {
      // Part of the step's record: redacted with it, where it leaves.
      if (Array.isArray(turns)) session.turns = clipTurns(turns);
    },
    attachScreenshot: async (pixels, label) => {
      if (host.secretFilled()) return 'withheld';
      const id = host.nextArtifactId('screenshot');
      // The label is part of the step's record: redacted with it, where it leaves.
      session.artifacts.push({ id, kind: 'screenshot', label: String(label) });
      // The id it resolves with names the Playwright attachment (the seed's contract), so no label.
      await host.attach({ name: id, contentType: 'image/png', body: pixels });
      return id;
    },
    redact: (text) => host.redact(text),
    debug: (message) => {
      if (typeof message === 'string') host.log(message);
    },
  };
  const model = agent.model ?? executor.model;
  const judge = agent.judge ?? executor.judge;
  if (step.prefix !== undefined) context.replayedPrefix = step.prefix;
  if (model !== undefined) context.model = model;
  if (judge !== undefined) context.judge = judge;
  if (agent.providerOptions !== undefined) context.providerOptions = agent.providerOptions;
  return context;
}

/**
 * Builds the `StepContext` an executor receives (DESIGN §3): observations (pixels withheld
 * after a secret fill), budgets with `runTool` (a mutating tool takes an action slot, is
 * reported as a gap, and settles like an action so what follows is authorized against the
 * screen it left; acting or observing inside a tool fails `INVALID_STATE`), and the artifact
 * hooks, every text redacted.
 */
import { E2EError, isE2EError } from '../errors/index.js';
import type { EngineInstance } from '../contract/engine.js';
import { presentObservation, type ScreenObserver } from './screen-observer.js';
import { redactDeep } from './secrets.js';
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
import type { ArtifactRef } from './step-record.js';
import type { ActionEvent } from '../contract/step-seams.js';
import { toolScope, type StepSession } from './step-session.js';

/** What the attempt lends a step's context. */
export interface StepContextHost {
  engine: EngineInstance;
  observer: ScreenObserver;
  target: TargetInfo;
  attempt: { testId: string; retry: number; titlePath: string[] };
  memory: Map<string, unknown>;
  attemptSignal: AbortSignal;
  secretFilled(): boolean;
  redact(text: string): string;
  ledger(): LedgerEntry[];
  emit(event: ActionEvent): void;
  /** Keep transcripts (`--debug`). */
  debug: boolean;
  /** Attach an artifact to the test (errors are the host's to log). */
  attach(artifact: { name: string; contentType: string; body: Uint8Array | string; label?: string }): Promise<void>;
  nextArtifactId(kind: 'screenshot' | 'transcript'): string;
}

/** Where a step's context reports what the executor attached. */
export interface StepSinks {
  attach(artifact: ArtifactRef): void;
  turns(turns: TurnRecord[]): void;
}

/** What the step knows about its agent. */
export interface StepAgent {
  context: string;
  model?: OpaqueLanguageModel | undefined;
  judge?: OpaqueLanguageModel | undefined;
  providerOptions?: Record<string, Record<string, unknown>> | undefined;
}

/** `ctx.observe` for one step: serialized with the actions, updating the newest observation. */
export function observerFor(host: StepContextHost, session: StepSession): (options?: ObserveOptions) => Promise<Observation> {
  return async (options) => {
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      throw new E2EError('INVALID_ARGUMENT', 'ctx.observe takes { tree?: boolean, pixels?: boolean }.');
    }
    session.assertUsable('ctx.observe');
    return session.serialize(async () => {
      session.assertUsable('ctx.observe');
      const observation = await session.timed('observeMs', () => host.observer.capture(session.deadline.signal));
      session.latest = observation;
      const presented = presentObservation(observation, { tree: options?.tree });
      if (options?.pixels === true) {
        if (host.secretFilled()) presented.pixelsWithheld = true;
        else presented.pixels = await session.timed('observeMs', () => session.deadline.race(host.engine.screenshot()));
      }
      return presented;
    });
  };
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
  step: { agent: StepAgent; executor: StepExecutor; session: StepSession; actions: StepActions; prefix: ReplayedPrefix | undefined; sinks: StepSinks },
): StepContext {
  const { agent, executor, session, sinks } = step;
  const context: StepContext = {
    step: session.info,
    observe: observerFor(host, session),
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
      sinks.attach({ id, kind: 'transcript', label });
      void host.attach({ name: id, contentType: 'text/plain', body: host.redact(text), label });
    },
    attachTurns: (turns) => {
      if (Array.isArray(turns)) sinks.turns(redactDeep(turns.slice(-10), (text) => host.redact(text)));
    },
    attachScreenshot: async (pixels, label) => {
      if (host.secretFilled()) return 'withheld';
      const id = host.nextArtifactId('screenshot');
      const shown = host.redact(String(label));
      sinks.attach({ id, kind: 'screenshot', label: shown });
      await host.attach({ name: id, contentType: 'image/png', body: pixels, label: shown });
      return id;
    },
    redact: (text) => host.redact(text),
  };
  const model = agent.model ?? executor.model;
  const judge = agent.judge ?? executor.judge;
  if (step.prefix !== undefined) context.replayedPrefix = step.prefix;
  if (model !== undefined) context.model = model;
  if (judge !== undefined) context.judge = judge;
  if (agent.providerOptions !== undefined) context.providerOptions = agent.providerOptions;
  return context;
}

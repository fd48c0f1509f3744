/**
 * A real Chromium page behind the step runner: the web engine's attempt with the runner's
 * navigation hook installed (`startPoliced`), and one `act` step per call of the shared attempt
 * harness whose scripted executor works through the policed `ctx.actions`, so a refusal ends
 * the step the way it ends an agent's.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Engine, EngineInstance, ScreenNode } from '../../../../contract/engine.js';
import type { StepContext, StepExecutor } from '../../../../contract/step-contract.js';
import type { AttemptRunner, StepOutcome } from '../../../../step/step-runner.js';
import { startAttempt, startPoliced } from '../../../support/attempt-harness.js';
import { find } from '../../../support/hand-built-tree.js';

/** What a scripted step does on the screen it observed first. */
export type StepBody = (context: StepContext, screen: ScreenNode) => Promise<void>;

/** A step body that taps the `role` "name" of the screen it observed. */
export function tapOn(role: string, name: string): StepBody {
  return async (context, screen) => {
    await context.actions.tap({ id: find(screen, role, name).id });
  };
}

/** How long a step lingers after its body, waiting for a late navigation to be judged. */
export interface LingerOptions {
  /** Stop lingering once this holds (polled). Default: never, linger the full time. */
  until?: () => boolean;
  /** Default 1000 ms. */
  maxMs?: number;
}

/** A page on the app, policed by a step runner. */
export interface PolicedPage {
  instance: EngineInstance;
  runner: AttemptRunner;
  /** Run one `act` step: observe, run `body`, linger; the runner's verdict comes back. */
  act(instruction: string, body: StepBody, linger?: LingerOptions): Promise<StepOutcome>;
  /** The page's URL now. */
  url(): string;
  close(): Promise<void>;
}

/** Linger until `options.until` holds, the step stops, or the time is up. */
async function linger(signal: AbortSignal, options: LingerOptions): Promise<void> {
  const deadline = Date.now() + (options.maxMs ?? 1000);
  while (Date.now() < deadline && !signal.aborted && options.until?.() !== true) await sleep(25);
}

/** Open `url` on a fresh attempt of `engine`, outside any step, and police `origins` from then on. */
export async function openPolicedPage(engine: Engine, url: string, origins: string[]): Promise<PolicedPage> {
  const { instance, police } = await startPoliced(engine, url);
  await instance.session.open(url);
  let pending: { body: StepBody; linger: LingerOptions } | undefined;
  const executor: StepExecutor = {
    name: 'scripted-navigation',
    async runStep(context) {
      if (pending === undefined) throw new Error('no scripted body for this step');
      const { body, linger: lingerOptions } = pending;
      const screen = (await context.observe({ tree: true })).tree;
      if (screen === undefined) throw new Error('the observation has no tree');
      await body(context, screen);
      await linger(context.signal, lingerOptions);
      return { status: 'passed', summary: `Ended at ${new URL(instance.session.url()).pathname}.` };
    },
  };
  const { runner: policed } = police(startAttempt({ instance, engine, origin: new URL(url).origin }, { executor, context: 'An app with ways out.', origins }));
  return {
    instance,
    runner: policed,
    act: (instruction, body, lingerOptions = {}) => {
      pending = { body, linger: lingerOptions };
      return policed.runStep('act', instruction);
    },
    url: () => instance.session.url(),
    close: () => instance.close(),
  };
}

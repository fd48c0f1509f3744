/**
 * What an `agent.*` step shows inside it, in the HTML report and the trace: one nested
 * Playwright step per action it took (`tap button "Save"`), then how the replay cache took
 * part (`cache: replayed, no model call`) and what the model cost (`model: 2 calls · …`).
 * Every title is built from text the runner already redacted (secrets as `<secret:name>`).
 *
 * Actions are reported by the runner once they are done, so their steps are zero-length
 * markers at the moment each action finished; the engine's own Playwright calls stay hidden
 * (they would show a typed secret).
 */
import { test as playwrightTest } from '@playwright/test';
import type { ActionEvent } from '../contract/step-seams.js';
import type { SourceLocation } from './caller-location.js';
import { visibleText } from '../semantics/visible-text.js';

/** The longest title a nested step gets. */
const MAX_TITLE = 200;

function clip(text: string): string {
  const single = text.replace(/\s+/g, ' ').trim();
  return single.length > MAX_TITLE ? `${single.slice(0, MAX_TITLE - 1)}…` : single;
}

function compact(value: number): string {
  if (value < 1000) return String(value);
  return `${(value / 1000).toFixed(1).replace(/\.0$/, '')}k`;
}

/** `tap button "Save"`, or `tap button "Save" (failed: ACTION_FAILED)`. */
export function actionStepTitle(event: Pick<ActionEvent, 'sentence' | 'outcome'>): string {
  return clip(event.outcome === 'ok' ? event.sentence : `${event.sentence} (failed: ${event.outcome})`);
}

/**
 * How the cache took part, in words: `cache: handed off to the agent (target-not-found: at
 * action 2 of 3, …)`. `errorCode` is the step's own, so a step no agent ran never reads as one
 * that did (a regression, a stale entry in strict mode, no model).
 */
export function cacheStepTitle(cache: unknown, errorCode?: string): string {
  if (typeof cache !== 'object' || cache === null) return 'cache: not used';
  const { mode, reason, detail, classification } = cache as { mode?: unknown; reason?: unknown; detail?: unknown; classification?: unknown };
  const why = [typeof reason === 'string' ? reason : undefined, typeof detail === 'string' && detail !== '' ? detail : undefined].filter((part) => part !== undefined).join(': ');
  const because = why === '' ? '' : ` (${why})`;
  switch (mode) {
    case 'self-finalized':
      return clip('cache: replayed, no model call');
    case 'agent-concluded':
      return clip(`cache: ${classification === 'regression' ? 'regression, ' : ''}handed off to the agent${because}`);
    case 'missed':
      if (classification === 'regression') return clip(`cache: regression, replayed but the recorded outcome did not appear${because}`);
      if (errorCode === 'REPLAY_STALE') return clip(`cache: stale, no agent ran${because}`);
      if (errorCode === 'MODEL_UNAVAILABLE') return clip(`cache: missed, no agent to run it${because}`);
      return clip(`cache: missed, the agent ran${because}`);
    default:
      return 'cache: not used';
  }
}

/** `model: 2 calls · 1.1k tokens (1k in, 100 out, 400 cached)`, or `model: no call`. */
export function modelStepTitle(modelCalls: number, tokens: { input: number; output: number; cached: number }): string {
  if (modelCalls === 0) return 'model: no call';
  const total = tokens.input + tokens.output;
  const cached = tokens.cached > 0 ? `, ${compact(tokens.cached)} cached` : '';
  return `model: ${modelCalls} call${modelCalls === 1 ? '' : 's'} · ${compact(total)} tokens (${compact(tokens.input)} in, ${compact(tokens.output)} out${cached})`;
}

/**
 * The nested steps of the running `agent.*` step. `open` starts collecting; action events
 * arriving meanwhile become steps; `close` waits for them to be recorded.
 */
export class StepDetails {
  #location: SourceLocation | undefined;
  #open = false;
  readonly #pending: Promise<void>[] = [];

  /** Start collecting for a step called at `location`. */
  open(location: SourceLocation | undefined): void {
    this.#location = location;
    this.#open = true;
  }

  /** The runner's action listener: each action of the open step becomes a nested step. */
  readonly onAction = (event: ActionEvent): void => {
    if (!this.#open) return;
    this.add(actionStepTitle(event));
  };

  /** Add one nested step with `title` (already redacted). */
  add(title: string): void {
    if (!this.#open) return;
    const options = this.#location === undefined ? {} : { location: this.#location };
    // Sentences and cache details quote page text; the HTML report and the trace show it as spelled out.
    title = visibleText(title);
    // A step that cannot be recorded (the test already ended) is not the step's problem.
    this.#pending.push(playwrightTest.step(title, async () => {}, options).catch(() => undefined));
  }

  /** Wait until every nested step is recorded, then stop collecting. */
  async close(): Promise<void> {
    await Promise.all(this.#pending.splice(0));
    this.#open = false;
  }
}

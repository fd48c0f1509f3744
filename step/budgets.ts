/**
 * Step budgets (DESIGN §3), counted in one place: actions against `maxSteps`, model calls
 * against `maxModelCalls`, token usage, and the default limits per step kind.
 */
import { E2EError } from '../errors/index.js';
import type { ModelUsage, StepKind } from '../contract/step-contract.js';

/** Limits of one step. */
export interface StepLimits {
  /** Actions allowed (each `ctx.actions` call and each mutating tool takes one). */
  maxSteps: number;
  /** Model calls allowed. */
  maxModelCalls: number;
  /** Milliseconds the step may take. */
  timeoutMs: number;
}

/** Token totals. */
export interface TokenUsage {
  input: number;
  output: number;
  cached: number;
}

/** Default actions per `act` step. */
export const DEFAULT_MAX_STEPS = 25;
/** Default model calls per `act` step. */
export const DEFAULT_MAX_MODEL_CALLS = 25;
/** Default test timeout, which is also the default `act` step timeout. */
export const DEFAULT_TEST_TIMEOUT_MS = 120_000;
/** Default time of a judgment (`assert`, `extract`, `waitFor`). */
export const DEFAULT_JUDGMENT_TIMEOUT_MS = 30_000;
/** Model calls of `assert`/`extract`: one judgment plus one repair round. */
export const JUDGMENT_MODEL_CALLS = 2;
/** Bound of one targeted action. */
export const ACTION_TIMEOUT_MS = 15_000;
/**
 * How much sooner the engine's own timeout ends than the runner's bound of an action, so the
 * engine's diagnosis (which element intercepts the pointer) arrives before the bound fires.
 */
export const ENGINE_TIMEOUT_MARGIN_MS = 1_000;

/** The timeout handed to the engine for an action with `remainingMs` left on its bound. */
export function engineTimeoutFor(remainingMs: number): number {
  const bound = Math.min(ACTION_TIMEOUT_MS, remainingMs);
  return Math.max(1, bound > 2 * ENGINE_TIMEOUT_MARGIN_MS ? bound - ENGINE_TIMEOUT_MARGIN_MS : Math.floor(bound / 2));
}

/** Longest wait for the screen to settle after an action. */
export const SETTLE_TIMEOUT_MS = 2_000;

/** What the agent entry and the call may set. */
export interface LimitOverrides {
  maxSteps?: number | undefined;
  maxModelCalls?: number | undefined;
  timeoutMs?: number | undefined;
}

/**
 * The limits of a step: `act` (and `assert` run by a custom executor) take the entry's
 * budgets and the test timeout; built-in judgments take their fixed defaults (30 s, or the
 * test's action timeout when larger) unless the call sets a timeout.
 */
export function limitsFor(
  kind: StepKind,
  options: { viaExecutor: boolean; entry: LimitOverrides; call: LimitOverrides; testTimeoutMs: number; actionTimeoutMs?: number | undefined },
): StepLimits {
  const { entry, call } = options;
  if (kind === 'act' || (kind === 'assert' && options.viaExecutor)) {
    return {
      maxSteps: call.maxSteps ?? entry.maxSteps ?? DEFAULT_MAX_STEPS,
      maxModelCalls: call.maxModelCalls ?? entry.maxModelCalls ?? DEFAULT_MAX_MODEL_CALLS,
      timeoutMs: call.timeoutMs ?? entry.timeoutMs ?? options.testTimeoutMs,
    };
  }
  return {
    maxSteps: 0,
    maxModelCalls: kind === 'waitFor' ? (call.maxModelCalls ?? entry.maxModelCalls ?? DEFAULT_MAX_MODEL_CALLS) : JUDGMENT_MODEL_CALLS,
    timeoutMs: call.timeoutMs ?? Math.max(DEFAULT_JUDGMENT_TIMEOUT_MS, options.actionTimeoutMs ?? 0),
  };
}

/** The counters of one step. */
export class StepBudget {
  readonly limits: StepLimits;
  #actions = 0;
  #modelCalls = 0;
  #refused = false;
  #modelMs = 0;
  readonly #tokens: TokenUsage = { input: 0, output: 0, cached: 0 };

  constructor(limits: StepLimits) {
    this.limits = limits;
  }

  /** Take one action slot; past `maxSteps` this throws `STEP_BUDGET_EXHAUSTED`. */
  takeActionSlot(what: string): void {
    if (this.#actions >= this.limits.maxSteps) {
      this.#refused = true;
      throw new E2EError(
        'STEP_BUDGET_EXHAUSTED',
        `The step used all ${this.limits.maxSteps} actions of maxSteps before ${what}; raise \`maxSteps\` or split the instruction into smaller steps.`,
      );
    }
    this.#actions += 1;
  }

  /** Count one model call; past `maxModelCalls` this throws `STEP_BUDGET_EXHAUSTED`. */
  recordModelCall(usage: ModelUsage | undefined): void {
    if (this.#modelCalls >= this.limits.maxModelCalls) {
      this.#refused = true;
      throw new E2EError(
        'STEP_BUDGET_EXHAUSTED',
        `The step used all ${this.limits.maxModelCalls} model calls of maxModelCalls; raise \`maxModelCalls\` or split the instruction into smaller steps.`,
      );
    }
    this.#modelCalls += 1;
    this.#tokens.input += nonNegative(usage?.inputTokens);
    this.#tokens.output += nonNegative(usage?.outputTokens);
    this.#tokens.cached += nonNegative(usage?.cachedInputTokens);
    this.#modelMs += nonNegative(usage?.durationMs);
  }

  /** Milliseconds spent in model calls, as the executor reported them. */
  modelMs(): number {
    return this.#modelMs;
  }

  /** Actions taken. */
  actionsUsed(): number {
    return this.#actions;
  }

  /** Model calls counted. */
  modelCalls(): number {
    return this.#modelCalls;
  }

  /** Token totals (a copy). */
  tokens(): TokenUsage {
    return { ...this.#tokens };
  }

  /** Actions left. */
  remainingActions(): number {
    return Math.max(0, this.limits.maxSteps - this.#actions);
  }

  /** Model calls left. */
  remainingModelCalls(): number {
    return Math.max(0, this.limits.maxModelCalls - this.#modelCalls);
  }

  /** True when a budget is really spent: a request was refused, or a counter reached its limit. */
  isSpent(): boolean {
    return this.#refused || this.remainingActions() === 0 || this.remainingModelCalls() === 0;
  }
}

function nonNegative(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * The decision executor (DESIGN §5): for models that should only choose. Each turn is one
 * structured-output call whose answer is an enum of the moves the current screen offers, so
 * it runs on any provider, small local models with constrained decoding included. Text to
 * type comes from a separate plain-text call (never for password fields: those take
 * `type_secret` by name), and a claim of done is confirmed on a fresh screen.
 */
import { generateText, NoObjectGeneratedError, NoOutputGeneratedError, Output, type LanguageModel } from 'ai';
import type { ProviderOptions } from '@ai-sdk/provider-utils';
import { z } from 'zod';
import { E2EError, isE2EError, messageOf } from '../errors/index.js';
import type { ActionOutcome, StepContext, StepExecutor, StepVerdict } from '../contract/step-contract.js';
import { decisionOptions, parseScreenLines, type DecisionMove } from './decision-options.js';
import { isRuntimeHardStop } from './hard-stop.js';
import { callSignature, LoopGuards } from './loop-guards.js';
import { requireModel, toModelUsage } from './model.js';
import { describeStep } from './opening-prompt.js';
import { withProviderPolicy, type ProviderCallContext, type ProviderPolicy } from './provider-errors.js';
import { modelLabel, reportWarnings, withoutSdkPrinting } from './sdk-warnings.js';
import { clipLine, TurnLog } from './transcript.js';

/** Options of {@link decisionExecutor}. */
export interface DecisionExecutorOptions {
  /** The choosing model. */
  model: LanguageModel;
  /** The model that writes text to type; default `model`. */
  textModel?: LanguageModel;
  /** A choice below this confidence (0–1) ends the step with `STEP_NO_CONCLUSION`. Default 0. */
  minConfidence?: number;
  /** Executor name. Default `decision`. */
  name?: string;
  /** Most moves offered per turn (done and failed always are). Default 150. */
  maxOptions?: number;
  providerOptions?: ProviderOptions;
  provider?: ProviderPolicy;
}

const DECISION_RULES = [
  'You choose the next move of one step of an end-to-end test, from a fixed list of options.',
  'Pick the option that brings the step closest to done. Pick "done" only when the screen shows the step is complete, and "failed" when it cannot be done.',
  'Give your confidence between 0 and 1 and one sentence of reason. Answer as JSON only.',
].join('\n');

interface Choice {
  choice: string;
  confidence: number;
  reason: string;
}

class DecisionRun {
  private readonly history: string[] = [];
  private readonly guards = new LoopGuards();
  private readonly turns = new TurnLog();
  private readonly providerContext: ProviderCallContext;

  constructor(
    private readonly ctx: StepContext,
    private readonly options: DecisionExecutorOptions,
    private readonly model: LanguageModel,
  ) {
    this.providerContext = { signal: ctx.signal, remainingMs: () => ctx.budgets.remainingMs(), redact: (text: string) => ctx.redact(text) };
  }

  private get providerOptions(): ProviderOptions | undefined {
    return this.options.providerOptions ?? (this.ctx.providerOptions as ProviderOptions | undefined);
  }

  /** One structured decision among `keys`; one repair round for unreadable answers. */
  private async decide(prompt: string, keys: string[]): Promise<Choice> {
    const schema = z.strictObject({ choice: z.enum(keys as [string, ...string[]]), confidence: z.number().min(0).max(1), reason: z.string() });
    let repair = '';
    for (let round = 0; round < 2; round++) {
      this.requireCall();
      const requested = performance.now();
      const result = await withProviderPolicy(this.providerContext, this.options.provider, async ({ signal }) => {
        try {
          const answer = await withoutSdkPrinting(() =>
            generateText({
              model: this.model,
              system: DECISION_RULES,
              prompt: `${prompt}${repair}`,
              output: Output.object({ schema }),
              maxRetries: 0,
              abortSignal: signal,
              ...(this.providerOptions === undefined ? {} : { providerOptions: this.providerOptions }),
            }),
          );
          reportWarnings((line) => this.ctx.debug?.(line), answer.warnings, modelLabel(this.model));
          return { choice: answer.output as Choice, usage: answer.usage, problem: undefined };
        } catch (error) {
          if (NoObjectGeneratedError.isInstance(error)) return { choice: undefined, usage: error.usage, problem: error.message };
          if (NoOutputGeneratedError.isInstance(error)) return { choice: undefined, usage: undefined, problem: error.message };
          throw error;
        }
      });
      this.ctx.budgets.recordModelCall(toModelUsage(result.usage, performance.now() - requested));
      if (result.choice !== undefined) return result.choice;
      repair = `\n\nYour previous answer could not be used (${clipLine(result.problem ?? '', 200)}). Answer with one of the options exactly, as JSON.`;
    }
    throw new E2EError('MODEL_OUTPUT_INVALID', 'The decision model gave no usable choice after a repair round.');
  }

  private requireCall(): void {
    if (this.ctx.budgets.remainingModelCalls() <= 0) throw new E2EError('STEP_BUDGET_EXHAUSTED', 'The step used all its model calls before it concluded.');
  }

  /** Ask the text model what to type into a field. */
  private async textFor(field: string): Promise<string> {
    this.requireCall();
    const model = this.options.textModel ?? this.model;
    const requested = performance.now();
    const result = await withProviderPolicy(this.providerContext, this.options.provider, ({ signal }) =>
      withoutSdkPrinting(() =>
        generateText({
          model,
          system: 'You write the exact text to type into one field of an app under test. Reply with that text only: no quotes, no explanation.',
          prompt: `${describeStep(this.ctx)}\n\nDone so far:\n${this.history.join('\n') || '(nothing yet)'}\n\nField: ${field}\nText to type:`,
          maxRetries: 0,
          abortSignal: signal,
          ...(this.providerOptions === undefined ? {} : { providerOptions: this.providerOptions }),
        }),
      ),
    );
    this.ctx.budgets.recordModelCall(toModelUsage(result.usage, performance.now() - requested));
    reportWarnings((line) => this.ctx.debug?.(line), result.warnings, modelLabel(model));
    return result.text.trim().replace(/^"(.*)"$/s, '$1');
  }

  private async perform(move: DecisionMove): Promise<ActionOutcome | undefined> {
    const actions = this.ctx.actions;
    switch (move.kind) {
      case 'node':
        switch (move.verb) {
          case 'tap':
            return actions.tap({ id: move.id });
          case 'check':
          case 'uncheck':
            return actions.check({ id: move.id }, move.verb === 'check');
          case 'press-enter':
            return actions.press({ id: move.id }, 'Enter');
          case 'type':
            return actions.type({ id: move.id }, await this.textFor(`${move.line.role} "${move.line.name}"`), { replace: true });
        }
        break;
      case 'secret':
        return actions.typeSecret({ id: move.id }, move.secret);
      case 'select':
        return actions.select({ id: move.id }, move.value);
      case 'scroll':
        return actions.scroll(move.direction);
      case 'back':
        return actions.back();
      case 'done':
      case 'failed':
        return undefined;
    }
  }

  private prompt(screen: string, keys: string[], question?: string): string {
    const sections = [describeStep(this.ctx)];
    if (this.history.length > 0) sections.push(`Done so far in this step:\n${this.history.join('\n')}`);
    sections.push(screen);
    if (question !== undefined) sections.push(question);
    sections.push(`Options:\n${keys.join('\n')}`);
    return sections.join('\n\n');
  }

  private end(verdict: StepVerdict): StepVerdict {
    this.ctx.attachTurns(this.turns.list());
    return verdict;
  }

  async run(): Promise<StepVerdict> {
    const minConfidence = this.options.minConfidence ?? 0;
    const failureCode = this.ctx.step.kind === 'act' ? 'ACTION_FAILED' : 'ASSERTION_FAILED';
    for (let turn = 1; ; turn++) {
      if (this.ctx.budgets.remainingModelCalls() <= 0) {
        return this.end({ status: 'failed', errorCode: 'STEP_BUDGET_EXHAUSTED', summary: 'The step used all its model calls before it concluded.' });
      }
      const screen = await this.ctx.observe();
      const offered =
        this.ctx.step.kind === 'act'
          ? decisionOptions(parseScreenLines(screen.text), this.ctx.target.verbs, this.ctx.step.secrets, this.options.maxOptions ?? 150)
          : new Map<string, DecisionMove>([['done', { kind: 'done' }], ['failed', { kind: 'failed' }]]);
      const keys = [...offered.keys()];
      const choice = await this.decide(this.prompt(screen.text, keys), keys);
      const move = offered.get(choice.choice)!;
      if (choice.confidence < minConfidence) {
        this.turns.add(turn, [choice.choice], `confidence ${choice.confidence} below ${minConfidence}`);
        const summary = `The model was not confident enough to choose (${choice.confidence} < ${minConfidence}): ${choice.reason}`;
        return this.end({ status: 'failed', errorCode: 'STEP_NO_CONCLUSION', summary });
      }
      if (move.kind === 'failed') {
        this.turns.add(turn, [choice.choice], choice.reason);
        return this.end({ status: 'failed', errorCode: failureCode, summary: choice.reason });
      }
      if (move.kind === 'done') {
        const fresh = await this.ctx.observe();
        const question = 'You said the step is done. Look at this fresh screen: is it really done? Choose "done" to confirm or "continue" to keep working.';
        const check = await this.decide(this.prompt(fresh.text, ['done', 'continue'], question), ['done', 'continue']);
        this.turns.add(turn, ['done', `confirm: ${check.choice}`], check.reason);
        if (check.choice === 'done') return this.end({ status: 'passed', summary: check.reason || choice.reason });
        this.history.push(`- You said done, but a fresh look disagreed: ${clipLine(check.reason, 200)}`);
        continue;
      }
      let outcome: string;
      let failed = false;
      try {
        const result = await this.perform(move);
        outcome = result === undefined ? 'done' : result.changes.trim() || 'nothing changed';
      } catch (error) {
        if (isRuntimeHardStop(error) || this.ctx.signal.aborted) throw error;
        failed = true;
        outcome = `failed: ${messageOf(error)}`;
      }
      this.history.push(`- ${choice.choice} → ${clipLine(this.ctx.redact(outcome), 300)}`);
      this.turns.add(turn, [choice.choice], outcome);
      this.guards.recordCall(callSignature(choice.choice, {}), outcome, failed);
      const review = this.guards.review();
      if (review.conclude !== undefined) return this.end({ status: 'failed', errorCode: 'STEP_NO_CONCLUSION', summary: review.conclude });
    }
  }
}

/**
 * Build a decision executor. `act` steps choose moves until a confirmed done, a failed
 * choice, or a guard stops them; `assert` steps choose between done (it holds) and failed.
 */
export function decisionExecutor(options: DecisionExecutorOptions): StepExecutor {
  return {
    name: options.name ?? 'decision',
    version: '1',
    model: options.model,
    runStep: async (ctx) => {
      const model = requireModel('the decision executor', options.model);
      try {
        return await new DecisionRun(ctx, options, model).run();
      } catch (error) {
        if (isE2EError(error) && error.code === 'MODEL_OUTPUT_INVALID') {
          return { status: 'failed', errorCode: error.code, summary: error.message };
        }
        throw error;
      }
    },
  };
}

/**
 * The built-in agent (DESIGN §5): the tool loop with the grammar tools, the project tools,
 * the verdict tool and history condensing, opening on the step brief and the whole screen.
 */
import type { LanguageModel, ModelMessage } from 'ai';
import type { ProviderOptions } from '@ai-sdk/provider-utils';
import type { StepContext, StepExecutor } from '../contract/step-contract.js';
import { bindProjectTools, type ProjectTool } from './define-tool.js';
import { createGrammarTools } from './grammar-tools.js';
import { compactHistory, historyChars } from './history.js';
import { judgeAssert } from './judgments.js';
import type { LoopLimits } from './loop-guards.js';
import { buildOpeningPrompt } from './opening-prompt.js';
import type { ProviderPolicy } from './provider-errors.js';
import { BUILT_IN_AGENT_NAME, BUILT_IN_AGENT_VERSION } from './agent-identity.js';
import { BASE_RULES } from './rules.js';
import { createToolLoopExecutor } from './tool-loop.js';
import { VERDICT_RULES, VERDICT_TOOL_NAME } from './verdict-tool.js';

/** Options of {@link createAgent}. */
export interface AgentOptions {
  /** The model; default the agent entry's. */
  model?: LanguageModel;
  /** The model for judgments (`assert`); default `model`. */
  judge?: LanguageModel;
  /** Project guidance added after the built-in rules. */
  system?: string;
  /** What the app is, for the model; added when the step's own context does not already say it. */
  context?: string;
  /** Project tools declared with `defineTool`. */
  tools?: Readonly<Record<string, ProjectTool>>;
  /** Provider options for every call; default the agent entry's. */
  providerOptions?: ProviderOptions;
  /** Request timeout and retry behaviour. */
  provider?: ProviderPolicy;
  /** Stream each turn. Default false. */
  streaming?: boolean;
  /** Recent turns kept word for word when the history is condensed. Default 8. */
  keepTurns?: number;
  /** Condense harder once the history holds more text than this. Default 400,000 characters. */
  maxHistoryChars?: number;
  /** Loop guard thresholds. */
  limits?: Partial<LoopLimits>;
  /** Force the verdict when this many ms are left before the step deadline. Default 10,000. */
  windDownMs?: number;
}

function systemPrompt(ctx: StepContext, options: AgentOptions): string {
  const sections = [BASE_RULES, VERDICT_RULES];
  if (options.system !== undefined && options.system.trim() !== '') sections.push(`Guidance for this project:\n${options.system.trim()}`);
  const context = [ctx.agentContext.trim()];
  const own = options.context?.trim() ?? '';
  if (own !== '' && !context[0]!.includes(own)) context.push(own);
  const about = context.filter((text) => text !== '').join('\n');
  if (about !== '') sections.push(`About the app:\n${about}`);
  return sections.join('\n\n');
}

/** Condense old turns in chunks, and harder when the history grows past the size cap. */
function condenser(options: AgentOptions): (messages: ModelMessage[]) => ModelMessage[] {
  const keepTurns = options.keepTurns ?? 8;
  const maxChars = options.maxHistoryChars ?? 400_000;
  return (messages) => {
    const condensed = compactHistory(messages, { keepTurns });
    if (historyChars(condensed) <= maxChars) return condensed;
    return compactHistory(condensed, { keepTurns: Math.max(2, Math.floor(keepTurns / 2)), chunked: false });
  };
}

/**
 * The built-in executor. `act` steps run the tool loop with the grammar tools for the
 * target's verbs, the project tools and `complete_step`; `assert` steps (when the runner
 * sends them here) are judged like the runner's own judgments. `waitFor` and `extract` stay
 * with the runner's judgments and are refused here.
 */
export function createAgent(options: AgentOptions = {}): StepExecutor {
  const condense = condenser(options);
  const loop = createToolLoopExecutor({
    name: BUILT_IN_AGENT_NAME,
    version: BUILT_IN_AGENT_VERSION,
    vision: true,
    system: (ctx) => systemPrompt(ctx, options),
    buildPrompt: (ctx) => buildOpeningPrompt(ctx, { includeContext: false }),
    prepareMessages: (messages) => condense(messages),
    tools: (ctx, helpers) => {
      const grammar = createGrammarTools(ctx, helpers);
      const project = bindProjectTools(ctx, options.tools ?? {}, helpers, [...Object.keys(grammar), VERDICT_TOOL_NAME]);
      return { ...grammar, ...project };
    },
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.judge === undefined ? {} : { judge: options.judge }),
    ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...(options.streaming === undefined ? {} : { streaming: options.streaming }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.windDownMs === undefined ? {} : { windDownMs: options.windDownMs }),
  });
  return {
    ...loop,
    runStep: async (ctx) => {
      switch (ctx.step.kind) {
        case 'act':
          return loop.runStep(ctx);
        case 'assert': {
          const judge = options.judge ?? options.model;
          const judged = await judgeAssert(ctx, {
            question: ctx.step.instruction,
            vision: ctx.step.vision ?? false,
            ...(judge === undefined ? {} : { model: judge }),
            ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
            ...(options.provider === undefined ? {} : { provider: options.provider }),
          });
          return { status: judged.status, summary: judged.summary, ...(judged.errorCode === undefined ? {} : { errorCode: judged.errorCode }) };
        }
        case 'waitFor':
        case 'extract':
          return {
            status: 'blocked',
            errorCode: 'AUTOMATION_UNSUPPORTED',
            summary: `${ctx.step.kind} steps run through the runner's built-in judgments, not through an executor.`,
          };
      }
    },
  };
}

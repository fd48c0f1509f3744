/**
 * `e2e/agent`: executors on the AI SDK (DESIGN §5) — the built-in agent, the tool loop for
 * custom vocabularies, the grammar and verdict tools, project tools, the decision executor,
 * the built-in judgments, and the step contract every executor implements.
 */
export type {
  ActionOutcome,
  AttemptInfo,
  LedgerEntry,
  ModelUsage,
  ObserveOptions,
  Observation,
  OpaqueLanguageModel,
  ReplayedPrefix,
  ScrollUntilOptions,
  StepActions,
  StepBudgets,
  StepContext,
  StepExecutor,
  StepInfo,
  StepKind,
  StepVerdict,
  TapOptions,
  TargetInfo,
  TurnRecord,
} from '../contract/step-contract.js';

export { createAgent, BUILT_IN_AGENT_NAME, BUILT_IN_AGENT_VERSION, type AgentOptions } from './create-agent.js';
export { createToolLoopExecutor, type Guard, type PrepareInfo, type PreparedMessages, type ToolLoopOptions } from './tool-loop.js';
export { createGrammarTools, GRAMMAR_TOOL_NAMES, nodeRef, type ScreenOutput } from './grammar-tools.js';
export { BASE_RULES } from './rules.js';
export {
  createVerdictTool,
  MODEL_VERDICT_CODES,
  VERDICT_RULES,
  VERDICT_TOOL_NAME,
  verdictInputSchema,
  type VerdictInput,
  type VerdictTool,
} from './verdict-tool.js';
export { isRuntimeHardStop, RUNTIME_HARD_STOP_CODES } from './hard-stop.js';
export { bindProjectTools, defineTool, isProjectTool, type DefineToolOptions, type ProjectTool } from './define-tool.js';
export { decisionExecutor, type DecisionExecutorOptions } from './decision-executor.js';
export {
  judgeAssert,
  judgeExtract,
  judgeWaitFor,
  screenIds,
  type Extraction,
  type JudgeAssertOptions,
  type JudgeExtractOptions,
  type JudgeWaitForOptions,
  type Judgment,
  type JudgmentOptions,
} from './judgments.js';
export { buildOpeningPrompt, describeReplayedPrefix, describeStep, type StepBriefOptions } from './opening-prompt.js';
export { DEFAULT_LOOP_LIMITS, type LoopLimits } from './loop-guards.js';
export {
  classifyProviderError,
  DEFAULT_PROVIDER_POLICY,
  isContextOverflow,
  retryAfterMs,
  withProviderPolicy,
  type ProviderFault,
  type ProviderPolicy,
} from './provider-errors.js';
export { elideSupersededScreens, elisionMarker } from './screen-elision.js';
export { compactHistory, type CompactionOptions } from './history.js';
export { ToolFailure } from './tool-failure.js';
export { createBuiltInAgent, judgmentExecutor, JUDGMENT_EXECUTOR_NAME, type BuiltInAgentOptions } from './built-in.js';

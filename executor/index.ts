/**
 * `e2e/agent`: executors on the AI SDK (DESIGN §5), the documented API only (README "Writing
 * an executor"): the built-in agent, the tool loop for custom vocabularies, the grammar and
 * verdict tools, project tools, the decision executor, and the step contract types every
 * executor implements. Everything else of `executor/` is imported from its own file.
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

export { createAgent, type AgentOptions } from './create-agent.js';
export { createToolLoopExecutor, type Guard, type PrepareInfo, type PreparedMessages, type ToolLoopOptions } from './tool-loop.js';
export { createGrammarTools } from './grammar-tools.js';
export { BASE_RULES } from './rules.js';
export { createVerdictTool, VERDICT_RULES, type VerdictInput, type VerdictTool } from './verdict-tool.js';
export { isRuntimeHardStop } from './hard-stop.js';
export { defineTool, type DefineToolOptions, type ProjectTool } from './define-tool.js';
export { decisionExecutor, type DecisionExecutorOptions } from './decision-executor.js';

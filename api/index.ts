/**
 * The `e2e` package entry: the Playwright Test `test` with the e2e fixtures, the recording
 * `expect`, `defineConfig` (from `runner/`), the web engine (from `engines/web/`: the runner
 * imports no engine, so the entry puts them side by side), the `unique()` and `secret()`
 * markers, the errors, and the executor contract types.
 */
export { test } from '../runner/fixtures.js';
export type { E2EFixtures, E2EOptions, E2ETestType } from '../runner/fixtures.js';
export { expect } from '../runner/verification.js';
export { defineConfig, DEFAULT_TIMEOUT_MS, DEFAULT_TEST_MATCH, DEFAULT_CACHE_DIR, DEFAULT_OUTPUT_DIR, DEFAULT_HTML_REPORT_DIR } from '../runner/config.js';
export type { E2EConfig, AgentConfig, TargetConfig, UrlAppConfig, CacheConfig, SecretConfig, ScreenConfig, PassthroughConfig } from '../runner/config.js';
export type { ActOptions, ActResult, Agent, App, AssertOptions, ExtractOptions, JudgmentResult, WaitForOptions } from '../runner/agent-api.js';
export { web, surfaceOf } from '../engines/web/index.js';
export type { WebEngineOptions, WebSurface } from '../engines/web/index.js';
export { unique, secret, isSecretRef, isUniqueValue } from '../contract/param-values.js';
export type { SecretRef, UniqueValue, ParamValue } from '../contract/param-values.js';
export { AgentError, E2EError, isE2EError, ERROR_CODES, exitClassOf } from '../errors/index.js';
export type { ErrorCode, ExitClass } from '../errors/index.js';
export type {
  StepExecutor,
  StepContext,
  StepVerdict,
  StepInfo,
  StepKind,
  StepActions,
  StepBudgets,
  Observation,
  ObserveOptions,
  ActionOutcome,
  TargetInfo,
  ReplayedPrefix,
  LedgerEntry,
  ModelUsage,
  TurnRecord,
  AttemptInfo,
  TapOptions,
  ScrollUntilOptions,
} from '../contract/step-contract.js';
export type { Engine, EngineInstance, KeyModifier, NodeRef, Point, ScreenNode } from '../contract/engine.js';
export type { Report, ReportTest, ReportAttempt, ReportStep, ReportSummary } from '../runner/report.js';

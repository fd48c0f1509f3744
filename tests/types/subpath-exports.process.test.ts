/**
 * Each public subpath (`e2e`, `e2e/agent`, `e2e/engine`, `e2e/web`, `e2e/terminal`) exports exactly the
 * documented API, values and types alike, as the built declarations a user's project reads
 * declare it (the TypeScript checker lists each entry's exports).
 */
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { scaledTimeout } from '../support/load-scaled.js';
import { ensureBuilt, ROOT } from '../runner/support/build.js';

/** The names each subpath exports, sorted. */
const EXPECTED: Record<string, string[]> = {
  e2e: [
    'ActOptions', 'ActResult', 'ActionOutcome', 'Agent', 'AgentConfig', 'AgentError', 'App', 'AssertOptions', 'AttemptInfo', 'CacheConfig',
    'DEFAULT_CACHE_DIR', 'DEFAULT_HTML_REPORT_DIR', 'DEFAULT_OUTPUT_DIR', 'DEFAULT_TEST_MATCH', 'DEFAULT_TIMEOUT_MS', 'E2EConfig', 'E2EError',
    'E2EFixtures', 'E2EOptions', 'E2ETestType', 'ERROR_CODES', 'Engine', 'EngineInstance', 'ErrorCode', 'ExitClass', 'ExtractOptions',
    'JudgmentResult', 'KeyModifier', 'LedgerEntry', 'ModelUsage', 'NodeRef', 'ObserveOptions', 'Observation', 'ParamValue', 'PassthroughConfig',
    'Point', 'ReplayedPrefix', 'Report', 'ReportAttempt', 'ReportStep', 'ReportSummary', 'ReportTest', 'ScreenConfig', 'ScreenNode', 'ScrollUntilOptions',
    'SecretConfig', 'SecretRef', 'StepActions', 'StepBudgets', 'StepContext', 'StepExecutor', 'StepInfo', 'StepKind', 'StepVerdict', 'TapOptions',
    'TargetConfig', 'TargetInfo', 'TurnRecord', 'UniqueValue', 'UrlAppConfig', 'WaitForOptions', 'WebEngineOptions', 'WebSurface', 'defineConfig', 'exitClassOf',
    'expect', 'isE2EError', 'isSecretRef', 'isUniqueValue', 'secret', 'surfaceOf', 'test', 'unique', 'web',
  ],
  'e2e/agent': [
    'ActionOutcome', 'AgentOptions', 'AttemptInfo', 'BASE_RULES', 'DecisionExecutorOptions', 'DefineToolOptions', 'Guard', 'LedgerEntry',
    'ModelUsage', 'ObserveOptions', 'Observation', 'OpaqueLanguageModel', 'PrepareInfo', 'PreparedMessages', 'ProjectTool', 'ReplayedPrefix',
    'ScrollUntilOptions', 'StepActions', 'StepBudgets', 'StepContext', 'StepExecutor', 'StepInfo', 'StepKind', 'StepVerdict', 'TapOptions',
    'TargetInfo', 'ToolLoopOptions', 'TurnRecord', 'VERDICT_RULES', 'VerdictInput', 'VerdictTool', 'createAgent', 'createGrammarTools',
    'createToolLoopExecutor', 'createVerdictTool', 'decisionExecutor', 'defineTool', 'isRuntimeHardStop',
  ],
  // The engine contract file itself (contract/engine.ts).
  'e2e/engine': [
    'ENGINE_CONTRACT_VERSION', 'VERBS', 'Verb', 'NODE_STATES', 'NodeState', 'Rect', 'ScreenNode', 'EngineObservation', 'emptyScreenRoot', 'ChangeMark', 'ChangeWaitOptions', 'ChangeWaitResult', 'NodeRef', 'Point', 'ScrollDirection', 'KEY_MODIFIERS', 'KeyModifier', 'EngineAction', 'SessionAction', 'PointAction', 'ENGINE_ERROR_CODES', 'EngineErrorCode', 'EngineError', 'isEngineError', 'EngineSession', 'ScreenshotOptions', 'EngineInstance', 'EngineStartOptions', 'Engine',
    // A bounded read of a page-sized screen: the request and the placeholder node that says what was left out.
    'ObserveRequest', 'OMITTED_ROLE', 'OmittedNodes',
    // The host delegate (contract/host.ts), the location capability and typed error details.
    'EngineErrorDetail', 'EngineLocation', 'AppCheck', 'AttemptHost', 'BrowserRequest', 'BrowserWants', 'CheckedApp', 'EngineHost', 'HostEnvironment', 'HostServices', 'MutationSurface', 'RecordedFile', 'RecordingRequest',
  ],
  'e2e/web': ['WebEngineOptions', 'WebSurface', 'surfaceOf', 'web'],
  'e2e/terminal': ['TerminalApp', 'TerminalEngine', 'TerminalEngineOptions', 'terminal'],
};

/** The documented values of `e2e/agent` (README "Writing an executor"): nine. */
const AGENT_VALUES = ['BASE_RULES', 'VERDICT_RULES', 'createAgent', 'createGrammarTools', 'createToolLoopExecutor', 'createVerdictTool', 'decisionExecutor', 'defineTool', 'isRuntimeHardStop'];

const ENTRIES: Record<string, string> = {
  e2e: 'dist/api/index.d.ts',
  'e2e/agent': 'dist/executor/index.d.ts',
  'e2e/engine': 'dist/contract/engine.d.ts',
  'e2e/web': 'dist/engines/web/index.d.ts',
  'e2e/terminal': 'dist/engines/terminal/index.d.ts',
};

let exported: Record<string, { names: string[]; values: string[] }>;

beforeAll(() => {
  ensureBuilt();
  const files = Object.values(ENTRIES).map((entry) => join(ROOT, entry));
  const program = ts.createProgram(files, { strict: true, noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext });
  const checker = program.getTypeChecker();
  exported = {};
  for (const [subpath, entry] of Object.entries(ENTRIES)) {
    const source = program.getSourceFile(join(ROOT, entry));
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    const symbols = module === undefined ? [] : checker.getExportsOfModule(module);
    const resolved = symbols.map((symbol) => ({ name: symbol.getName(), target: symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol }));
    exported[subpath] = {
      names: resolved.map(({ name }) => name).sort(),
      values: resolved.filter(({ target }) => (target.flags & ts.SymbolFlags.Value) !== 0).map(({ name }) => name).sort(),
    };
  }
}, scaledTimeout(120_000));

describe('the public subpaths', () => {
  it.each(Object.keys(EXPECTED))('%s exports exactly the documented names', (subpath) => {
    expect(exported[subpath]?.names).toEqual([...EXPECTED[subpath]!].sort());
  });

  it('e2e/agent exports the nine documented values and types only beside them', () => {
    expect(exported['e2e/agent']?.values).toEqual([...AGENT_VALUES].sort());
  });

  it('e2e/web exports no runner helpers (browser discovery, launch options, node lookup)', () => {
    expect(exported['e2e/web']?.values).toEqual(['surfaceOf', 'web']);
  });

  it('e2e/terminal exports terminal() and its types only', () => {
    expect(exported['e2e/terminal']?.values).toEqual(['terminal']);
  });
});

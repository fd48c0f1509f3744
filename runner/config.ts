/**
 * `defineConfig` (DESIGN §2): validates the e2e options with zod and returns a Playwright
 * Test config in which every target is a project carrying {@link ProjectSettings} as a
 * fixture option. Any other Playwright Test option passes through unchanged.
 */
import { fileURLToPath } from 'node:url';
import type { PlaywrightTestConfig, ReporterDescription } from '@playwright/test';
import { z } from 'zod';
import { E2EError, didYouMean, isE2EError } from '../errors/index.js';
import type { Engine } from '../contract/engine.js';
import { normalizeOrigin, originOf } from '../step/origin-policy.js';
import type { SecretDefinition } from '../secrets/vault.js';
import type { OpaqueLanguageModel, StepExecutor } from '../contract/step-contract.js';
import { isProjectTool } from '../executor/index.js';
import { launchOptionsFor, playwrightCanRecordVideo } from '../engines/web/index.js';
import { auditProjects, readAuditPlan } from './audit-plan.js';
import { readRunEnvironment, redactProcessOutput, reportConfigFailure, secretFromEnvironment, secretValuesFromEnvironment, type CacheMode } from './environment.js';
import { DEFAULT_CACHE_DIR, DEFAULT_HTML_REPORT_DIR, DEFAULT_OUTPUT_DIR } from './project-paths.js';
import { BROWSER_OPTION, PROJECT_OPTION, SecretTable, type AgentSettings, type BrowserSettings, type CacheSettings, type ProjectSettings } from './settings.js';

/** One agent entry of `agents`. */
export interface AgentConfig {
  /** An AI SDK `LanguageModel` for the built-in agent (or `ctx.model` of a custom executor). Default: none. */
  model?: OpaqueLanguageModel | undefined;
  /** The model for judgments (`assert`, `waitFor`, `extract`). Default: `model`. */
  judge?: OpaqueLanguageModel | undefined;
  /** What the agent should know about the app, added to every step. Default: empty. */
  context?: string;
  /** Actions per `act` step. Default 25. */
  maxSteps?: number;
  /** Model calls per `act` step. Default 25. */
  maxModelCalls?: number;
  /** Milliseconds per `act` step. Default: the test timeout. */
  timeout?: number;
  /** Provider options passed to every model call. Default: none. */
  providerOptions?: Record<string, Record<string, unknown>>;
  /** Extra system prompt of the built-in agent. Not with `executor`. Default: none. */
  system?: string;
  /** Project tools of the built-in agent (`defineTool`). Not with `executor`. Default: none. */
  tools?: Record<string, unknown>;
  /** A custom step executor replacing the built-in agent. Default: the built-in agent. */
  executor?: StepExecutor;
}

/** One target of `targets`. */
export interface TargetConfig {
  /** Project name (`--project`). Default: the engine's name (`web`). */
  name?: string;
  /** The engine, e.g. `web()`. */
  engine: Engine;
  app: {
    /** Base URL that `app.open(path)` resolves against. */
    url: string;
    /** Cache identity of the app. Default: the origin of `url`. */
    identity?: string;
  };
}

/** Cache options. */
export interface CacheConfig {
  /** Default `read-write` locally, `read-only` when `CI` is set; `e2e run --no-cache` forces `off`. */
  mode?: CacheMode;
  /** Cache folder, relative to the config file. Default `.e2e/cache`. */
  dir?: string;
  /** A step whose entry no longer replays fails `REPLAY_STALE` without a model call. Default false. */
  strict?: boolean;
}

/** A secret: its value (e.g. `process.env.ADMIN_PASSWORD`), or the value with the origins it may be typed on. */
export type SecretConfig =
  | string
  | undefined
  | {
      value?: string | undefined;
      origins?: string[] | undefined;
      /** What the secret is for ("the admin's password"): the model sees it beside the name, never the value. */
      purpose?: string | undefined;
    };

/** The Playwright Test options that pass through as they are (`projects` is not among them: targets make projects). */
export type PassthroughConfig = Omit<PlaywrightTestConfig, 'projects'>;

/** The e2e config (`e2e.config.ts`). */
export interface E2EConfig extends PassthroughConfig {
  /** Test files' folder, relative to the config. Default: the config's folder. */
  testDir?: string;
  /** Test files. Default `**\/*.e2e.ts`. */
  testMatch?: NonNullable<PlaywrightTestConfig['testMatch']>;
  /** The apps to test; each becomes a Playwright project named after the target. */
  targets: TargetConfig[];
  /** Named agent entries. Default: one `default` entry with no model. */
  agents?: Record<string, AgentConfig>;
  cache?: CacheConfig;
  /** Secrets by name. Missing values are read from `E2E_SECRET_<NAME>`. Default: none. */
  secrets?: Record<string, SecretConfig>;
  /** Origins the agent may navigate to. Default: the origins of the targets' app URLs (always included). */
  origins?: string[];
}

/** Default timeout of a test, which is also the default `act` step timeout. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Default test file pattern. */
export const DEFAULT_TEST_MATCH = '**/*.e2e.ts';
export { DEFAULT_CACHE_DIR, DEFAULT_OUTPUT_DIR, DEFAULT_HTML_REPORT_DIR };

const PASSTHROUGH_KEYS = [
  'reporter', 'use', 'webServer', 'build', 'captureGitInfo', 'expect', 'failOnFlakyTests', 'forbidOnly', 'fullyParallel',
  'globalSetup', 'globalTeardown', 'globalTimeout', 'grep', 'grepInvert', 'ignoreSnapshots', 'maxFailures', 'metadata', 'name',
  'outputDir', 'preserveOutput', 'quiet', 'repeatEach', 'reportSlowTests', 'respectGitIgnore', 'retries', 'retryStrategy', 'shard',
  'snapshotDir', 'snapshotPathTemplate', 'tag', 'testIgnore', 'timeout', 'tsconfig', 'updateSnapshots', 'updateSourceMethod', 'workers',
] as const;
const OWN_KEYS = ['testDir', 'testMatch', 'targets', 'agents', 'cache', 'secrets', 'origins'] as const;
const AGENT_KEYS = ['model', 'judge', 'context', 'maxSteps', 'maxModelCalls', 'timeout', 'providerOptions', 'system', 'tools', 'executor'];
const KEYS_AT: Record<string, readonly string[]> = {
  '': [...OWN_KEYS, ...PASSTHROUGH_KEYS],
  target: ['name', 'engine', 'app'],
  app: ['url', 'identity'],
  agent: AGENT_KEYS,
  cache: ['mode', 'dir', 'strict'],
  secret: ['value', 'origins', 'purpose'],
};

const modelSchema = z.custom<OpaqueLanguageModel>(
  (value) => typeof value === 'string' || (typeof value === 'object' && value !== null),
  'must be an AI SDK language model',
);
const engineSchema = z.custom<Engine>(
  (value) =>
    typeof value === 'object' && value !== null && typeof (value as Engine).start === 'function' && typeof (value as Engine).name === 'string',
  'must be an engine such as web()',
);
const executorSchema = z.custom<StepExecutor>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as StepExecutor).name === 'string' &&
    typeof (value as StepExecutor).runStep === 'function',
  'must be a StepExecutor ({ name, runStep(ctx) })',
);
const positiveInteger = z.number().int().positive();
const agentSchema = z.strictObject({
  model: modelSchema.optional(),
  judge: modelSchema.optional(),
  context: z.string().optional(),
  maxSteps: positiveInteger.optional(),
  maxModelCalls: positiveInteger.optional(),
  timeout: positiveInteger.optional(),
  providerOptions: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  system: z.string().optional(),
  tools: z.record(z.string(), z.custom(isProjectTool, 'must be declared with defineTool(tool, { mutates }) from e2e/agent')).optional(),
  executor: executorSchema.optional(),
});
const secretNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, 'secret names use letters, digits, `_`, `.`, `-`');
const configSchema = z.looseObject({
  testDir: z.string().optional(),
  targets: z
    .array(
      z.strictObject({
        name: z.string().min(1).optional(),
        engine: engineSchema,
        app: z.strictObject({ url: z.url({ protocol: /^https?$/ }), identity: z.string().min(1).optional() }),
      }),
    )
    .min(1, 'needs at least one target, e.g. [{ engine: web(), app: { url: "http://127.0.0.1:4173" } }]'),
  agents: z.record(z.string().min(1), agentSchema).optional(),
  cache: z
    .strictObject({ mode: z.enum(['read-write', 'read-only', 'off']).optional(), dir: z.string().min(1).optional(), strict: z.boolean().optional() })
    .optional(),
  secrets: z
    .record(
      secretNameSchema,
      z.union([
        z.string(),
        z.undefined(),
        z.strictObject({ value: z.string().optional(), origins: z.array(z.string()).optional(), purpose: z.string().max(200).optional() }),
      ]),
    )
    .optional(),
  origins: z.array(z.string()).optional(),
});

function keysFor(path: readonly PropertyKey[]): readonly string[] {
  const [first, , third] = path;
  if (path.length === 0) return KEYS_AT['']!;
  if (first === 'targets') return path.length === 2 ? KEYS_AT['target']! : third === 'app' ? KEYS_AT['app']! : [];
  if (first === 'agents' && path.length === 2) return KEYS_AT['agent']!;
  if (first === 'cache') return KEYS_AT['cache']!;
  if (first === 'secrets') return KEYS_AT['secret']!;
  return [];
}

function pathText(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'the config' : `\`${path.map(String).join('.')}\``;
}

function configError(message: string): E2EError {
  return new E2EError('INVALID_CONFIG', `Invalid e2e config: ${message}`);
}

function checkTopLevelKeys(options: Record<string, unknown>): void {
  for (const key of Object.keys(options)) {
    if (key === 'projects') {
      throw configError('`projects` is not an e2e option; each entry of `targets` becomes a Playwright project.');
    }
    if (!KEYS_AT['']!.includes(key)) throw configError(`unknown key \`${key}\`${didYouMean(key, KEYS_AT['']!)}.`);
  }
}

function describeIssues(error: z.ZodError): string {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return `unknown key \`${key}\` in ${pathText(issue.path)}${didYouMean(key, keysFor(issue.path))}.`;
  }
  return `${pathText(issue.path)} ${issue.message}.`;
}

function sameModel(left: OpaqueLanguageModel, right: OpaqueLanguageModel): boolean {
  if (left === right) return true;
  if (typeof left === 'string' || typeof right === 'string') return false;
  const a = left as { provider?: unknown; modelId?: unknown };
  const b = right as { provider?: unknown; modelId?: unknown };
  return a.provider !== undefined && a.provider === b.provider && a.modelId === b.modelId;
}

function resolveAgent(name: string, entry: z.infer<typeof agentSchema>): AgentSettings {
  if (entry.executor !== undefined && (entry.system !== undefined || entry.tools !== undefined)) {
    const key = entry.system !== undefined ? 'system' : 'tools';
    throw configError(`\`agents.${name}\` sets both \`executor\` and \`${key}\`; pass \`${key}\` to the executor (e.g. createToolLoopExecutor) instead.`);
  }
  for (const role of ['model', 'judge'] as const) {
    const own = entry.executor?.[role];
    const configured = entry[role];
    if (own !== undefined && configured !== undefined && !sameModel(own, configured)) {
      throw configError(`\`agents.${name}.${role}\` and the executor's \`${role}\` name different models; set it in one place.`);
    }
  }
  const settings: AgentSettings = { context: entry.context ?? '' };
  const model = entry.model ?? entry.executor?.model;
  const judge = entry.judge ?? entry.executor?.judge;
  if (model !== undefined) settings.model = model;
  if (judge !== undefined) settings.judge = judge;
  if (entry.maxSteps !== undefined) settings.maxSteps = entry.maxSteps;
  if (entry.maxModelCalls !== undefined) settings.maxModelCalls = entry.maxModelCalls;
  if (entry.timeout !== undefined) settings.timeout = entry.timeout;
  if (entry.providerOptions !== undefined) settings.providerOptions = entry.providerOptions;
  if (entry.system !== undefined) settings.system = entry.system;
  if (entry.tools !== undefined) settings.tools = entry.tools;
  if (entry.executor !== undefined) settings.executor = entry.executor;
  return settings;
}

function resolveSecrets(secrets: Record<string, SecretConfig> | undefined): Record<string, SecretDefinition> {
  const definitions: Record<string, SecretDefinition> = {};
  for (const [name, config] of Object.entries(secrets ?? {})) {
    const own = typeof config === 'object' ? config.value : config;
    const value = own === undefined || own === '' ? secretFromEnvironment(name) : own;
    const origins = typeof config === 'object' ? config.origins?.map(normalizeOrigin) : undefined;
    const purpose = typeof config === 'object' ? config.purpose : undefined;
    definitions[name] = { value, ...(origins === undefined ? {} : { origins }), ...(purpose === undefined ? {} : { purpose }) };
  }
  return definitions;
}

const OUR_REPORTER = fileURLToPath(new URL('./reporter.js', import.meta.url));
/** Cleans every result object before any other reporter sees it; always first. */
export const REDACTING_REPORTER = fileURLToPath(new URL('./redacting-reporter.js', import.meta.url));

function reportersFor(reporter: PlaywrightTestConfig['reporter']): ReporterDescription[] {
  const ours: ReporterDescription = [OUR_REPORTER];
  const guard: ReporterDescription = [REDACTING_REPORTER];
  if (reporter === undefined) return [guard, ['list'], ['html', { open: 'never', outputFolder: DEFAULT_HTML_REPORT_DIR }], ours];
  const given: ReporterDescription[] = (typeof reporter === 'string' ? [[reporter]] : [...reporter]).filter(([name]) => name !== REDACTING_REPORTER) as ReporterDescription[];
  return [guard, ...(given.some(([name]) => name === OUR_REPORTER) ? given : [...given, ours])];
}

/** True when `use.video` asks for any recording. */
function videoRequested(video: unknown): boolean {
  if (video === undefined || video === 'off') return false;
  if (typeof video === 'object' && video !== null) return (video as { mode?: unknown }).mode !== 'off';
  return true;
}

/** Launch options from discovery; a discovery failure is kept for the worker's browser fixture instead of failing the config load. */
function browserFor(engine: Engine, env: Readonly<Record<string, string | undefined>>): { launch: object; settings: BrowserSettings } {
  try {
    return { launch: launchOptionsFor(engine, { env }), settings: {} };
  } catch (error) {
    if (isE2EError(error) && error.code === 'ENVIRONMENT_UNAVAILABLE') return { launch: {}, settings: { problem: { code: error.code, message: error.message } } };
    throw error;
  }
}

function build(options: E2EConfig): PlaywrightTestConfig {
  if (typeof options !== 'object' || options === null) throw configError('defineConfig takes an object.');
  checkTopLevelKeys(options as unknown as Record<string, unknown>);
  const parsed = configSchema.safeParse(options);
  if (!parsed.success) throw configError(describeIssues(parsed.error));
  const config = parsed.data;
  const environment = readRunEnvironment();

  const agentEntries = Object.entries(config.agents ?? { default: {} });
  const agents = Object.fromEntries(agentEntries.map(([name, entry]) => [name, resolveAgent(name, entry)]));
  const defaultAgent = 'default' in agents ? 'default' : agentEntries[0]![0];
  const cache: CacheSettings = {
    mode: environment.cacheMode ?? config.cache?.mode ?? (environment.ci ? 'read-only' : 'read-write'),
    dir: config.cache?.dir ?? DEFAULT_CACHE_DIR,
    strict: environment.cacheStrict || (config.cache?.strict ?? false),
  };
  if (environment.proposeDir !== undefined) cache.proposals = environment.proposeDir;
  const definitions = resolveSecrets(config.secrets);
  const secrets = new SecretTable(definitions);
  // Playwright's own output (worker capture, terminal reporters) passes through the redactor too.
  redactProcessOutput([
    ...Object.entries(definitions).map(([name, definition]) => [name, definition.value] as const),
    ...Object.entries(secretValuesFromEnvironment()).map(([name, value]) => [`env:${name}`, value] as const),
  ]);
  const appOrigins = config.targets.map((target) => originOf(target.app.url)!);
  const origins = [...new Set([...appOrigins, ...(config.origins ?? []).map(normalizeOrigin)])];

  const names = new Set<string>();
  const notices: string[] = [];
  let userUse = options.use ?? {};
  if (videoRequested(userUse.video) && !playwrightCanRecordVideo({ env: environment.browser })) {
    // Playwright would fail every page of the run; the run goes on without video and says so.
    userUse = { ...userUse, video: 'off' };
    notices.push("Video is off: Playwright records video with its own ffmpeg, which is not installed (`npx playwright install ffmpeg`).");
  }
  const projects = config.targets.map((target) => {
    const name = target.name ?? target.engine.name;
    if (names.has(name)) throw configError(`two targets are named \`${name}\`; give each target its own \`name\`.`);
    names.add(name);
    const settings: ProjectSettings = {
      target: { name, engine: target.engine, app: { url: target.app.url, identity: target.app.identity ?? originOf(target.app.url)! } },
      agents,
      defaultAgent,
      cache,
      secrets,
      origins,
      debug: environment.debug,
      modelFree: environment.modelFree,
    };
    if (notices.length > 0) settings.notices = notices;
    const browser = browserFor(target.engine, environment.browser);
    return {
      name,
      use: { ...userUse, launchOptions: { ...browser.launch, ...userUse.launchOptions }, [PROJECT_OPTION]: settings, [BROWSER_OPTION]: browser.settings },
    };
  });

  const passthrough: Record<string, unknown> = {};
  for (const key of PASSTHROUGH_KEYS) if (key in options) passthrough[key] = (options as unknown as Record<string, unknown>)[key];
  return {
    ...passthrough,
    testMatch: options.testMatch ?? DEFAULT_TEST_MATCH,
    ...(options.testDir === undefined ? {} : { testDir: options.testDir }),
    timeout: options.timeout ?? DEFAULT_TIMEOUT_MS,
    outputDir: options.outputDir ?? DEFAULT_OUTPUT_DIR,
    reporter: reportersFor(options.reporter),
    // `e2e cache audit`: the run replays the plan's mutants, one project each.
    projects: environment.auditPlan === undefined ? projects : auditProjects(projects, readAuditPlan(environment.auditPlan)),
  };
}

/**
 * Validate the e2e config and turn it into a Playwright Test config. Throws `INVALID_CONFIG`
 * naming the key and the nearest valid one; the failure also reaches `e2e run` so it exits 2.
 */
export function defineConfig(options: E2EConfig): PlaywrightTestConfig {
  try {
    return build(options);
  } catch (error) {
    if (isE2EError(error)) reportConfigFailure({ code: error.code, message: error.message });
    throw error;
  }
}

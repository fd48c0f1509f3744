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
import { DEFAULT_SCREEN_BUDGET } from '../step/screen-budget.js';
import { refuseUnsafeSecrets } from '../secrets/redactable-secret.js';
import type { SecretDefinition } from '../secrets/vault.js';
import type { OpaqueLanguageModel, StepExecutor } from '../contract/step-contract.js';
import { isProjectTool, type ProjectTool } from '../executor/define-tool.js';
import { processVariables, reportConfigFailure, runEnvironmentOf, runRequest, secretFromEnvironment, secretValuesFromEnvironment, type CacheMode, type EnvironmentVariables } from './environment.js';
import { requestFromVariables, type RunRequest } from './run-request.js';
import { auditProjects } from './audit-mutants.js';
import { missingInternalError, testCopiesInstalled } from './playwright-internals.js';
import { DEFAULT_CACHE_DIR, DEFAULT_HTML_REPORT_DIR, DEFAULT_OUTPUT_DIR } from './project-paths.js';
import { PROJECT_OPTION, SecretTable, WORKER_OPTION, type AgentSettings, type CacheSettings, type ProjectSettings, type TargetSettings, type WorkerSettings } from './settings.js';

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

/** The app of a target whose engine has the `url` location (`web()`). */
export interface UrlAppConfig {
  /** Base URL that `app.open(path)` resolves against (http or https). */
  url: string;
  /** Cache identity of the app. Default: the origin of `url`. */
  identity?: string;
}

/** One target of `targets`. */
export interface TargetConfig {
  /** Project name (`--project`). Default: the engine's name (`web`). */
  name?: string;
  /** The engine, e.g. `web()`. */
  engine: Engine;
  /**
   * The app the engine drives: `{ url, identity? }` for an engine with the `url` location
   * (`web()`); what its engine documents otherwise (`terminal()`: `{ command, args?, … }`).
   */
  app: UrlAppConfig | Readonly<Record<string, unknown>>;
}

/** Cache options. */
export interface CacheConfig {
  /** Default `read-write` locally, `read-only` when `CI` is set; `e2e run --no-cache` forces `off`. */
  mode?: CacheMode;
  /** Cache folder, relative to the config file. Default `.e2e/cache`. */
  dir?: string;
  /** A step whose entry no longer replays fails `REPLAY_STALE` without a model call. Default false. */
  strict?: boolean;
  /**
   * `record`: `e2e record` records with causal end checks, as `e2e record --audit` does (the
   * audit's mutants run while the app is at hand; an outcome a mutant removes is required at
   * replay), then re-audits and prints the score. Default `off`.
   */
  audit?: 'off' | 'record';
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
  /** How much of a screen the agent reads; past it, the screen says what it left out and `find` reaches the rest. */
  screen?: ScreenConfig;
}

/**
 * The screen budget (step/README.md, "Bounded screens"): a screen text shows at most `maxNodes`
 * node lines and `maxChars` characters. Default 1,500 nodes and 40,000 characters (about 10,000
 * tokens); a larger budget costs tokens on every request, a smaller one more `find` calls.
 */
export interface ScreenConfig {
  /** Most node lines a screen text shows (at least 50). Default 1,500. */
  maxNodes?: number;
  /** Most characters a screen text has (at least 2,000). Default 40,000. */
  maxChars?: number;
}

/** Default timeout of a test, which is also the default `act` step timeout. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Default test file pattern. */
export const DEFAULT_TEST_MATCH = '**/*.e2e.ts';
export { DEFAULT_CACHE_DIR, DEFAULT_OUTPUT_DIR, DEFAULT_HTML_REPORT_DIR };

/**
 * The Playwright Test options that pass through unchanged, one per key of
 * {@link PassthroughConfig} (the compiler keeps this table complete).
 */
/** A Playwright option e2e hands on as it is. */
const option = (): z.ZodOptional<z.ZodUnknown> => z.unknown().optional();
const PASSTHROUGH = {
  reporter: option(), use: option(), webServer: option(), build: option(), captureGitInfo: option(), expect: option(),
  failOnFlakyTests: option(), forbidOnly: option(), fullyParallel: option(), globalSetup: option(), globalTeardown: option(),
  globalTimeout: option(), grep: option(), grepInvert: option(), ignoreSnapshots: option(), maxFailures: option(),
  metadata: option(), name: option(), outputDir: option(), preserveOutput: option(), quiet: option(), repeatEach: option(),
  reportSlowTests: option(), respectGitIgnore: option(), retries: option(), retryStrategy: option(), shard: option(),
  snapshotDir: option(), snapshotPathTemplate: option(), tag: option(), testIgnore: option(), timeout: option(),
  tsconfig: option(), updateSnapshots: option(), updateSourceMethod: option(), workers: option(),
} satisfies Record<Exclude<keyof PassthroughConfig, 'testDir' | 'testMatch'>, z.ZodOptional<z.ZodUnknown>>;
const PASSTHROUGH_KEYS = Object.keys(PASSTHROUGH) as Array<keyof typeof PASSTHROUGH>;

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
/** The smallest screen budget: below it a screen would hold little beyond its outline. */
const MIN_SCREEN_NODES = 50;
const MIN_SCREEN_CHARS = 2_000;
const agentSchema = z.strictObject({
  model: modelSchema.optional(),
  judge: modelSchema.optional(),
  context: z.string().optional(),
  maxSteps: positiveInteger.optional(),
  maxModelCalls: positiveInteger.optional(),
  timeout: positiveInteger.optional(),
  providerOptions: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  system: z.string().optional(),
  tools: z.record(z.string(), z.custom<ProjectTool>(isProjectTool, 'must be declared with defineTool(tool, { mutates }) from e2e/agent')).optional(),
  executor: executorSchema.optional(),
});
const secretNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, 'secret names use letters, digits, `_`, `.`, `-`');
const configSchema = z.strictObject({
  testDir: z.string().optional(),
  testMatch: option(),
  targets: z
    .array(
      z.strictObject({
        name: z.string().min(1).optional(),
        engine: engineSchema,
        // Checked per engine (appOf): `{ url, identity? }` for the `url` location, else the engine's delegate.
        app: z.record(z.string(), z.unknown()),
      }),
    )
    .min(1, 'needs at least one target, e.g. [{ engine: web(), app: { url: "http://127.0.0.1:4173" } }]'),
  agents: z.record(z.string().min(1), agentSchema).optional(),
  cache: z
    .strictObject({
      mode: z.enum(['read-write', 'read-only', 'off']).optional(),
      dir: z.string().min(1).optional(),
      strict: z.boolean().optional(),
      audit: z.enum(['off', 'record']).optional(),
    })
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
  screen: z
    .strictObject({
      maxNodes: z.number().int().min(MIN_SCREEN_NODES).optional(),
      maxChars: z.number().int().min(MIN_SCREEN_CHARS).optional(),
    })
    .optional(),
  ...PASSTHROUGH,
});

/** The app of a target whose engine has the `url` location. */
const urlAppSchema = z.strictObject({ url: z.url({ protocol: /^https?$/ }), identity: z.string().min(1).optional() });

/**
 * A target's `app` as its engine takes it: `{ url, identity? }` (http or https) for an engine
 * with the `url` location, else what the engine's host delegate makes of it (`EngineHost.app`),
 * else the object as it is, with `identity` (when a string) or the engine's name as identity.
 */
function appOf(target: { engine: Engine; app: Record<string, unknown> }, index: number): TargetSettings['app'] {
  const where = `\`targets.${index}.app\``;
  if (target.engine.location === 'url') {
    const parsed = urlAppSchema.safeParse(target.app);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      if (issue.code === 'unrecognized_keys') {
        const key = issue.keys[0] ?? '';
        throw configError(`unknown key \`${key}\` in ${where}${didYouMean(key, ['url', 'identity'])}.`);
      }
      throw configError(`${pathText(['targets', index, 'app', ...issue.path])} ${issue.message}.`);
    }
    return { url: parsed.data.url, identity: parsed.data.identity ?? originOf(parsed.data.url)!, config: parsed.data };
  }
  const check = target.engine.host?.app;
  if (check !== undefined) {
    const checked = check.call(target.engine.host, target.app);
    if (!checked.ok) throw configError(`${where} ${checked.problem}`);
    return { identity: checked.app.identity, config: checked.app.config };
  }
  const identity = target.app['identity'];
  return { identity: typeof identity === 'string' && identity !== '' ? identity : target.engine.name, config: target.app };
}

/** The schema one step into `schema` along `segment`, looking through optional, array, record and union. */
function childOf(schema: z.ZodType, segment: PropertyKey): z.ZodType | undefined {
  const inner = unwrapped(schema);
  if (inner instanceof z.ZodObject) return (inner.shape as Record<string, z.ZodType>)[String(segment)];
  if (inner instanceof z.ZodArray) return inner.element as z.ZodType;
  if (inner instanceof z.ZodRecord) return inner.valueType as z.ZodType;
  return undefined;
}

/** `schema` without optional wrappers; of a union, its object branch (the one with keys). */
function unwrapped(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional) return unwrapped(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).map(unwrapped).find((option) => option instanceof z.ZodObject) ?? schema;
  return schema;
}

/** The keys the schema allows at `path` (for did-you-mean); empty where it takes no object. */
export function keysAt(path: readonly PropertyKey[], schema: z.ZodType = configSchema): string[] {
  let current: z.ZodType | undefined = schema;
  for (const segment of path) current = current === undefined ? undefined : childOf(current, segment);
  const inner = current === undefined ? undefined : unwrapped(current);
  return inner instanceof z.ZodObject ? Object.keys(inner.shape) : [];
}

function pathText(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'the config' : `\`${path.map(String).join('.')}\``;
}

function configError(message: string): E2EError {
  return new E2EError('INVALID_CONFIG', `Invalid e2e config: ${message}`);
}

function checkProjects(options: Record<string, unknown>): void {
  if ('projects' in options) throw configError('`projects` is not an e2e option; each entry of `targets` becomes a Playwright project.');
}

function describeIssues(error: z.ZodError): string {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const where = issue.path.length === 0 ? '' : ` in ${pathText(issue.path)}`;
    return `unknown key \`${key}\`${where}${didYouMean(key, keysAt(issue.path))}.`;
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

/** An agent entry in its one resolved shape ({@link AgentSettings}). */
function resolveAgent(name: string, entry: AgentConfig): AgentSettings {
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
  const settings: AgentSettings = {
    context: entry.context ?? '',
    limits: { maxSteps: entry.maxSteps, maxModelCalls: entry.maxModelCalls, timeoutMs: entry.timeout },
    builtIn: {},
  };
  const model = entry.model ?? entry.executor?.model;
  const judge = entry.judge ?? entry.executor?.judge;
  if (model !== undefined) settings.model = model;
  if (judge !== undefined) settings.judge = judge;
  if (entry.providerOptions !== undefined) settings.providerOptions = entry.providerOptions;
  if (entry.executor !== undefined) settings.executor = entry.executor;
  if (entry.system !== undefined) settings.builtIn.system = entry.system;
  if (entry.tools !== undefined) settings.builtIn.tools = entry.tools;
  return settings;
}

function resolveSecrets(secrets: Record<string, SecretConfig> | undefined, variables: EnvironmentVariables): Record<string, SecretDefinition> {
  const definitions: Record<string, SecretDefinition> = {};
  for (const [name, config] of Object.entries(secrets ?? {})) {
    const own = typeof config === 'object' ? config.value : config;
    const value = own === undefined || own === '' ? secretFromEnvironment(name, variables) : own;
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

/**
 * Validate the e2e options and turn them into a Playwright Test config, reading nothing but
 * its arguments (no file, no `process.env`): `request` is what the CLI asked of the run
 * (`run-request.ts`; by default the one plain `npx playwright test` makes of `variables`), and
 * `variables` the environment `CI` and the `E2E_SECRET_*` values come from. No side effects; the
 * run's live ones (output redaction, browser discovery, the video check) belong to the runner
 * entry (`run-entry.ts`). Throws `INVALID_CONFIG` naming the key and the nearest valid one.
 */
export function resolveConfig(options: E2EConfig, variables: EnvironmentVariables, request: RunRequest = requestFromVariables(variables)): PlaywrightTestConfig {
  if (typeof options !== 'object' || options === null) throw configError('defineConfig takes an object.');
  checkProjects(options as unknown as Record<string, unknown>);
  const parsed = configSchema.safeParse(options);
  if (!parsed.success) throw configError(describeIssues(parsed.error));
  const config = parsed.data;
  const environment = runEnvironmentOf(variables);

  const agentEntries = Object.entries(options.agents ?? { default: {} });
  const agents = Object.fromEntries(agentEntries.map(([name, entry]) => [name, resolveAgent(name, entry)]));
  const defaultAgent = 'default' in agents ? 'default' : agentEntries[0]![0];
  const cache: CacheSettings = {
    mode: request.cache.mode ?? config.cache?.mode ?? (environment.ci ? 'read-only' : 'read-write'),
    dir: config.cache?.dir ?? DEFAULT_CACHE_DIR,
    strict: request.cache.strict || (config.cache?.strict ?? false),
    audit: config.cache?.audit ?? 'off',
  };
  if (request.cache.proposals !== undefined) cache.proposals = request.cache.proposals;
  const definitions = resolveSecrets(config.secrets, variables);
  refuseUnsafeSecrets([
    ...Object.entries(definitions).map(([name, definition]) => [name, definition.value] as const),
    ...Object.entries(secretValuesFromEnvironment(variables)).map(([name, value]) => [`E2E_SECRET_${name}`, value] as const),
  ]);
  const secrets = new SecretTable(definitions);
  const apps = config.targets.map((target, index) => appOf(target, index));
  const appOrigins = apps.flatMap((app) => (app.url === undefined ? [] : [originOf(app.url)!]));
  const origins = [...new Set([...appOrigins, ...(config.origins ?? []).map(normalizeOrigin)])];

  // The run's main process found no ffmpeg (run-entry.ts): Playwright would fail every page, so workers go on without video.
  const userUse = environment.videoUnavailable ? { ...options.use, video: 'off' as const } : (options.use ?? {});
  const names = new Set<string>();
  const projects = config.targets.map((target, index) => {
    const name = target.name ?? target.engine.name;
    if (names.has(name)) throw configError(`two targets are named \`${name}\`; give each target its own \`name\`.`);
    names.add(name);
    const settings: ProjectSettings = {
      target: { name, engine: target.engine, app: apps[index]! },
      agents,
      defaultAgent,
      cache,
      secrets,
      origins,
      screen: { maxNodes: config.screen?.maxNodes ?? DEFAULT_SCREEN_BUDGET.maxNodes, maxChars: config.screen?.maxChars ?? DEFAULT_SCREEN_BUDGET.maxChars },
      debug: request.debug,
      modelFree: request.modelFree,
    };
    const worker: WorkerSettings = { engine: target.engine, secrets };
    return { name, use: { ...userUse, [PROJECT_OPTION]: settings, [WORKER_OPTION]: worker } };
  });

  const passthrough: Record<string, unknown> = {};
  for (const key of PASSTHROUGH_KEYS) if (key in options) passthrough[key] = options[key];
  return {
    ...passthrough,
    testMatch: options.testMatch ?? DEFAULT_TEST_MATCH,
    ...(options.testDir === undefined ? {} : { testDir: options.testDir }),
    timeout: options.timeout ?? DEFAULT_TIMEOUT_MS,
    outputDir: options.outputDir ?? DEFAULT_OUTPUT_DIR,
    reporter: reportersFor(options.reporter),
    // `e2e cache audit`: the run replays the request's mutants, each target's in one project (a copy of a test per mutant).
    projects: request.mutants === undefined ? projects : auditProjects(projects, request.mutants),
  };
}

/**
 * The config of `e2e.config.ts` (DESIGN §2): {@link resolveConfig} on this process's
 * environment. Throws `INVALID_CONFIG` naming the key and the nearest valid one; the failure
 * also reaches `e2e run` so it exits 2.
 */
export function defineConfig(options: E2EConfig): PlaywrightTestConfig {
  try {
    const request = runRequest();
    // The audit's copies of each test (fixtures.ts) need Playwright's test registration; checked where the run starts.
    if (request.mutants !== undefined && testCopiesInstalled() === false) throw missingInternalError(['TestTypeImpl._createTest']);
    return resolveConfig(options, processVariables(), request);
  } catch (error) {
    if (isE2EError(error)) reportConfigFailure({ code: error.code, message: error.message });
    throw error;
  }
}

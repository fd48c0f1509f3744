/**
 * The settings one Playwright project carries to its workers as the fixture option
 * {@link PROJECT_OPTION}. Workers re-evaluate the config module, so live objects (engines,
 * models, executors) arrive intact; secret values sit in a {@link SecretTable} that
 * serializes to names only, in case anything prints the project's `use`.
 */
import type { Engine } from '../contract/engine.js';
import { secretPlaceholder, type SecretDefinition } from '../secrets/vault.js';
import type { AgentEntry } from '../step/step-runner.js';
import type { ScreenBudget } from '../step/screen-budget.js';
import type { CacheMode } from './environment.js';

/** Name of the fixture option holding {@link ProjectSettings}. */
export const PROJECT_OPTION = 'e2eProject';

/** Name of the worker fixture option holding {@link WorkerSettings}. */
export const WORKER_OPTION = 'e2eWorker';

/**
 * What a worker needs before its first test: the engine (browser discovery runs when the
 * worker's browser starts, so commands that load the config without one, `e2e cache ls`,
 * never look for a browser) and the secrets its output is redacted with.
 */
export interface WorkerSettings {
  engine: Engine;
  secrets: SecretTable;
}

/** One target: an engine and the app it drives. */
export interface TargetSettings {
  name: string;
  engine: Engine;
  app: {
    /** Engines with the `url` location: the base URL `app.open(path)` resolves against. */
    url?: string;
    /** The app's cache identity (key part). */
    identity: string;
    /** The target's `app` as the engine's delegate checked it, handed to `engine.start`. */
    config: unknown;
  };
}

/**
 * One resolved agent entry, the only shape an entry has after `resolveConfig`: what the step
 * runner takes (models, executor, context, limits) and the built-in agent's own options.
 */
export interface AgentSettings extends AgentEntry {
  /** The built-in agent's `system` and `tools` (empty with a custom executor). */
  builtIn: BuiltInSettings;
}

/**
 * The built-in agent's own options of an entry: its `system` and project tools (checked as
 * `defineTool` tools when the config loads). Typed without the AI SDK, so the `e2e` types
 * compile in a project that has no model and checks its libraries (`skipLibCheck: false`).
 */
export interface BuiltInSettings {
  system?: string;
  tools?: Readonly<Record<string, unknown>>;
}

/** The resolved cache settings. */
export interface CacheSettings {
  mode: CacheMode;
  /** Cache folder, relative to the config file's folder. */
  dir: string;
  strict: boolean;
  /** `record`: `e2e record` records with causal end checks (`cache.audit`). */
  audit: 'off' | 'record';
  /** `--propose <dir>` (absolute): a read-only run writes new and healed recordings here. */
  proposals?: string;
}

/** Secret definitions whose JSON and inspect forms show names only. */
export class SecretTable {
  readonly #definitions: Record<string, SecretDefinition>;

  constructor(definitions: Record<string, SecretDefinition>) {
    this.#definitions = definitions;
  }

  /** The definitions, for the attempt's vault. */
  entries(): [string, SecretDefinition][] {
    return Object.entries(this.#definitions);
  }

  /** Names only. */
  toJSON(): Record<string, string> {
    return Object.fromEntries(Object.keys(this.#definitions).map((name) => [name, secretPlaceholder(name)]));
  }

  /** Names only, for `util.inspect`. */
  [Symbol.for('nodejs.util.inspect.custom')](): Record<string, string> {
    return this.toJSON();
  }
}

/** Everything a worker needs for one project. */
export interface ProjectSettings {
  target: TargetSettings;
  agents: Record<string, AgentSettings>;
  /** Name of the agent used when a call names none. */
  defaultAgent: string;
  cache: CacheSettings;
  secrets: SecretTable;
  /** Allowed origins (the app's origin is always among them). */
  origins: string[];
  /** The screen budget (`screen` of the config, defaults filled in). */
  screen: ScreenBudget;
  /** Attach transcripts and print debug lines. */
  debug: boolean;
  /**
   * `e2e replay`: no model, judge or custom executor runs, so only the cache can finish a
   * step; one that cannot replay fails `REPLAY_STALE` (with `cache.strict`).
   */
  modelFree: boolean;
}

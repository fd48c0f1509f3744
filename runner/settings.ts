/**
 * The settings one Playwright project carries to its workers as the fixture option
 * {@link PROJECT_OPTION}. Workers re-evaluate the config module, so live objects (engines,
 * models, executors) arrive intact; secret values sit in a {@link SecretTable} that
 * serializes to names only, in case anything prints the project's `use`.
 */
import type { Engine } from '../contract/engine.js';
import { secretPlaceholder, type SecretDefinition } from '../executor/secrets.js';
import type { OpaqueLanguageModel, StepExecutor } from '../contract/step-contract.js';
import type { CacheMode } from './environment.js';

/** Name of the fixture option holding {@link ProjectSettings}. */
export const PROJECT_OPTION = 'e2eProject';

/** One target: an engine and the app it drives. */
export interface TargetSettings {
  name: string;
  engine: Engine;
  app: { url: string; identity: string };
}

/** One resolved agent entry. */
export interface AgentSettings {
  model?: OpaqueLanguageModel;
  judge?: OpaqueLanguageModel;
  context: string;
  maxSteps?: number;
  maxModelCalls?: number;
  timeout?: number;
  providerOptions?: Record<string, Record<string, unknown>>;
  system?: string;
  tools?: Record<string, unknown>;
  executor?: StepExecutor;
}

/** The resolved cache settings. */
export interface CacheSettings {
  mode: CacheMode;
  /** Cache folder, relative to the config file's folder. */
  dir: string;
  strict: boolean;
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
  /** Attach transcripts and print debug lines. */
  debug: boolean;
  /**
   * `e2e replay`: no model, judge or custom executor runs, so only the cache can finish a
   * step; one that cannot replay fails `REPLAY_STALE` (with `cache.strict`).
   */
  modelFree: boolean;
}

/**
 * The replay cache of one test attempt, as the Playwright Test host opens it (DESIGN §6): the
 * file store under the config's `cache.dir` (read-only unless the mode is `read-write`), the
 * hit ledger beside it, a proposal folder for `--propose`, and the key scope of the attempt —
 * project, test id (`formatTestId` of the file relative to the config's folder and the title
 * path, the same id `e2e cache prune` rebuilds), app identity, engine name and contract.
 */
import { relative, resolve } from 'node:path';
import { FileCacheStore } from '../cache-format/index.js';
import { formatTestId } from '../cache-format/test-id.js';
import type { AttemptCacheOptions } from '../step-cache/attempt-cache.js';
import type { Logger } from '../contract/logger.js';
import { DEFAULT_HITS_DIR } from './project-paths.js';
import { e2eVersion } from './e2e-version.js';
import type { ProjectSettings } from './settings.js';

/** The cache test id of a test file (absolute) with its title path (describe titles, then the test title). */
export function cacheTestId(configDir: string, file: string, titlePath: readonly string[]): string {
  return formatTestId(relative(configDir, file), titlePath);
}

/** What the attempt contributes to its cache. */
export interface AttemptCacheScope {
  settings: ProjectSettings;
  /** The config file's folder: `cache.dir` and the hit ledger resolve against it. */
  configDir: string;
  /** The test file (absolute) and its title path without the file (Playwright's `titlePath.slice(1)`). */
  file: string;
  titlePath: readonly string[];
  redact(text: string): string;
  logger: Logger;
}

/** The options of the attempt's cache, or undefined when the cache mode is `off`. */
export function attemptCacheOptions(scope: AttemptCacheScope): AttemptCacheOptions | undefined {
  const { settings, configDir } = scope;
  const { mode } = settings.cache;
  if (mode === 'off') return undefined;
  const store = new FileCacheStore(resolve(configDir, settings.cache.dir), {
    readOnly: mode !== 'read-write',
    hitsDirectory: resolve(configDir, DEFAULT_HITS_DIR),
  });
  const proposals = settings.cache.proposals;
  return {
    store,
    mode,
    strict: settings.cache.strict,
    projectId: settings.target.name,
    testId: cacheTestId(configDir, scope.file, scope.titlePath),
    appIdentity: settings.target.app.identity,
    engine: { name: settings.target.engine.name, contractVersion: settings.target.engine.contractVersion },
    located: settings.target.engine.location === 'url',
    toolVersion: e2eVersion(),
    secrets: Object.fromEntries(settings.secrets.entries().map(([name, definition]) => [name, definition.value])),
    redact: scope.redact,
    proposalStore: proposals === undefined ? undefined : new FileCacheStore(proposals, { proposal: true }),
    hitsEnabled: mode === 'read-write',
    logger: scope.logger,
  };
}

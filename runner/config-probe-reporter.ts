/**
 * A Playwright Test reporter that only reads the loaded config: the CLI runs Playwright in
 * list mode with it and a filter that matches no file, so the config is evaluated (as a run
 * would evaluate it) without loading a test, and the e2e settings the CLI needs (the config's
 * folder and the cache folder) come back as JSON in the file the run request names (`configProbe`).
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { FullConfig, Reporter } from '@playwright/test/reporter';
import { readConfigProbeFile } from './environment.js';
import { DEFAULT_CACHE_DIR } from './project-paths.js';
import { PROJECT_OPTION, type ProjectSettings } from './settings.js';

/** What the probe reports. */
export interface ConfigProbe {
  /** The config file's folder. */
  configDir: string;
  /** The absolute cache folder (`cache.dir` resolved against the config's folder). */
  cacheDirectory: string;
  /** `cache.audit` is `record`: `e2e record` records causal end checks. */
  recordAudit: boolean;
}

/** The probe of a loaded config. */
export function configProbeOf(config: FullConfig): ConfigProbe {
  const configDir = config.configFile === undefined ? config.rootDir : dirname(config.configFile);
  const settings = config.projects
    .map((project) => (project.use as Record<string, unknown>)[PROJECT_OPTION] as ProjectSettings | undefined)
    .find((found) => found !== undefined);
  return { configDir, cacheDirectory: resolve(configDir, settings?.cache.dir ?? DEFAULT_CACHE_DIR), recordAudit: settings?.cache.audit === 'record' };
}

/** Write the probe where the run request's `configProbe` says, if it says (a run's reporter does it too, so `e2e record` learns the settings without another load). */
export function writeConfigProbe(config: FullConfig): void {
  const path = readConfigProbeFile();
  if (path !== undefined) writeFileSync(path, JSON.stringify(configProbeOf(config)));
}

/** Reporter that writes a {@link ConfigProbe}. */
export default class ConfigProbeReporter implements Reporter {
  /** Prints nothing. */
  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig): void {
    writeConfigProbe(config);
  }
}

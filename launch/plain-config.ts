/**
 * Plain config objects. The documents write `export default { … } satisfies E2EConfig`, but
 * Playwright Test only understands what `defineConfig` returns. For such a plain e2e config
 * (see {@link isPlainE2EConfig}), the CLI points Playwright at a small wrapper module beside it that
 * imports the config and applies `defineConfig`, and removes the wrapper afterwards. Beside it,
 * so the config's folder (test paths, cache, report) stays the same.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A config path Playwright can load, and how to clean up after the run. */
export interface LoadableConfig {
  path: string;
  dispose(): Promise<void>;
}

/**
 * True when the source reads as a plain e2e config: it imports from `e2e`, lists `targets`,
 * and never calls `defineConfig`. Anything else (a `defineConfig` config, a plain Playwright
 * config) is loaded as it is.
 */
export function isPlainE2EConfig(source: string): boolean {
  return !/\bdefineConfig\s*\(/.test(source) && /\btargets\s*:/.test(source) && /from\s+['"]e2e(?:\/[\w-]+)?['"]/.test(source);
}

/** The wrapper's source: import the config, unwrap a CommonJS default, apply `defineConfig` to a plain e2e object. */
export function wrapperSource(configFile: string): string {
  return [
    '// Written by the e2e CLI for this run: applies defineConfig to a plain config object. Safe to delete.',
    `import * as loaded from ${JSON.stringify(`./${configFile}`)};`,
    "import { defineConfig } from 'e2e';",
    'const exported = loaded.default ?? loaded;',
    "const config = exported !== null && typeof exported === 'object' && exported.__esModule === true && 'default' in exported ? exported.default : exported;",
    "const plain = config !== null && typeof config === 'object' && !Array.isArray(config.projects) && config.targets !== undefined;",
    'export default plain ? defineConfig(config) : config;',
    '',
  ].join('\n');
}

/** The config to hand Playwright: `configPath` itself, or a wrapper beside it for a plain object. */
export async function loadableConfig(configPath: string): Promise<LoadableConfig> {
  let source: string;
  try {
    source = await readFile(configPath, 'utf8');
  } catch {
    return { path: configPath, dispose: async () => undefined };
  }
  if (!isPlainE2EConfig(source)) return { path: configPath, dispose: async () => undefined };
  const wrapper = join(dirname(configPath), `.e2e-config-${process.pid}-${randomBytes(4).toString('hex')}.mjs`);
  await writeFile(wrapper, wrapperSource(basename(configPath)), { flag: 'wx' });
  return { path: wrapper, dispose: () => rm(wrapper, { force: true }) };
}

/**
 * The project's config file, as every command finds it (`--config`, else the first of
 * {@link CONFIG_FILE_NAMES} in the working folder), the Playwright Test CLI that runs it, and
 * the e2e folders the config sets: the cache commands default to the config's `cache.dir`
 * (relative to the config's folder) and the hit ledger beside it. The folders come from
 * Playwright evaluating the config in list mode with a filter that loads no test file, so a
 * TypeScript config reads exactly as a run reads it.
 */
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { E2EError } from '../errors/index.js';
import { DEFAULT_CACHE_DIR, DEFAULT_HITS_DIR } from '../runner/project-paths.js';
import { PLAIN_RUN_REQUEST } from '../runner/run-request.js';
import type { CacheLocation } from '../cache-format/index.js';
import { loadableConfig } from './plain-config.js';
import { writeRunRequest } from './run-request-file.js';

/** Config file names looked for in the working folder, in order. */
export const CONFIG_FILE_NAMES = ['e2e.config.ts', 'e2e.config.mts', 'e2e.config.js', 'e2e.config.mjs'] as const;

/** The config file: `config` (relative to `cwd`) when given, else the first of {@link CONFIG_FILE_NAMES} in `cwd`; undefined when none exists. */
export function findConfigFile(cwd: string, config: string | undefined): string | undefined {
  if (config !== undefined) {
    const path = resolve(cwd, config);
    return existsSync(path) ? path : undefined;
  }
  return CONFIG_FILE_NAMES.map((name) => join(cwd, name)).find((path) => existsSync(path));
}

/** Playwright Test's CLI as the project installed it (one copy per project), else ours. */
export function playwrightCli(configPath: string): string {
  try {
    return createRequire(configPath).resolve('@playwright/test/cli');
  } catch {
    return createRequire(import.meta.url).resolve('@playwright/test/cli');
  }
}

/**
 * Run the project's Playwright CLI (`playwrightCli(configPath)`) with `args` in a quiet child:
 * its exit code and what it wrote to stderr (what a failed listing or probe is explained by).
 */
export function runPlaywrightQuietly(configPath: string, args: readonly string[], options: { cwd: string; env: Readonly<Record<string, string | undefined>> }): Promise<{ code: number; stderr: string }> {
  return new Promise((resolveExit, reject) => {
    const child = spawn(process.execPath, [playwrightCli(configPath), ...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'ignore', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => resolveExit({ code: exitCode ?? 1, stderr: Buffer.concat(chunks).toString('utf8') }));
  });
}

/**
 * The problem when the project's `@playwright/test` is not the one e2e imports: Playwright
 * refuses a second copy (`did not expect test.describe() to be called here`), and a linked e2e
 * (a folder install) is also compiled as the project's own code. Undefined when there is one copy.
 */
export function secondPlaywrightProblem(configPath: string): string | undefined {
  let project: string;
  let ours: string;
  try {
    project = realpathSync(createRequire(configPath).resolve('@playwright/test/package.json'));
    ours = realpathSync(createRequire(import.meta.url).resolve('@playwright/test/package.json'));
  } catch {
    return undefined;
  }
  if (project === ours) return undefined;
  const linked = !realpathSync(fileURLToPath(import.meta.url)).split(sep).includes('node_modules');
  const fix = linked
    ? 'e2e is linked from a folder (npm i ../e2e makes a symlink), which brings that folder\'s own @playwright/test; install it as a copy instead: `npm i -D --install-links <folder>` (or `install-links=true` in .npmrc), or `npm i -D ./e2e-<version>.tgz` from `npm pack`'
    : 'install one @playwright/test that satisfies e2e\'s peer range, e.g. `npm i -D @playwright/test@latest`, then `npm dedupe`';
  return `two copies of @playwright/test: the project's (${dirname(project)}) and e2e's (${dirname(ours)}); ${fix}.`;
}

/** The probe reporter: built JavaScript, or its TypeScript source when the CLI runs from source (Playwright compiles it). */
function probeReporter(): string {
  const built = fileURLToPath(new URL('../runner/config-probe-reporter.js', import.meta.url));
  return existsSync(built) ? built : built.replace(/\.js$/, '.ts');
}
/** A file filter no test file matches: Playwright then evaluates the config and loads no test. */
const NO_TEST_FILE = '^$e2e-config-probe';
const probeSchema = z.object({ configDir: z.string(), cacheDirectory: z.string(), recordAudit: z.boolean().optional() });

/** What a run's reporter said about its config (see `runner/config-probe-reporter.ts`); undefined when it wrote nothing readable. */
export async function readConfigProbe(path: string): Promise<z.infer<typeof probeSchema> | undefined> {
  try {
    const parsed = probeSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The folders a config sets, as Playwright loaded it: the config file's folder and the absolute cache folder. */
export interface ConfigFolders {
  configDir: string;
  cacheDirectory: string;
}

/**
 * The config probe riding along a Playwright listing: the probe reporter to add to its
 * `--reporter`, the variables naming where it writes, and the probe read back afterwards
 * (`unknown`: the caller validates). One listing then both lists and probes.
 */
export interface ConfigProbeRun {
  reporter: string;
  variables: Record<string, string>;
  read(): Promise<unknown>;
  dispose(): Promise<void>;
}

/** Prepare a {@link ConfigProbeRun} (a run request naming the probe file, in a temporary folder). */
export async function prepareConfigProbe(): Promise<ConfigProbeRun> {
  const folder = await mkdtemp(join(tmpdir(), 'e2e-config-'));
  const output = join(folder, 'probe.json');
  const written = await writeRunRequest({ ...PLAIN_RUN_REQUEST, configProbe: output });
  return {
    reporter: probeReporter(),
    variables: written.variables,
    read: async () => JSON.parse(await readFile(output, 'utf8')) as unknown,
    dispose: async () => {
      await rm(folder, { recursive: true, force: true });
      await written.dispose();
    },
  };
}

/** The probe a listing wrote, when it reads as one. */
export function configFoldersOf(probe: unknown): ConfigFolders | undefined {
  const parsed = probeSchema.safeParse(probe);
  return parsed.success ? { configDir: parsed.data.configDir, cacheDirectory: parsed.data.cacheDirectory } : undefined;
}

/** Options of {@link cacheLocationOf}. */
export interface CacheLocationOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** `--cache-dir` / `--hits-dir` (relative to `cwd`): used as given, without reading the config. */
  cacheDir?: string | undefined;
  hitsDir?: string | undefined;
  /** `--config`; default the config in `cwd`. */
  config?: string | undefined;
  /** The config's folders as a listing of the same config already probed them (`cache prune`): the config is not loaded again. */
  probed?: ConfigFolders | undefined;
}

/**
 * Where the cache and its hit ledger are: `--cache-dir`/`--hits-dir` when given; else the
 * config's `cache.dir` and `.e2e/hits`, relative to the config's folder; without a config,
 * `.e2e/cache` and `.e2e/hits` in the working folder. A `--config` that does not exist, or a
 * config that does not load, is `INVALID_CONFIG`.
 */
export async function cacheLocationOf(options: CacheLocationOptions): Promise<CacheLocation> {
  const given = (path: string | undefined): string | undefined => (path === undefined ? undefined : resolve(options.cwd, path));
  const cacheDirectory = given(options.cacheDir);
  const hitsDirectory = given(options.hitsDir);
  if (cacheDirectory !== undefined && hitsDirectory !== undefined) return { cacheDirectory, hitsDirectory };
  const configPath = findConfigFile(options.cwd, options.config);
  if (configPath === undefined && options.config !== undefined) {
    throw new E2EError('INVALID_CONFIG', `no config ${options.config} in ${options.cwd}; pass an existing file to --config.`);
  }
  // The config is evaluated only when its cache folder is wanted.
  const project =
    configPath === undefined
      ? { configDir: options.cwd, cacheDirectory: cacheDirectory ?? resolve(options.cwd, DEFAULT_CACHE_DIR) }
      : cacheDirectory !== undefined
        ? { configDir: dirname(configPath), cacheDirectory }
        : await probeConfig(configPath, options.cwd, options.env, options.probed);
  return { cacheDirectory: project.cacheDirectory, hitsDirectory: hitsDirectory ?? resolve(project.configDir, DEFAULT_HITS_DIR) };
}

/** The config's folder and cache folder, as Playwright loads the config (or as a listing of it already probed them). */
async function probeConfig(configPath: string, cwd: string, env: Readonly<Record<string, string | undefined>>, probed: ConfigFolders | undefined): Promise<ConfigFolders> {
  const twoCopies = secondPlaywrightProblem(configPath);
  if (twoCopies !== undefined) throw new E2EError('INVALID_CONFIG', twoCopies);
  if (probed !== undefined) return probed;
  const loadable = await loadableConfig(configPath);
  const probe = await prepareConfigProbe();
  try {
    const args = ['test', '--list', '--pass-with-no-tests', '--reporter', probe.reporter, '-c', loadable.path, NO_TEST_FILE];
    const { code, stderr } = await runPlaywrightQuietly(configPath, args, { cwd, env: { ...env, ...probe.variables } });
    let written: unknown;
    try {
      written = await probe.read();
    } catch {
      const reason = stderr.trim().split('\n').find((line) => line.trim() !== '') ?? `exit ${code}`;
      throw new E2EError('INVALID_CONFIG', `${configPath} did not load (${reason}); fix it, or pass --cache-dir to skip reading it.`);
    }
    const folders = configFoldersOf(written);
    if (folders === undefined) throw new E2EError('INVALID_CONFIG', `${configPath} did not load as an e2e config; pass --cache-dir to skip reading it.`);
    return folders;
  } finally {
    await loadable.dispose();
    await probe.dispose();
  }
}

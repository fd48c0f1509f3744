/**
 * `e2e init`: scaffolds `e2e.config.ts`, a `playwright.config.ts` that re-exports it (so
 * `npx playwright test` and the VS Code extension run it), `tests/example.e2e.ts`, and the
 * `.gitignore` and `.gitattributes` lines of the cache. Never overwrites a file: an existing config or test is
 * kept as it is; existing ignore and attribute files only get the lines they lack. Running it
 * twice changes nothing the second time.
 */
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  configTemplate,
  EXAMPLE_TEST_TEMPLATE,
  GITATTRIBUTES_COMMENT,
  GITATTRIBUTES_LINES,
  GITIGNORE_COMMENT,
  GITIGNORE_LINES,
  MODEL_PROVIDERS,
  PLAIN_REPLAY_COMMAND,
  PLAYWRIGHT_CONFIG_NAMES,
  playwrightConfigTemplate,
  TEXTCONV_COMMAND,
} from './init-templates.js';
import { CONFIG_FILE_NAMES, isPlainE2EConfig, MODEL_VARIABLES_TEXT } from '../launch/index.js';

/** What happened to one file. */
export interface InitFile {
  /** Relative to the project folder. */
  path: string;
  status: 'created' | 'kept' | 'updated';
  /** For `updated`: the lines added. */
  added?: string[];
}

/** The result of `e2e init`. */
export interface InitResult {
  directory: string;
  files: InitFile[];
  /** Things to do by hand. */
  hints: string[];
}

async function createUnlessPresent(directory: string, path: string, content: string, alreadyThere = existsSync(join(directory, path))): Promise<InitFile> {
  if (alreadyThere) return { path, status: 'kept' };
  const absolute = join(directory, path);
  await mkdir(dirname(absolute), { recursive: true });
  try {
    await writeFile(absolute, content, { flag: 'wx' });
  } catch {
    return { path, status: 'kept' };
  }
  return { path, status: 'created' };
}

/** Adds the `lines` a text file lacks (under `comment`), creating it when missing. */
async function ensureLines(directory: string, path: string, comment: string, lines: readonly string[]): Promise<InitFile> {
  const absolute = join(directory, path);
  let existing: string | undefined;
  try {
    existing = await readFile(absolute, 'utf8');
  } catch {
    existing = undefined;
  }
  if (existing === undefined) {
    await writeFile(absolute, [comment, ...lines].join('\n') + '\n', { flag: 'wx' });
    return { path, status: 'created' };
  }
  const present = new Set(existing.split(/\r?\n/).map((line) => line.trim()));
  const missing = lines.filter((line) => !present.has(line));
  if (missing.length === 0) return { path, status: 'kept' };
  const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
  await appendFile(absolute, `${separator}${existing === '' ? '' : '\n'}${comment}\n${missing.join('\n')}\n`);
  return { path, status: 'updated', added: missing };
}

/**
 * A `playwright.config.ts` that runs the e2e config, unless the project has a Playwright config
 * already (kept; `foreign` when it does not name the e2e config, so init says how to run both).
 */
async function ensurePlaywrightConfig(directory: string, configFile: string): Promise<{ file: InitFile; foreign: boolean }> {
  const existing = PLAYWRIGHT_CONFIG_NAMES.find((name) => existsSync(join(directory, name)));
  if (existing !== undefined) {
    const source = await readFile(join(directory, existing), 'utf8').catch(() => '');
    return { file: { path: existing, status: 'kept' }, foreign: !source.includes(configFile.replace(/\.[mc]?[jt]s$/, '')) };
  }
  const e2eSource = await readFile(join(directory, configFile), 'utf8').catch(() => '');
  return { file: await createUnlessPresent(directory, 'playwright.config.ts', playwrightConfigTemplate(configFile, isPlainE2EConfig(e2eSource))), foreign: false };
}

/** The provider packages of {@link MODEL_PROVIDERS} that resolve from `directory` (its node_modules or a parent's). */
export function installedProviders(directory: string): Set<string> {
  const found = new Set<string>();
  for (const provider of MODEL_PROVIDERS) {
    for (let folder = resolve(directory); ; folder = dirname(folder)) {
      if (existsSync(join(folder, 'node_modules', ...provider.package.split('/'), 'package.json'))) {
        found.add(provider.package);
        break;
      }
      if (dirname(folder) === folder) break;
    }
  }
  return found;
}

/** Scaffolds an e2e project in `directory`. */
export async function initProject(directory: string): Promise<InitResult> {
  const files: InitFile[] = [];
  const existingConfig = CONFIG_FILE_NAMES.find((name) => existsSync(join(directory, name)));
  const providers = installedProviders(directory);
  files.push(existingConfig === undefined ? await createUnlessPresent(directory, 'e2e.config.ts', configTemplate(providers)) : { path: existingConfig, status: 'kept' });
  const configFile = existingConfig ?? 'e2e.config.ts';
  const playwrightConfig = await ensurePlaywrightConfig(directory, configFile);
  files.push(playwrightConfig.file);
  files.push(await createUnlessPresent(directory, join('tests', 'example.e2e.ts'), EXAMPLE_TEST_TEMPLATE));
  files.push(await ensureLines(directory, '.gitignore', GITIGNORE_COMMENT, GITIGNORE_LINES));
  files.push(await ensureLines(directory, '.gitattributes', GITATTRIBUTES_COMMENT, GITATTRIBUTES_LINES));
  const hints: string[] = [];
  if (files[0]?.status === 'created') {
    hints.push('Describe the app in e2e.config.ts and set its URL (E2E_APP_URL or `targets`).');
    hints.push(
      providers.size === 0
        ? `Install a model provider (npm i -D @ai-sdk/openai, @ai-sdk/anthropic or @ai-sdk/openai-compatible) and uncomment its lines in e2e.config.ts; then set ${MODEL_VARIABLES_TEXT} and run \`npx e2e record\`.`
        : `Record with a model: set ${MODEL_VARIABLES_TEXT} and run \`npx e2e record\`.`,
    );
  }
  if (playwrightConfig.foreign) {
    hints.push(
      `${playwrightConfig.file.path} is there already, so \`npx playwright test\` and the VS Code extension run it, not ${configFile}: run the e2e tests with \`npx playwright test -c ${configFile}\`, or make ${playwrightConfig.file.path} re-export ${configFile}.`,
    );
  } else if (playwrightConfig.file.status === 'created') {
    hints.push(`\`npx playwright test\` and the VS Code extension now run ${configFile} (through playwright.config.ts); model-free replay there: ${PLAIN_REPLAY_COMMAND}.`);
  }
  hints.push(`Make \`git diff\` show cache entries as text: ${TEXTCONV_COMMAND}`);
  const ignore = await readFile(join(directory, '.gitignore'), 'utf8');
  if (ignore.split(/\r?\n/).some((line) => ['.e2e', '.e2e/', '/.e2e', '/.e2e/'].includes(line.trim()))) {
    hints.push('.gitignore ignores all of .e2e/, so the cache cannot be committed: remove that line (the lines e2e init added ignore only the run outputs).');
  }
  return { directory, files, hints };
}

/** `e2e init` as text. */
export function renderInit(result: InitResult): string {
  const lines = result.files.map((file) => {
    switch (file.status) {
      case 'created':
        return `  created  ${file.path}`;
      case 'kept':
        return `  kept     ${file.path} (already there)`;
      case 'updated':
        return `  updated  ${file.path} (added ${file.added?.join(', ') ?? ''})`;
    }
  });
  return [`e2e init in ${result.directory}:`, ...lines, '', ...result.hints.map((hint) => `Next: ${hint}`)].join('\n');
}

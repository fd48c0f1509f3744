/**
 * What `e2e init` writes: a commented config, an example test, and the ignore and attribute
 * lines that keep run outputs out of git while the cache (`.e2e/cache/`) is committed and
 * shown as text by `git diff`.
 */

// Templates are arrays of lines in plain constants: `scripts/check-imports.mjs` reads source
// text from each line-initial `import`/`export`, and must not take a template's import for ours.

/** A model provider the config can pick by environment variable (the names examples/shop uses too). */
export interface ModelProvider {
  /** The npm package. */
  package: string;
  /** The environment variables that select it and configure it, as the README lists them. */
  variables: string;
  importLine: string;
  /** The branch of `modelFromEnvironment`, unindented. */
  branch: readonly string[];
}

/** An import line of the config (built, so the import-direction check does not read it as ours). */
function importOf(bindings: string, specifier: string): string {
  return ['import', bindings, 'from', `'${specifier}';`].join(' ');
}

/** The providers `e2e init` writes into the config, in the order they are tried. */
export const MODEL_PROVIDERS: readonly ModelProvider[] = [
  {
    package: '@ai-sdk/openai',
    variables: 'OPENAI_API_KEY',
    importLine: importOf('{ openai }', '@ai-sdk/openai'),
    branch: ["if (process.env.OPENAI_API_KEY) return openai(chosen ?? 'gpt-5-mini');"],
  },
  {
    package: '@ai-sdk/anthropic',
    variables: 'ANTHROPIC_API_KEY',
    importLine: importOf('{ anthropic }', '@ai-sdk/anthropic'),
    branch: ["if (process.env.ANTHROPIC_API_KEY) return anthropic(chosen ?? 'claude-sonnet-4-5');"],
  },
  {
    package: '@ai-sdk/openai-compatible',
    variables: 'E2E_OPENAI_COMPATIBLE_URL (E2E_OPENAI_COMPATIBLE_KEY if it wants a key)',
    importLine: importOf('{ createOpenAICompatible }', '@ai-sdk/openai-compatible'),
    branch: [
      'const compatibleUrl = process.env.E2E_OPENAI_COMPATIBLE_URL;',
      'if (compatibleUrl) {',
      '  const apiKey = process.env.E2E_OPENAI_COMPATIBLE_KEY;',
      "  return createOpenAICompatible({ name: 'local', baseURL: compatibleUrl, ...(apiKey ? { apiKey } : {}) }).chatModel(chosen ?? 'local-model');",
      '}',
    ],
  },
];

function commentedUnless(installed: boolean, lines: readonly string[], indent: string): string[] {
  return lines.map((line) => `${indent}${installed ? '' : '// '}${line}`);
}

function configLines(installed: ReadonlySet<string>): string[] {
  const imports = MODEL_PROVIDERS.flatMap((provider) => commentedUnless(installed.has(provider.package), [provider.importLine], ''));
  const branches = MODEL_PROVIDERS.flatMap((provider) => commentedUnless(installed.has(provider.package), provider.branch, '  '));
  const table = MODEL_PROVIDERS.map((provider) => ` *   ${provider.package.padEnd(27)}${provider.variables}`);
  return [
    "import { defineConfig, web } from 'e2e';",
    ...imports,
    '',
    '/*',
    ' * The model the agent uses when a step is not in the cache (`e2e replay` and a fully cached',
    ' * run need none), picked by environment variable; E2E_MODEL picks the model name:',
    ' *',
    ...table,
    ' *',
    " * A provider whose package was not installed when `e2e init` ran is commented out: install",
    ' * it (`npm i -D <package>`) and uncomment its lines.',
    ' */',
    'function modelFromEnvironment() {',
    '  const chosen = process.env.E2E_MODEL;',
    ...branches,
    '  return undefined;',
    '}',
    '',
    'export default defineConfig({',
    '  // Where the tests are (any Playwright Test option works here too).',
    "  testDir: 'tests',",
    '',
    '  // Start the app before the tests, or remove this and start it yourself:',
    "  // webServer: { command: 'npm run dev', url: 'http://127.0.0.1:3000', reuseExistingServer: true },",
    '',
    '  // Each target is an app on an engine; it becomes a Playwright project (`--project web`).',
    "  targets: [{ name: 'web', engine: web(), app: { url: process.env.E2E_APP_URL ?? 'http://127.0.0.1:3000' } }],",
    '',
    '  agents: {',
    '    default: {',
    '      model: modelFromEnvironment(),',
    "      context: 'Describe the app in a sentence or two: what it is for and what the agent should know.',",
    '    },',
    '  },',
    '',
    '  // Recorded steps replay from here with no model call; commit this folder.',
    "  cache: { dir: '.e2e/cache' },",
    '',
    "  // Secrets are passed by name (`secret('adminPassword')`); the model never sees the value.",
    '  // secrets: { adminPassword: process.env.ADMIN_PASSWORD },',
    '});',
  ];
}

const EXAMPLE_TEST_LINES = [
  "import { expect, test } from 'e2e';",
  '',
  '// Steps say what should happen; the agent works out how on the live screen the first time,',
  '// and later runs replay the recorded actions with no model call.',
  "test('the home page leads a visitor onwards', async ({ app, agent, screen }) => {",
  "  await app.open('/');",
  "  await agent.act('follow the main link or button on the home page');",
  "  await agent.assert('a different page than the home page is shown');",
  "  await expect(screen.locator('body')).toBeVisible();",
  '});',
];

/** The config file `e2e init` creates, with live lines for the provider packages in `installed`. */
export function configTemplate(installed: ReadonlySet<string>): string {
  return configLines(installed).join('\n') + '\n';
}

/** The config `e2e init` creates in a project with no provider package installed. */
export const CONFIG_TEMPLATE = configTemplate(new Set());

/** The example test `e2e init` creates. */
export const EXAMPLE_TEST_TEMPLATE = EXAMPLE_TEST_LINES.join('\n') + '\n';

/**
 * Lines `e2e init` makes sure `.gitignore` has: run outputs ignored, the cache committed; also
 * what sharded CI leaves in the project folder (blob reports, the `--propose proposal` folder,
 * Playwright's default HTML report folder), anchored to the project so an app's own
 * `proposal/` elsewhere stays tracked.
 */
export const GITIGNORE_LINES = ['.e2e/*', '!.e2e/cache/', '/blob-report/', '/proposal/', '/playwright-report/'] as const;
/** The comment above the `.gitignore` lines. */
export const GITIGNORE_COMMENT = '# e2e: run outputs (reports, artifacts, hit ledger, blob reports of shards, proposals); the replay cache in .e2e/cache/ is committed';

/** Config files `npx playwright test` (and the VS Code extension) look for, in Playwright's order. */
export const PLAYWRIGHT_CONFIG_NAMES = ['playwright.config.ts', 'playwright.config.js', 'playwright.config.mts', 'playwright.config.mjs', 'playwright.config.cts', 'playwright.config.cjs'] as const;

/** How plain `npx playwright test` replays model-free, for the config comment and init's hint. */
export const PLAIN_REPLAY_COMMAND = 'E2E_REPLAY=1 npx playwright test';

/**
 * The `playwright.config.ts` that makes `npx playwright test` and the VS Code extension run the
 * e2e config: a re-export of a `defineConfig` config, or `defineConfig` applied to a plain one.
 * `configFile` is the e2e config's file name; a `.ts` one is imported as `.js`, which both
 * Playwright and TypeScript's NodeNext resolution map to the `.ts` file.
 */
export function playwrightConfigTemplate(configFile: string, plain: boolean): string {
  const specifier = `./${configFile.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs')}`;
  const body = plain
    ? [importOf('{ defineConfig }', 'e2e'), importOf('config', specifier), '', ['export', 'default', 'defineConfig(config);'].join(' ')]
    : [['export', '{ default }', 'from', `'${specifier}';`].join(' ')];
  return [
    `// \`npx playwright test\` and the VS Code extension read this file; the tests and settings are in ${configFile}.`,
    '// The cache mode is the configured one (read-only when CI is set). Model-free replay, as `npx e2e replay`:',
    `//   ${PLAIN_REPLAY_COMMAND}`,
    "// (exit codes are Playwright's there, 0 or 1; `npx e2e replay` exits with e2e's: 2 for a stale entry).",
    ...body,
    '',
  ].join('\n');
}

/** Lines `e2e init` makes sure `.gitattributes` has: cache blobs are bytes, shown by the textconv. */
export const GITATTRIBUTES_LINES = ['.e2e/cache/**/*.msgpack -text diff=e2e-cache'] as const;
/** The comment above the `.gitattributes` lines. */
export const GITATTRIBUTES_COMMENT = '# e2e: cache entries are bytes; `git diff` shows them as text once the textconv is configured';

/** The git command that makes `git diff` show cache entries as text. */
export const TEXTCONV_COMMAND = 'git config diff.e2e-cache.textconv "npx e2e cache show --textconv"';

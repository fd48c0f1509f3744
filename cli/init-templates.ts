/**
 * What `e2e init` writes: a commented config, an example test, and the ignore and attribute
 * lines that keep run outputs out of git while the cache (`.e2e/cache/`) is committed and
 * shown as text by `git diff`.
 */

// Templates are arrays of lines in plain constants: `scripts/check-imports.mjs` reads source
// text from each line-initial `import`/`export`, and must not take a template's import for ours.

const CONFIG_LINES = [
  "import { defineConfig, web } from 'e2e';",
  '',
  '/*',
  ' * The model the agent uses when a step is not in the cache (a fully cached run needs none).',
  ' * Pick one provider, install its package, set its key in the environment, and uncomment',
  ' * its lines below and `model` in `agents`:',
  ' *',
  ' *   OpenAI              npm i -D @ai-sdk/openai              OPENAI_API_KEY',
  ' *   Anthropic           npm i -D @ai-sdk/anthropic           ANTHROPIC_API_KEY',
  ' *   OpenAI-compatible   npm i -D @ai-sdk/openai-compatible   E2E_MODEL_BASE_URL, E2E_MODEL_API_KEY',
  ' *     (Ollama, vLLM, LM Studio, OpenRouter, …)',
  ' *',
  ' * E2E_MODEL picks the model name in each case.',
  ' */',
  '',
  "// import { openai } from '@ai-sdk/openai';",
  "// const model = openai(process.env.E2E_MODEL ?? 'gpt-5-mini');",
  '',
  "// import { anthropic } from '@ai-sdk/anthropic';",
  "// const model = anthropic(process.env.E2E_MODEL ?? 'claude-sonnet-4-5');",
  '',
  "// import { createOpenAICompatible } from '@ai-sdk/openai-compatible';",
  '// const model = createOpenAICompatible({',
  "//   name: 'local',",
  "//   baseURL: process.env.E2E_MODEL_BASE_URL ?? 'http://127.0.0.1:11434/v1',",
  '//   apiKey: process.env.E2E_MODEL_API_KEY,',
  "// })(process.env.E2E_MODEL ?? 'llama3.1');",
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
  '      // model,',
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

/** The config file `e2e init` creates. */
export const CONFIG_TEMPLATE = CONFIG_LINES.join('\n') + '\n';

/** The example test `e2e init` creates. */
export const EXAMPLE_TEST_TEMPLATE = EXAMPLE_TEST_LINES.join('\n') + '\n';

/** Lines `e2e init` makes sure `.gitignore` has: run outputs ignored, the cache committed. */
export const GITIGNORE_LINES = ['.e2e/*', '!.e2e/cache/'] as const;
/** The comment above the `.gitignore` lines. */
export const GITIGNORE_COMMENT = '# e2e: run outputs (reports, artifacts, hit ledger); the replay cache in .e2e/cache/ is committed';

/** Lines `e2e init` makes sure `.gitattributes` has: cache blobs are bytes, shown by the textconv. */
export const GITATTRIBUTES_LINES = ['.e2e/cache/**/*.msgpack -text diff=e2e-cache'] as const;
/** The comment above the `.gitattributes` lines. */
export const GITATTRIBUTES_COMMENT = '# e2e: cache entries are bytes; `git diff` shows them as text once the textconv is configured';

/** The git command that makes `git diff` show cache entries as text. */
export const TEXTCONV_COMMAND = 'git config diff.e2e-cache.textconv "npx e2e cache show --textconv"';

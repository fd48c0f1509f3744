import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initProject, renderInit } from '../../cli/init-command.js';
import { configTemplate, CONFIG_TEMPLATE, EXAMPLE_TEST_TEMPLATE, MODEL_PROVIDERS, playwrightConfigTemplate, TEXTCONV_COMMAND } from '../../cli/init-templates.js';
import { snapshotTree } from '../support/directory-snapshot.js';
import { git, temporaryFolder, writeFile } from '../support/cache-fixtures.js';
import { scaledTimeout } from '../support/load-scaled.js';

const REPOSITORY_ROOT = resolve(import.meta.dirname, '..', '..');

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function project(): Promise<string> {
  const folder = await temporaryFolder('init');
  folders.push(folder);
  return folder;
}

describe('e2e init', () => {
  it('scaffolds the config, an example test, .gitignore and .gitattributes, and prints the textconv hint', async () => {
    const folder = await project();
    const result = await initProject(folder);
    expect(result.files).toEqual([
      { path: 'e2e.config.ts', status: 'created' },
      { path: 'playwright.config.ts', status: 'created' },
      { path: join('tests', 'example.e2e.ts'), status: 'created' },
      { path: '.gitignore', status: 'created' },
      { path: '.gitattributes', status: 'created' },
    ]);
    expect(readFileSync(join(folder, 'e2e.config.ts'), 'utf8')).toBe(CONFIG_TEMPLATE);
    // No provider package is installed here: every provider's lines are there, commented out.
    expect(CONFIG_TEMPLATE).toMatch(/OPENAI_API_KEY[\s\S]*ANTHROPIC_API_KEY[\s\S]*E2E_OPENAI_COMPATIBLE_URL/);
    expect(CONFIG_TEMPLATE).toContain("// import { openai } from '@ai-sdk/openai';");
    expect(CONFIG_TEMPLATE).toContain('      model: modelFromEnvironment(),');
    expect(renderInit(result)).toContain('Next: Install a model provider (npm i -D @ai-sdk/openai');
    expect(readFileSync(join(folder, 'tests', 'example.e2e.ts'), 'utf8')).toBe(EXAMPLE_TEST_TEMPLATE);
    expect(readFileSync(join(folder, '.gitattributes'), 'utf8')).toContain('.e2e/cache/**/*.msgpack -text diff=e2e-cache');
    expect(renderInit(result)).toContain(`Next: Make \`git diff\` show cache entries as text: ${TEXTCONV_COMMAND}`);
    // Plain `npx playwright test` (and the VS Code extension) runs the e2e config, and init says how to replay model-free there.
    expect(readFileSync(join(folder, 'playwright.config.ts'), 'utf8')).toContain("\nexport { default } from './e2e.config.js';\n");
    expect(renderInit(result)).toContain('model-free replay there: E2E_REPLAY=1 npx playwright test');
  });

  it('is idempotent: a second run keeps every file as it is', async () => {
    const folder = await project();
    await initProject(folder);
    const before = snapshotTree(folder);
    const again = await initProject(folder);
    expect(again.files.map((file) => file.status)).toEqual(['kept', 'kept', 'kept', 'kept', 'kept']);
    expect(snapshotTree(folder)).toEqual(before);
    expect(renderInit(again)).toContain('kept     e2e.config.ts (already there)');
  });

  it('never overwrites an existing config or test, and only adds missing lines to an existing .gitignore', async () => {
    const folder = await project();
    writeFile(join(folder, 'e2e.config.mjs'), 'export default {};\n');
    writeFile(join(folder, 'tests', 'example.e2e.ts'), '// mine\n');
    writeFile(join(folder, '.gitignore'), 'node_modules/\n.e2e/*');
    const result = await initProject(folder);
    expect(result.files).toEqual([
      { path: 'e2e.config.mjs', status: 'kept' },
      { path: 'playwright.config.ts', status: 'created' },
      { path: join('tests', 'example.e2e.ts'), status: 'kept' },
      { path: '.gitignore', status: 'updated', added: ['!.e2e/cache/', '/blob-report/', '/proposal/', '/playwright-report/'] },
      { path: '.gitattributes', status: 'created' },
    ]);
    expect(readFileSync(join(folder, 'e2e.config.mjs'), 'utf8')).toBe('export default {};\n');
    expect(readFileSync(join(folder, 'tests', 'example.e2e.ts'), 'utf8')).toBe('// mine\n');
    expect(readFileSync(join(folder, '.gitignore'), 'utf8')).toBe(
      'node_modules/\n.e2e/*\n\n# e2e: run outputs (reports, artifacts, hit ledger, blob reports of shards, proposals); the replay cache in .e2e/cache/ is committed\n!.e2e/cache/\n/blob-report/\n/proposal/\n/playwright-report/\n',
    );
    // The existing config keeps its name in the re-export.
    expect(readFileSync(join(folder, 'playwright.config.ts'), 'utf8')).toContain("\nexport { default } from './e2e.config.mjs';\n");
  });

  it('wraps a plain config object in defineConfig for plain Playwright, and keeps a Playwright config of the project with a hint', async () => {
    const plain = await project();
    writeFile(join(plain, 'e2e.config.ts'), "import { web, type E2EConfig } from 'e2e';\nexport default { targets: [{ engine: web(), app: { url: 'http://127.0.0.1:9' } }] } satisfies E2EConfig;\n");
    await initProject(plain);
    expect(readFileSync(join(plain, 'playwright.config.ts'), 'utf8')).toBe(playwrightConfigTemplate('e2e.config.ts', true));
    expect(playwrightConfigTemplate('e2e.config.ts', true)).toContain("import config from './e2e.config.js';\n\nexport default defineConfig(config);\n");

    const existing = await project();
    writeFile(join(existing, 'playwright.config.js'), "module.exports = { testDir: 'specs' };\n");
    const result = await initProject(existing);
    expect(result.files[1]).toEqual({ path: 'playwright.config.js', status: 'kept' });
    expect(readFileSync(join(existing, 'playwright.config.js'), 'utf8')).toBe("module.exports = { testDir: 'specs' };\n");
    expect(renderInit(result)).toContain('run the e2e tests with `npx playwright test -c e2e.config.ts`');
  });

  it('ignores run outputs but not the cache in git, and marks cache blobs for the textconv', async () => {
    const folder = await project();
    git(folder, 'init', '-q');
    await initProject(folder);
    const ignored = (path: string): boolean => {
      try {
        git(folder, 'check-ignore', '-q', path);
        return true;
      } catch {
        return false;
      }
    };
    expect(ignored('.e2e/report.json')).toBe(true);
    expect(ignored('.e2e/hits/ab/ab00000000000000')).toBe(true);
    expect(ignored('.e2e/cache/refs/ab/ab00000000000000.ref')).toBe(false);
    // What sharded CI leaves in the project folder, but not a folder of the app that shares a name.
    expect(ignored('blob-report/report-1.zip')).toBe(true);
    expect(ignored('proposal/refs/ab/ab00000000000000.ref')).toBe(true);
    expect(ignored('playwright-report/index.html')).toBe(true);
    expect(ignored('src/proposal/draft.ts')).toBe(false);
    expect(git(folder, 'check-attr', 'diff', '--', '.e2e/cache/blobs/ab/ab00000000000000-12.msgpack')).toContain('diff: e2e-cache');
  });

  it('warns when .gitignore ignores the whole .e2e folder, which would keep the cache out of git', async () => {
    const folder = await project();
    writeFile(join(folder, '.gitignore'), '.e2e/\n');
    const result = await initProject(folder);
    expect(result.hints.some((hint) => hint.includes('.gitignore ignores all of .e2e/'))).toBe(true);
  });
});

describe('the scaffolded files', () => {
  it('type-check against the e2e package, with no provider and with every provider installed', async () => {
    const folder = await project();
    symlinkSync(join(REPOSITORY_ROOT, 'node_modules'), join(folder, 'node_modules'), 'dir');
    const result = await initProject(folder);
    // The repository has all three provider packages, so init writes their lines live.
    const everyProvider = configTemplate(new Set(MODEL_PROVIDERS.map((provider) => provider.package)));
    expect(readFileSync(join(folder, 'e2e.config.ts'), 'utf8')).toBe(everyProvider);
    expect(everyProvider).toContain("\nimport { createOpenAICompatible } from '@ai-sdk/openai-compatible';\n");
    expect(renderInit(result)).toContain('Next: Record with a model: set OPENAI_API_KEY, ANTHROPIC_API_KEY or E2E_OPENAI_COMPATIBLE_URL');
    writeFile(join(folder, 'e2e.config.bare.ts'), CONFIG_TEMPLATE);
    writeFile(join(folder, 'package.json'), '{ "type": "module" }\n');
    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
      // The built declarations, as an installed e2e gives them (the process tier builds dist/ once).
      paths: { e2e: [join(REPOSITORY_ROOT, 'dist', 'api', 'index.d.ts')] },
    };
    writeFile(join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['e2e.config.ts', 'e2e.config.bare.ts', 'playwright.config.ts', 'tests'] }));
    const output = execFileSync(process.execPath, [join(REPOSITORY_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: folder, encoding: 'utf8' });
    expect(output).toBe('');
    // tsc over three providers' types takes a minute on a busy 2-core machine.
  }, scaledTimeout(180_000));
});

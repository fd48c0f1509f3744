import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { missingProviderPackages, missingProviderProblem } from '../../launch/provider-packages.js';

let project: string | undefined;
afterEach(() => {
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

function projectWith(files: Record<string, string>): string {
  project = mkdtempSync(join(tmpdir(), 'e2e-providers-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(project, name, '..'), { recursive: true });
    writeFileSync(join(project, name), text);
  }
  return project;
}

describe('missing model provider packages', () => {
  it('finds a provider package the config or a local file it imports names but the project lacks, and names the install', () => {
    const root = projectWith({
      'e2e.config.ts': "import { defineConfig } from 'e2e';\nimport { openai } from '@ai-sdk/openai';\nimport { model } from '../../cli/support/model.js';\n// import { anthropic } from '@ai-sdk/anthropic';\n",
      'support/model.ts': "export { createOpenAICompatible } from '@ai-sdk/openai-compatible';\n",
      'node_modules/@ai-sdk/openai-compatible/package.json': '{"name":"@ai-sdk/openai-compatible"}',
    });
    const missing = missingProviderPackages(join(root, 'e2e.config.ts'));
    expect(missing.map((item) => item.name)).toEqual(['@ai-sdk/openai']);
    expect(missingProviderProblem(missing, (file) => relative(root, file))).toBe(
      'e2e.config.ts imports the model provider package @ai-sdk/openai, which is not installed: run `npm install -D @ai-sdk/openai`.',
    );
  });

  it('passes a config whose providers are installed, commented out, or imported only dynamically', () => {
    const root = projectWith({
      'e2e.config.ts': "import { anthropic } from '@ai-sdk/anthropic';\n/* import { openai } from '@ai-sdk/openai'; */\nconst later = () => import(`@ai-sdk/openai`);\n",
      'node_modules/@ai-sdk/anthropic/package.json': '{"name":"@ai-sdk/anthropic"}',
    });
    expect(missingProviderPackages(join(root, 'e2e.config.ts'))).toEqual([]);
  });
});

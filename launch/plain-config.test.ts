import { describe, expect, it } from 'vitest';
import { isPlainE2EConfig } from './plain-config.js';

describe('plain config detection', () => {
  it('wraps only a plain e2e config object: e2e imports and targets, no defineConfig', () => {
    expect(isPlainE2EConfig("import { web } from 'e2e/web';\nexport default { targets: [{ engine: web() }] } satisfies E2EConfig;")).toBe(true);
    expect(isPlainE2EConfig("import { defineConfig, web } from 'e2e';\nexport default defineConfig({ targets: [] });")).toBe(false);
    expect(isPlainE2EConfig("import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: 'tests' });")).toBe(false);
    expect(isPlainE2EConfig("export default { testDir: 'tests', projects: [{ name: 'a' }] };")).toBe(false);
  });
});

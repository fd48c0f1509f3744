/**
 * defineConfig: validation with did-you-mean, and the Playwright Test config it returns.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StepExecutor } from '../contract/step-contract.js';
import { web } from '../engines/web/index.js';
import { defineConfig, type E2EConfig } from './config.js';
import { PROJECT_OPTION, type ProjectSettings } from './settings.js';

const engine = web();
const base: E2EConfig = { targets: [{ engine, app: { url: 'http://127.0.0.1:4173' } }] };
const executor: StepExecutor = { name: 'scripted', runStep: async () => ({ status: 'passed', summary: 'ok' }) };

function settingsOf(config: ReturnType<typeof defineConfig>, index = 0): ProjectSettings {
  return (config.projects?.[index]?.use as Record<string, unknown>)[PROJECT_OPTION] as ProjectSettings;
}

function failure(options: unknown): { code: string; message: string } {
  try {
    defineConfig(options as E2EConfig);
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('defineConfig accepted the config');
}

afterEach(() => {
  delete process.env['E2E_CACHE_MODE'];
  delete process.env['E2E_REPLAY'];
  delete process.env['E2E_SECRET_ADMIN_PASSWORD'];
});

describe('defineConfig', () => {
  it('refuses an unknown key with INVALID_CONFIG and the nearest valid key', () => {
    expect(failure({ ...base, workerz: 2 })).toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining('unknown key `workerz` (did you mean `workers`?)') as string });
    expect(failure({ ...base, agents: { default: { maxStep: 3 } } }).message).toContain('unknown key `maxStep` in `agents.default` (did you mean `maxSteps`?)');
    expect(failure({ ...base, cache: { mdoe: 'off' } }).message).toContain('did you mean `mode`');
    expect(failure({ targets: [{ engine, app: { url: 'http://127.0.0.1:1', identiy: 'x' } }] }).message).toContain('did you mean `identity`');
  });

  it('refuses projects, a missing target, a bad URL, and wrong types with the place to fix', () => {
    expect(failure({ ...base, projects: [] }).message).toContain('each entry of `targets` becomes a Playwright project');
    expect(failure({}).message).toContain('`targets`');
    expect(failure({ targets: [{ engine, app: { url: 'ftp://x' } }] }).message).toContain('`targets.0.app.url`');
    expect(failure({ ...base, agents: { default: { maxSteps: 'many' } } }).message).toContain('`agents.default.maxSteps`');
    expect(failure({ targets: [{ engine: {}, app: { url: 'http://127.0.0.1:1' } }] }).message).toContain('must be an engine such as web()');
  });

  it('refuses system or tools beside an executor, and two different models for one role', () => {
    expect(failure({ ...base, agents: { default: { executor, system: 'be nice' } } }).message).toContain('sets both `executor` and `system`');
    expect(failure({ ...base, agents: { default: { executor: { ...executor, model: { provider: 'a', modelId: 'x' } }, model: { provider: 'b', modelId: 'y' } } } }).message).toContain('name different models');
  });

  it('makes one project per target carrying the e2e settings as a fixture option', () => {
    const config = defineConfig({
      ...base,
      targets: [
        { engine, app: { url: 'http://127.0.0.1:4173/app/' } },
        { name: 'admin', engine, app: { url: 'http://127.0.0.1:4174', identity: 'admin-app' } },
      ],
      agents: { default: { executor, maxSteps: 5 } },
      origins: ['http://127.0.0.1:9000/'],
      workers: 1,
      retries: 2,
      use: { viewport: { width: 800, height: 600 } },
    });
    expect(config.projects?.map((project) => project.name)).toEqual(['web', 'admin']);
    expect(config).toMatchObject({ workers: 1, retries: 2, timeout: 120_000, testMatch: '**/*.e2e.ts', outputDir: '.e2e/test-results' });
    const use = config.projects?.[0]?.use as Record<string, unknown>;
    expect(use['viewport']).toEqual({ width: 800, height: 600 });
    expect(use['launchOptions']).toMatchObject({ executablePath: expect.any(String) as string, headless: true });
    const settings = settingsOf(config);
    expect(settings.target).toMatchObject({ name: 'web', app: { url: 'http://127.0.0.1:4173/app/', identity: 'http://127.0.0.1:4173' } });
    expect(settings.agents['default']).toMatchObject({ executor, maxSteps: 5, context: '' });
    expect(settings.origins).toEqual(['http://127.0.0.1:4173', 'http://127.0.0.1:4174', 'http://127.0.0.1:9000']);
    expect(settingsOf(config, 1).target.app.identity).toBe('admin-app');
    expect(config.reporter).toEqual([
      [expect.stringMatching(/redacting-reporter\.(js|ts)$/) as string],
      ['list'],
      ['html', { open: 'never', outputFolder: '.e2e/html-report' }],
      [expect.stringMatching(/[/\\]reporter\.(js|ts)$/) as string],
    ]);
  });

  it('reads missing secret values from E2E_SECRET_<NAME> and never serializes them', () => {
    process.env['E2E_SECRET_ADMIN_PASSWORD'] = 'from-the-env';
    const settings = settingsOf(defineConfig({ ...base, secrets: { adminPassword: undefined, apiKey: 'inline-key' } }));
    expect(Object.fromEntries(settings.secrets.entries())).toEqual({ adminPassword: { value: 'from-the-env' }, apiKey: { value: 'inline-key' } });
    expect(JSON.stringify(settings)).not.toMatch(/from-the-env|inline-key/);
  });

  it('takes the cache mode from the CLI over the config, defaulting to read-write locally and read-only in CI', () => {
    const ci = process.env['CI'];
    try {
      delete process.env['CI'];
      expect(settingsOf(defineConfig(base)).cache).toEqual({ mode: 'read-write', dir: '.e2e/cache', strict: false });
      process.env['CI'] = 'true';
      expect(settingsOf(defineConfig(base)).cache).toEqual({ mode: 'read-only', dir: '.e2e/cache', strict: false });
    } finally {
      if (ci === undefined) delete process.env['CI'];
      else process.env['CI'] = ci;
    }
    process.env['E2E_CACHE_MODE'] = 'off';
    expect(settingsOf(defineConfig({ ...base, cache: { mode: 'read-only', strict: true } })).cache).toMatchObject({ mode: 'off', strict: true });
  });

  it('makes E2E_REPLAY=1 alone (plain `npx playwright test`) read-only and strict over a read-write config, as `e2e replay` is', () => {
    process.env['E2E_REPLAY'] = '1';
    const settings = settingsOf(defineConfig({ ...base, cache: { mode: 'read-write', strict: false } }));
    expect(settings.cache).toEqual({ mode: 'read-only', dir: '.e2e/cache', strict: true });
    expect(settings.modelFree).toBe(true);
    // An explicit mode still wins: `E2E_CACHE_MODE=off` with it neither replays nor records.
    process.env['E2E_CACHE_MODE'] = 'off';
    expect(settingsOf(defineConfig(base)).cache).toMatchObject({ mode: 'off', strict: true });
  });

  it("keeps the user's reporters behind the redacting one and adds the e2e reporter", () => {
    const config = defineConfig({ ...base, reporter: [['junit', { outputFile: 'junit.xml' }], ['./my-reporter.js']] });
    expect(config.reporter).toEqual([
      [expect.stringMatching(/redacting-reporter\.(js|ts)$/) as string],
      ['junit', { outputFile: 'junit.xml' }],
      ['./my-reporter.js'],
      [expect.stringMatching(/[/\\]reporter\.(js|ts)$/) as string],
    ]);
  });
});

/**
 * resolveConfig (what defineConfig runs): validation with did-you-mean from the schema, and the
 * Playwright Test config it returns, from nothing but its arguments.
 */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../contract/engine.js';
import type { StepExecutor } from '../../contract/step-contract.js';
import { web } from '../../engines/web/index.js';
import { defineConfig, keysAt, resolveConfig, type E2EConfig } from '../../runner/config.js';
import { CACHE_MODE_VARIABLE, PLAIN_RUN_REQUEST, REPLAY_VARIABLE, type RunRequest } from '../../runner/run-request.js';
import { PROJECT_OPTION, WORKER_OPTION, type ProjectSettings } from '../../runner/settings.js';

const engine = web();
const base: E2EConfig = { targets: [{ engine, app: { url: 'http://127.0.0.1:4173' } }] };
const executor: StepExecutor = { name: 'scripted', runStep: async () => ({ status: 'passed', summary: 'ok' }) };

function settingsOf(config: ReturnType<typeof defineConfig>, index = 0): ProjectSettings {
  return (config.projects?.[index]?.use as Record<string, unknown>)[PROJECT_OPTION] as ProjectSettings;
}

function failure(options: unknown): { code: string; message: string } {
  try {
    resolveConfig(options as E2EConfig, {});
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('resolveConfig accepted the config');
}

describe('resolveConfig', () => {
  it('fills in the screen budget, takes a project\'s own, and refuses one too small to read with the place to fix', () => {
    expect(settingsOf(resolveConfig(base, {})).screen).toEqual({ maxNodes: 1_500, maxChars: 40_000 });
    expect(settingsOf(resolveConfig({ ...base, screen: { maxNodes: 400 } }, {})).screen).toEqual({ maxNodes: 400, maxChars: 40_000 });
    expect(settingsOf(resolveConfig({ ...base, screen: { maxNodes: 3_000, maxChars: 120_000 } }, {})).screen).toEqual({ maxNodes: 3_000, maxChars: 120_000 });
    expect(failure({ ...base, screen: { maxNodes: 10 } })).toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining('`screen.maxNodes`') as string });
    expect(failure({ ...base, screen: { maxChars: 1.5e3 } }).message).toContain('`screen.maxChars`');
    expect(failure({ ...base, screen: { maxNode: 400 } }).message).toContain('did you mean `maxNodes`');
  });

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

  it("checks an engine's app without a location through its host delegate, or takes it as it is", () => {
    const start = (): never => {
      throw new Error('not started in this test');
    };
    const checked: Engine = {
      name: 'shell',
      version: '1',
      contractVersion: 1,
      platform: 'terminal',
      verbs: ['type', 'press', 'screenshot'],
      start,
      host: {
        app: (app) =>
          typeof (app as { command?: unknown }).command === 'string'
            ? { ok: true, app: { identity: `shell:${(app as { command: string }).command}`, config: { command: (app as { command: string }).command } } }
            : { ok: false, problem: 'needs `command`, the program to run (e.g. "htop")' },
      },
    };
    const settings = (config: ReturnType<typeof resolveConfig>): ProjectSettings => (config.projects?.[0]?.use as Record<string, unknown>)[PROJECT_OPTION] as ProjectSettings;
    const shell = settings(resolveConfig({ targets: [{ engine: checked, app: { command: 'htop' } }] }, {}));
    expect(shell.target.app).toEqual({ identity: 'shell:htop', config: { command: 'htop' } });
    expect(shell.origins).toEqual([]);
    expect(failure({ targets: [{ engine: checked, app: { program: 'htop' } }] }).message).toContain('`targets.0.app` needs `command`');
    const plain: Engine = { ...checked, name: 'plain', host: {} };
    expect(settings(resolveConfig({ targets: [{ engine: plain, app: { anything: 1 } }] }, {})).target.app).toEqual({ identity: 'plain', config: { anything: 1 } });
    expect(settings(resolveConfig({ targets: [{ engine: plain, app: { identity: 'mine' } }] }, {})).target.app.identity).toBe('mine');
    // An engine with the url location has its app checked as a URL app, whoever wrote the engine.
    expect(failure({ targets: [{ engine: { ...plain, location: 'url' }, app: { command: 'htop' } }] }).message).toContain('`targets.0.app.url`');
  });

  it('refuses system or tools beside an executor, and two different models for one role', () => {
    expect(failure({ ...base, agents: { default: { executor, system: 'be nice' } } }).message).toContain('sets both `executor` and `system`');
    expect(failure({ ...base, agents: { default: { executor: { ...executor, model: { provider: 'a', modelId: 'x' } }, model: { provider: 'b', modelId: 'y' } } } }).message).toContain('name different models');
  });

  it('makes one project per target carrying the e2e settings as a fixture option', () => {
    const config = resolveConfig({
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
    }, {});
    expect(config.projects?.map((project) => project.name)).toEqual(['web', 'admin']);
    expect(config).toMatchObject({ workers: 1, retries: 2, timeout: 120_000, testMatch: '**/*.e2e.ts', outputDir: '.e2e/test-results' });
    const use = config.projects?.[0]?.use as Record<string, unknown>;
    expect(use['viewport']).toEqual({ width: 800, height: 600 });
    // Browser discovery is the worker's (run-entry.ts), not the config's.
    expect(use['launchOptions']).toBeUndefined();
    expect(use[WORKER_OPTION]).toMatchObject({ engine });
    const settings = settingsOf(config);
    expect(settings.target).toMatchObject({ name: 'web', app: { url: 'http://127.0.0.1:4173/app/', identity: 'http://127.0.0.1:4173' } });
    expect(settings.agents['default']).toEqual({ executor, context: '', limits: { maxSteps: 5, maxModelCalls: undefined, timeoutMs: undefined }, builtIn: {} });
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
    const settings = settingsOf(resolveConfig({ ...base, secrets: { adminPassword: undefined, apiKey: 'inline-key' } }, { E2E_SECRET_ADMIN_PASSWORD: 'from-the-env' }));
    expect(Object.fromEntries(settings.secrets.entries())).toEqual({ adminPassword: { value: 'from-the-env' }, apiKey: { value: 'inline-key' } });
    expect(JSON.stringify(settings)).not.toMatch(/from-the-env|inline-key/);
  });

  it('takes the cache mode from the CLI over the config, defaulting to read-write locally and read-only in CI', () => {
    expect(settingsOf(resolveConfig(base, {})).cache).toEqual({ mode: 'read-write', dir: '.e2e/cache', strict: false, audit: 'off' });
    expect(settingsOf(resolveConfig(base, { CI: 'true' })).cache).toEqual({ mode: 'read-only', dir: '.e2e/cache', strict: false, audit: 'off' });
    expect(settingsOf(resolveConfig(base, { CI: 'false' })).cache.mode).toBe('read-write');
    expect(settingsOf(resolveConfig({ ...base, cache: { mode: 'read-only', strict: true } }, { [CACHE_MODE_VARIABLE]: 'off' })).cache).toMatchObject({ mode: 'off', strict: true });
  });

  it("takes what the CLI asks from the run request, not the environment: modes, proposals, model-free, debug, the audit's mutants", () => {
    const request: RunRequest = { version: 1, cache: { mode: 'read-only', strict: true, proposals: '/project/proposal' }, modelFree: true, debug: true };
    // The request is the one door: variables the plain path reads change nothing beside it.
    const settings = settingsOf(resolveConfig(base, { [CACHE_MODE_VARIABLE]: 'read-write', [REPLAY_VARIABLE]: '0' }, request));
    expect(settings.cache).toEqual({ mode: 'read-only', dir: '.e2e/cache', strict: true, audit: 'off', proposals: '/project/proposal' });
    expect([settings.modelFree, settings.debug]).toEqual([true, true]);
    const mutant = { id: 'aaaaaaaaaaaaaaaa-skip-1', project: 'web', testId: 'tests/a.e2e.ts::adds', file: 'tests/a.e2e.ts', titlePath: ['adds'], entry: 'aaaaaaaaaaaaaaaa', mutation: { kind: 'skip-action' as const, action: 0 } };
    const audited = resolveConfig(base, {}, { ...PLAIN_RUN_REQUEST, mutants: [mutant] });
    expect(audited.projects?.map((project) => project.name)).toEqual(['web · audit']);
  });

  it("refuses plain Playwright's cache mode variable when it names no mode, naming the three", () => {
    expect(() => resolveConfig(base, { [CACHE_MODE_VARIABLE]: 'readonly' })).toThrow(new RegExp(`${CACHE_MODE_VARIABLE}=readonly is not a cache mode; use read-write, read-only or off`));
  });

  it('takes cache.audit: record to make `e2e record` record causal end checks, and refuses another value naming the two', () => {
    expect(settingsOf(resolveConfig({ ...base, cache: { audit: 'record' } }, {})).cache.audit).toBe('record');
    expect(() => resolveConfig({ ...base, cache: { audit: 'always' as 'record' } }, {})).toThrow(/cache\.audit.*'off'.*'record'|cache\.audit.*"off".*"record"/s);
  });

  it('leaves the process alone: no environment read or written, the same options give equal configs', () => {
    const before = { ...process.env };
    const first = resolveConfig({ ...base, secrets: { token: undefined } }, { E2E_SECRET_TOKEN: 'only-here' });
    expect(process.env).toEqual(before);
    expect(Object.fromEntries(settingsOf(first).secrets.entries())).toEqual({ token: { value: 'only-here' } });
    expect(Object.fromEntries(settingsOf(resolveConfig({ ...base, secrets: { token: undefined } }, {})).secrets.entries())).toEqual({ token: { value: undefined } });
  });

  it('turns video off when the main process found that Playwright cannot record it', () => {
    const use = (config: ReturnType<typeof resolveConfig>): Record<string, unknown> => config.projects?.[0]?.use as Record<string, unknown>;
    expect(use(resolveConfig({ ...base, use: { video: 'on' } }, {}))['video']).toBe('on');
    expect(use(resolveConfig({ ...base, use: { video: 'on', trace: 'on' } }, { E2E_VIDEO_UNAVAILABLE: '1' }))).toMatchObject({ video: 'off', trace: 'on' });
  });

  it('takes the keys it suggests from the schema, at every level', () => {
    expect(keysAt([])).toEqual(expect.arrayContaining(['targets', 'agents', 'cache', 'secrets', 'origins', 'screen', 'testDir', 'testMatch', 'workers', 'reporter', 'use']));
    expect(keysAt(['targets', 0])).toEqual(['name', 'engine', 'app']);
    // A target's app is its engine's to check (the url keys are suggested by appOf, see the first test).
    expect(keysAt(['targets', 0, 'app'])).toEqual([]);
    expect(keysAt(['agents', 'default'])).toEqual(['model', 'judge', 'context', 'maxSteps', 'maxModelCalls', 'timeout', 'providerOptions', 'system', 'tools', 'executor']);
    expect(keysAt(['cache'])).toEqual(['mode', 'dir', 'strict', 'audit']);
    expect(keysAt(['secrets', 'token'])).toEqual(['value', 'origins', 'purpose']);
    expect(keysAt(['origins'])).toEqual([]);
    expect(failure({ ...base, secrets: { token: { valeu: 'x' } } }).message).toContain('unknown key `valeu` in `secrets.token` (did you mean `value`?)');
  });

  it('keeps system and tools as the built-in agent\'s options of the one entry shape', () => {
    const settings = settingsOf(resolveConfig({ ...base, agents: { default: { system: 'be brief', context: 'a shop', timeout: 9_000 } } }, {}));
    expect(settings.agents['default']).toEqual({ context: 'a shop', limits: { maxSteps: undefined, maxModelCalls: undefined, timeoutMs: 9_000 }, builtIn: { system: 'be brief' } });
  });

  it('is what defineConfig returns for this process', () => {
    expect(defineConfig(base).projects?.map((project) => project.name)).toEqual(['web']);
  });

  it('makes E2E_REPLAY=1 alone (plain `npx playwright test`) read-only and strict over a read-write config, as `e2e replay` is', () => {
    const settings = settingsOf(resolveConfig({ ...base, cache: { mode: 'read-write', strict: false } }, { E2E_REPLAY: '1' }));
    expect(settings.cache).toEqual({ mode: 'read-only', dir: '.e2e/cache', strict: true, audit: 'off' });
    expect(settings.modelFree).toBe(true);
    // An explicit mode still wins: the mode variable set to `off` with it neither replays nor records.
    expect(settingsOf(resolveConfig(base, { E2E_REPLAY: '1', [CACHE_MODE_VARIABLE]: 'off' })).cache).toMatchObject({ mode: 'off', strict: true });
  });

  it("keeps the user's reporters behind the redacting one and adds the e2e reporter", () => {
    const config = resolveConfig({ ...base, reporter: [['junit', { outputFile: 'junit.xml' }], ['./my-reporter.js']] }, {});
    expect(config.reporter).toEqual([
      [expect.stringMatching(/redacting-reporter\.(js|ts)$/) as string],
      ['junit', { outputFile: 'junit.xml' }],
      ['./my-reporter.js'],
      [expect.stringMatching(/[/\\]reporter\.(js|ts)$/) as string],
    ]);
  });
});

/**
 * Where the cache commands look for the cache without running Playwright: given folders,
 * no config, a missing `--config`. Reading `cache.dir` from a real config runs through the
 * binary in tests/cli/replay-cache.process.test.ts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLocationOf, findConfigFile } from './project-config.js';

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'e2e-project-config-'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('the cache location of a command', () => {
  it('is .e2e/cache and .e2e/hits in the working folder when there is no config', async () => {
    expect(await cacheLocationOf({ cwd: folder, env: {} })).toEqual({ cacheDirectory: join(folder, '.e2e', 'cache'), hitsDirectory: join(folder, '.e2e', 'hits') });
  });

  it('takes --cache-dir as given when there is no config, with the hit ledger in the working folder', async () => {
    expect(await cacheLocationOf({ cwd: folder, env: {}, cacheDir: '/srv/cache' })).toEqual({ cacheDirectory: '/srv/cache', hitsDirectory: join(folder, '.e2e', 'hits') });
  });

  it('takes --cache-dir and --hits-dir as given, relative to the working folder, without loading the config', async () => {
    // A config that would fail to load: it is not read when both folders are given.
    await writeFile(join(folder, 'e2e.config.ts'), "throw new Error('must not be loaded');\n");
    expect(findConfigFile(folder, undefined)).toBe(join(folder, 'e2e.config.ts'));
    expect(await cacheLocationOf({ cwd: folder, env: {}, cacheDir: 'shared/cache', hitsDir: '/tmp/hits' })).toEqual({
      cacheDirectory: join(folder, 'shared', 'cache'),
      hitsDirectory: '/tmp/hits',
    });
    // With --cache-dir alone, the hit ledger sits in the config's .e2e folder.
    expect(await cacheLocationOf({ cwd: join(folder, 'sub'), env: {}, cacheDir: 'c', config: '../e2e.config.ts' })).toEqual({
      cacheDirectory: join(folder, 'sub', 'c'),
      hitsDirectory: join(folder, '.e2e', 'hits'),
    });
  });

  it('refuses a --config that does not exist with INVALID_CONFIG', async () => {
    await expect(cacheLocationOf({ cwd: folder, env: {}, config: 'missing.config.ts' })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
  });
});

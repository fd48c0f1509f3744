import { symlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTestId } from '../../cache-format/test-id.js';
import { inventoryFromPlaywrightList, listTestInventory } from '../../launch/test-inventory.js';
import { isE2EError } from '../../errors/index.js';
import { temporaryFolder, writeFile } from '../support/cache-fixtures.js';

const REPOSITORY_ROOT = resolve(import.meta.dirname, '..', '..');

let project: string;

/** A Playwright project in a temp folder: two projects, nested describes, a test file in a sub-folder. */
beforeAll(async () => {
  project = await temporaryFolder('inventory');
  symlinkSync(join(REPOSITORY_ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
  writeFile(join(project, 'playwright.config.mjs'), "export default { testDir: 'tests', testMatch: '**/*.e2e.ts', projects: [{ name: 'web' }, { name: 'mobile' }] };\n");
  writeFile(
    join(project, 'tests', 'shop', 'cart.e2e.ts'),
    [
      "import { test } from '@playwright/test';",
      "test.describe('cart', () => {",
      "  test.describe('coupons', () => { test('applies SAVE10', async () => {}); });",
      "  test('empties › all', async () => {});",
      '});',
      "test('top level', async () => {});",
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('the test inventory for cache prune', () => {
  it('lists every test of every project with its cache test id, from Playwright list mode', async () => {
    const inventory = await listTestInventory({ configPath: join(project, 'playwright.config.mjs'), cwd: project, env: process.env });
    const ids = inventory.tests.map((test) => `${test.project} ${test.testId}`).sort();
    expect(ids).toEqual(
      [
        'mobile tests/shop/cart.e2e.ts::cart › coupons › applies SAVE10',
        'mobile tests/shop/cart.e2e.ts::cart › empties › all',
        'mobile tests/shop/cart.e2e.ts::top level',
        'web tests/shop/cart.e2e.ts::cart › coupons › applies SAVE10',
        'web tests/shop/cart.e2e.ts::cart › empties › all',
        'web tests/shop/cart.e2e.ts::top level',
      ].sort(),
    );
    expect(inventory.tests.find((test) => test.titlePath.length === 3)?.testId).toBe(formatTestId('tests/shop/cart.e2e.ts', ['cart', 'coupons', 'applies SAVE10']));
    // The same listing says where the config keeps its cache, so prune does not load the config a second time.
    expect(inventory.folders).toEqual({ configDir: project, cacheDirectory: join(project, '.e2e', 'cache') });
  });

  it('refuses a listing with errors, since an incomplete list would prune reachable entries', async () => {
    writeFile(join(project, 'tests', 'broken.e2e.ts'), "import { test } from '@playwright/test';\ntest('x', async () => { this is not typescript });\n");
    try {
      const error = await listTestInventory({ configPath: join(project, 'playwright.config.mjs'), cwd: project, env: process.env }).catch((caught: unknown) => caught);
      expect(isE2EError(error) && error.code).toBe('INVALID_CONFIG');
      expect((error as Error).message).toContain('an incomplete list would prune reachable entries');
    } finally {
      await rm(join(project, 'tests', 'broken.e2e.ts'));
    }
  });

  it('takes file paths relative to the config folder when the report roots them at testDir', () => {
    const inventory = inventoryFromPlaywrightList({
      config: { configFile: '/work/app/e2e.config.ts', rootDir: '/work/app/tests' },
      suites: [{ title: 'todos.e2e.ts', file: 'todos.e2e.ts', specs: [{ title: 'adds', file: 'todos.e2e.ts', tests: [{ projectName: 'web' }] }] }],
    });
    expect(inventory.tests).toEqual([{ testId: 'tests/todos.e2e.ts::adds', project: 'web', file: 'tests/todos.e2e.ts', titlePath: ['adds'] }]);
  });
});

/**
 * The browser and process tiers' global setup (vitest.config.ts): one Chromium per worker,
 * launched once for the whole run as a Playwright browser server, instead of one per test file
 * or per CLI run. A browser-tier file reaches its worker's browser through `web({ connect })`
 * (`test-browser.ts`); a process-tier fixture run gets its endpoint in `E2E_FIXTURE_BROWSER_SERVER`
 * (`tests/runner/support/e2e-process.ts`) and connects when its project says so
 * (`tests/runner/fixtures/shared/fixture-web.ts`). Each attempt still gets a fresh context, and a
 * client's contexts close when it disconnects.
 */
import { chromium, type BrowserServer } from '@playwright/test';
import type { TestProject } from 'vitest/node';
import { resolveLaunchOptions } from '../../engines/web/browser-discovery.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The browser server of each worker, by `VITEST_POOL_ID` − 1. */
    chromiumEndpoints: string[];
  }
}

/** Launch as many browser servers as the project has workers; closes them at the end of the run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const workers = Math.max(1, project.config.maxWorkers || project.vitest.config.maxWorkers || 1);
  const launch = resolveLaunchOptions({ env: process.env });
  const servers: BrowserServer[] = await Promise.all(
    Array.from({ length: workers }, () => chromium.launchServer({ executablePath: launch.executablePath, args: [...launch.args], headless: true, host: '127.0.0.1' })),
  );
  project.provide('chromiumEndpoints', servers.map((server) => server.wsEndpoint()));
  return async () => {
    await Promise.all(servers.map((server) => server.close()));
  };
}

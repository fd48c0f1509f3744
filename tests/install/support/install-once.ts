/**
 * The install tier's global setup (vitest.config.ts): `dist/` built, this project packed once,
 * and the tarball installed once into each template project the tests copy (`copyOfTemplate`):
 * one with the newest `@playwright/test` of the peer range, one with the oldest. The templates
 * and the tarball sit in one folder, so the `file:` path npm wrote into each template's
 * `package.json` still names the tarball from a copy beside it.
 */
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureBuilt } from '../../runner/support/build.js';
import { freshProject, packTarball, PLAYWRIGHT_RANGE, type InstalledTemplates } from './packed-project.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** What the install tier installed once. */
    installed: InstalledTemplates;
  }
}

/** Pack, install both templates at once (npm mostly waits on its cache), and remove it all at the end. */
export default async function setup(project: TestProject): Promise<() => void> {
  ensureBuilt();
  const folder = mkdtempSync(join(tmpdir(), 'e2e-install-'));
  const tarball = packTarball(folder);
  const [newest, oldest] = await Promise.all([
    freshProject(join(folder, 'template-newest'), { kind: 'commonjs', tarball, playwrightTest: PLAYWRIGHT_RANGE.newest }),
    freshProject(join(folder, 'template-oldest'), { kind: 'commonjs', tarball, playwrightTest: PLAYWRIGHT_RANGE.oldest }),
  ]);
  project.provide('installed', { folder, tarball, templates: { newest, oldest } });
  return () => rmSync(folder, { recursive: true, force: true });
}

/**
 * The public types as a user's project sees them: a small project that imports only `e2e`,
 * `e2e/engine` and `e2e/web` (resolved through the package's self-reference to the built
 * `dist/` declarations) is type-checked with `tsc --noEmit`. Its `@ts-expect-error` lines
 * prove the negatives: an unused one fails the check.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { scaledTimeout } from '../support/load-scaled.js';
import { ensureBuilt, ROOT } from '../runner/support/build.js';

const PROJECT = fileURLToPath(new URL('./fixtures/public-contract/', import.meta.url));

beforeAll(() => {
  ensureBuilt();
});

describe('the public contract types', () => {
  it('type-check an executor using every documented context member and action, the config shape and the step options', () => {
    const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', PROJECT, '--noEmit'], { cwd: PROJECT, encoding: 'utf8' });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  }, scaledTimeout(120_000));
});

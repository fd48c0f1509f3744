/**
 * The seeds promise that the `e2e` and `e2e/engine` types compile without the `ai` package: an
 * engine author may have no model at all. A project with an engine of its own and a scripted
 * executor is type-checked with `skipLibCheck: false` (so every declaration it reaches is
 * checked, as a careful project does) and with `ai` and `@ai-sdk/*` mapped to nothing: no
 * declaration on the way from `e2e` or `e2e/engine` may reach the AI SDK (whose own
 * declarations need the `json-schema` types, which a project without the SDK does not have).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { scaledTimeout } from '../support/load-scaled.js';
import { ensureBuilt, ROOT } from '../runner/support/build.js';

const PROJECT = fileURLToPath(new URL('./fixtures/no-model/', import.meta.url));

beforeAll(() => {
  ensureBuilt();
});

describe('the e2e and e2e/engine types in a project with no model', () => {
  it('compile with skipLibCheck off and the AI SDK out of reach', () => {
    const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', PROJECT, '--noEmit'], { cwd: PROJECT, encoding: 'utf8' });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  }, scaledTimeout(120_000));
});

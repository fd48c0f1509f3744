/**
 * The run's mode reaches the runner in one run request: no code outside the request's
 * compatibility reader names `E2E_CACHE_MODE`, `E2E_CACHE_STRICT`, `E2E_REPLAY` or the
 * variables that are gone, and only the runner entry, the pure config, the hints and `e2e run`
 * turn the environment into a request (`scripts/check-imports.mjs`, run by `npm run check:imports`).
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without declarations.
import { checkedFiles, modeVariableProblems } from '../../scripts/check-imports.mjs';

const problemsOf = modeVariableProblems as (file: string, source: string) => string[];

describe('the variables that carried the run mode', () => {
  it('are named by no code of the repository but the run request reader', () => {
    const files = [...(checkedFiles as () => Iterable<{ file: string; source: string }>)()];
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(({ file, source }) => problemsOf(file, source))).toEqual([]);
  });

  it('are caught where a module reads one on its own, a gone one included', () => {
    expect(problemsOf('step-cache/act-cache.ts', "const strict = process.env['E2E_CACHE_STRICT'] === '1';")).toEqual([
      'step-cache/act-cache.ts: names E2E_CACHE_STRICT; the run\'s mode comes from the run request (runner/run-request.ts), not from the environment',
    ]);
    expect(problemsOf('launch/start-run.ts', 'env.E2E_AUDIT_PLAN = path;')).toHaveLength(1);
    expect(problemsOf('runner/fixtures.ts', "import { requestFromVariables } from './run-request.js';")).toEqual([
      expect.stringContaining('runner/fixtures.ts: uses requestFromVariables; only runner/run-request.ts,'),
    ]);
  });

  it('may still be set by tests and named by the reader itself', () => {
    expect(problemsOf('tests/cli/replay.process.test.ts', "env: { E2E_REPLAY: '1' }")).toEqual([]);
    expect(problemsOf('runner/run-request.ts', "export const CACHE_MODE_VARIABLE = 'E2E_CACHE_MODE';")).toEqual([]);
  });
});

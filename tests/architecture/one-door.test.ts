/**
 * One door per capability, checked over the whole repository by `scripts/check-imports.mjs`
 * (`npm run check:imports` runs the same checks):
 * - the run's mode reaches the runner in one run request: no code outside the request's
 *   compatibility reader names `E2E_CACHE_MODE`, `E2E_CACHE_STRICT`, `E2E_REPLAY` or the
 *   variables that are gone, and only the runner entry, the pure config, the hints and `e2e run`
 *   turn the environment into a request;
 * - no module redacts on its own: a redactor is called only at the boundaries the REDACTION
 *   table names (the attempt's outbound boundary, what the model is shown, cache keys,
 *   Playwright's own output), so a record is redacted once, where it leaves.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without declarations.
import { checkedFiles, modeVariableProblems, REDACTION, redactionProblems } from '../../scripts/check-imports.mjs';

type Check = (file: string, source: string) => string[];
const modeProblemsOf = modeVariableProblems as Check;
const redactionProblemsOf = redactionProblems as Check;

/** Every checked file of the repository with its source. */
function repositoryFiles(): Array<{ file: string; source: string }> {
  const files = [...(checkedFiles as () => Iterable<{ file: string; source: string }>)()];
  expect(files.length).toBeGreaterThan(100);
  return files;
}

describe('the variables that carried the run mode', () => {
  it('are named by no code of the repository but the run request reader', () => {
    expect(repositoryFiles().flatMap(({ file, source }) => modeProblemsOf(file, source))).toEqual([]);
  });

  it('are caught where a module reads one on its own, a gone one included', () => {
    expect(modeProblemsOf('step-cache/act-cache.ts', "const strict = process.env['E2E_CACHE_STRICT'] === '1';")).toEqual([
      "step-cache/act-cache.ts: names E2E_CACHE_STRICT; the run's mode comes from the run request (runner/run-request.ts), not from the environment",
    ]);
    expect(modeProblemsOf('launch/start-run.ts', 'env.E2E_AUDIT_PLAN = path;')).toHaveLength(1);
    expect(modeProblemsOf('runner/fixtures.ts', "import { requestFromVariables } from './run-request.js';")).toEqual([
      expect.stringContaining('runner/fixtures.ts: uses requestFromVariables; only runner/run-request.ts,'),
    ]);
  });

  it('may still be set by tests and named by the reader itself', () => {
    expect(modeProblemsOf('tests/cli/replay.process.test.ts', "env: { E2E_REPLAY: '1' }")).toEqual([]);
    expect(modeProblemsOf('runner/run-request.ts', "export const CACHE_MODE_VARIABLE = 'E2E_CACHE_MODE';")).toEqual([]);
  });
});

describe('where redaction happens', () => {
  it('only at the named boundaries, in the whole repository, and each named file still redacts', () => {
    const files = repositoryFiles();
    expect(files.flatMap(({ file, source }) => redactionProblemsOf(file, source))).toEqual([]);
    const redacting = new Set(files.filter(({ source }) => (REDACTION as { pattern: RegExp }).pattern.test(source)).map(({ file }) => file));
    expect(Object.keys((REDACTION as { by: Record<string, string> }).by).filter((file) => !redacting.has(file))).toEqual([]);
  });

  it('is caught in a module that redacts a record on its own', () => {
    expect(redactionProblemsOf('step-cache/cache-writes.ts', 'const message = targets.redact(`could not update ${label}`);')).toEqual([
      "step-cache/cache-writes.ts: redacts on its own (.redact(); let the text leave by the attempt's outbound boundary (secrets/outbound.ts), or name the boundary this file is in REDACTION",
    ]);
    expect(redactionProblemsOf('runner/reporter.ts', 'return redactDeep(report, (text) => this.#vault.redact(text));')).toHaveLength(1);
    expect(redactionProblemsOf('step/step-pipeline.ts', 'x')).toEqual([]);
    expect(redactionProblemsOf('tests/faults/secret-echo.browser.test.ts', 'vault.redact(text)')).toEqual([]);
  });
});

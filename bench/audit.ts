/**
 * Bench section `audit`: what `e2e cache audit` costs, through the real binary on the audit
 * fixture (React TodoMVC, two tests, four entries), one worker so tests do not overlap. The
 * suite is recorded once (not timed); then, on the same cache, `e2e replay` (a warm-up, not
 * timed), `e2e replay`, `e2e cache audit` and `e2e replay` again: the replay figure is the mean
 * of the two replays either side of the audit, so a load that moves during the bench moves both.
 *
 * Figures: `audit_ms_per_mutant` (the audit's wall time over its mutants: process start, the
 * control runs and every mutant's run, as a user pays it), `audit_replay_ms_per_test` and
 * `audit_run_ms_per_test` (wall time over Playwright tests, for the replay and for the audit:
 * mutants and controls), and `audit_vs_replay_ratio` (one mutant's run vs one replay of the
 * same test: the two per-test figures divided). The audit runs a test's mutants in copies of the
 * test in one project (one worker and one browser for many), and a caught mutant's
 * step stops once its screen held still for 1 s rather than after the 5 s end-state wait.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../tests/runner/support/build.js';
import { runE2E } from '../tests/runner/support/e2e-process.js';
import { folderRoute, serveStatic } from '../tests/support/static-server.js';
import type { BenchContext, BenchSection } from './run.js';

const FIXTURE = fileURLToPath(new URL('../tests/cli/fixtures/audit', import.meta.url));
const REACT = join(dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples', 'react');
/** Playwright tests of the fixture's suite. */
const SUITE_TESTS = 2;

async function measure(context: BenchContext): Promise<Record<string, number>> {
  ensureBuilt();
  const server = await serveStatic(undefined);
  server.route(folderRoute(() => REACT));
  const work = mkdtempSync(join(tmpdir(), 'e2e-bench-audit-'));
  const env = { E2E_FIXTURE_APP_URL: server.url, E2E_FIXTURE_CACHE_DIR: join(work, 'cache'), E2E_FIXTURE_WORKERS: '1' };
  try {
    rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
    const recorded = await runE2E(['record'], { cwd: FIXTURE, env });
    if (recorded.exitCode !== 0) throw new Error(`the audit bench could not record its suite:\n${recorded.stdout}${recorded.stderr}`);
    const replay = async (): Promise<number> => {
      const started = performance.now();
      const replayed = await runE2E(['replay'], { cwd: FIXTURE, env });
      if (replayed.exitCode !== 0) throw new Error(`the audit bench's replay failed:\n${replayed.stdout}${replayed.stderr}`);
      return performance.now() - started;
    };
    // A first replay warms what every later run reuses (Playwright's transform cache); it is not timed.
    context.log('audit: replaying the suite (warm-up, then once before and once after the audit)');
    await replay();
    const before = await replay();
    context.log('audit: auditing the suite');
    const started = performance.now();
    const audited = await runE2E(['cache', 'audit', '--json'], { cwd: FIXTURE, env });
    const auditMs = performance.now() - started;
    if (audited.exitCode !== 0) throw new Error(`the audit bench's audit failed:\n${audited.stderr}`);
    // The replays either side of the audit, averaged: the machine's load moves less between them than across one run.
    const replayMs = (before + (await replay())) / 2;
    const audit = JSON.parse(audited.stdout) as { total: number; notRun: number; mutants: unknown[] };
    const mutants = audit.mutants.length;
    const auditTests = mutants + SUITE_TESTS;
    const perMutantTest = auditMs / auditTests;
    const perReplayTest = replayMs / SUITE_TESTS;
    return {
      audit_mutants: mutants,
      audit_ms_per_mutant: Math.round(auditMs / mutants),
      audit_run_ms_per_test: Math.round(perMutantTest),
      audit_replay_ms_per_test: Math.round(perReplayTest),
      audit_vs_replay_ratio: Number((perMutantTest / perReplayTest).toFixed(2)),
    };
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
    rmSync(join(FIXTURE, '.e2e'), { recursive: true, force: true });
  }
}

/** The section. */
export const auditSection: BenchSection = { name: 'audit', run: measure };

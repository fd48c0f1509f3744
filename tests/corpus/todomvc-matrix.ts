/**
 * `npm run matrix`: the TodoMVC matrix through the built binary (tests/corpus/support/todo-matrix.ts).
 * Records `add todo "Buy milk" and complete it` with a plain `e2e record` on each implementation
 * with planted regressions, then replays every recording model-free (`e2e replay`) on every
 * planted regression and on every implementation, and prints both tables cell by cell. Exits 1
 * when a planted regression's step was passed by the cache, when a replayed step's `expect` then
 * failed, or when a recording replays on fewer than all but one implementation.
 *
 *   npm run matrix              # all of it (about 28 runs of the binary)
 *   npm run matrix -- vue react # only these recordings and their mutants
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusTable } from './support/corpus-step.js';
import { describeCell, TodoMatrix, type MatrixCell } from './support/todo-matrix.js';
import { MUTANT_KINDS, MUTATED_IMPLEMENTATIONS, plantMutant, TODOMVC_EXAMPLES, TODOMVC_IMPLEMENTATIONS, type MutatedImplementation } from './support/todo-mutants.js';

const chosen = process.argv.slice(2);
const recordings = MUTATED_IMPLEMENTATIONS.filter((app) => chosen.length === 0 || chosen.includes(app));
const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const log = (line: string): void => void process.stderr.write(`${line}\n`);

const work = mkdtempSync(join(tmpdir(), 'e2e-matrix-'));
const matrix = new TodoMatrix(join(work, 'cache'));
const problems: string[] = [];
const started = Date.now();
log(`load at start: ${load()}`);
await matrix.start();
try {
  for (const app of recordings) {
    const { run, cells } = await matrix.record(app);
    const cell = cells[app];
    if (run.exitCode !== 0 || cell?.cache?.write !== 'saved') throw new Error(`recording on ${app} failed (exit ${run.exitCode}): ${run.stdout.slice(-2000)}${run.stderr.slice(-2000)}`);
    log(`recorded on ${app}`);
  }

  // Direction 1: planted regressions, every recording on every mutant. Never passed by the cache.
  const regressionRows: string[][] = [['planted regression', ...recordings.map((app) => `recorded on ${app}`)]];
  let mutantCells = 0;
  let passedMutants = 0;
  for (const app of recordings) {
    for (const kind of MUTANT_KINDS) {
      const folder = plantMutant(app, kind);
      try {
        const { cells } = await matrix.replay(folder);
        const row = [`${app}: ${kind}`];
        for (const recordedOn of recordings) {
          const cell: MatrixCell | undefined = cells[recordedOn];
          mutantCells++;
          if (cell === undefined || cell.passedByCache) {
            passedMutants++;
            problems.push(`${app} / ${kind}, recorded on ${recordedOn}: ${cell === undefined ? 'not run' : `passed by the cache (${cell.cache?.detail ?? 'no detail'})`}`);
          }
          row.push(`${describeCell(cell)}${cell?.testPassed === true ? ' (expect passed)' : ''}`);
        }
        regressionRows.push(row);
        log(`${app}: ${kind} done`);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    }
  }

  // Direction 2: every recording on every implementation of the same spec.
  const replayed = new Map<MutatedImplementation, number>(recordings.map((app) => [app, 0]));
  const crossRows: string[][] = [['implementation', ...recordings.map((app) => `recorded on ${app}`)]];
  let falsePasses = 0;
  for (const target of TODOMVC_IMPLEMENTATIONS) {
    const { cells } = await matrix.replay(join(TODOMVC_EXAMPLES, target));
    const row: string[] = [target];
    for (const recordedOn of recordings) {
      const cell = cells[recordedOn];
      if (cell?.passedByCache === true) replayed.set(recordedOn, replayed.get(recordedOn)! + 1);
      if (cell?.passedByCache === true && !cell.testPassed) {
        falsePasses++;
        problems.push(`recorded on ${recordedOn}, replayed on ${target}: passed by the cache, then the test's expect failed`);
      }
      row.push(describeCell(cell));
    }
    crossRows.push(row);
    log(`replayed on ${target}`);
  }
  for (const [recordedOn, count] of replayed) {
    if (count < TODOMVC_IMPLEMENTATIONS.length - 1) problems.push(`recorded on ${recordedOn}: replayed model-free on ${count} of ${TODOMVC_IMPLEMENTATIONS.length}`);
  }

  process.stdout.write(`\nPlanted regressions (model-free e2e replay; each cell is the step's own result.cache)\n${corpusTable(regressionRows)}\n`);
  process.stdout.write(`never passed by the cache: ${mutantCells - passedMutants} of ${mutantCells}\n`);
  process.stdout.write(`\nOther implementations of the same spec (model-free e2e replay)\n${corpusTable(crossRows)}\n`);
  process.stdout.write(
    `replayed model-free: ${recordings.map((app) => `${replayed.get(app)!} of ${TODOMVC_IMPLEMENTATIONS.length} recorded on ${app}`).join(', ')}; passed by the cache, then the expect failed: ${falsePasses}\n`,
  );
  process.stdout.write(`\n${Math.round((Date.now() - started) / 1000)} s; load at the end: ${load()}\n`);
} finally {
  await matrix.stop();
  rmSync(work, { recursive: true, force: true });
}
if (problems.length > 0) {
  process.stdout.write(`\nProblems:\n${problems.map((problem) => `  ${problem}`).join('\n')}\n`);
  process.exitCode = 1;
}

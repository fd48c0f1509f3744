/**
 * A vitest reporter that notes how long each test file took, from its start to its end (setup,
 * collection, hooks and tests), into `tests/durations.json`, which `tier-sequencer.ts` reads to
 * start the longest files first. Refresh it after a full run on a quiet machine:
 * `npx vitest run --reporter=default --reporter=./tests/support/durations-reporter.ts`.
 * Files that failed or did not run keep their old figure.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Reporter, TestModule } from 'vitest/node';

/** Where the figures live: `<project>:<file relative to the repository>` → seconds. */
export const DURATIONS_FILE = fileURLToPath(new URL('../durations.json', import.meta.url));

/** The figures of the last refresh, or none. */
export function readDurations(): Record<string, number> {
  if (!existsSync(DURATIONS_FILE)) return {};
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** The key of a file in {@link DURATIONS_FILE}. */
export function durationKey(project: string, file: string): string {
  return `${project}:${file}`;
}

/** Notes each passed file's wall time, and writes the merged figures when the run ends. */
export default class DurationsReporter implements Reporter {
  readonly #started = new Map<string, number>();
  readonly #measured = new Map<string, number>();

  onTestModuleStart(module: TestModule): void {
    this.#started.set(module.moduleId, performance.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const started = this.#started.get(module.moduleId);
    if (started === undefined || module.state() !== 'passed') return;
    this.#measured.set(durationKey(module.project.name, module.relativeModuleId), Math.round((performance.now() - started) / 100) / 10);
  }

  onTestRunEnd(): void {
    if (this.#measured.size === 0) return;
    const merged = { ...readDurations(), ...Object.fromEntries(this.#measured) };
    const sorted = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    writeFileSync(DURATIONS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}

/**
 * The order test files start in (vitest `sequence.sequencer`): the longest first, so on two
 * workers the long files start early and the short ones fill the end, also in a fresh clone,
 * which has no vitest cache. A file's length is its figure in `tests/durations.json`
 * (`durations-reporter.ts`), else its tier's usual length.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { durationKey, readDurations } from './durations-reporter.js';

/** Seconds a file of each tier usually takes, for files with no figure yet. */
export const TIER_USUAL_SECONDS: Readonly<Record<string, number>> = { install: 60, process: 30, browser: 10, unit: 1 };

/** Longest first. */
export class TierSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readDurations();
    const root = this.ctx.config.root;
    const expected = (spec: TestSpecification): number => {
      const file = spec.moduleId.startsWith(`${root}/`) ? spec.moduleId.slice(root.length + 1) : spec.moduleId;
      return durations[durationKey(spec.project.name, file)] ?? TIER_USUAL_SECONDS[spec.project.name] ?? 1;
    };
    return [...files].sort((a, b) => expected(b) - expected(a));
  }
}

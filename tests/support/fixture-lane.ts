/**
 * A lane of a fixture project: a copy of its config and test files in a sibling folder, so runs
 * of one fixture can go side by side, each writing its own `.e2e/` (report, ledgers, audit,
 * Playwright's output), which runs in one folder would overwrite. The copy sits at the same
 * depth, so the config's relative imports still resolve, and its test files keep their paths
 * relative to the config, so a lane's cache keys are the fixture's own: a lane replays what the
 * fixture recorded (given the same cache folder).
 */
import { cpSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The folder name every lane starts with (the fixtures' `.gitignore` ignores it). */
export const LANE_PREFIX = '.lane-';

/** A lane: its folder (the `cwd` of its runs) and how to remove it. */
export interface FixtureLane {
  folder: string;
  remove(): void;
}

/**
 * Copy `fixture` (a project folder) into the sibling `.lane-<fixture>-<name>`, leaving out what
 * runs write (`.e2e/`, `test-results/`). A lane of the same name is replaced.
 */
export function fixtureLane(fixture: string, name: string): FixtureLane {
  const folder = join(dirname(fixture), `${LANE_PREFIX}${basename(fixture)}-${name}`);
  rmSync(folder, { recursive: true, force: true });
  cpSync(fixture, folder, { recursive: true, filter: (source) => !['.e2e', 'test-results'].includes(basename(source)) });
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

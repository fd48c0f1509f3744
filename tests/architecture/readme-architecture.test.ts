/**
 * The README's "Architecture" picture is the import table of `scripts/check-imports.mjs`,
 * the table allows only what the code imports, and each folder README's file table lists
 * exactly the folder's files.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without declarations.
import { architectureLines } from '../../scripts/architecture.mjs';
// @ts-expect-error: a plain ESM script without declarations.
import { RULES, unusedAllowances } from '../../scripts/check-imports.mjs';
import { ROOT } from '../runner/support/build.js';

const MARKER = '<!-- architecture: printed by node scripts/architecture.mjs -->\n```text\n';

/** The file names in the first cell of each row of a README's tables. */
function filesListedIn(readme: string): Set<string> {
  const listed = new Set<string>();
  for (const line of readme.split('\n')) {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (cell !== undefined) for (const match of cell.matchAll(/`([\w.-]+\.(?:ts|mjs|sh))`/g)) listed.add(match[1]!);
  }
  return listed;
}

describe('the architecture', () => {
  it("README's picture is what scripts/architecture.mjs prints from the import table", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf(MARKER);
    expect(start).toBeGreaterThan(0);
    const body = readme.slice(start + MARKER.length, readme.indexOf('```', start + MARKER.length));
    expect(body.trimEnd().split('\n')).toEqual(architectureLines() as string[]);
  });

  it('the import table allows only what the code imports', () => {
    expect(unusedAllowances()).toEqual([]);
  });

  it("every folder README with a file table lists exactly the folder's files", () => {
    const checked: string[] = [];
    for (const folder of Object.keys(RULES as Record<string, unknown>)) {
      const path = join(ROOT, folder, 'README.md');
      if (!existsSync(path)) continue;
      const listed = filesListedIn(readFileSync(path, 'utf8'));
      if (listed.size === 0) continue;
      checked.push(folder);
      const files = readdirSync(join(ROOT, folder)).filter((name) => /\.(ts|mjs|sh)$/.test(name) && !name.endsWith('.test.ts'));
      expect({ folder, unlisted: files.filter((name) => !listed.has(name)), gone: [...listed].filter((name) => !files.includes(name)) }).toEqual({ folder, unlisted: [], gone: [] });
    }
    expect(checked).toEqual(expect.arrayContaining(['errors', 'contract', 'executor', 'step', 'step-cache']));
  });
});

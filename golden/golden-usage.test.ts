/**
 * The golden suite's own rules: every golden file is read by some test (a golden no test
 * uses would pin nothing), and CI never rewrites one.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GOLDEN_FOLDER, compareGolden } from '../tests/support/golden-file.js';

const ROOT = resolve(GOLDEN_FOLDER, '..');
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.git', '.e2e', 'test-results', 'playwright-report']);

function filesUnder(folder: string, keep: (path: string) => boolean): string[] {
  const found: string[] = [];
  for (const name of readdirSync(folder)) {
    if (SKIPPED_FOLDERS.has(name)) continue;
    const path = join(folder, name);
    if (statSync(path).isDirectory()) found.push(...filesUnder(path, keep));
    else if (keep(path)) found.push(path);
  }
  return found;
}

describe('the golden suite', () => {
  it('has no golden file that no test reads', () => {
    const goldens = filesUnder(GOLDEN_FOLDER, (path) => !path.endsWith('.ts')).map((path) => relative(GOLDEN_FOLDER, path));
    const sources = filesUnder(ROOT, (path) => path.endsWith('.ts') && !path.endsWith('golden-usage.test.ts'))
      .map((path) => readFileSync(path, 'utf8'))
      .join('\n');
    // A test names a golden by its path below golden/, whole or as a template whose fixed parts
    // remain, or reads its whole folder (`golden/<folder>/`) and checks every file in it.
    const unused = goldens.filter((golden) => {
      const withoutExtension = golden.replace(/\.[^./]+$/, '');
      const stem = withoutExtension.replace(/-[^-/]*$/, '');
      const folder = golden.includes('/') ? golden.slice(0, golden.lastIndexOf('/') + 1) : undefined;
      return (
        !sources.includes(golden) &&
        !sources.includes(withoutExtension) &&
        !sources.includes(`${stem}-\${`) &&
        (folder === undefined || !sources.includes(`golden/${folder}'`))
      );
    });
    expect(goldens.length).toBeGreaterThan(0);
    expect(unused).toEqual([]);
  });

  it('refuses to rewrite a golden file when CI is set', async () => {
    const previous = process.env['CI'];
    process.env['CI'] = 'true';
    try {
      await expect(compareGolden('screens/web-fixture.txt', 'anything', { update: true })).rejects.toThrow(/Refusing to rewrite/);
    } finally {
      if (previous === undefined) delete process.env['CI'];
      else process.env['CI'] = previous;
    }
  });
});

/**
 * The `testId` key part (DESIGN §6: "test id (file + title path)"): the test file relative to
 * the config's folder, with `/` separators, then `::`, then the title path (describe blocks
 * and the test title) joined by ` › `. Readable in `cache ls`, stable across machines, and the
 * same string the runner writes into keys and `e2e cache prune` rebuilds from Playwright's
 * test list.
 */

/** Separator between the file and the title path. */
export const TEST_ID_FILE_SEPARATOR = '::';
/** Separator between titles of the title path (Playwright's own). */
export const TEST_ID_TITLE_SEPARATOR = ' › ';

/** The test id of the test at `file` (relative to the config's folder) with `titlePath` (describe titles, then the test title). */
export function formatTestId(file: string, titlePath: readonly string[]): string {
  return `${file.replace(/\\/g, '/')}${TEST_ID_FILE_SEPARATOR}${titlePath.join(TEST_ID_TITLE_SEPARATOR)}`;
}

/** A test id's file (undefined when it has no `::`) and its title path. */
export function splitTestId(testId: string): { file: string | undefined; title: string } {
  const cut = testId.indexOf(TEST_ID_FILE_SEPARATOR);
  return cut === -1 ? { file: undefined, title: testId } : { file: testId.slice(0, cut), title: testId.slice(cut + TEST_ID_FILE_SEPARATOR.length) };
}

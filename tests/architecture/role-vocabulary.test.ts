/**
 * The role vocabulary has one home per platform (issue 33), checked over the whole repository by
 * `scripts/check-imports.mjs` (`npm run check:imports` runs the same check): the role groups the
 * core gives meaning to live in `contract/roles.ts`, the web's mapping in its in-page semantics,
 * the terminal's in its screen locator; a role list written anywhere else is a second list that
 * drifts from the first.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without declarations.
import { checkedFiles, ROLE_VOCABULARY, roleVocabularyProblems } from '../../scripts/check-imports.mjs';

type Check = (file: string, source: string) => string[];
const problemsOf = roleVocabularyProblems as Check;

describe('the role vocabulary', () => {
  it('has one home per platform: no file of the repository keeps a role list of its own', () => {
    const files = [...(checkedFiles as () => Iterable<{ file: string; source: string }>)()];
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(({ file, source }) => problemsOf(file, source))).toEqual([]);
    expect(Object.keys((ROLE_VOCABULARY as { homes: Record<string, string> }).homes).sort()).toEqual(['contract/roles.ts', 'engines/terminal/screen-locator.ts', 'engines/web/page-semantics.ts']);
  });

  it('catches a role list planted outside its homes, typed or not, and lets a set of common words be', () => {
    expect(problemsOf('semantics/planted.ts', "const EDITABLE: ReadonlySet<string> = new Set(['textbox', 'searchbox']);")).toEqual([
      'semantics/planted.ts: a role list of its own (textbox, searchbox); use the role groups of contract/roles.ts, or name this platform\'s home in ROLE_VOCABULARY',
    ]);
    expect(problemsOf('step/planted.ts', "const KINDS = new Set<string>(['dialog', 'alertdialog', 'region']);")).toHaveLength(1);
    expect(problemsOf('secrets/words.ts', "const WORDS = new Set(['password', 'secret', 'button', 'link', 'admin', 'letmein', 'welcome']);")).toEqual([]);
    expect(problemsOf('contract/roles.ts', "export const X = new Set(['textbox', 'searchbox']);")).toEqual([]);
    expect(problemsOf('tests/support/anything.ts', "new Set(['textbox', 'searchbox'])")).toEqual([]);
  });
});

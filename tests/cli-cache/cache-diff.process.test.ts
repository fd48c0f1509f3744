import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobPath } from '../../cache-format/index.js';
import { diffCache, type CacheDiffResult } from '../../review/cache-diff.js';
import { renderDiff, renderDiffMarkdown, renderDiffText } from '../../review/cache-diff-render.js';
import { isE2EError } from '../../errors/index.js';
import { compareGolden } from '../support/golden-file.js';
import { blobOf, commitAll, git, temporaryFolder, writeEntries, writeFile } from '../support/cache-fixtures.js';
import { baseEntries, headEntries } from './support/diff-scenario.js';

const update = process.env['UPDATE_GOLDEN'] === '1';

let repository: string;
let cacheDirectory: string;
let betweenCommits: CacheDiffResult;

async function expectGolden(path: string, actual: string): Promise<void> {
  const result = await compareGolden(path, actual, { update });
  if (result.kind === 'missing') throw new Error(`golden/${path} is missing; run the tests with UPDATE_GOLDEN=1 once and review it`);
  if (result.kind === 'differs') expect(actual.endsWith('\n') ? actual : `${actual}\n`).toBe(result.expected);
  expect(['matched', 'written']).toContain(result.kind);
}

/** The result with the state labels taken out, to compare the same change read from different places. */
function withoutLabels(result: CacheDiffResult): Omit<CacheDiffResult, 'base' | 'head'> {
  const { base: _base, head: _head, ...rest } = result;
  return rest;
}

beforeAll(async () => {
  repository = await temporaryFolder('cache-diff');
  cacheDirectory = join(repository, '.e2e', 'cache');
  git(repository, 'init', '-q');
  await writeEntries(cacheDirectory, await baseEntries());
  commitAll(repository, 'base cache');
  git(repository, 'tag', 'base');
  await rm(cacheDirectory, { recursive: true });
  await writeEntries(cacheDirectory, await headEntries());
  commitAll(repository, 'head cache');
  git(repository, 'tag', 'head');
  betweenCommits = await diffCache({ cwd: repository, cacheDirectory, base: 'base', head: 'head' });
});

afterAll(async () => {
  await rm(repository, { recursive: true, force: true });
});

describe('e2e cache diff between two git revisions', () => {
  it('counts every kind of change and leaves equal entries out', () => {
    expect(betweenCommits.counts).toEqual({ added: 1, removed: 1, rekeyed: 1, changed: 3, unchanged: 2, unreadable: 0 });
    expect(betweenCommits.tests.map((test) => test.testId)).toEqual([
      'tests/checkout.e2e.ts::checkout › applies a coupon and pays',
      'tests/profile.e2e.ts::profile › edits the name',
      'tests/search.e2e.ts::search › finds a product',
      'tests/signup.e2e.ts::signup › creates an account',
      'tests/todos.e2e.ts::todos › adds a todo',
    ]);
  });

  it('shows a changed action as a line diff of sentences', () => {
    const text = renderDiffText(betweenCommits);
    expect(text).toContain('- tap button "Apply"');
    expect(text).toContain('+ tap button "Redeem"');
    expect(text).toContain('- appeared: status "Coupon applied"');
    expect(text).toContain('+ appeared: status "Coupon redeemed"');
  });

  it('names the key part that changed for a re-keyed entry', () => {
    const rekeyed = betweenCommits.tests.flatMap((test) => test.steps).find((step) => step.change === 'rekeyed');
    expect(rekeyed?.change === 'rekeyed' ? rekeyed.keyChanges : undefined).toEqual([{ part: 'the instruction', base: 'search for shoes', head: 'search for red shoes' }]);
  });

  it('flags a new origin, fewer end checks, an end proven weakly and literals that look like a card number or an email address, masked', () => {
    expect(betweenCommits.risks.map((risk) => risk.kind)).toEqual(['new-origin', 'fewer-end-checks', 'weak-end-check', 'sensitive-value', 'sensitive-value']);
    const details = betweenCommits.risks.map((risk) => risk.detail).join('\n');
    expect(details).toContain('https://pay.example.com');
    expect(details).toContain('3 → 1 end checks');
    expect(details).toContain('its end is proven weakly (only 1 incidental control)');
    expect(details).toContain('a card number: "4242…" (19 characters)');
    expect(details).toContain('an email address: "jane…" (20 characters)');
    expect(details).not.toContain('jane.doe@example.com');
  });

  it('reports a step that became a gap', () => {
    expect(renderDiffText(betweenCommits)).toContain('became a gap: gap: mutating project tool seedTodos');
  });

  it('matches the text golden', async () => {
    await expectGolden('cache-diff/shop.txt', renderDiff(betweenCommits, 'text'));
  });

  it('matches the markdown golden', async () => {
    await expectGolden('cache-diff/shop.md', renderDiffMarkdown(betweenCommits));
  });

  it('matches the json golden', async () => {
    await expectGolden('cache-diff/shop.json', renderDiff(betweenCommits, 'json'));
  });
});

describe('e2e cache diff against the working tree and folders', () => {
  it('compares HEAD with the uncommitted working tree by default', async () => {
    const worktree = await temporaryFolder('cache-diff-worktree');
    try {
      git(repository, 'worktree', 'add', '-q', '--detach', worktree, 'base');
      const worktreeCache = join(worktree, '.e2e', 'cache');
      await rm(worktreeCache, { recursive: true });
      await writeEntries(worktreeCache, await headEntries());
      const result = await diffCache({ cwd: worktree, cacheDirectory: worktreeCache });
      expect([result.base, result.head]).toEqual(['HEAD', 'working tree']);
      expect(withoutLabels(result)).toEqual(withoutLabels(betweenCommits));
    } finally {
      git(repository, 'worktree', 'remove', '--force', worktree);
    }
  });

  it('compares two cache folders', async () => {
    const folders = await temporaryFolder('cache-diff-folders');
    try {
      await writeEntries(join(folders, 'base'), await baseEntries());
      await writeEntries(join(folders, 'head'), await headEntries());
      const result = await diffCache({ cwd: folders, cacheDirectory: join(folders, 'head'), base: 'base', head: 'head' });
      expect([result.base, result.head]).toEqual(['base', 'head']);
      expect(withoutLabels(result)).toEqual(withoutLabels(betweenCommits));
    } finally {
      await rm(folders, { recursive: true, force: true });
    }
  });

  it('says there is no change when the states are equal', async () => {
    const result = await diffCache({ cwd: repository, cacheDirectory, base: 'head' });
    expect(result.counts).toEqual({ added: 0, removed: 0, rekeyed: 0, changed: 0, unchanged: 7, unreadable: 0 });
    expect(renderDiffText(result)).toBe('Cache diff head → working tree: 0 changed, 0 re-keyed, 0 added, 0 removed, 7 unchanged\nNo changes.');
  });

  it('reads committed blobs through the reading pipeline and reports a damaged one', async () => {
    const damaged = await temporaryFolder('cache-diff-damaged');
    try {
      git(damaged, 'init', '-q');
      const cache = join(damaged, '.e2e', 'cache');
      const entries = await headEntries();
      await writeEntries(cache, entries);
      commitAll(damaged, 'good');
      writeFile(blobPath(cache, await blobOf(entries[0]!)), new Uint8Array((await blobOf(entries[0]!)).length).fill(7));
      commitAll(damaged, 'damaged');
      const result = await diffCache({ cwd: damaged, cacheDirectory: cache, base: 'HEAD~1', head: 'HEAD' });
      const unreadable = result.tests.flatMap((test) => test.steps).filter((step) => step.change === 'unreadable');
      expect(unreadable).toHaveLength(1);
      expect(unreadable[0]).toMatchObject({ change: 'unreadable', side: 'head', key: entries[0]!.key });
      expect(result.risks.map((risk) => risk.kind)).toEqual(['unreadable-entry']);
    } finally {
      await rm(damaged, { recursive: true, force: true });
    }
  });

  it('refuses an argument that is neither a folder nor a revision with a usage error naming the fix', async () => {
    const error = await diffCache({ cwd: repository, cacheDirectory, base: 'no-such-branch' }).catch((caught: unknown) => caught);
    expect(isE2EError(error) && error.code).toBe('INVALID_ARGUMENT');
    expect(String((error as Error).message)).toContain('no-such-branch is neither a folder nor a revision');
  });
});

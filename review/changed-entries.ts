/**
 * The entries a change brings: the keys whose ref in the working cache folder is new against a
 * base state (a git revision or a cache folder, as `cache diff` reads them), or names another
 * blob there. `e2e cache audit --since <base>` audits only these, so its `--min-score` gates
 * exactly what a pull request adds or records again.
 */
import { folderSpec, openCacheState, resolveStateArgument } from './cache-state-source.js';

/** The keys new or changed in the working cache against a base, and how the base reads. */
export interface ChangedEntries {
  /** The base as given (`origin/main`, a folder's path). */
  base: string;
  keys: Set<string>;
}

/** The keys the cache folder `cacheDirectory` adds or changes against `base` (a git revision or a cache folder). */
export async function changedEntriesSince(base: string, cwd: string, cacheDirectory: string): Promise<ChangedEntries> {
  const baseSpec = await resolveStateArgument(base, cwd, cacheDirectory);
  const [before, now] = await Promise.all([openCacheState(baseSpec), openCacheState(folderSpec(cwd, cacheDirectory, 'working tree'))]);
  const keys = new Set<string>();
  for (const [key, blob] of now.refs) if (blob !== undefined && before.refs.get(key) !== blob) keys.add(key);
  return { base: baseSpec.label, keys };
}

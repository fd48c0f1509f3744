/**
 * `review`: the cache review tools behind `e2e cache …` (ls, stats, show, textconv, diff, mv,
 * prune, accept, clear). Each command is a function that does the work and returns a result,
 * with renderers to text / Markdown / JSON; `cli/` wires them to commander and prints. The
 * shared text (entries as sentences, aligned tables) is exported for the audit's report.
 */
export { acceptProposals, renderAccept, renderAcceptJson, type AcceptResult } from './cache-accept.js';
export { changedEntriesSince, type ChangedEntries } from './changed-entries.js';
export { clearCache, renderClear, type ClearResult } from './cache-clear.js';
export { diffCache, diffCacheStates, type CacheDiffResult, type DiffAuditSummary, type DiffCacheOptions, type EntryAudit, type StepDiff } from './cache-diff.js';
export { DIFF_FORMATS, renderDiff, renderDiffJson, renderDiffMarkdown, renderDiffText, type DiffFormat } from './cache-diff-render.js';
export { listCache, renderCacheList, renderCacheListJson, type CacheListResult } from './cache-ls.js';
export { moveTest, renderMove, renderMoveJson, resolveTargetId, type MoveOptions, type MoveResult } from './cache-mv.js';
export { pruneCache, renderPrune, renderPruneJson, type PruneOptions, type PruneResult, type ReachableTests } from './cache-prune.js';
export { DEFAULT_PRUNE_GRACE_MS } from './prune-grace.js';
export { renderCacheShow, renderCacheShowJson, showCacheEntry, type CacheShowResult } from './cache-show.js';
export { cacheStats, renderCacheStats, renderCacheStatsJson, type CacheStatsResult } from './cache-stats.js';
export { textconvCacheFile } from './cache-textconv.js';
export { causalLinkLines, describeStep, entryLines } from './entry-text.js';
export { alignColumns, formatAge, formatBytes, formatScore, plural } from './text-format.js';
export { usageError } from './usage-error.js';

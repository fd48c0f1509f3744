/**
 * How long `cache prune` keeps temp files and never-referenced blobs by default (a writer may
 * still be about to name them). A module of its own so the CLI shows the default in `--help`
 * without loading the cache.
 */

/** Default grace period of temp files and never-referenced blobs. */
export const DEFAULT_PRUNE_GRACE_MS = 10 * 60_000;

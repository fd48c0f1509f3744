/**
 * Where e2e keeps its files, relative to the config file's folder (DESIGN §2: a `.e2e/`
 * folder holds `cache/`, `report.json` and artifacts). The runner and the CLI both resolve
 * these against the config's folder, so `e2e cache …` finds what a run wrote.
 */
import { join } from 'node:path';

/** Default cache folder (`cache.dir`). */
export const DEFAULT_CACHE_DIR = join('.e2e', 'cache');
/** The last-hit and run ledger: outside the committed cache, ignored by git. */
export const DEFAULT_HITS_DIR = join('.e2e', 'hits');
/** The run report. */
export const DEFAULT_REPORT_PATH = join('.e2e', 'report.json');
/** Playwright's output folder (traces, screenshots of failures). */
export const DEFAULT_OUTPUT_DIR = join('.e2e', 'test-results');
/** Playwright's HTML report folder. */
export const DEFAULT_HTML_REPORT_DIR = join('.e2e', 'html-report');

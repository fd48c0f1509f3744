/**
 * Where in the user's code a call came from: the first stack frame that is neither this
 * package's own code nor Node's or Playwright's. Steps and assertions point there (the
 * console, the HTML report and the trace show that line), never into `node_modules/e2e`.
 */
import { basename, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A place in a source file, as Playwright's `Location`. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/** The folders this package's code lives in: under `dist/` once built, and beside it where source maps point. */
const BUILT_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const ROOTS = basename(BUILT_ROOT) === 'dist' ? [BUILT_ROOT, dirname(BUILT_ROOT)] : [BUILT_ROOT];
const OWN_FOLDERS = ROOTS.flatMap((root) => ['cache-format', 'cli', 'contract', 'engines', 'errors', 'executor', 'recorder', 'replayer', 'runner', 'secrets', 'semantics', 'step', 'step-cache'].map((folder) => join(root, folder) + sep));
const PLAYWRIGHT_FILE = /[/\\]node_modules[/\\](?:playwright|playwright-core|@playwright[/\\][^/\\]+)[/\\]/;

/** True for a file of this package's own code. */
export function isOwnFile(file: string): boolean {
  return OWN_FOLDERS.some((folder) => file.startsWith(folder));
}

/** True for a frame to skip when looking for the user's line: ours, Node's, Playwright's. */
export function isLibraryFile(file: string): boolean {
  return isOwnFile(file) || file.startsWith('node:') || !file.includes(sep) || PLAYWRIGHT_FILE.test(file);
}

/** One V8 stack line (`    at name (file:line:column)` or `    at file:line:column`). */
export function parseStackLine(line: string): SourceLocation | undefined {
  const match = /^\s*at (?:.*?\()?((?:file:\/\/)?[^()]+?):(\d+):(\d+)\)?\s*$/.exec(line);
  if (match === null) return undefined;
  const raw = match[1]!.replace(/^async /, '');
  let file: string;
  try {
    file = raw.startsWith('file://') ? fileURLToPath(raw) : raw;
  } catch {
    return undefined;
  }
  return { file, line: Number(match[2]), column: Number(match[3]) };
}

/** The user's frames of a stack text, outermost last. */
export function userFrames(stack: string | undefined): SourceLocation[] {
  const frames: SourceLocation[] = [];
  for (const line of (stack ?? '').split('\n')) {
    const frame = parseStackLine(line);
    if (frame !== undefined && !isLibraryFile(frame.file)) frames.push(frame);
  }
  return frames;
}

/** The user's line that (directly or through our code) made the current call; undefined when none is on the stack. */
export function callerLocation(): SourceLocation | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const stack = new Error().stack;
  Error.stackTraceLimit = limit;
  return userFrames(stack)[0];
}

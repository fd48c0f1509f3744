/**
 * `e2e cache mv <from> <to>`: moves a renamed test's entries to its new test id. Each entry is
 * re-keyed exactly as a fresh recording under the new title would key it (`testId` changes,
 * so the key changes; a judgment's `preceding` act keys are rewritten to the acts' new keys)
 * and written through the store's one writing pipeline; then the old refs are removed.
 *
 * All or nothing: every check runs before the first write, and a refusal changes nothing.
 * Crash order: every new ref first, then the old judgments, then the old acts. A crash leaves
 * duplicates, never a loss, and running the same `mv` again completes it (a new ref that already
 * names exactly the moved bytes counts as moved).
 */
import { E2EError, didYouMean, isE2EError, nearestName } from '../errors/index.js';
import { computeKey, FileCacheStore, encodeEntry, type CacheLocation, type Entry, type FileSystem } from '../cache-format/index.js';
import { mapWithLimit } from '../cache-format/map-with-limit.js';
import { splitTestId, TEST_ID_FILE_SEPARATOR } from '../cache-format/test-id.js';
import { usageError } from './usage-error.js';
import { describeStep } from './entry-text.js';
import { alignColumns, plural } from './text-format.js';
import { visibleText } from '../semantics/visible-text.js';

/** Parallel entry reads while looking for the test's entries. */
const READ_CONCURRENCY = 16;

/** How one entry landed under the new test id. */
export type MoveStatus = 'moved' | 'replaced' | 'already-moved';

/** One moved entry. */
export interface MovedEntry {
  kind: Entry['kind'];
  /** The step as a phrase (`act "add a todo"`). */
  step: string;
  fromKey: string;
  toKey: string;
  /** `replaced`: `--force` replaced another entry under the new key; `already-moved`: an earlier, interrupted `mv` wrote it. */
  status: MoveStatus;
}

/** The result of `cache mv`. */
export interface MoveResult {
  cacheDirectory: string;
  from: string;
  to: string;
  /** True when nothing was written (`--dry-run`). */
  dryRun: boolean;
  moved: MovedEntry[];
  /** Old refs that changed while the move ran (another writer), left in place. */
  leftBehind: string[];
}

/** Options of {@link moveTest}. */
export interface MoveOptions {
  /** The test id the entries have now. */
  from: string;
  /** The new test id; a bare title path (or `::<title path>`) keeps `from`'s file. */
  to: string;
  dryRun?: boolean;
  /** Replace entries that already hold a target key instead of refusing. */
  force?: boolean;
  /** The file system under the store (a fault injector in tests). Default `node:fs/promises`. */
  fileSystem?: FileSystem;
}

interface PlannedMove {
  from: { key: string; blob: string; entry: Entry };
  to: Entry;
  toBlob: string;
  /** The blob the target key names now, if any. */
  current: string | undefined;
}

/** The refusal of a move: exit 2, nothing written. `code` is stable. */
function refusal(code: 'INVALID_ARGUMENT' | 'INVALID_STATE', message: string): E2EError {
  return new E2EError(code, `cache mv refused, nothing was changed: ${message}`);
}

const fileOf = (testId: string): string | undefined => splitTestId(testId).file;
const titleOf = (testId: string): string => splitTestId(testId).title;

/** `to` as a full test id: a bare title path or `::<title path>` keeps `from`'s file. */
export function resolveTargetId(from: string, to: string): string {
  const file = fileOf(to);
  if (file === undefined || file === '') return `${fileOf(from) ?? ''}${TEST_ID_FILE_SEPARATOR}${titleOf(to)}`;
  return to;
}

function assertTestId(testId: string, what: string, known: ReadonlySet<string>): void {
  const file = fileOf(testId);
  if (file === undefined || file === '' || titleOf(testId).trim() === '') {
    const sameTitle = [...known].filter((id) => titleOf(id) === testId);
    const hint = sameTitle.length > 0 ? ` (did you mean ${sameTitle.map((id) => `\`${id}\``).join(' or ')}?)` : didYouMean(testId, known);
    throw usageError(`${what} \`${testId}\` is not a test id; write it as the cache does, \`<file>::<title path>\` (see \`e2e cache ls\`)${hint}.`);
  }
}

/** The entry as a fresh recording under `testId` would write it; `actKeys` maps the test's old act keys to their new ones. */
async function rekeyed(entry: Entry, testId: string, actKeys: ReadonlyMap<string, string>): Promise<Entry> {
  const keyParts = { ...entry.keyParts, testId };
  if (entry.keyParts.preceding !== undefined) keyParts.preceding = entry.keyParts.preceding.map((key) => actKeys.get(key)!);
  return { ...entry, key: await computeKey(keyParts), keyParts } as Entry;
}

/** Moves the entries of test `from` to test `to` in the cache at `location` (see the file comment). */
export async function moveTest(location: CacheLocation, options: MoveOptions): Promise<MoveResult> {
  const dryRun = options.dryRun === true;
  const store = new FileCacheStore(location.cacheDirectory, {
    readOnly: dryRun,
    hitsDirectory: location.hitsDirectory,
    ...(options.fileSystem === undefined ? {} : { fileSystem: options.fileSystem }),
  });
  const refs = await store.list();
  const results = await mapWithLimit(refs, READ_CONCURRENCY, async (ref) => ({ key: ref.key, result: await store.read(ref.key) }));
  const entries: Array<{ key: string; blob: string; entry: Entry }> = [];
  for (const { key, result } of results) {
    if (result.kind === 'absent') continue;
    // An entry that does not read could be one of the test's: moving the rest would split the test.
    if (result.kind === 'invalid') {
      throw refusal('INVALID_STATE', `entry ${key} does not read (${result.reason}), and it may belong to the test; \`e2e cache prune\` removes entries that can never be served, then move again.`);
    }
    entries.push({ key, blob: result.blob, entry: result.entry });
  }
  const known = new Set(entries.map(({ entry }) => entry.keyParts.testId));
  assertTestId(options.from, 'from', known);
  const to = resolveTargetId(options.from, options.to);
  assertTestId(to, 'to', new Set());
  const from = options.from;
  if (from === to) throw refusal('INVALID_ARGUMENT', `from and to are the same test id \`${from}\`; name the test's new title as \`to\`.`);
  const source = entries.filter(({ entry }) => entry.keyParts.testId === from);
  if (source.length === 0) {
    const nearest = nearestName(from, known);
    const hint = known.has(to) ? ` and \`${to}\` has entries (moved already?)` : nearest === undefined ? '' : ` (did you mean \`${nearest}\`?)`;
    throw refusal('INVALID_ARGUMENT', `the test \`${from}\` has no entries in ${location.cacheDirectory}${hint}; \`e2e cache ls\` lists the tests.`);
  }
  // Acts first: a judgment's new key is made from its acts' new keys.
  const acts = source.filter(({ entry }) => entry.kind === 'act');
  const judgments = source.filter(({ entry }) => entry.kind !== 'act');
  const actKeys = new Map<string, string>();
  const planned: PlannedMove[] = [];
  const current = new Map(refs.map((ref) => [ref.key, ref.blob]));
  const plan = async (item: (typeof source)[number]): Promise<void> => {
    const moved = await rekeyed(item.entry, to, actKeys);
    if (moved.kind === 'act') actKeys.set(item.key, moved.key);
    planned.push({ from: item, to: moved, toBlob: (await encodeEntry(moved)).blob, current: current.get(moved.key) });
  };
  for (const act of acts) await plan(act);
  for (const judgment of judgments) {
    const missing = (judgment.entry.keyParts.preceding ?? []).filter((key) => !actKeys.has(key));
    if (missing.length > 0) {
      throw refusal(
        'INVALID_STATE',
        `${describeStep(judgment.entry.keyParts)} comes after ${plural(missing.length, 'act step')} of the test that ${missing.length === 1 ? 'has' : 'have'} no entry, so its key under the new title cannot be computed; record the test again under its new title instead.`,
      );
    }
    await plan(judgment);
  }
  const taken = planned.filter((move) => move.current !== undefined && move.current !== move.toBlob);
  if (taken.length > 0 && options.force !== true) {
    const steps = taken.map((move) => `${describeStep(move.to.keyParts)} (key ${move.to.key})`).join(', ');
    throw refusal('INVALID_STATE', `\`${to}\` already has an entry under the new key of ${steps}; pass --force to replace it with the moved one, or drop the old title's entries with \`e2e cache prune\` if the new ones are a fresh recording.`);
  }
  const moved: MovedEntry[] = planned.map((move) => ({
    kind: move.to.kind,
    step: describeStep(move.to.keyParts),
    fromKey: move.from.key,
    toKey: move.to.key,
    status: move.current === undefined ? 'moved' : move.current === move.toBlob ? 'already-moved' : 'replaced',
  }));
  const result: MoveResult = { cacheDirectory: location.cacheDirectory, from, to, dryRun, moved, leftBehind: [] };
  if (dryRun) return result;
  await writeAll(store, planned, options.force === true);
  const hits = await store.readHits();
  for (const move of planned) {
    const hit = hits.get(move.from.key);
    if (hit !== undefined) await store.recordHit(move.to.key, hit);
  }
  // Judgments before acts: a crash in between leaves acts a second `mv` can still key the judgments by.
  for (const move of [...planned].sort((a, b) => Number(a.from.entry.kind === 'act') - Number(b.from.entry.kind === 'act'))) {
    if (!(await store.delete(move.from.key, { onlyBlob: move.from.blob }))) result.leftBehind.push(move.from.key);
  }
  return result;
}

/** Writes every planned entry, or, when one cannot be written, removes the ones this call wrote and throws. */
async function writeAll(store: FileCacheStore, planned: readonly PlannedMove[], force: boolean): Promise<void> {
  const written: PlannedMove[] = [];
  try {
    for (const move of planned) {
      const outcome = await store.write(move.to, force ? { overwrite: true } : {});
      if (outcome.status === 'conflict') {
        throw refusal('INVALID_STATE', `another writer saved an entry under the new key ${move.to.key} of ${describeStep(move.to.keyParts)} while the move ran; run \`e2e cache mv\` again once it is done.`);
      }
      if (outcome.status === 'saved' && move.current === undefined) written.push(move);
    }
  } catch (error) {
    let undone = true;
    for (const move of written) {
      await store.delete(move.to.key, { onlyBlob: move.toBlob }).catch(() => (undone = false));
    }
    if (!isE2EError(error) || error.code !== 'CACHE_WRITE_FAILED') throw error;
    const state = undone ? 'nothing was moved' : 'some entries exist under both titles; run the same `e2e cache mv` again to finish';
    throw new E2EError('CACHE_WRITE_FAILED', `cache mv stopped, ${state}: ${error.message}`, { cause: error });
  }
}

const STATUS_TEXT: Readonly<Record<MoveStatus, string>> = { moved: 'moved', replaced: 'replaced', 'already-moved': 'kept' };

/** `cache mv` as text. */
export function renderMove(result: MoveResult): string {
  const count = plural(result.moved.length, 'entry', 'entries');
  const lines = [result.dryRun ? `Would move ${count} of ${result.from} to ${result.to} (dry run, nothing changed):` : `Moved ${count} of ${result.from} to ${result.to}:`];
  lines.push(...alignColumns(result.moved.map((entry) => [result.dryRun ? 'would move' : STATUS_TEXT[entry.status], entry.step, `${entry.fromKey} → ${entry.toKey}`]), '  '));
  if (result.leftBehind.length > 0) {
    lines.push(`${plural(result.leftBehind.length, 'old entry', 'old entries')} changed while moving and stayed: ${result.leftBehind.join(', ')} (\`e2e cache prune\` removes them once the old title is gone).`);
  }
  // One logical line each: a line break inside a value (a forged test id) is spelled out, never a line of its own.
  return lines.map(visibleText).join('\n');
}

/** `cache mv --json`. */
export function renderMoveJson(result: MoveResult): string {
  return JSON.stringify(result, null, 2);
}

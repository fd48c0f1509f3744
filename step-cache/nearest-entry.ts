/**
 * Miss explanations (DESIGN §6: "a miss explains itself"): the nearest stored entry of the
 * same test and which key parts differ (`no entry; nearest entry of this test differs in the
 * instruction`). Reading every entry's key parts costs a read per entry, so it happens only
 * on a miss, once per attempt, and only key parts are kept.
 */
import { shellWord } from '../errors/index.js';
import { explainKeyChange, type CacheStore, type KeyParts } from '../cache-format/index.js';
import { splitTestId, TEST_ID_FILE_SEPARATOR } from '../cache-format/test-id.js';

/** Parallel entry reads while indexing. */
const READ_CONCURRENCY = 16;

/** What the index keeps of one stored entry: its key parts and its place in its test. */
interface IndexedEntry {
  key: string;
  parts: KeyParts;
  position?: number;
  supersedes?: string;
  recordedAt: string;
}

/** Explains misses against one store, and finds the entry a new recording supersedes; build one per attempt. */
export class NearestEntryIndex {
  readonly #store: CacheStore;
  #byTest: Promise<Map<string, IndexedEntry[]>> | undefined;

  constructor(store: CacheStore) {
    this.#store = store;
  }

  /** One line explaining why `wanted` has no entry. Never throws: a store that cannot be listed gives a plain `no entry`. */
  async explain(wanted: KeyParts): Promise<string> {
    return (await this.explainMiss(wanted)).detail;
  }

  /** The explanation and the key parts in which the nearest entry differs (empty when there is none). */
  async explainMiss(wanted: KeyParts): Promise<{ detail: string; differences: string[] }> {
    let candidates: KeyParts[];
    try {
      candidates = ((await this.#index()).get(wanted.testId) ?? []).map((indexed) => indexed.parts);
    } catch {
      return { detail: 'no entry', differences: [] };
    }
    const sameKind = candidates.filter((parts) => parts.kind === wanted.kind);
    if (sameKind.length === 0) {
      const renamed = await this.#renamedFrom(wanted);
      if (renamed.length === 0) return { detail: 'no entry; this test has no recorded entries', differences: [] };
      const titles = renamed.map((testId) => JSON.stringify(testId)).join(', ');
      const command = `e2e cache mv ${shellWord(renamed[0]!)} ${shellWord(wanted.testId)}`;
      const move = renamed.length === 1 ? `move its entries: \`${command}\`` : `move the old title's entries, e.g. \`${command}\``;
      return {
        detail: `no entry; this test has no recorded entries, but ${titles} in the same file ${renamed.length === 1 ? 'has one' : 'have some'} for the same instruction (renamed? ${move})`,
        differences: [],
      };
    }
    let best: { parts: KeyParts; differences: string[] } | undefined;
    for (const parts of sameKind) {
      const differences = explainKeyChange(parts, wanted);
      if (best === undefined || rank(differences, parts, wanted) < rank(best.differences, best.parts, wanted)) best = { parts, differences };
    }
    const differences = best!.differences;
    if (differences.length === 0) return { detail: 'no entry; the nearest entry of this test has equal key parts but another key (written by another e2e version?)', differences };
    return { detail: `no entry; nearest entry of this test differs in ${joinPhrases(differences)}`, differences };
  }

  /**
   * The entry a new recording of `wanted` at step `position` supersedes: the newest entry of the
   * same test, project, target and kind recorded at that position under another key, that no
   * step of this attempt uses (`inUse`: a step moved to another position keeps its entry) and no
   * other such entry already supersedes. Undefined when there is none, or the store cannot be listed.
   */
  async supersededAt(wanted: KeyParts, position: number, inUse: ReadonlySet<string>): Promise<string | undefined> {
    let entries: IndexedEntry[];
    try {
      entries = (await this.#index()).get(wanted.testId) ?? [];
    } catch {
      return undefined;
    }
    const samePlace = entries.filter(
      (indexed) =>
        indexed.position === position &&
        !inUse.has(indexed.key) &&
        indexed.parts.kind === wanted.kind &&
        indexed.parts.target === wanted.target &&
        indexed.parts.projectId === wanted.projectId,
    );
    const replaced = new Set(samePlace.map((indexed) => indexed.supersedes));
    const newest = samePlace.filter((indexed) => !replaced.has(indexed.key)).sort((left, right) => (left.recordedAt < right.recordedAt ? 1 : left.recordedAt > right.recordedAt ? -1 : 0));
    return newest[0]?.key;
  }

  /** Other tests of the same file with an entry of the same kind and instruction: the test was likely renamed from one of them. */
  async #renamedFrom(wanted: KeyParts): Promise<string[]> {
    const { file: ownFile } = splitTestId(wanted.testId);
    if (ownFile === undefined) return [];
    const file = `${ownFile}${TEST_ID_FILE_SEPARATOR}`;
    const found: string[] = [];
    for (const [testId, parts] of await this.#index()) {
      if (testId === wanted.testId || !testId.startsWith(file)) continue;
      if (parts.some(({ parts: candidate }) => candidate.kind === wanted.kind && candidate.instruction === wanted.instruction && candidate.target === wanted.target)) found.push(testId);
    }
    return found.sort().slice(0, 3);
  }

  #index(): Promise<Map<string, IndexedEntry[]>> {
    this.#byTest ??= this.#build();
    return this.#byTest;
  }

  async #build(): Promise<Map<string, IndexedEntry[]>> {
    const refs = (await this.#store.list()).filter((ref) => ref.blob !== undefined);
    const byTest = new Map<string, IndexedEntry[]>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < refs.length) {
        const ref = refs[next++]!;
        const result = await this.#store.read(ref.key);
        if (result.kind !== 'hit') continue;
        const { entry } = result;
        const parts = entry.keyParts;
        const indexed: IndexedEntry = { key: ref.key, parts, recordedAt: entry.provenance.recordedAt };
        if (entry.position !== undefined) indexed.position = entry.position;
        if (entry.supersedes !== undefined) indexed.supersedes = entry.supersedes;
        const list = byTest.get(parts.testId);
        if (list === undefined) byTest.set(parts.testId, [indexed]);
        else list.push(indexed);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, refs.length) }, worker));
    return byTest;
  }
}

/** Fewer differing parts first; among equals, the same occurrence, then the same instruction. */
function rank(differences: readonly string[], parts: KeyParts, wanted: KeyParts): number {
  return differences.length * 4 + (parts.occurrence === wanted.occurrence ? 0 : 2) + (parts.instruction === wanted.instruction ? 0 : 1);
}

/** `a`, `a and b`, `a, b and c`. */
function joinPhrases(phrases: readonly string[]): string {
  if (phrases.length <= 1) return phrases.join('');
  return `${phrases.slice(0, -1).join(', ')} and ${phrases[phrases.length - 1]!}`;
}

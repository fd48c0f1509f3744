/**
 * A child process for the cache fault tests (run compiled, see `compile-for-children.ts`):
 *
 *   write <dir> <index> <variant> [create|overwrite]   after "go" on stdin: writes once, prints the result
 *   replace <dir> <index> <variant> <blob>             the same, replacing `blob`
 *   churn <dir> <seed> <operations> <keys>             after "go": writes, replaces and deletes, prints counts
 *   read <dir> <keys> <variants>                       after "go": reads until "stop", prints what it saw
 *   write-until-killed <dir> <seed> <keys>             writes once, prints "ready", then writes until it is killed
 */
import { createInterface } from 'node:readline';
import { encodeEntry, FileCacheStore, initHashing, type CacheStore } from '../../../../cache-format/index.js';
import { numberedActEntry } from '../../../support/sample-entries.js';
import { SeededRandom } from './seeded-random.js';

/** The variants every churning writer draws from (readers know them all). */
const VARIANTS = 3;

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Commands from the parent on stdin: "go" starts the work, "stop" ends an open-ended loop. */
const commands = { go: () => {}, stopped: false };
const goReceived = new Promise<void>((resolve) => {
  commands.go = resolve;
});

function listenForCommands(): void {
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() === 'go') commands.go();
    if (line.trim() === 'stop') commands.stopped = true;
  });
}

async function waitForGo(): Promise<void> {
  print({ ready: true });
  await goReceived;
}

/** One random operation on one of `keys` keys: create, replace what was read, overwrite, or evict. */
async function randomOperation(store: CacheStore, random: SeededRandom, keys: number): Promise<string> {
  const entry = await numberedActEntry(random.integer(0, keys - 1), random.integer(0, VARIANTS - 1));
  const operation = random.pick(['create', 'replace', 'overwrite', 'delete'] as const);
  const current = await store.read(entry.key);
  const currentBlob = current.kind === 'hit' ? current.blob : current.kind === 'invalid' ? current.blob : undefined;
  switch (operation) {
    case 'create':
      return (await store.write(entry)).status;
    case 'replace':
      return (await store.write(entry, currentBlob === undefined ? {} : { replacing: currentBlob })).status;
    case 'overwrite':
      return (await store.write(entry, { overwrite: true })).status;
    case 'delete':
      return (await store.delete(entry.key, currentBlob === undefined ? {} : { onlyBlob: currentBlob })) ? 'deleted' : 'not-deleted';
  }
}

async function main(): Promise<void> {
  const [mode = '', directory = '', ...rest] = process.argv.slice(2);
  await initHashing();
  const store = new FileCacheStore(directory);
  if (mode !== 'write-until-killed') listenForCommands();
  switch (mode) {
    case 'write':
    case 'replace': {
      const [index, variant, option] = rest;
      const entry = await numberedActEntry(Number(index), Number(variant));
      await waitForGo();
      const options = mode === 'replace' ? { replacing: option! } : option === 'overwrite' ? { overwrite: true } : {};
      print(await store.write(entry, options));
      process.exit(0);
    }
    case 'churn': {
      const [seed, operations, keys] = rest.map(Number) as [number, number, number];
      const random = new SeededRandom(seed);
      const counts: Record<string, number> = {};
      await waitForGo();
      for (let done = 0; done < operations; done++) {
        const outcome = await randomOperation(store, random, keys);
        counts[outcome] = (counts[outcome] ?? 0) + 1;
      }
      print({ counts });
      process.exit(0);
    }
    case 'read': {
      const [keys, variants] = rest.map(Number) as [number, number];
      const known = new Set<string>();
      const entries = [];
      for (let index = 0; index < keys; index++) {
        for (let variant = 0; variant < variants; variant++) known.add((await encodeEntry(await numberedActEntry(index, variant))).blob);
        entries.push(await numberedActEntry(index));
      }
      await waitForGo();
      const seen = { reads: 0, absent: 0, hits: 0, invalid: [] as string[], unknownBlobs: [] as string[] };
      while (!commands.stopped) {
        for (const entry of entries) {
          const result = await store.read(entry.key);
          seen.reads++;
          if (result.kind === 'absent') seen.absent++;
          else if (result.kind === 'invalid') seen.invalid.push(result.message);
          else if (known.has(result.blob)) seen.hits++;
          else seen.unknownBlobs.push(result.blob);
        }
        // Reads are synchronous file calls: yield so the "stop" line can arrive.
        await new Promise((resolve) => setImmediate(resolve));
      }
      print(seen);
      process.exit(0);
    }
    case 'write-until-killed': {
      const [seed, keys] = rest.map(Number) as [number, number];
      const random = new SeededRandom(seed);
      // Ready once the loop is running: on a busy machine a kill right after start would land before any write.
      await randomOperation(store, random, keys);
      print({ ready: true });
      for (;;) await randomOperation(store, random, keys);
    }
    default:
      throw new Error(`unknown mode ${mode}`);
  }
}

await main();

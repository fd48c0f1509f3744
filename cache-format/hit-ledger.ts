/**
 * The "last hit" ledger for `cache ls`: one empty file per key whose modification time is
 * the last hit, `<ledger>/<key[0..2]>/<key>`. A file per key keeps parallel workers from
 * losing each other's updates without locks. The ledger lives outside the committed cache
 * folder (the runner picks it, e.g. `.e2e/hits/`) so replaying never dirties a checkout.
 */
import { join } from 'node:path';
import { errorCodeOf, type FileSystem } from './file-system.js';
import { isCacheKey } from './key.js';

/** Last-hit times, one file per key. */
export class HitLedger {
  constructor(
    private readonly fileSystem: FileSystem,
    /** The ledger folder. */
    readonly directory: string,
  ) {}

  /** Records a hit of `key` at `at`. Returns false (and throws nothing) when the ledger cannot be written. */
  async record(key: string, at: Date): Promise<boolean> {
    const folder = join(this.directory, key.slice(0, 2));
    const path = join(folder, key);
    try {
      await this.fileSystem.utimes(path, at);
      return true;
    } catch (error) {
      if (errorCodeOf(error) !== 'ENOENT') return false;
    }
    try {
      await this.fileSystem.mkdir(folder);
      await this.fileSystem.writeNewFile(path, new Uint8Array(0)).catch((error: unknown) => {
        if (errorCodeOf(error) !== 'EEXIST') throw error;
      });
      await this.fileSystem.utimes(path, at);
      return true;
    } catch {
      return false;
    }
  }

  /** Every recorded hit. A missing ledger is empty. */
  async readAll(): Promise<Map<string, Date>> {
    const hits = new Map<string, Date>();
    for (const folder of await readdirOrEmpty(this.fileSystem, this.directory)) {
      for (const name of await readdirOrEmpty(this.fileSystem, join(this.directory, folder))) {
        if (!isCacheKey(name)) continue;
        try {
          hits.set(name, (await this.fileSystem.stat(join(this.directory, folder, name))).modifiedAt);
        } catch {
          // Removed while listing.
        }
      }
    }
    return hits;
  }
}

/** Names in `path`, or none when it does not exist or is not a folder. */
export async function readdirOrEmpty(fileSystem: FileSystem, path: string): Promise<string[]> {
  try {
    return await fileSystem.readdir(path);
  } catch (error) {
    const code = errorCodeOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

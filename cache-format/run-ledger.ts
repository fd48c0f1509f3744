/**
 * The run ledger beside the hit ledger: one empty file per run that used the cache,
 * `<ledger>/runs/<start in ms, 15 digits>-<pid>-<random>`, so `e2e cache prune --unused-for N`
 * can tell which entries no run among the last N replayed or recorded. A file per run keeps
 * parallel runs from losing each other's records without locks; names sort by start time.
 * It lives in the hit-ledger folder (outside the committed cache).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { errorCodeOf, type FileSystem } from './file-system.js';
import { readdirOrEmpty } from './hit-ledger.js';

/** Sub-folder of the hit-ledger folder that holds run records. */
export const RUNS_FOLDER = 'runs';

const RUN_FILE_PATTERN = /^(\d{15})-\d+-[0-9a-f]+$/;

/** Start times of runs that used the cache, one file per run. */
export class RunLedger {
  constructor(
    private readonly fileSystem: FileSystem,
    /** The hit-ledger folder (runs go in its `runs/` sub-folder). */
    readonly directory: string,
  ) {}

  /** Records a run that started at `at`. Returns false (and throws nothing) when the ledger cannot be written. */
  async record(at: Date, processId: number = process.pid): Promise<boolean> {
    const folder = join(this.directory, RUNS_FOLDER);
    const name = `${String(at.getTime()).padStart(15, '0')}-${processId}-${randomBytes(4).toString('hex')}`;
    try {
      await this.fileSystem.mkdir(folder);
      await this.fileSystem.writeNewFile(join(folder, name), new Uint8Array(0));
      return true;
    } catch (error) {
      return errorCodeOf(error) === 'EEXIST';
    }
  }

  /** Start times of every recorded run, oldest first. A missing ledger has none. */
  async readAll(): Promise<Date[]> {
    const starts: number[] = [];
    for (const name of await readdirOrEmpty(this.fileSystem, join(this.directory, RUNS_FOLDER))) {
      const match = RUN_FILE_PATTERN.exec(name);
      if (match !== null) starts.push(Number(match[1]));
    }
    return starts.sort((a, b) => a - b).map((start) => new Date(start));
  }
}

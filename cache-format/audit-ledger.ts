/**
 * The audit ledger beside the hit and run ledgers: each entry's last `e2e cache audit`, one
 * small JSON file per key, `<ledger>/audits/<key[0..2]>/<key>.json`, written atomically. It
 * lives outside the committed cache: an entry is content-addressed and immutable, and an
 * audit says how the app under test answered today, not what was recorded, so writing it into
 * the entry would change its bytes (and dirty a committed cache) on every audit.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { errorCodeOf, type FileSystem } from './file-system.js';
import { readdirOrEmpty } from './hit-ledger.js';
import { isCacheKey } from './key.js';

/** Sub-folder of the hit-ledger folder that holds audits. */
export const AUDITS_FOLDER = 'audits';

/** Largest audit file read. */
const MAX_AUDIT_BYTES = 64 * 1024;

const auditRecordSchema = z.strictObject({
  /** When the audit ran (ISO 8601). */
  auditedAt: z.string().datetime(),
  /** The blob the audited recording was read from (absent in audits noted before it was kept): the audit speaks for those bytes only. */
  blob: z.string().min(1).max(100).optional(),
  caught: z.number().int().min(0),
  /** Mutants judged (caught + survived); `notRun` are not counted in. */
  total: z.number().int().min(0),
  notRun: z.number().int().min(0),
  /** What each survivor is blind to, as sentences (`blind to action 2 of 3: tap button "Save"`). */
  survivors: z.array(z.string().max(1_000)).max(100),
  /** What caught each caught mutant (`action 1 of 2: check checkbox "Toggle": proven by: text "1 item left" did not appear`). */
  proofs: z.array(z.string().max(1_000)).max(100).optional(),
  /** Mutants equivalent by the test's standard (its own checks passed with them too), left out of `total`. */
  equivalent: z.array(z.string().max(1_000)).max(100).optional(),
});

/** One entry's last audit. */
export type AuditRecord = z.infer<typeof auditRecordSchema>;

/** The last audit of every entry, one file per key. */
export class AuditLedger {
  constructor(
    private readonly fileSystem: FileSystem,
    /** The hit-ledger folder (audits go in its `audits/` sub-folder). */
    readonly directory: string,
  ) {}

  /** Notes `record` as the last audit of `key`. Returns false (and throws nothing) when the ledger cannot be written. */
  async record(key: string, record: AuditRecord): Promise<boolean> {
    if (!isCacheKey(key)) return false;
    const folder = join(this.directory, AUDITS_FOLDER, key.slice(0, 2));
    const temp = join(folder, `.${key}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await this.fileSystem.mkdir(folder);
      await this.fileSystem.writeNewFile(temp, new TextEncoder().encode(JSON.stringify(auditRecordSchema.parse(record))));
      await this.fileSystem.rename(temp, join(folder, `${key}.json`));
      return true;
    } catch {
      await this.fileSystem.unlink(temp).catch(() => undefined);
      return false;
    }
  }

  /** Every entry's last audit; a file that does not read as one is left out. A missing ledger is empty. */
  async readAll(): Promise<Map<string, AuditRecord>> {
    const audits = new Map<string, AuditRecord>();
    const root = join(this.directory, AUDITS_FOLDER);
    for (const folder of await readdirOrEmpty(this.fileSystem, root)) {
      for (const name of await readdirOrEmpty(this.fileSystem, join(root, folder))) {
        const key = name.replace(/\.json$/, '');
        if (!name.endsWith('.json') || !isCacheKey(key)) continue;
        try {
          const bytes = await this.fileSystem.readFile(join(root, folder, name), MAX_AUDIT_BYTES);
          const parsed = auditRecordSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
          if (parsed.success) audits.set(key, parsed.data);
        } catch (error) {
          // Removed while listing, or not ours: an audit is a note, never a reason to fail a listing.
          if (errorCodeOf(error) === 'EACCES') continue;
        }
      }
    }
    return audits;
  }
}

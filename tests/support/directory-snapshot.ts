/** Snapshots of a folder tree (every file's path, size and modification time) to prove nothing was written. */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** `relative path → "size@mtimeMs"` for every file under `root` (empty when `root` does not exist). */
export function snapshotTree(root: string): Record<string, string> {
  const snapshot: Record<string, string> = {};
  const visit = (folder: string): void => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(folder, name);
      const info = statSync(path);
      if (info.isDirectory()) visit(path);
      else snapshot[relative(root, path)] = `${info.size}@${info.mtimeMs}`;
    }
  };
  visit(root);
  return snapshot;
}

/** Relative paths of every file under `root`. */
export function filesUnder(root: string): string[] {
  return Object.keys(snapshotTree(root)).sort();
}

/** `relative path → sha-256 of its bytes` for every file under `root`: equal snapshots mean byte-identical trees. */
export function contentsOf(root: string): Record<string, string> {
  return Object.fromEntries(filesUnder(root).map((path) => [path, createHash('sha256').update(readFileSync(join(root, path))).digest('hex')]));
}

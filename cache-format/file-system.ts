/**
 * The file-system operations the cache store uses, as a small interface over
 * `node:fs/promises`, so tests can inject faults (ENOSPC, EACCES, a read that must not
 * happen) at the process edge without mocking our own modules. Failures are Node's errors
 * with their `code` (`ENOENT`, `EEXIST`, …).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import * as fs from 'node:fs/promises';

/** What the store needs to know about a path. */
export interface FileInfo {
  size: number;
  modifiedAt: Date;
  isFile: boolean;
  isDirectory: boolean;
  /** Only ever true from `lstat`. */
  isSymbolicLink: boolean;
}

/** The file-system operations of the cache store. */
export interface FileSystem {
  /** Size, modification time and kind of `path` (follows symbolic links). */
  stat(path: string): Promise<FileInfo>;
  /** Like `stat`, but about a symbolic link itself rather than what it points to. */
  lstat(path: string): Promise<FileInfo>;
  /**
   * Reads the regular file `path` from the start, at most `maxBytes + 1` bytes (one more than
   * allowed, so a caller sees it is too long). Anything but a regular file fails with `ENOTFILE`.
   */
  readFile(path: string, maxBytes: number): Promise<Uint8Array>;
  /** Creates `path`, failing with EEXIST if it exists, writes `data`, flushes it to disk (fsync) and closes it. */
  writeNewFile(path: string, data: Uint8Array): Promise<void>;
  /** Atomically renames `from` to `to`, replacing `to`. */
  rename(from: string, to: string): Promise<void>;
  /** Creates the hard link `newPath` to `existingPath`, failing with EEXIST if `newPath` exists (atomic). */
  link(existingPath: string, newPath: string): Promise<void>;
  /** Removes the file `path`. */
  unlink(path: string): Promise<void>;
  /** Creates the folder `path` and its parents; no error when it exists. */
  mkdir(path: string): Promise<void>;
  /** Names in the folder `path`. */
  readdir(path: string): Promise<string[]>;
  /** Sets the access and modification times of `path`. */
  utimes(path: string, time: Date): Promise<void>;
  /** Flushes the folder `path` itself (so a rename or link in it survives a crash); best effort. */
  syncDirectory(path: string): Promise<void>;
}

function toInfo(stats: Stats): FileInfo {
  return { size: stats.size, modifiedAt: stats.mtime, isFile: stats.isFile(), isDirectory: stats.isDirectory(), isSymbolicLink: stats.isSymbolicLink() };
}

/** The real file system (`node:fs/promises`). */
export const nodeFileSystem: FileSystem = {
  // Reads are synchronous on purpose: refs and blobs are small (a few KiB, at most 1 MiB), and
  // each thread-pool round trip of the promise API costs ~50 µs, which would put a cache lookup
  // (ref + stat + blob, ~200 µs of waiting) far above the work itself (~60 µs) and its 1 ms goal.
  async stat(path) {
    return toInfo(statSync(path));
  },
  async lstat(path) {
    return toInfo(lstatSync(path));
  },
  async readFile(path, maxBytes) {
    // Non-blocking open: a FIFO planted under an entry's name must not hang the process.
    const descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      const info = fstatSync(descriptor);
      if (!info.isFile()) throw Object.assign(new Error(`not a regular file: ${path}`), { code: 'ENOTFILE', syscall: 'open', path });
      const buffer = Buffer.allocUnsafe(Math.min(info.size, maxBytes) + 1);
      let filled = 0;
      while (filled < buffer.length) {
        const bytesRead = readSync(descriptor, buffer, filled, buffer.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    } finally {
      closeSync(descriptor);
    }
  },
  async writeNewFile(path, data) {
    const handle = await fs.open(path, 'wx');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  async rename(from, to) {
    await fs.rename(from, to);
  },
  async link(existingPath, newPath) {
    await fs.link(existingPath, newPath);
  },
  async unlink(path) {
    await fs.unlink(path);
  },
  async mkdir(path) {
    await fs.mkdir(path, { recursive: true });
  },
  async readdir(path) {
    return fs.readdir(path);
  },
  async utimes(path, time) {
    await fs.utimes(path, time, time);
  },
  async syncDirectory(path) {
    let handle: fs.FileHandle | undefined;
    try {
      handle = await fs.open(path, constants.O_RDONLY);
      await handle.sync();
    } catch {
      // Some platforms (Windows) cannot open or flush a folder; the rename is still atomic.
    } finally {
      await handle?.close();
    }
  },
};

/** The `code` of a Node file-system error (`ENOENT`, `EEXIST`, …), if it has one. */
export function errorCodeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

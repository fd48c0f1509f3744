/**
 * A file-system fault injector for cache-store tests (a process edge, STYLE 13): it wraps
 * the real file system, records every call, and fails chosen calls with a Node-style error.
 */
import { nodeFileSystem, type FileSystem } from '../../cache-format/index.js';

/** An operation of the {@link FileSystem} interface. */
export type FileOperation = keyof FileSystem;

/** One recorded call. */
export interface FileCall {
  operation: FileOperation;
  path: string;
}

/** A planned failure: the first `times` calls of `operation` whose path matches fail with `code`. */
export interface PlannedFault {
  operation: FileOperation;
  code: string;
  /** Which paths fail (default: every path). */
  matches?: (path: string) => boolean;
  /** How many matching calls succeed before the failures start (default 0). */
  skip?: number;
  /** How many matching calls fail (default: all of them). */
  times?: number;
  /** For `writeNewFile`: create the file with half the data before failing, like a disk filling up mid-write. */
  partialWrite?: boolean;
}

/** A {@link FileSystem} that records calls and fails the planned ones. */
export class FaultyFileSystem implements FileSystem {
  readonly calls: FileCall[] = [];
  private readonly faults: PlannedFault[] = [];

  constructor(private readonly inner: FileSystem = nodeFileSystem) {}

  /** Plans a failure; returns this for chaining. */
  fail(fault: PlannedFault): this {
    this.faults.push({ ...fault });
    return this;
  }

  /** Calls of `operation` so far. */
  callsOf(operation: FileOperation): FileCall[] {
    return this.calls.filter((call) => call.operation === operation);
  }

  private enter(operation: FileOperation, path: string): PlannedFault | undefined {
    this.calls.push({ operation, path });
    const fault = this.faults.find((candidate) => candidate.operation === operation && (candidate.matches?.(path) ?? true) && (candidate.times ?? 1) > 0);
    if (fault === undefined) return undefined;
    if (fault.skip !== undefined && fault.skip > 0) {
      fault.skip -= 1;
      return undefined;
    }
    if (fault.times !== undefined) fault.times -= 1;
    if (fault.partialWrite === true) return fault;
    throw faultError(fault, operation, path);
  }

  async stat(path: string) {
    this.enter('stat', path);
    return this.inner.stat(path);
  }

  async lstat(path: string) {
    this.enter('lstat', path);
    return this.inner.lstat(path);
  }

  async readFile(path: string, maxBytes: number) {
    this.enter('readFile', path);
    return this.inner.readFile(path, maxBytes);
  }

  async writeNewFile(path: string, data: Uint8Array) {
    const partial = this.enter('writeNewFile', path);
    if (partial === undefined) return this.inner.writeNewFile(path, data);
    await this.inner.writeNewFile(path, data.subarray(0, Math.floor(data.length / 2)));
    throw faultError(partial, 'writeNewFile', path);
  }

  async rename(from: string, to: string) {
    this.enter('rename', to);
    return this.inner.rename(from, to);
  }

  async link(existingPath: string, newPath: string) {
    this.enter('link', newPath);
    return this.inner.link(existingPath, newPath);
  }

  async unlink(path: string) {
    this.enter('unlink', path);
    return this.inner.unlink(path);
  }

  async mkdir(path: string) {
    this.enter('mkdir', path);
    return this.inner.mkdir(path);
  }

  async readdir(path: string) {
    this.enter('readdir', path);
    return this.inner.readdir(path);
  }

  async utimes(path: string, time: Date) {
    this.enter('utimes', path);
    return this.inner.utimes(path, time);
  }

  async syncDirectory(path: string) {
    this.enter('syncDirectory', path);
    return this.inner.syncDirectory(path);
  }
}

function faultError(fault: PlannedFault, operation: FileOperation, path: string): Error {
  return Object.assign(new Error(`${fault.code}: injected fault, ${operation} '${path}'`), { code: fault.code, syscall: operation, path });
}

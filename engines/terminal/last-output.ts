/**
 * A program's last words survive a busy machine. When the program exits, node-pty waits up to
 * 200 ms for the pseudo-terminal to report the end of its output, then destroys its reader,
 * and whatever it had not read yet is gone: on a loaded machine that can be exactly what a
 * program prints before it ends (a script's summary after its last dialog), and a replay then
 * misses an outcome the program did show. Before that reader goes, what is left is read
 * (the descriptor is non-blocking: "no more" or end-of-output stops it) and handed on as output.
 *
 * node-pty's reader and descriptor are not public API; where they are missing (another
 * platform, another release) nothing changes.
 */
import { readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** The parts of node-pty's Unix terminal this reads. */
interface PtyInternals {
  _fd?: unknown;
  _socket?: { destroy?: unknown; emit?: unknown; destroyed?: unknown };
}

/** Read what the pty still holds, as UTF-8 text; empty when nothing is left or it cannot be read. */
export function readRest(fd: number): string {
  const decoder = new StringDecoder('utf8');
  const chunk = Buffer.alloc(64 * 1024);
  let text = '';
  for (;;) {
    let read: number;
    try {
      read = readSync(fd, chunk, 0, chunk.length, null);
    } catch {
      // EAGAIN: nothing more now; EIO: the program's side is closed and drained.
      break;
    }
    if (read <= 0) break;
    text += decoder.write(chunk.subarray(0, read));
  }
  return text + decoder.end();
}

/** Make `child` (a node-pty terminal) read what is left before it destroys its reader. */
export function keepLastOutput(child: object): void {
  const internals = child as PtyInternals;
  const socket = internals._socket;
  const fd = internals._fd;
  if (typeof fd !== 'number' || socket === undefined || typeof socket.destroy !== 'function' || typeof socket.emit !== 'function') return;
  const destroy = socket.destroy as (...args: unknown[]) => unknown;
  const emit = socket.emit as (event: string, data: string) => boolean;
  socket.destroy = (...args: unknown[]): unknown => {
    if (socket.destroyed !== true) {
      const rest = readRest(fd);
      if (rest !== '') emit.call(socket, 'data', rest);
    }
    return destroy.apply(socket, args);
  };
}

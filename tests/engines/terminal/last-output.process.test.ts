/**
 * A program's last words survive a busy machine (engines/terminal/last-output.ts). node-pty
 * destroys its reader 200 ms after the program exits if the pseudo-terminal has not reported
 * the end of its output by then; here the event loop is held until the program is gone and the
 * reader is destroyed at once, as that timer does on a loaded machine, so nothing was read yet.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keepLastOutput } from '../../../engines/terminal/last-output.js';
import { scaledTimeout } from '../../support/load-scaled.js';

interface RawPty {
  pid: number;
  onData(listener: (data: string) => void): { dispose(): void };
  _socket: { destroy(): void };
}

/** Start `printf`, hold the event loop until it has exited and been reaped, then destroy the reader as node-pty's timer would. */
async function lastWordsOf(keep: boolean): Promise<string> {
  const pty = (await import('@lydell/node-pty')) as unknown as { spawn(file: string, args: string[], options: { cols: number; rows: number }): RawPty };
  const child = pty.spawn('/bin/sh', ['-c', "printf 'Order for Ada: placed'"], { cols: 80, rows: 24 });
  if (keep) keepLastOutput(child);
  let output = '';
  child.onData((data) => {
    output += data;
  });
  // Synchronously, so the reader gets no turn: node-pty's own thread reaps the program meanwhile.
  const limit = Date.now() + scaledTimeout(10_000);
  while (existsSync(`/proc/${child.pid}`) && Date.now() < limit);
  expect(existsSync(`/proc/${child.pid}`)).toBe(false);
  child._socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 100));
  return output;
}

describe('the last output of a program that ended', () => {
  it('is read before node-pty destroys its reader, where without it the summary line is lost', async () => {
    expect(await lastWordsOf(false)).not.toContain('Order for Ada');
    expect(await lastWordsOf(true)).toContain('Order for Ada: placed');
  });
});

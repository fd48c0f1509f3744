/** Drives one `cache-worker` child: waits for it to be ready, says go, collects its JSON lines. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A running worker. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves when the worker printed its ready line. */
  ready: Promise<void>;
  /** Sends "go" (for modes that wait for it). */
  go(): void;
  /** Sends "stop" (for open-ended modes) and closes stdin. */
  stop(): void;
  /** Resolves with the last JSON line printed and the exit code or signal. */
  done: Promise<{ result: unknown; code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Starts `node <workerPath> <args…>`. */
export function startWorker(workerPath: string, args: readonly string[]): WorkerProcess {
  const child = spawn(process.execPath, [workerPath, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let result: unknown;
  let markReady: () => void = () => {};
  let failReady: (error: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  ready.catch(() => {
    // Observed by whoever awaits `ready`; never an unhandled rejection.
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const value = JSON.parse(line) as { ready?: boolean };
    if (value.ready === true) markReady();
    else result = value;
  });
  const done = new Promise<{ result: unknown; code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    child.on('close', (code, signal) => {
      failReady(new Error(`worker exited before it was ready (code ${String(code)}, signal ${String(signal)}): ${stderr}`));
      resolve({ result, code, signal, stderr });
    });
  });
  return {
    child,
    ready,
    go: () => {
      child.stdin!.write('go\n');
    },
    stop: () => {
      child.stdin!.end('stop\n');
    },
    done,
  };
}

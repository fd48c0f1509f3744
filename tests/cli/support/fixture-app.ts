/**
 * The replay-cache fixture's app (`fixtures/replay-cache/app/server.mjs`) in a process of its
 * own, as a user's app runs beside the tests; its add button is labelled by `label`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('../fixtures/replay-cache/app/server.mjs', import.meta.url));

/** The running app. */
export interface AppServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Start the app on `port` (0: any free one) with its add button reading `label`. */
export function startApp(label: string, port = 0): Promise<AppServer> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [SERVER], {
      env: { ...process.env, PORT: String(port), E2E_FIXTURE_ADD_LABEL: label },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.on('error', reject);
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString('utf8'));
      if (match === null) return;
      const listening = Number(match[1]);
      resolve({
        url: `http://127.0.0.1:${listening}`,
        port: listening,
        stop: () =>
          new Promise<void>((stopped) => {
            if (child.exitCode !== null) return stopped();
            child.once('exit', () => stopped());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

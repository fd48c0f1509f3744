/**
 * One web engine and one static server per test file, with each test's attempts closed after
 * it: the setup the engine's browser tests share. Registers its own vitest hooks.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Engine, EngineInstance } from '../../contract/engine.js';
import { testWeb } from './test-browser.js';
import { serveStatic, type StaticServer } from './static-server.js';

/** The engine and server of a test file. */
export interface WebEngineOnFolder {
  engine: Engine;
  /** The server's base URL (`http://127.0.0.1:<port>/`), once the file's hooks ran. */
  readonly url: string;
  /** Start an attempt on the server; it is closed after the current test. */
  start(): Promise<EngineInstance>;
}

/** Serve `folder` and share one browser for the calling test file. */
export function webEngineOnFolder(folder: string): WebEngineOnFolder {
  const engine = testWeb();
  let server: StaticServer | undefined;
  const open: EngineInstance[] = [];
  beforeAll(async () => {
    server = await serveStatic(folder);
  });
  afterEach(async () => {
    for (const attempt of open.splice(0)) await attempt.close();
  });
  afterAll(async () => {
    await engine.dispose?.();
    await server?.close();
  });
  const url = (): string => {
    if (server === undefined) throw new Error('The fixture server starts in beforeAll; use it inside a test.');
    return server.url;
  };
  return {
    engine,
    get url() {
      return url();
    },
    async start() {
      const attempt = await engine.start({ baseUrl: url() });
      open.push(attempt);
      return attempt;
    },
  };
}

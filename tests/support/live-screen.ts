/**
 * Real observation trees for recorder and replayer tests: the web engine on Chromium,
 * observing fixture pages served on 127.0.0.1.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import type { Engine, EngineInstance, EngineObservation } from '../../contract/engine.js';
import { testWeb } from './test-browser.js';
import { sharedPages, type PagePreset } from './pages.js';
import { serveStatic, type StaticServer } from './static-server.js';

/** The recorder's fixture pages (shop.html); the shared pages (todos.html, login.html) are served beside them. */
export const CACHE_FIXTURES = fileURLToPath(new URL('../../recorder/fixtures', import.meta.url));

/** A browser page on a fixture server. */
export interface LiveScreen {
  server: StaticServer;
  engine: Engine;
  instance: EngineInstance;
  /** Load `path` (relative to the server) afresh and observe it. */
  open(path: string): Promise<EngineObservation>;
  close(): Promise<void>;
}

/**
 * Start Chromium (found as the web engine finds it: E2E_CHROMIUM_PATH, Playwright's, PATH) on a
 * server for `folder` and the shared pages, some with their knobs preset.
 */
export async function startLiveScreen(folder: string = CACHE_FIXTURES, presets: Record<string, PagePreset> = {}): Promise<LiveScreen> {
  const server = await serveStatic(folder);
  server.route(sharedPages(presets));
  const engine = testWeb();
  const instance = await engine.start({ baseUrl: server.url });
  return {
    server,
    engine,
    instance,
    open: async (path) => {
      // Through a blank page, so a URL that differs only in its fragment still loads afresh.
      await instance.session.open('about:blank');
      await instance.session.open(new URL(path, server.url).href);
      return instance.observe();
    },
    close: async () => {
      await instance.close();
      await engine.dispose?.();
      await server.close();
    },
  };
}

/**
 * One live screen for a whole test file: started before its first test (and handed to `use`),
 * closed after its last.
 */
export function liveScreenPerFile(use: (live: LiveScreen) => void, presets: Record<string, PagePreset> = {}): void {
  let live: LiveScreen | undefined;
  beforeAll(async () => {
    live = await startLiveScreen(undefined, presets);
    use(live);
  });
  afterAll(async () => {
    await live?.close();
  });
}

/**
 * The app of the habits fixture, on 127.0.0.1: the shared todo page at `/habits.html`, with
 * an add button whose label a test can change between runs (so a recorded tap no longer
 * finds its button and the replay hands the step to the agent).
 */
import { sharedPage } from '../../support/pages.js';
import { serveStatic, type StaticServer } from '../../support/static-server.js';
import { RUNNER_TODO_KNOBS } from './fixture-servers.js';

/** The running app. */
export interface HabitsApp {
  server: StaticServer;
  /** Environment for a run of the habits fixture. */
  env: Record<string, string>;
  /** Label the add button `label` from the next page load on. */
  setAddLabel(label: string): void;
  close(): Promise<void>;
}

/** Start the app; runs of the fixture keep their cache in `cacheDir`. */
export async function startHabitsApp(cacheDir: string): Promise<HabitsApp> {
  let label = 'Add';
  const server = await serveStatic(undefined);
  server.route((request, response) => {
    if (request.url !== '/habits.html') return false;
    const body = sharedPage('todos.html', `${RUNNER_TODO_KNOBS}&add=${encodeURIComponent(label)}`);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
    return true;
  });
  return {
    server,
    env: { E2E_FIXTURE_APP_URL: server.origin, E2E_FIXTURE_CACHE_DIR: cacheDir },
    setAddLabel: (next) => {
      label = next;
    },
    close: () => server.close(),
  };
}

/**
 * The fixture apps of the runner tests, on 127.0.0.1: the app server (static pages, a 302
 * to the other origin, a login endpoint that records what it received) and a second server
 * on another port, which is another origin and counts every request it gets.
 */
import { fileURLToPath } from 'node:url';
import { sharedPages, type PagePreset } from '../../support/pages.js';
import { serveStatic, type StaticServer } from '../../support/static-server.js';

/** Where the fixture pages of the runner alone live (policy.html, upload.html). */
export const APP_FOLDER = fileURLToPath(new URL('../fixtures/shared/app', import.meta.url));

/** The knobs of the shared todo page as the runner's fixture projects know it: in a main landmark, no counter, "Done: X" checkboxes. */
export const RUNNER_TODO_KNOBS = 'main=1&heading=Todos&testid=0&list=Todo list&toggle=Done:&delete=0&stamp=0&count=0';

/** The shared pages at the paths the fixture projects open. */
export const RUNNER_PAGES: Record<string, PagePreset> = {
  '/todo.html': { page: 'todos.html', knobs: RUNNER_TODO_KNOBS },
  '/login.html': { page: 'login.html' },
};

/** Serve the fixture app: the shared pages and the runner's own. */
export async function serveApp(): Promise<StaticServer> {
  const app = await serveStatic(APP_FOLDER);
  app.route(sharedPages(RUNNER_PAGES, false));
  return app;
}

/** The running fixture servers. */
export interface FixtureServers {
  app: StaticServer;
  other: StaticServer;
  /** Bodies posted to `/login`. */
  logins: string[];
  /** Environment for a fixture run: where the app and the other origin are. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Start both servers. */
export async function startFixtureServers(): Promise<FixtureServers> {
  const other = await serveStatic(undefined);
  const app = await serveApp();
  const logins: string[] = [];
  app.route((request, response) => {
    if (request.url === '/redirect-away') {
      response.writeHead(302, { location: `${other.origin}/redirected.html` }).end();
      return true;
    }
    if (request.url === '/login' && request.method === 'POST') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        logins.push(body);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
      return true;
    }
    return false;
  });
  return {
    app,
    other,
    logins,
    env: { E2E_FIXTURE_APP_URL: app.origin, E2E_FIXTURE_OTHER_URL: other.origin },
    close: async () => {
      await app.close();
      await other.close();
    },
  };
}

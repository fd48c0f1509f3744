/**
 * A tiny static file server on 127.0.0.1 for tests and benches: serves a folder, counts
 * requests, and lets a test add routes (redirects, JSON) without another dependency.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/** A route handler; return true when it answered. */
export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => boolean | Promise<boolean>;

export interface StaticServer {
  url: string;
  origin: string;
  port: number;
  /** Requests seen, by path. */
  requests: string[];
  route(handler: RouteHandler): void;
  close(): Promise<void>;
}

/** A route answering the exact paths of `pages` with their HTML. */
export function htmlPages(pages: ReadonlyMap<string, string>): RouteHandler {
  return (request, response) => {
    const body = pages.get(request.url ?? '');
    if (body === undefined) return false;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    return true;
  };
}

/** A route serving files from the folder `rootOf(request)` names at the time of each request (`/` gives `index.html`). */
export function folderRoute(rootOf: (request: IncomingMessage) => string): RouteHandler {
  return async (request, response) => {
    const base = resolve(rootOf(request));
    const path = decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/');
    let file = normalize(join(base, path));
    if (!file.startsWith(base)) {
      response.writeHead(403).end('forbidden');
      return true;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      response.end(body);
    } catch {
      response.writeHead(404).end('not found');
    }
    return true;
  };
}

/** The value of the cookie `name` a request carries, if any. */
export function cookieOf(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/** Serve `root` (a folder) on 127.0.0.1 at a free port. */
export async function serveStatic(root: string | undefined, options: { port?: number } = {}): Promise<StaticServer> {
  const handlers: RouteHandler[] = [];
  const requests: string[] = [];
  const base = root === undefined ? undefined : resolve(root);
  const serveBase = folderRoute(() => base ?? '.');
  const server: Server = createServer(async (request, response) => {
    const path = decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/');
    requests.push(path);
    for (const handler of handlers) if (await handler(request, response)) return;
    if (base === undefined) {
      response.writeHead(404).end('not found');
      return;
    }
    await serveBase(request, response);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolveListen) => server.listen(options.port ?? 0, '127.0.0.1', resolveListen));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: origin + '/',
    origin,
    port,
    requests,
    route: (handler) => handlers.push(handler),
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

/**
 * The pages several test families share, one copy each in `pages/`: each family picks its
 * variant with knobs (listed at the top of each page), in the URL or preset by the server.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic, type RouteHandler, type StaticServer } from './static-server.js';

/** The folder of the shared pages (todos.html, login.html, echo.html). */
export const PAGES = fileURLToPath(new URL('./pages', import.meta.url));

/** A shared page served at another path, or with knobs preset (knobs in its URL still win). */
export interface PagePreset {
  page: string;
  knobs?: string;
}

/** The HTML of the shared page `page` with `knobs` preset. */
export function sharedPage(page: string, knobs = ''): string {
  const attribute = knobs.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
  return readFileSync(join(PAGES, page), 'utf8').replace('data-knobs=""', `data-knobs="${attribute}"`);
}

/**
 * A route answering each path of `presets` with its shared page, and `/<page>` with the
 * shared page of that name when `byName` is on (whatever the query).
 */
export function sharedPages(presets: Record<string, PagePreset> = {}, byName = true): RouteHandler {
  return (request, response) => {
    const path = decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/');
    const preset = presets[path] ?? (byName && /^\/[\w-]+\.html$/.test(path) ? { page: path.slice(1) } : undefined);
    if (preset === undefined || !existsSync(join(PAGES, preset.page))) return false;
    const body = sharedPage(preset.page, preset.knobs);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
    return true;
  };
}

/** A server of the shared pages that keeps the body of every POST to `/record` (where the echo page sends what was typed). */
export async function servePagesRecording(): Promise<{ server: StaticServer; received: string[] }> {
  const server = await serveStatic(PAGES);
  const received: string[] = [];
  server.route(async (request, response) => {
    if (request.url !== '/record' || request.method !== 'POST') return false;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    received.push(Buffer.concat(chunks).toString('utf8'));
    response.writeHead(204).end();
    return true;
  });
  return { server, received };
}

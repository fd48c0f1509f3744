/**
 * Two servers on 127.0.0.1 for the origin-policy fault tests: the app (the allowed origin),
 * whose pages leave it every way a page can, and another origin that answers nothing but
 * counts every request it gets. A navigation the policy refuses must never show up there.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveStatic, type StaticServer } from '../../../support/static-server.js';

/** The running servers. */
export interface OriginServers {
  app: StaticServer;
  /** Another origin: every request it receives is a leak. */
  other: StaticServer;
  /** Bodies posted to the app's `/submit`, in order. */
  posts: string[];
  close(): Promise<void>;
}

/** Read a request body as text. */
function bodyOf(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

function html(response: ServerResponse, body: string, headers: Record<string, string> = {}): true {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(body);
  return true;
}

function redirect(response: ServerResponse, status: number, location: string, headers: Record<string, string> = {}): true {
  response.writeHead(status, { location, ...headers }).end();
  return true;
}

/** How long after a press the "after the step" controls leave: past the end of a step that only taps. */
export const LATE_MS = 4000;

/** The app's start page: one way out per control. `other` is the other origin. */
function startPage(other: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Start</title></head>
<body>
  <h1>Leaving the app</h1>
  <a href="${other}/landing.html?token=abc">Partner site</a>
  <a href="/redirect-away?token=abc">Redirect away</a>
  <a href="/hop-one">Two hops away</a>
  <a href="/hop-local">Local redirect</a>
  <button type="button" id="window">Open partner window</button>
  <button type="button" id="redirecting-window">Open redirecting window</button>
  <button type="button" id="local-window">Open local window</button>
  <button type="button" id="two-hop-window">Open two-hop window</button>
  <button type="button" id="later">Leave later</button>
  <button type="button" id="embed">Embed partner</button>
  <button type="button" id="much-later">Leave after the step</button>
  <button type="button" id="moving-window">Open moving window</button>
  <button type="button" id="two-hop-window-later">Open two-hop window after the step</button>
  <form method="post" action="${other}/submit"><input name="q" aria-label="Partner query" value="hello"><button>Send to partner</button></form>
  <form method="post" action="/submit"><input name="q" aria-label="Local query" value="hello local"><button>Send here</button></form>
  <form method="post" action="/submit" target="_blank"><input name="q" aria-label="Window query" value="hello window"><button>Send in new window</button></form>
  <form method="post" action="/submit-away"><input name="q" aria-label="Leaving query" value="hello away"><button>Send and leave</button></form>
  <script>
    const other = ${JSON.stringify(other)};
    const LATE_MS = ${LATE_MS};
    document.getElementById('window').addEventListener('click', () => window.open(other + '/popup.html'));
    document.getElementById('redirecting-window').addEventListener('click', () => window.open('/redirect-away'));
    document.getElementById('local-window').addEventListener('click', () => window.open('/hop-local'));
    document.getElementById('two-hop-window').addEventListener('click', () => window.open('/hop-one'));
    document.getElementById('later').addEventListener('click', () => setTimeout(() => { location.href = other + '/timer.html'; }, 150));
    // Long enough for the step that pressed them to have ended: these leave between steps.
    document.getElementById('much-later').addEventListener('click', () => setTimeout(() => { location.href = other + '/late.html'; }, LATE_MS));
    document.getElementById('moving-window').addEventListener('click', () => window.open('/mover.html'));
    document.getElementById('two-hop-window-later').addEventListener('click', () => setTimeout(() => window.open('/hop-one'), LATE_MS));
    document.getElementById('embed').addEventListener('click', () => {
      const frame = document.createElement('iframe');
      frame.title = 'Partner frame';
      frame.src = other + '/frame.html';
      document.body.append(frame);
    });
  </script>
</body>
</html>`;
}

/** Where an allowed navigation ends: shows its query and the cookies the browser holds. */
const LANDED_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Landed</title></head>
<body><h1>Landed</h1><p id="query"></p><p id="cookies"></p>
<script>
  document.getElementById('query').textContent = 'query: ' + location.search;
  document.getElementById('cookies').textContent = 'cookies: ' + document.cookie;
</script></body></html>`;

/** Start both servers. */
export async function startOriginServers(): Promise<OriginServers> {
  const other = await serveStatic(undefined);
  const app = await serveStatic(undefined);
  const posts: string[] = [];
  app.route(async (request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    switch (path) {
      case '/start.html':
        return html(response, startPage(other.origin));
      case '/embedding.html':
        return html(response, `<!doctype html><title>Embedding</title><h1>Embedding</h1><iframe title="Partner frame" src="${other.origin}/frame.html"></iframe>`);
      case '/framed-form.html':
        return html(response, '<!doctype html><title>Framed form</title><h1>Framed form</h1><iframe title="Form frame" src="/form-frame.html"></iframe>');
      case '/form-frame.html':
        return html(response, '<!doctype html><title>Form frame</title><form method="post" action="/submit"><input name="q" aria-label="Frame query" value="hello frame"><button>Send from frame</button></form>');
      case '/refreshing.html':
        return html(response, `<!doctype html><title>Refreshing</title><meta http-equiv="refresh" content="${LATE_MS / 1000};url=${other.origin}/refreshed.html"><h1>Refreshing</h1>`);
      case '/mover.html':
        return html(response, `<!doctype html><title>Mover</title><h1>Mover</h1><script>setTimeout(() => { location.href = ${JSON.stringify(other.origin)} + '/moved.html'; }, ${LATE_MS});</script>`);
      case '/landed.html':
        return html(response, LANDED_PAGE);
      case '/redirect-away':
        return redirect(response, 302, `${other.origin}/redirected.html?token=abc`);
      case '/hop-one':
        return redirect(response, 302, '/hop-two');
      case '/hop-two':
        return redirect(response, 301, `${other.origin}/two-hops.html`);
      case '/hop-local':
        return redirect(response, 302, '/hop-local-two', { 'set-cookie': 'first=1; Path=/' });
      case '/hop-local-two':
        return redirect(response, 307, '/landed.html?via=two-hops', { 'set-cookie': 'second=2; Path=/' });
      case '/submit':
        if (request.method !== 'POST') return false;
        posts.push(await bodyOf(request));
        return redirect(response, 303, `/landed.html?posted=${posts.length}`);
      case '/submit-away':
        await bodyOf(request);
        return redirect(response, 303, `${other.origin}/after-post.html`);
      default:
        return false;
    }
  });
  return {
    app,
    other,
    posts,
    close: async () => {
      await app.close();
      await other.close();
    },
  };
}

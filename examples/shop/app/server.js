// The example shop: a tiny real web app for the example suite. Plain Node, no dependencies.
// Routes: / (sign-in), /products (list with twins), /checkout (form), /orders/<n> (confirmation).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomInt } from 'node:crypto';

const here = dirname(fileURLToPath(import.meta.url));
const port = Number(process.argv[2] ?? process.env.PORT ?? 4173);
const password = process.env.SHOP_PASSWORD ?? 'correct-horse-battery';
const pages = { '/': 'sign-in.html', '/products': 'products.html', '/checkout': 'checkout.html' };

const server = createServer(async (request, response) => {
  const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
  if (request.method === 'POST' && url.pathname === '/api/sign-in') {
    const body = await new Promise((resolve) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => resolve(text));
    });
    const { user, secret } = JSON.parse(String(body) || '{}');
    const ok = user === 'ada' && secret === password;
    response.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify({ ok }));
    return;
  }
  if (url.pathname === '/api/order') {
    // A value that changes every run: the order number.
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ number: randomInt(100000, 999999) }));
    return;
  }
  const orderMatch = /^\/orders\/\d+$/.test(url.pathname);
  const file = orderMatch ? 'order.html' : pages[url.pathname] ?? url.pathname.slice(1);
  try {
    const body = await readFile(join(here, 'public', file));
    const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'text/html';
    response.writeHead(200, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' }).end(body);
  } catch {
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
});
server.listen(port, '127.0.0.1', () => console.log(`shop listening on http://127.0.0.1:${port}`));

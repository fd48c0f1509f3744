/**
 * The part every loopback model server shares: listen on 127.0.0.1, hand back its URL, the
 * requests it saw, and a close that cuts kept-alive sockets so a test leaves none behind.
 */
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening loopback server of a test. */
export interface LoopbackServer<R> {
  /** Base URL, ending in `/v1`. */
  url: string;
  requests: R[];
  close(): Promise<void>;
}

/** Answer with `work`; a failure in it is a 500 with its message (unless the answer began). */
export function answerOr500(response: ServerResponse, work: () => Promise<void>): void {
  work().catch((error: unknown) => {
    if (!response.headersSent) response.writeHead(500).end(String(error));
  });
}

/** Listen on a free loopback port. */
export async function listenOnLoopback<R>(server: Server, requests: R[]): Promise<LoopbackServer<R>> {
  server.keepAliveTimeout = 500;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * How to close an HTTP server without cutting a request short: it stops accepting connections, answers every
 * request in flight, then closes. `server.close()` alone does not finish on keep-alive: a connection whose request
 * is in flight stays open after its answer until the client leaves or `keepAliveTimeout` (65 s) expires.
 * Call once, right after creating the server: it follows the requests from then on.
 */
export function gracefulClose(server: Server): () => Promise<void> {
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      // Nothing left to answer: whatever connections remain (idle, or half-read) may go.
      if (closing && !inFlight.size) server.closeAllConnections();
    });
    // Answered with `Connection: close`: the socket ends with the answer.
    if (closing) res.shouldKeepAlive = false;
  });
  return () =>
    new Promise((resolve) => {
      if (!server.listening) return resolve();
      closing = true;
      server.close(() => resolve());
      server.closeIdleConnections();
      if (!inFlight.size) server.closeAllConnections();
      for (const res of inFlight) {
        if (!res.headersSent) res.shouldKeepAlive = false;
        // Already streaming with keep-alive: its connection turns idle once the answer is out, then it is closed.
        else res.once('close', () => setImmediate(() => server.closeIdleConnections()));
      }
    });
}

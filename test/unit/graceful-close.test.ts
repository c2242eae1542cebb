import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gracefulClose } from '../../shared/process/graceful-close';

const ANSWER_MS = 600;

/** `/slow` answers after ANSWER_MS; `/stream` sends its headers and a first part at once, the rest after ANSWER_MS. */
function slowServer(): http.Server {
  const server = http.createServer((req, res) => {
    if (req.url === '/stream') {
      res.write('first,');
      setTimeout(() => res.end('last'), ANSWER_MS);
      return;
    }
    setTimeout(() => res.end(req.url === '/slow' ? 'slow' : 'quick'), req.url === '/slow' ? ANSWER_MS : 0);
  });
  // The api's: an idle connection is kept for a minute, far longer than a close may take.
  server.keepAliveTimeout = 65_000;
  return server;
}

function get(port: number, agent: http.Agent, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, agent, path }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('gracefulClose', () => {
  it('answers the requests in flight on keep-alive connections, then closes well before the keep-alive timeout', async () => {
    const server = slowServer();
    const close = gracefulClose(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
    try {
      // One connection left idle, two busy: one not answered yet, one already streaming.
      expect(await get(port, agent, '/quick')).toBe('quick');
      const slow = get(port, agent, '/slow');
      const stream = get(port, agent, '/stream');
      await new Promise((r) => setTimeout(r, 100));

      const started = Date.now();
      let closedAt = 0;
      const closed = close().then(() => (closedAt = Date.now()));
      await expect(get(port, new http.Agent(), '/quick')).rejects.toThrow(/ECONNREFUSED/);

      expect(await slow).toBe('slow');
      expect(await stream).toBe('first,last');
      await closed;
      expect(closedAt - started).toBeGreaterThanOrEqual(ANSWER_MS - 200);
      expect(closedAt - started).toBeLessThan(5_000);
      expect(server.listening).toBe(false);
    } finally {
      agent.destroy();
      server.closeAllConnections();
    }
  });

  it('resolves at once on a server that never listened', async () => {
    await expect(gracefulClose(slowServer())()).resolves.toBeUndefined();
  });
});

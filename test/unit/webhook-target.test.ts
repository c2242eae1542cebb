import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from '../../shared/events/post-webhook';
import { isInternalAddress } from '../../shared/events/webhook-target';
import { backoffMs } from '../../shared/events/webhook-deliverer';

describe('webhook targets', () => {
  it('counts loopback, private, link-local, metadata, CGNAT, mapped and reserved addresses as internal', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not an address',
    ]) {
      expect({ address, internal: isInternalAddress(address) }).toEqual({ address, internal: true });
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect({ address, internal: isInternalAddress(address) }).toEqual({ address, internal: false });
    }
  });

  describe('postWebhook', () => {
    let server: http.Server;
    let port: number;
    let hits = 0;

    beforeAll(async () => {
      server = http.createServer((req, res) => {
        hits += 1;
        if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
        if (req.url === '/redirect') return void res.writeHead(302, { location: '/ok' }).end();
        res.writeHead(204).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });

    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    const send = (url: string, allowInternal: boolean, timeoutMs = 5_000) =>
      postWebhook(url, { 'content-type': 'application/json' }, '{}', { timeoutMs, allowInternal });

    it('never connects to an internal address unless allowed, by literal IP or by name', async () => {
      const before = hits;
      for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
        const result = await send(`http://${host}:${port}/ok`, false);
        expect(result.statusCode).toBeNull();
        expect(result.error).toMatch(/internal address/);
      }
      expect(hits).toBe(before);
      expect((await send(`http://127.0.0.1:${port}/ok`, true)).statusCode).toBe(204);
      expect(hits).toBe(before + 1);
    });

    it('does not follow redirects and gives up on a slow receiver at the timeout', async () => {
      expect((await send(`http://127.0.0.1:${port}/redirect`, true)).statusCode).toBe(302);
      const slow = await send(`http://127.0.0.1:${port}/slow`, true, 300);
      expect(slow.statusCode).toBeNull();
      expect(slow.error).toBe('no answer within 300 ms');
      expect(slow.durationMs).toBeLessThan(1_500);
    });
  });

  it('backs off 1 s, 2 s, 4 s … up to 10 minutes, within ±20%', () => {
    expect([1, 2, 3, 4, 11, 30].map((attempt) => backoffMs(attempt, () => 0.5))).toEqual([
      1_000, 2_000, 4_000, 8_000, 600_000, 600_000,
    ]);
    expect(backoffMs(1, () => 0)).toBe(800);
    expect(backoffMs(1, () => 1)).toBe(1_200);
  });
});

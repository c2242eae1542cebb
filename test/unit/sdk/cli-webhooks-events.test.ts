import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../../sdk/src/cli/run';
import { REPO_ROOT } from '../../helpers/api-harness';
import type { CliIo } from '../../../sdk/src/cli/io';
import {
  bodyHashOf,
  decodeValueInfo,
  hmacHex,
  signedMessage,
} from '../../../shared/signing/request-signature';

const ENV = {
  TAS_API_KEY_ID: 'key-id',
  TAS_SECRET_KEY: 'the-secret-key-value',
  TAS_PASSPHRASE: 'the-passphrase',
};
const SECRET = `whsec_${'ab'.repeat(32)}`;
const WEBHOOK = {
  id: 'wh_0123456789abcdef',
  url: 'https://example.com/hook',
  events: ['limit_order.updated', 'dca_order.updated'],
  createdAt: '2025-11-24T16:00:00.000Z',
};

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Answer = (req: Received, res: http.ServerResponse) => void;

const envelope = (res: http.ServerResponse, data: unknown): void => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ success: true, data, meta: { requestId: 'req-ok' } }));
};

const failure = (res: http.ServerResponse, status: number, code: string, message: string): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({ success: false, error: { code, message, details: [] }, meta: { requestId: 'req-err' } }),
  );
};

const eventJson = (n: number): Record<string, unknown> => ({
  id: `evt_${n}`,
  type: 'limit_order.updated',
  createdAt: '2025-11-24T16:00:00.000Z',
  data: { id: `order-${n}`, status: 'completed' },
});

/** Whether the request carries a valid signature of itself (method, path, query, the exact body sent). */
function validlySigned(req: Received): boolean {
  const info = decodeValueInfo(String(req.headers['x-value-info']));
  if (!info || info.bodyHash !== bodyHashOf(req.body)) return false;
  const [pathname, query = ''] = req.url.split('?');
  const message = signedMessage({ ...info, method: req.method, path: pathname!, query });
  return req.headers['x-signature'] === hmacHex(ENV.TAS_SECRET_KEY, message);
}

describe('tas webhook and tas events', () => {
  const received: Received[] = [];
  const routes = new Map<string, Answer>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      received.push(entry);
      const answer = routes.get(`${entry.method} ${entry.url.split('?')[0]}`);
      if (answer) answer(entry, res);
      else failure(res, 404, 'NOT_FOUND', 'Route not found');
    });
  });
  let baseUrl = '';
  let home = '';

  beforeAll(async () => {
    home = mkdtempSync(path.join(tmpdir(), 'tas-cli-webhooks-'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(home, { recursive: true, force: true });
  });
  beforeEach(() => {
    received.length = 0;
    routes.clear();
  });

  const tas = async (
    argv: string[],
    extra: Partial<CliIo> = {},
  ): Promise<{ code: number; stdout: string; stderr: string }> => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      env: { ...ENV, TAS_BASE_URL: baseUrl, TAS_PROFILE_FILE: path.join(home, 'none.json') },
      homeDir: home,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      ...extra,
    });
    return { code, stdout, stderr };
  };

  describe('usage', () => {
    it.each([
      ['webhook create', [], 'error: missing --url'],
      [
        'webhook create',
        ['--url', 'https://x', '--events', ' , '],
        'error: --events needs at least one event type',
      ],
      ['webhook create', ['--url', 'https://x', '--secret', 's'], "error: Unknown option '--secret'"],
      ['webhook delete', [], 'error: missing ID'],
      ['webhook delete', ['a', 'b'], 'error: unexpected argument "b"'],
      ['webhook list', ['extra'], 'error: unexpected argument "extra"'],
      ['events', ['--last-event-id', ''], 'error: --last-event-id needs an event id'],
      ['events', ['--follow'], "error: Unknown option '--follow'"],
    ])('tas %s %j exits 2 with the usage, nothing sent', async (command, rest, line) => {
      const run = await tas([...command.split(' '), ...rest]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.split('\n')[0]!.startsWith(line)).toBe(true);
      expect(run.stderr).toContain(`\n\nUsage: tas ${command} `);
      expect(received).toEqual([]);
    });

    it('tas webhook alone names its commands; help describes them', async () => {
      const group = await tas(['webhook']);
      expect(group.code).toBe(2);
      expect(group.stderr).toMatch(
        /^error: webhook: which command\?\n\nUsage: tas webhook <command> \[options\]\n/,
      );
      const help = await tas(['help', 'webhook']);
      expect(help.stdout.split('\n').filter((l) => l.startsWith('  webhook '))).toHaveLength(5);
      const create = await tas(['webhook', 'create', '--help']);
      expect(create.stdout).toMatch(
        /^Usage: tas webhook create --url URL \[--events a,b\] \[--json\] \[--profile NAME\]\n/,
      );
      const general = await tas(['help']);
      expect(general.stdout).toContain('\n  events           follow this API key');
      expect(general.stdout).toContain('\n  order create     create a limit order');
    });
  });

  describe('tas webhook', () => {
    it('create sends the url and the events, signed, and prints the secret once with a note', async () => {
      routes.set('POST /api/v1/webhooks', (_req, res) => envelope(res, { ...WEBHOOK, secret: SECRET }));
      const run = await tas([
        'webhook',
        'create',
        '--url',
        WEBHOOK.url,
        '--events',
        'limit_order.updated, dca_order.updated',
      ]);
      expect(run.code).toBe(0);
      expect(received).toHaveLength(1);
      expect(JSON.parse(received[0]!.body)).toEqual({ url: WEBHOOK.url, events: WEBHOOK.events });
      expect(validlySigned(received[0]!)).toBe(true);
      expect(run.stdout.split(SECRET)).toHaveLength(2);
      expect(run.stdout).toContain(`id         ${WEBHOOK.id}\n`);
      expect(run.stdout).toContain('events     limit_order.updated, dca_order.updated\n');
      expect(run.stdout).toContain('Store the secret now: the API shows it only once.');
    });

    it('create without --events leaves the default to the API; --json prints the whole answer', async () => {
      routes.set('POST /api/v1/webhooks', (_req, res) => envelope(res, { ...WEBHOOK, secret: SECRET }));
      const run = await tas(['webhook', 'create', '--url', WEBHOOK.url, '--json']);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(received[0]!.body)).toEqual({ url: WEBHOOK.url });
      expect(JSON.parse(run.stdout)).toEqual({ ...WEBHOOK, secret: SECRET });
    });

    it('create reports the API refusal as one error line, exit 1, and is not retried', async () => {
      routes.set('POST /api/v1/webhooks', (_req, res) =>
        failure(res, 400, 'VALIDATION_ERROR', 'At most 10 webhooks per API key'),
      );
      const run = await tas(['webhook', 'create', '--url', WEBHOOK.url]);
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: VALIDATION_ERROR (HTTP 400): At most 10 webhooks per API key (request id req-err)\n',
      });
      routes.set('POST /api/v1/webhooks', (_req, res) => failure(res, 500, 'INTERNAL_ERROR', 'boom'));
      received.length = 0;
      expect((await tas(['webhook', 'create', '--url', WEBHOOK.url])).code).toBe(1);
      expect(received).toHaveLength(1);
    });

    it('list prints a table (or says there is none), never a secret', async () => {
      routes.set('GET /api/v1/webhooks', (_req, res) => envelope(res, [WEBHOOK]));
      const run = await tas(['webhook', 'list']);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(
        [
          'ID                   URL                       CREATED                   EVENTS',
          `${WEBHOOK.id}  ${WEBHOOK.url}  ${WEBHOOK.createdAt}  limit_order.updated, dca_order.updated`,
          '',
        ].join('\n'),
      );
      expect(validlySigned(received[0]!)).toBe(true);
      routes.set('GET /api/v1/webhooks', (_req, res) => envelope(res, []));
      expect((await tas(['webhook', 'list'])).stdout).toBe('no webhooks\n');
    });

    it('delete sends DELETE /webhooks/{id} (the id path-encoded); a 404 exits 1', async () => {
      routes.set(`DELETE /api/v1/webhooks/${WEBHOOK.id}`, (_req, res) => envelope(res, WEBHOOK));
      const run = await tas(['webhook', 'delete', WEBHOOK.id]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Webhook deleted\.\nid {9}wh_0123456789abcdef\n/);
      expect(received[0]).toMatchObject({ method: 'DELETE', body: '' });
      expect(validlySigned(received[0]!)).toBe(true);
      const missing = await tas(['webhook', 'delete', 'wh/../x']);
      expect(received[1]!.url).toBe('/api/v1/webhooks/wh%2F..%2Fx');
      expect(missing).toMatchObject({ code: 1, stdout: '' });
      expect(missing.stderr).toBe('error: NOT_FOUND (HTTP 404): Route not found (request id req-err)\n');
    });

    it('test sends a ping; log lists the delivery attempts', async () => {
      routes.set(`POST /api/v1/webhooks/${WEBHOOK.id}/test`, (_req, res) =>
        envelope(res, { eventId: 'evt_ping' }),
      );
      routes.set(`GET /api/v1/webhooks/${WEBHOOK.id}/deliveries`, (_req, res) =>
        envelope(res, [
          {
            eventId: 'evt_ping',
            eventType: 'ping',
            attempt: 2,
            statusCode: 200,
            error: null,
            durationMs: 12,
            createdAt: '2025-11-24T16:00:05.000Z',
          },
          {
            eventId: 'evt_ping',
            eventType: 'ping',
            attempt: 1,
            statusCode: null,
            error: 'connect ECONNREFUSED',
            durationMs: 3,
            createdAt: '2025-11-24T16:00:00.000Z',
          },
        ]),
      );
      const test = await tas(['webhook', 'test', WEBHOOK.id]);
      expect(test.stdout).toBe(
        `ping event evt_ping queued for webhook ${WEBHOOK.id}; see its attempts with \`tas webhook log ${WEBHOOK.id}\`\n`,
      );
      expect(JSON.parse(received[0]!.body)).toEqual({});
      const log = await tas(['webhook', 'log', WEBHOOK.id]);
      expect(log.stdout.split('\n')).toEqual([
        'AT                        EVENT     TYPE  ATTEMPT  STATUS  MS  ERROR',
        '2025-11-24T16:00:05.000Z  evt_ping  ping  2        200     12  -',
        '2025-11-24T16:00:00.000Z  evt_ping  ping  1        -       3   connect ECONNREFUSED',
        '',
      ]);
    });
  });

  describe('tas events', () => {
    it('prints one JSON line per event, follows a reconnection, and stops on Ctrl-C with the id to resume after', async () => {
      let interrupt: (() => void) | undefined;
      let unregistered = false;
      routes.set('GET /api/v1/events', (req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (req.headers['last-event-id'] === undefined) {
          res.write(`id: evt_1\nevent: limit_order.updated\ndata: ${JSON.stringify(eventJson(1))}\n\n`);
          setTimeout(() => res.destroy(), 20);
          return;
        }
        res.write(
          `: keep-alive\n\nid: evt_2\nevent: limit_order.updated\ndata: ${JSON.stringify(eventJson(2))}\n\n`,
        );
        setTimeout(() => interrupt?.(), 50);
      });
      const run = await tas(['events'], {
        onInterrupt: (handler) => {
          interrupt = handler;
          return () => {
            unregistered = true;
          };
        },
      });
      expect(run.code).toBe(0);
      expect(run.stdout.split('\n')).toEqual([
        JSON.stringify(eventJson(1)),
        JSON.stringify(eventJson(2)),
        '',
      ]);
      expect(received.map((r) => r.headers['last-event-id'])).toEqual([undefined, 'evt_1']);
      expect(received.every((r) => r.headers.accept === 'text/event-stream' && validlySigned(r))).toBe(true);
      const notes = run.stderr.split('\n');
      expect(notes[0]).toBe('following the event stream (Ctrl-C to stop)');
      expect(notes[1]).toMatch(/^retrying GET \/events in \d+\.\d s \(attempt 1 failed: NETWORK_ERROR\)$/);
      expect(notes.slice(2)).toEqual([
        'reconnected, resuming after evt_1',
        'stopped; resume with: tas events --last-event-id evt_2',
        '',
      ]);
      expect(unregistered).toBe(true);
    });

    it('as a process (bin/tas.cjs): Ctrl-C (SIGINT) stops the stream cleanly, exit 0', async () => {
      routes.set('GET /api/v1/events', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`id: evt_7\nevent: limit_order.updated\ndata: ${JSON.stringify(eventJson(7))}\n\n`);
      });
      const child = spawn(process.execPath, [path.join(REPO_ROOT, 'sdk', 'bin', 'tas.cjs'), 'events'], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          ...ENV,
          TAS_BASE_URL: baseUrl,
          TAS_PROFILE_FILE: path.join(home, 'none.json'),
        },
      });
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await new Promise<void>((resolve) =>
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.endsWith('\n')) resolve();
        }),
      );
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(stdout).toBe(`${JSON.stringify(eventJson(7))}\n`);
      expect(stderr).toBe(
        'following the event stream (Ctrl-C to stop)\nstopped; resume with: tas events --last-event-id evt_7\n',
      );
    }, 30_000);

    it('--last-event-id resumes after it; an unknown one is one error line, exit 1', async () => {
      routes.set('GET /api/v1/events', (_req, res) =>
        failure(res, 400, 'VALIDATION_ERROR', 'Unknown Last-Event-ID'),
      );
      const run = await tas(['events', '--last-event-id', 'evt_gone', '--json']);
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: VALIDATION_ERROR (HTTP 400): Unknown Last-Event-ID (request id req-err)\n',
      });
      expect(received).toHaveLength(1);
      expect(received[0]!.headers['last-event-id']).toBe('evt_gone');
    });
  });
});

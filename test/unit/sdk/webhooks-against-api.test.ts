import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  MAX_WEBHOOKS_PER_KEY,
  NotFoundError,
  TasClient,
  ValidationError,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADERS,
  verifyWebhookSignature,
  type Credentials,
  type TasEvent,
} from '../../../sdk/src';
import { startApi, type RunningApi } from '../../helpers/api-harness';
import { createStoreTarget, type StoreTarget } from '../../helpers/store-targets';

// Tokens of config/tokenlists/1.json.
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const MAKER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const SIGNATURE = `0x${'ab'.repeat(65)}`;

async function createOrder(client: TasClient): Promise<string> {
  const order = await client.createLimitOrder({
    signature: SIGNATURE,
    slippage: '0.5',
    gasPrice: '20',
    expired: String(Date.now() + 86_400_000),
    price: '3500',
    priceTrigger: '3500',
    amount: '1.5',
    tokenBSymbol: 'USDC',
    tokenASymbol: 'WETH',
    outTokenAddress: USDC,
    inTokenAddress: WETH,
    chainId: 1,
    accountTo: MAKER,
  });
  return order.id;
}

/** A webhook receiver as the README shows it: the raw body verified with the SDK, then parsed. */
class Receiver {
  readonly genuine: TasEvent[] = [];
  readonly refused: string[] = [];
  secret = '';
  private waiters: Array<() => void> = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const ok = verifyWebhookSignature({
        secret: this.secret,
        timestamp: req.headers[WEBHOOK_HEADERS.timestamp],
        signature: req.headers[WEBHOOK_HEADERS.signature],
        body: raw,
      });
      res.writeHead(ok ? 204 : 401).end();
      if (!ok) {
        this.refused.push(raw.toString('utf8'));
        return;
      }
      const event = JSON.parse(raw.toString('utf8')) as TasEvent;
      expect(req.headers[WEBHOOK_HEADERS.eventId]).toBe(event.id);
      this.genuine.push(event);
      for (const wake of this.waiters.splice(0)) wake();
    });
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async until(test: (events: TasEvent[]) => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test(this.genuine)) {
      if (Date.now() > deadline)
        throw new Error(`no such delivery in ${timeoutMs} ms: ${JSON.stringify(this.genuine)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * client.webhooks against the real api (gateway authentication and the service's body-hash check over real HTTP):
 * every call is accepted only when the SDK signs it as the server verifies, and answers what the SDK's types say.
 */
describe('client.webhooks against the real api', () => {
  let target: StoreTarget;
  let running: RunningApi;
  let client: TasClient;
  let other: TasClient;

  beforeAll(async () => {
    target = await createStoreTarget('sqlite');
    // The receiver below listens on 127.0.0.1.
    running = await startApi(target, { WEBHOOK_PRIVATE_TARGETS: 'allow' });
    await running.store.referencePrices.upsert([
      {
        chainId: 1,
        baseSymbol: 'WETH',
        quoteSymbol: 'USDC',
        price: '3000',
        blockNumber: 1,
        updatedAt: Date.now(),
      },
    ]);
    const account = (name: string): Promise<Credentials> =>
      TasClient.createAccount(running.baseUrl, { name, password: 'password-12345' });
    client = new TasClient({ baseUrl: running.baseUrl, credentials: await account('webhooks-sdk-one') });
    other = client.withCredentials(await account('webhooks-sdk-two'));
  });
  afterAll(async () => {
    await running?.close();
    await target?.cleanup();
  });

  it('creates (the secret once), lists, reads, shows deliveries and deletes a webhook', async () => {
    const created = await client.webhooks.create({
      url: 'http://127.0.0.1:9/hook',
      events: ['limit_order.updated'],
    });
    expect(created).toEqual({
      id: expect.any(String),
      url: 'http://127.0.0.1:9/hook',
      events: ['limit_order.updated'],
      secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/),
      createdAt: expect.any(String),
    });
    const all = await client.webhooks.create({ url: 'https://example.com/all' });
    expect(all.events).toEqual([...WEBHOOK_EVENT_TYPES]);

    const listed = { id: created.id, url: created.url, events: created.events, createdAt: created.createdAt };
    expect(await client.webhooks.list()).toEqual([listed, expect.objectContaining({ id: all.id })]);
    expect(await client.webhooks.get(created.id)).toEqual(listed);
    expect(await other.webhooks.list()).toEqual([]);
    await expect(other.webhooks.get(created.id)).rejects.toBeInstanceOf(NotFoundError);

    expect(await client.webhooks.deliveries(created.id)).toEqual([]);

    expect(await client.webhooks.delete(created.id)).toEqual(listed);
    await expect(client.webhooks.get(created.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      serverMessage: 'Webhook not found',
    });
    await client.webhooks.delete(all.id);
  });

  it('sends a ping to one webhook (POST /webhooks/{id}/test with the body {})', async () => {
    const hook = await client.webhooks.create({ url: 'http://127.0.0.1:9/ping' });
    try {
      expect(await client.webhooks.test(hook.id)).toEqual({ eventId: expect.stringMatching(/^evt_/) });
      await expect(client.webhooks.test('not-a-webhook')).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      await client.webhooks.delete(hook.id);
    }
  });

  it('a delivery verifies with verifyWebhookSignature on the raw body; another secret does not', async () => {
    const receiver = new Receiver();
    await receiver.start();
    const hook = await client.webhooks.create({ url: receiver.url, events: ['limit_order.updated'] });
    try {
      receiver.secret = hook.secret;
      const orderId = await createOrder(client);
      await client.cancelLimitOrder(orderId);
      await receiver.until((events) =>
        events.some(
          (e) => e.type === 'limit_order.updated' && e.data.id === orderId && e.data.status === 'cancelled',
        ),
      );
      expect(receiver.refused).toEqual([]);
      const event = receiver.genuine.find((e) => e.type === 'limit_order.updated' && e.data.id === orderId)!;
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_/),
        type: 'limit_order.updated',
        createdAt: expect.any(String),
        data: expect.objectContaining({ id: orderId, accountTo: MAKER }),
      });
      const deliveries = await client.webhooks.deliveries(hook.id);
      expect(deliveries[0]).toMatchObject({ eventType: 'limit_order.updated', statusCode: 204, error: null });

      // The same receiver with a wrong secret refuses (401), and the service records the failed attempt.
      receiver.secret = `whsec_${'0'.repeat(64)}`;
      await createOrder(client);
      const deadline = Date.now() + 20_000;
      while (receiver.refused.length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(receiver.refused.length).toBeGreaterThan(0);
    } finally {
      await client.webhooks.delete(hook.id);
      await receiver.stop();
    }
  }, 60_000);

  it('client.events() follows GET /events, and resumes after a lastEventId', async () => {
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const stream = client.events({ onOpen: () => opened() });
    const first = stream.next();
    await open;
    const orderId = await createOrder(client);
    await client.cancelLimitOrder(orderId);
    const seen: TasEvent[] = [(await first).value as TasEvent];
    while (!seen.some((e) => e.type === 'limit_order.updated' && e.data.status === 'cancelled')) {
      seen.push((await stream.next()).value as TasEvent);
    }
    await stream.return();
    // The order's creation and its cancellation, nothing else.
    expect(seen.map((e) => (e.type === 'limit_order.updated' ? [e.data.id, e.data.status] : e.type))).toEqual(
      [
        [orderId, 'pending'],
        [orderId, 'cancelled'],
      ],
    );
    // Resuming after the first event gives what followed it.
    const resumed = client.events({ lastEventId: seen[0]!.id });
    expect((await resumed.next()).value).toEqual(seen[1]);
    await resumed.return();
    await expect(client.events({ lastEventId: 'evt_unknown' }).next()).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      status: 400,
      serverMessage: 'Unknown Last-Event-ID',
    });
  }, 60_000);

  it('refuses what the API refuses: a URL that is not http(s), an unknown type, too many webhooks', async () => {
    await expect(client.webhooks.create({ url: 'ftp://example.com/x' })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(
      client.webhooks.create({ url: 'https://example.com/x', events: ['order.exploded' as never] }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', serverMessage: 'Invalid request body' });
    const made = [];
    for (let i = 0; i < MAX_WEBHOOKS_PER_KEY; i += 1) {
      made.push(await other.webhooks.create({ url: `https://example.com/${i}` }));
    }
    await expect(other.webhooks.create({ url: 'https://example.com/one-too-many' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      serverMessage: `At most ${MAX_WEBHOOKS_PER_KEY} webhooks per API key`,
    });
    for (const hook of made) await other.webhooks.delete(hook.id);
  });
});

import type { LimitOrderResponse } from '../../shared/domain/limit-order-json';
import { limitOrderBody } from '../factories/limit-orders';
import { ApiClient, newAccountClient, type ApiResponse, type Envelope } from '../helpers/api-client';
import { startApiOn } from '../helpers/api-harness';
import { EventStreamReader } from '../helpers/event-stream';
import { describeEachStore } from '../helpers/store-targets';
import { signatureValid, WebhookReceiver } from '../helpers/webhook-receiver';

const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const ALL_TYPES = ['limit_order.updated', 'dca_strategy.updated', 'dca_order.updated', 'transfer.updated'];

interface CreatedWebhook {
  id: string;
  url: string;
  events: string[];
  secret: string;
  createdAt: string;
}

function expectValidation(res: ApiResponse<Envelope<unknown>>, message: string): void {
  expect(res.status).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error?.code).toBe('VALIDATION_ERROR');
  expect(res.body.error?.message).toBe(message);
}

async function createOrder(client: ApiClient): Promise<LimitOrderResponse> {
  const res = await client.post<LimitOrderResponse>(
    '/limit-order',
    limitOrderBody({
      chainId: 1,
      inTokenAddress: WETH,
      outTokenAddress: USDC,
      tokenASymbol: 'WETH',
      tokenBSymbol: 'USDC',
    }),
  );
  expect(res.status).toBe(200);
  return res.body.data!;
}

describeEachStore('webhooks and the event stream', (kind) => {
  let running: Awaited<ReturnType<typeof startApiOn>>;
  let client: ApiClient;
  let other: ApiClient;
  const receiver = new WebhookReceiver();
  let receiverUrl: string;

  beforeAll(async () => {
    running = await startApiOn(kind, { WEBHOOK_PRIVATE_TARGETS: 'allow' });
    [client, other] = await Promise.all([
      newAccountClient(running.baseUrl),
      newAccountClient(running.baseUrl),
    ]);
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
    receiverUrl = await receiver.start();
  });

  afterAll(async () => {
    await receiver.stop();
    await running?.close();
  });

  it('refuses a URL that is not http(s), an unknown event type, and an 11th webhook', async () => {
    for (const url of ['ftp://example.com/x', 'example.com/hook', 'javascript:alert(1)']) {
      expectValidation(await client.post('/webhooks', { url }), 'Invalid request body');
    }
    expectValidation(
      await client.post('/webhooks', { url: receiverUrl, events: ['order.done'] }),
      'Invalid request body',
    );
    const crowded = await newAccountClient(running.baseUrl);
    for (let i = 0; i < 10; i += 1) {
      expect((await crowded.post('/webhooks', { url: `https://example.com/${i}` })).status).toBe(200);
    }
    expectValidation(
      await crowded.post('/webhooks', { url: 'https://example.com/11' }),
      'At most 10 webhooks per API key',
    );
    expect((await crowded.get<unknown[]>('/webhooks')).body.data).toHaveLength(10);
  });

  it('creates, lists, reads and deletes a webhook of its own key only', async () => {
    const created = await client.post<CreatedWebhook>('/webhooks', { url: 'https://example.com/a' });
    expect(created.status).toBe(200);
    const hook = created.body.data!;
    expect(hook.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(hook.events).toEqual(ALL_TYPES);
    const read = await client.get<Record<string, unknown>>(`/webhooks/${hook.id}`);
    expect(read.body.data).toEqual({
      id: hook.id,
      url: hook.url,
      events: ALL_TYPES,
      createdAt: hook.createdAt,
    });
    expect((await client.get<Array<{ id: string }>>('/webhooks')).body.data!.map((w) => w.id)).toContain(
      hook.id,
    );
    const notFound = { code: 'NOT_FOUND', message: 'Webhook not found', details: [] };
    expect((await other.get(`/webhooks/${hook.id}`)).body.error).toEqual(notFound);
    expect((await other.delete(`/webhooks/${hook.id}`)).status).toBe(404);
    expect((await other.get<unknown[]>('/webhooks')).body.data).toEqual([]);
    expect((await client.delete(`/webhooks/${hook.id}`)).body.data).toEqual(read.body.data);
    expect((await client.get(`/webhooks/${hook.id}`)).status).toBe(404);
    expect((await client.delete(`/webhooks/${hook.id}`)).status).toBe(404);
  });

  it('delivers signed limit_order.updated events of its key only, each as GET answers it, in order', async () => {
    const hook = (
      await client.post<CreatedWebhook>('/webhooks', { url: receiverUrl, events: ['limit_order.updated'] })
    ).body.data!;
    const before = receiver.received.length;
    const order = await createOrder(client);
    const strangers = await createOrder(other);
    const cancelled = await client.delete<LimitOrderResponse>(`/limit-order/${order.id}`);
    expect(cancelled.status).toBe(200);
    await receiver.waitFor((all) => all.slice(before).filter((d) => d.body.data.id === order.id).length >= 2);
    const mine = receiver.received.slice(before).filter((d) => d.body.data.id === order.id);
    expect(mine.map((d) => d.body.data.status)).toEqual(['pending', 'cancelled']);
    expect(mine[1]!.body.data).toEqual(cancelled.body.data);
    for (const delivery of mine) {
      expect(signatureValid(hook.secret, delivery)).toBe(true);
      expect(signatureValid(`${hook.secret}0`, delivery)).toBe(false);
      expect(delivery.body.type).toBe('limit_order.updated');
      expect(delivery.headers['x-tas-event-id']).toBe(delivery.body.id);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(Math.abs(Number(delivery.headers['x-tas-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }
    expect(new Set(mine.map((d) => d.body.id)).size).toBe(2);
    expect(receiver.received.some((d) => d.body.data.id === strangers.id)).toBe(false);
    await client.delete(`/webhooks/${hook.id}`);
  });

  it('retries a receiver that answers 503 until it takes the event, and lists every attempt', async () => {
    const hook = (await client.post<CreatedWebhook>('/webhooks', { url: receiverUrl })).body.data!;
    let refusals = 2;
    receiver.answer = () => (refusals-- > 0 ? 503 : 200);
    const order = await createOrder(client);
    await receiver.waitFor((all) => all.some((d) => d.status === 200 && d.body.data.id === order.id), 20_000);
    receiver.answer = () => 200;
    const attempts = receiver.received.filter((d) => d.body.data.id === order.id);
    expect(attempts.map((d) => d.status)).toEqual([503, 503, 200]);
    expect(new Set(attempts.map((d) => d.body.id)).size).toBe(1);
    // Backed off: the retries came at least a second apart.
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(700);
    const deliveries = await client.get<Array<Record<string, unknown>>>(`/webhooks/${hook.id}/deliveries`);
    expect(deliveries.body.data!.slice(0, 3).map((d) => [d.statusCode, d.attempt])).toEqual([
      [200, 3],
      [503, 2],
      [503, 1],
    ]);
    expect(deliveries.body.data![1]).toMatchObject({ eventType: 'limit_order.updated', error: 'HTTP 503' });
    expect((await other.get(`/webhooks/${hook.id}/deliveries`)).status).toBe(404);
    await client.delete(`/webhooks/${hook.id}`);
  });

  it('sends a ping to the one webhook tested', async () => {
    const a = (await client.post<CreatedWebhook>('/webhooks', { url: `${receiverUrl}?a` })).body.data!;
    const b = (await client.post<CreatedWebhook>('/webhooks', { url: `${receiverUrl}?b` })).body.data!;
    const sent = await client.post<{ eventId: string }>(`/webhooks/${a.id}/test`, {});
    expect(sent.status).toBe(200);
    await receiver.waitFor((all) => all.some((d) => d.body.id === sent.body.data!.eventId));
    const pings = receiver.received.filter((d) => d.body.id === sent.body.data!.eventId);
    expect(pings).toHaveLength(1);
    expect(pings[0]!.body).toMatchObject({ type: 'ping', data: { webhookId: a.id } });
    expect(signatureValid(a.secret, pings[0]!)).toBe(true);
    expect((await other.post(`/webhooks/${a.id}/test`, {})).status).toBe(404);
    await client.delete(`/webhooks/${a.id}`);
    await client.delete(`/webhooks/${b.id}`);
  });

  it('streams the same events over GET /events and resumes after Last-Event-ID', async () => {
    const stream = new EventStreamReader(client);
    expect(await stream.open()).toBe('');
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    const strangers = await createOrder(other);
    const first = await createOrder(client);
    await stream.waitFor((events) => events.some((e) => e.data.includes(first.id)));
    const seen = stream.events.find((e) => e.data.includes(first.id))!;
    expect(seen.event).toBe('limit_order.updated');
    const body = JSON.parse(seen.data) as { id: string; data: LimitOrderResponse };
    expect(body.id).toBe(seen.id);
    expect(body.data).toEqual(first);
    await stream.close();
    expect(stream.events.some((e) => e.data.includes(strangers.id))).toBe(false);

    // Changes while disconnected arrive on reconnection, after the last id seen and nothing before it.
    const second = await createOrder(client);
    await client.delete(`/limit-order/${first.id}`);
    const resumed = new EventStreamReader(client, seen.id);
    expect(await resumed.open()).toBe('');
    await resumed.waitFor((events) => events.length >= 2);
    const ids = resumed.events.map(
      (e) => (JSON.parse(e.data) as { data: { id: string; status: string } }).data,
    );
    expect(ids.slice(0, 2)).toEqual([
      expect.objectContaining({ id: second.id, status: 'pending' }),
      expect.objectContaining({ id: first.id, status: 'cancelled' }),
    ]);
    expect(resumed.events.some((e) => e.id === seen.id)).toBe(false);
    await resumed.close();

    const unknown = new EventStreamReader(client, 'evt_00000000000000000000000000000000');
    const answer = JSON.parse(await unknown.open()) as Envelope;
    expect(unknown.status).toBe(400);
    expect(answer.error).toEqual({ code: 'VALIDATION_ERROR', message: 'Unknown Last-Event-ID', details: [] });
    // Another key's event id is as unknown as a made-up one.
    const foreign = new EventStreamReader(other, seen.id);
    await foreign.open();
    expect(foreign.status).toBe(400);
  });

  it('holds one key to 10 open streams without refusing another key', async () => {
    const greedy = await newAccountClient(running.baseUrl);
    const open = Array.from({ length: 10 }, () => new EventStreamReader(greedy));
    for (const stream of open) expect(await stream.open()).toBe('');
    const eleventh = new EventStreamReader(greedy);
    expect(JSON.parse(await eleventh.open())).toEqual({ message: 'Too Many Requests' });
    expect(eleventh.status).toBe(429);
    const others = new EventStreamReader(other);
    expect(await others.open()).toBe('');
    expect(others.status).toBe(200);
    await Promise.all([...open, others].map((stream) => stream.close()));
    // A closed stream frees its place (once the server has seen the connection go).
    let again = new EventStreamReader(greedy);
    for (const deadline = Date.now() + 5_000; (await again.open()) !== '' && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 50));
      again = new EventStreamReader(greedy);
    }
    expect(again.status).toBe(200);
    await again.close();
  });
});

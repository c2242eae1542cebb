import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DevnetManifest, ManifestChain } from '../../devnet/manifest';
import { ApiClient, newAccountClient } from '../helpers/api-client';
import { crossingOrder, expectCrossingOrderExecuted, type CrossingOrder } from '../helpers/crossing-order';
import { EventStreamReader } from '../helpers/event-stream';
import { startScript, type Script } from '../helpers/script-process';
import { signatureValid, WebhookReceiver, type ReceivedDelivery } from '../helpers/webhook-receiver';

/**
 * Issue 25's done-when, end to end on a devnet chain with the api and the keeper as processes of their own (both
 * deliver webhooks, from the one store): a key registers a webhook on a local receiver that answers 503 for its
 * first 60 s, creates a crossing limit order and the keeper executes it. Meanwhile the api and then the keeper are
 * SIGKILLed and restarted. Once the receiver takes deliveries, every limit_order.updated event arrives, signed, in
 * order, from pending to completed; another key's order never reaches it; GET /events delivered the same events
 * and resumed, on the restarted api, after the last id it had seen.
 */

jest.setTimeout(420_000);

const REFUSE_MS = 60_000;
const ORDER_STEPS = ['pending', 'executing', 'submitted', 'completed'];

interface EventBody {
  id: string;
  type: string;
  data: { id: string; status: string };
}

async function createWhenPriced(client: ApiClient, order: CrossingOrder): Promise<string> {
  // The keeper publishes the reference prices the api checks: until then creation is a 400.
  for (const deadline = Date.now() + 90_000; ;) {
    const res = await client.post<{ id: string }>('/limit-order', order.body);
    if (res.status === 200) return res.body.data!.id;
    expect(res.body.error?.message).toBe('Not exist reference price for this pair WETH/USDC');
    if (Date.now() > deadline) throw new Error('no reference price published');
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** One entry per event id (a redelivery is the same event), in order of first arrival. */
function distinct(deliveries: ReceivedDelivery[]): ReceivedDelivery[] {
  const seen = new Set<string>();
  return deliveries.filter((d) => !seen.has(d.body.id) && seen.add(d.body.id));
}

describe('webhooks and the event stream survive a refusing receiver and killed processes', () => {
  let dataDir: string;
  let chain: ManifestChain;
  let devnet: Script;
  let api: Script | undefined;
  let keeper: Script | undefined;
  const receiver = new WebhookReceiver();

  const apart = (): Record<string, string> => ({
    DEVNET_MANIFEST: path.join(dataDir, 'devnet.json'),
    DATA_DIR: dataDir,
    WEBHOOK_PRIVATE_TARGETS: 'allow',
  });
  async function startApi(): Promise<string> {
    api = startScript('devnet/apart/api-main.ts', { ...apart(), PORT: '0', ADMIN_PORT: '0' });
    const [, baseUrl] = await api.waitFor(/api: (http:\/\/\S+\/api\/v1) /, 120_000);
    return baseUrl!;
  }
  async function startKeeper(): Promise<void> {
    keeper = startScript('devnet/apart/keeper-main.ts', { ...apart(), KEEPER_ADMIN_PORT: '0' });
    await keeper.waitFor(/keeper: \S+ \(admin /, 120_000);
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-webhooks-'));
    devnet = startScript('devnet/cli/run-devnet.ts', {
      DATA_DIR: dataDir,
      DEVNET_CHAINS: '1',
      DEVNET_PORTS: '0',
    });
    await devnet.waitFor(/^ready in /m, 180_000);
    chain = (JSON.parse(readFileSync(path.join(dataDir, 'devnet.json'), 'utf8')) as DevnetManifest)
      .chains[0]!;
  });

  afterAll(async () => {
    await receiver.stop();
    await Promise.all([keeper?.stop('SIGKILL'), api?.stop('SIGKILL')]);
    // The devnet stops its chains on SIGTERM; killed, it would leave them running (and writing into dataDir).
    await devnet?.stop();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });

  it('delivers every event of the key, signed and in order, and the stream resumes after Last-Event-ID', async () => {
    const hookUrl = await receiver.start();
    let baseUrl = await startApi();
    await startKeeper();
    const client = await newAccountClient(baseUrl);
    const stranger = await newAccountClient(baseUrl);
    const created = await client.post<{ id: string; secret: string }>('/webhooks', {
      url: hookUrl,
      events: ['limit_order.updated'],
    });
    expect(created.status).toBe(200);
    const { secret } = created.body.data!;
    const refuseUntil = Date.now() + REFUSE_MS;
    receiver.answer = () => (Date.now() < refuseUntil ? 503 : 200);

    let stream = new EventStreamReader(client);
    expect(await stream.open()).toBe('');

    const mine = await crossingOrder(chain, 3, client.credentials.apiKey);
    const theirs = await crossingOrder(chain, 2, stranger.credentials.apiKey);
    const id = await createWhenPriced(client, mine);
    const strangersId = await createWhenPriced(stranger, theirs);
    await expectCrossingOrderExecuted(client, chain, mine, id);
    await expectCrossingOrderExecuted(stranger, chain, theirs, strangersId);
    await receiver.waitFor((all) => all.length >= 2, 20_000);
    expect(receiver.accepted()).toEqual([]);

    // The api dies with the stream open and deliveries being retried; the stream resumes on its successor.
    await stream.waitFor((events) => events.some((e) => e.data.includes('"completed"')), 20_000);
    const lastSeen = stream.events[stream.events.length - 1]!.id;
    const streamed = [...stream.events];
    await api!.stop('SIGKILL');
    await stream.close();
    baseUrl = await startApi();
    // The keeper dies too, while the receiver still refuses.
    await keeper!.stop('SIGKILL');
    await startKeeper();
    const again = new ApiClient(baseUrl, client.credentials);
    expect((await again.get<{ status: string }>(`/limit-order/${id}`)).body.data?.status).toBe('completed');

    // Once the receiver takes deliveries, everything refused arrives, in order (retries back off up to ~1 min).
    await receiver.waitFor(
      (all) => all.some((d) => d.status === 200 && d.body.data.status === 'completed'),
      REFUSE_MS + 150_000,
    );
    const accepted = distinct(receiver.accepted()).map((d) => d.body as unknown as EventBody);
    const statuses = accepted.map((e) => e.data.status).filter((s, i, all) => s !== all[i - 1]);
    expect(statuses[0]).toBe('pending');
    expect(statuses[statuses.length - 1]).toBe('completed');
    // Each step no earlier than the one before: a later status never arrives ahead of an earlier one.
    const steps = statuses.map((s) => ORDER_STEPS.indexOf(s));
    expect(steps.every((step, i) => step >= 0 && (i === 0 || step > steps[i - 1]!))).toBe(true);
    expect(accepted.every((e) => e.data.id === id && e.type === 'limit_order.updated')).toBe(true);
    for (const delivery of receiver.received) expect(signatureValid(secret, delivery)).toBe(true);
    expect(receiver.received.some((d) => d.body.data.id === strangersId)).toBe(false);
    // The last event carries the order exactly as GET answers it.
    const final = await again.get<Record<string, unknown>>(`/limit-order/${id}`);
    expect(accepted[accepted.length - 1]!.data).toEqual(final.body.data);

    // The stream: the same events (by id) as the webhook, and after reconnecting nothing twice, nothing lost.
    stream = new EventStreamReader(again, lastSeen);
    expect(await stream.open()).toBe('');
    // Waits for as many events as the webhook took; the equality below then says they are the same ones.
    await stream.waitFor((events) => streamed.length + events.length >= accepted.length, 20_000);
    const all = [...streamed, ...stream.events];
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    expect(all.map((e) => e.id)).toEqual(accepted.map((e) => e.id));
    await stream.close();
  });
});

/**
 * Time from the keeper's settle to the webhook's arrival: `npm run bench:webhooks`.
 *
 * The real store (SQLite in a temp folder, or DATABASE_URL's MySQL), the real outbox and WebhookDeliverer (as an
 * api or keeper process runs it, default poll) and a local HTTP receiver. Orders are claimed as the keeper claims
 * them, then settled one at a time with the keeper repository's `complete` (the write the keeper's settle stage
 * makes) at random 20–120 ms gaps; the figure is the time from that write's start to the receiver holding the
 * `completed` event. The comparator, measured in the same run, is the floor: the same signed POST sent straight to
 * the same receiver (no store, no outbox, no poll). A client polling GET once a second would wait 500 ms on average.
 * The deliverer polls the outbox every 200 ms, so the figure is about half that plus the write and the POST.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { newPendingLimitOrder } from '../shared/domain/limit-order';
import { createLogger } from '../shared/log/create-logger';
import { postWebhook } from '../shared/events/post-webhook';
import { WebhookDeliverer } from '../shared/events/webhook-deliverer';
import { webhookSignature } from '../shared/events/webhook-signature';
import { SecretBox } from '../shared/signing/secret-box';
import { openStore } from '../shared/store/store';

const ORDERS = Number(process.env.BENCH_WEBHOOK_ORDERS ?? 300);
/** Settles sent first and not counted: the first runs of the delivery path (JIT, first connections). */
const WARMUP = 30;
const API_KEY = randomUUID();

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summary(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1]! };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tas-webhook-bench-'));
  const store = await openStore({ dataDir, databaseUrl: process.env.DATABASE_URL ?? '' });
  const arrivals = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { data: { id?: string; status?: string } };
      if (body.data.status === 'completed' && body.data.id) arrivals.set(body.data.id, at);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const secretBox = new SecretBox(randomBytes(32));
  const webhookId = randomUUID();
  await store.webhooks.insertWithin(
    {
      id: webhookId,
      apiKey: API_KEY,
      url,
      events: ['limit_order.updated'],
      secretSealed: secretBox.seal('whsec_bench', webhookId),
      createdAt: Date.now(),
      cursor: 0,
      attempt: 0,
      failingSince: null,
      nextAttemptAt: 0,
    },
    10,
  );
  const ids: string[] = [];
  for (let i = 0; i < WARMUP + ORDERS; i += 1) {
    const id = randomUUID();
    ids.push(id);
    await store.limitOrders.insert(
      newPendingLimitOrder(
        id,
        API_KEY,
        {
          accountTo: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
          chainId: 1,
          inTokenAddress: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
          outTokenAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
          tokenASymbol: 'WETH',
          tokenBSymbol: 'USDC',
          amount: '1',
          price: '3000',
          priceTrigger: '3000',
          gasPrice: '30',
          slippage: '1',
          expired: String(Date.now() + 86_400_000),
          signature: `0x${'ab'.repeat(65)}`,
        },
        Date.now(),
      ),
    );
  }
  await store.keeperLimitOrders.claim(ids, 'bench-keeper', 600_000, Date.now());
  const deliverer = new WebhookDeliverer({
    store,
    secretBox,
    owner: 'bench',
    log: createLogger('silent', 'bench'),
    allowInternalTargets: true,
  });
  deliverer.start();
  // The pending and executing events go out first; the settles are timed on a quiet outbox.
  while ((await store.webhooks.listDue(Date.now() + 1, 1)).length)
    await new Promise((r) => setTimeout(r, 50));

  const settled = new Map<string, number>();
  for (const id of ids) {
    settled.set(id, performance.now());
    await store.keeperLimitOrders.complete(
      id,
      { transactionHash: `0x${randomBytes(32).toString('hex')}` },
      Date.now(),
    );
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 100));
  }
  for (const deadline = Date.now() + 60_000; arrivals.size < ids.length && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await deliverer.stop();
  const measured = ids.slice(WARMUP);
  const latencies = measured.flatMap((id) => {
    const arrived = arrivals.get(id);
    return arrived === undefined ? [] : [arrived - settled.get(id)!];
  });

  // The floor: the same signed POST, straight to the receiver.
  const floor: number[] = [];
  for (let i = 0; i < ORDERS; i += 1) {
    const body = JSON.stringify({
      id: `evt_${i}`,
      type: 'limit_order.updated',
      data: { id: 'x', status: 'x' },
    });
    const t = Math.floor(Date.now() / 1000);
    const started = performance.now();
    await postWebhook(
      url,
      { 'content-type': 'application/json', 'x-tas-signature': webhookSignature('whsec_bench', t, body) },
      body,
      { timeoutMs: 5000, allowInternal: true },
    );
    floor.push(performance.now() - started);
  }
  receiver.close();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });

  const s = summary(latencies);
  const f = summary(floor);
  const fmt = (n: number): string => n.toFixed(1).padStart(8);
  console.log(
    `webhook delivery, ${latencies.length}/${measured.length} settles delivered (after ${WARMUP} unmeasured), store ${process.env.DATABASE_URL ? 'mysql' : 'sqlite'}`,
  );
  console.log('measure                                     p50 ms   p99 ms   max ms');
  console.log(`settle -> webhook arrival                 ${fmt(s.p50)} ${fmt(s.p99)} ${fmt(s.max)}`);
  console.log(`floor: direct signed POST                 ${fmt(f.p50)} ${fmt(f.p99)} ${fmt(f.max)}`);
  console.log(`polling GET every 1 s (expected)          ${fmt(500)} ${fmt(990)} ${fmt(1000)}`);
  console.log(`ratio settle->arrival / polling p50: ${(s.p50 / 500).toFixed(2)}`);
  if (latencies.length < measured.length) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

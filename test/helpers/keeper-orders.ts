import { setTimeout as sleep } from 'node:timers/promises';
import { Contract, MaxUint256, Wallet, type JsonRpcProvider, type TransactionResponse } from 'ethers';
import type { ManifestChain } from '../../devnet/manifest';
import type { LimitOrderResponse } from '../../shared/domain/limit-order-json';
import type { KeeperInstance } from '../../keeper/build-keeper';
import { ERC20_ABI, orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import type { Store } from '../../shared/store/store';
import { limitOrderBody, limitOrderTokens, type LimitOrderRequest } from '../factories/limit-orders';
import type { ApiClient } from './api-client';
import { keyOfEvent, keysOfTransaction, type BatchOrderKey } from './batch-keys';
import { limitOrderOnchainId, signPair, token } from './maker';
import type { RunningService } from './service-harness';

/**
 * Limit orders for the keeper's fault end-to-end suites: the manifest's test accounts approve the OrderExecutor and
 * sign both directions of WETH/USDC, orders far below the devnet market (ETH ≈ 3,000 USD) are created through the
 * public API, and "exactly once" is read from the chain (one OrderExecuted event per order id) and from the API.
 */

export type Order = LimitOrderResponse;

export interface OrderMaker {
  wallet: Wallet;
  /** Pair authorization per `tokenIn>tokenOut`. */
  signatures: Map<string, string>;
}

interface Pair {
  tokenIn: { symbol: string; address: string };
  tokenOut: { symbol: string; address: string };
  amount: string;
  trigger: string;
}

interface ExecutedLog {
  onchainId: string;
  txHash: string;
}

const HOUR_MS = 3_600_000;
const APPROVE_GAS = 100_000n;
/** Far below the devnet market: every order crosses at once and stays crossed while they fill. */
const SELL_WETH = { amount: '0.05', trigger: '2000' };
const SELL_USDC = { amount: '100', trigger: '0.0002' };

function pairs(manifest: ManifestChain): { sellWeth: Pair; sellUsdc: Pair } {
  const weth = token(manifest, 'WETH');
  const usdc = token(manifest, 'USDC');
  return {
    sellWeth: { tokenIn: weth, tokenOut: usdc, ...SELL_WETH },
    sellUsdc: { tokenIn: usdc, tokenOut: weth, ...SELL_USDC },
  };
}

/** Polls for the receipt with a deadline: a transaction that never mines fails the test with its hash. */
async function minedReceipt(provider: JsonRpcProvider, tx: TransactionResponse): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const receipt = await provider.getTransactionReceipt(tx.hash);
    if (receipt) {
      if (receipt.status !== 1) throw new Error(`transaction ${tx.hash} reverted`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`transaction ${tx.hash} not mined`);
    await sleep(50);
  }
}

/**
 * The four manifest accounts, each approving the OrderExecutor for WETH and USDC and signing both directions for
 * the API key that creates the orders (default: the service's client; a suite writing orders straight into the
 * store passes the key it writes them with).
 * One transaction at a time and with a fixed gas limit: ganache 7 was seen to leave an eth_estimateGas sent while
 * it mines another sender's transaction unanswered for good.
 */
export async function prepareMakers(
  running: Pick<RunningService, 'manifest' | 'provider' | 'client'>,
  apiKey: string = running.client.credentials.apiKey,
): Promise<OrderMaker[]> {
  const { manifest, provider } = running;
  const executor = manifest.contracts.orderExecutor;
  const { sellWeth, sellUsdc } = pairs(manifest);
  const makers: OrderMaker[] = [];
  for (const account of manifest.accounts) {
    const wallet = new Wallet(account.privateKey, provider);
    for (const t of [sellWeth.tokenIn, sellUsdc.tokenIn]) {
      const approve = new Contract(t.address, ERC20_ABI, wallet).getFunction('approve');
      const sent = (await approve(executor, MaxUint256, { gasLimit: APPROVE_GAS })) as TransactionResponse;
      await minedReceipt(provider, sent);
    }
    const signatures = new Map<string, string>();
    for (const p of [sellWeth, sellUsdc]) {
      const signature = await signPair(
        wallet,
        manifest,
        wallet.address,
        p.tokenIn.address,
        p.tokenOut.address,
        apiKey,
      );
      signatures.set(`${p.tokenIn.address}>${p.tokenOut.address}`, signature);
    }
    makers.push({ wallet, signatures });
  }
  return makers;
}

function orderBody(chainId: number, maker: OrderMaker, pair: Pair): LimitOrderRequest {
  const signature = maker.signatures.get(`${pair.tokenIn.address}>${pair.tokenOut.address}`);
  if (!signature)
    throw new Error(`${maker.wallet.address} has not signed ${pair.tokenIn.symbol}>${pair.tokenOut.symbol}`);
  return limitOrderBody({
    accountTo: maker.wallet.address,
    chainId,
    ...limitOrderTokens(pair.tokenIn, pair.tokenOut),
    amount: pair.amount,
    priceTrigger: pair.trigger,
    price: pair.trigger,
    expired: String(Date.now() + HOUR_MS),
    gasPrice: '1',
    slippage: '1',
    signature,
  });
}

/** `count` crossed orders spread over the makers, both directions of WETH/USDC. */
export function orderBodies(
  running: Pick<RunningService, 'manifest'>,
  makers: OrderMaker[],
  count: number,
): Record<string, unknown>[] {
  const { sellWeth, sellUsdc } = pairs(running.manifest);
  return Array.from({ length: count }, (_, i) =>
    orderBody(running.manifest.chainId, makers[i % makers.length]!, i % 3 === 2 ? sellUsdc : sellWeth),
  );
}

/**
 * Creates the orders through the API, a few at a time. Until a keeper has published the pair's reference price
 * the API answers 400 `Not exist reference price…`: those are retried for a while.
 */
export async function createOrders(client: ApiClient, bodies: Record<string, unknown>[]): Promise<Order[]> {
  const created: Order[] = [];
  const deadline = Date.now() + 60_000;
  const createOne = async (body: Record<string, unknown>): Promise<Order> => {
    for (;;) {
      const res = await client.post<Order>('/limit-order', body);
      if (res.status === 200 && res.body.data) return res.body.data;
      const noPriceYet = res.status === 400 && /Not exist reference price/.test(res.text);
      if (!noPriceYet || Date.now() > deadline) throw new Error(`order creation: ${res.status} ${res.text}`);
      await sleep(250);
    }
  };
  for (let i = 0; i < bodies.length; i += 20) {
    created.push(...(await Promise.all(bodies.slice(i, i + 20).map(createOne))));
  }
  return created;
}

export async function listOrders(client: ApiClient): Promise<Map<string, Order>> {
  const res = await client.get<Order[]>('/limit-order');
  if (res.status !== 200 || !res.body.data) throw new Error(`list: ${res.status} ${res.text}`);
  return new Map(res.body.data.map((o) => [o.id, o]));
}

export async function waitFor<T>(
  what: string,
  read: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** The orders of `ids` failed, with their reasons: an order settled `failed` must not happen in these suites. */
export function failedAmong(orders: Map<string, Order>, ids: readonly string[]): [string, string[]][] {
  return ids
    .map((i) => orders.get(i))
    .filter((o): o is Order => o?.status === 'failed')
    .map((o) => [o.id, o.reasonFail]);
}

/** Waits until every order has ended; fails at once on an order settled `failed`, which must not happen here. */
export async function waitForAllCompleted(
  client: ApiClient,
  ids: readonly string[],
  timeoutMs: number,
): Promise<Map<string, Order>> {
  let last = new Map<string, Order>();
  try {
    return await waitFor(
      'every order completed',
      async () => {
        last = await listOrders(client);
        const failed = failedAmong(last, ids);
        if (failed.length) throw new Error(`orders failed: ${JSON.stringify(failed)}`);
        return ids.every((i) => last.get(i)?.status === 'completed') ? last : undefined;
      },
      timeoutMs,
    );
  } catch (err) {
    const byStatus: Record<string, number> = {};
    for (const i of ids) {
      const status = last.get(i)?.status ?? 'missing';
      byStatus[status] = (byStatus[status] ?? 0) + 1;
    }
    throw new Error(`${(err as Error).message}; statuses: ${JSON.stringify(byStatus)}`);
  }
}

/** Every OrderExecuted event, under the key of the order its transaction's calldata names by the event's id. */
async function executedLogs(provider: JsonRpcProvider, orderExecutor: string): Promise<ExecutedLog[]> {
  const logs = await provider.getLogs({
    address: orderExecutor,
    topics: [orderExecutorInterface().getEvent('OrderExecuted')!.topicHash],
    fromBlock: 0,
    toBlock: 'latest',
  });
  const batches = new Map<string, Map<string, BatchOrderKey>>();
  const out: ExecutedLog[] = [];
  for (const l of logs) {
    let keys = batches.get(l.transactionHash);
    if (!keys) batches.set(l.transactionHash, (keys = await keysOfTransaction(provider, l.transactionHash)));
    out.push({ onchainId: keyOfEvent(keys, l.topics[1]!, l.transactionHash).key, txHash: l.transactionHash });
  }
  return out;
}

/**
 * Every order completed once: exactly one OrderExecuted event per order on the whole chain (its key: the on-chain
 * id but the execution index, each event's order read from its transaction), none for another order, and the API's
 * `txHash` of each order is the transaction holding its event. Keys are those of orders created with `apiKey`
 * (default: the service's client).
 */
export async function expectExecutedExactlyOnce(
  running: Pick<RunningService, 'manifest' | 'provider' | 'client'>,
  orders: Map<string, Order>,
  ids: string[],
  apiKey: string = running.client.credentials.apiKey,
): Promise<void> {
  const logs = await executedLogs(running.provider, running.manifest.contracts.orderExecutor);
  const byOnchainId = new Map<string, ExecutedLog[]>();
  for (const log of logs) byOnchainId.set(log.onchainId, [...(byOnchainId.get(log.onchainId) ?? []), log]);
  const twice = [...byOnchainId.entries()].filter(([, l]) => l.length > 1).map(([k]) => k);
  expect(twice).toEqual([]);
  expect(logs).toHaveLength(ids.length);
  for (const orderId of ids) {
    const order = orders.get(orderId)!;
    expect({ id: orderId, status: order.status }).toEqual({ id: orderId, status: 'completed' });
    const events = byOnchainId.get(limitOrderOnchainId(order, apiKey, running.manifest)) ?? [];
    expect({ id: orderId, events: events.length }).toEqual({ id: orderId, events: 1 });
    expect({ id: orderId, txHash: order.txHash }).toEqual({ id: orderId, txHash: events[0]!.txHash });
  }
}

export interface TransactionRow {
  id: string;
  executor: string;
  nonce: number;
  status: string;
  txHash: string;
  txHashes: string[];
  limitOrderIds: string[];
}

export async function transactionRows(store: Store): Promise<TransactionRow[]> {
  const rows: Array<Record<string, unknown>> = await store.knex('keeper_transactions').select('*');
  const items: Array<{ transaction_id: string; kind: string; item_id: string }> = await store
    .knex('keeper_transaction_items')
    .select('transaction_id', 'kind', 'item_id')
    .orderBy('position', 'asc');
  return rows.map((r) => ({
    id: String(r.id),
    executor: String(r.executor),
    nonce: Number(r.nonce),
    status: String(r.status),
    txHash: String(r.tx_hash),
    txHashes: JSON.parse(String(r.tx_hashes)) as string[],
    limitOrderIds: items.filter((i) => i.transaction_id === r.id && i.kind === 'limit').map((i) => i.item_id),
  }));
}

/** Each order in exactly one settled batch row, and no row left open. */
export function expectOneSettledRowPerOrder(rows: TransactionRow[], ids: string[]): void {
  expect(rows.filter((r) => ['signed', 'pending', 'mined'].includes(r.status))).toEqual([]);
  const seen = new Map<string, number>();
  for (const row of rows.filter((r) => r.status === 'settled'))
    for (const orderId of row.limitOrderIds) seen.set(orderId, (seen.get(orderId) ?? 0) + 1);
  expect([...seen.entries()].filter(([, n]) => n !== 1)).toEqual([]);
  expect([...seen.keys()].sort()).toEqual([...ids].sort());
}

/** A metric's value summed over its series (a matcher narrows them); undefined when the keeper has no such metric. */
export async function metricValue(
  keeper: KeeperInstance,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const metric = keeper.metrics.registry.getSingleMetric(name);
  if (!metric) return undefined;
  const { values } = await metric.get();
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))
    .reduce((sum, v) => sum + v.value, 0);
}

/** How many ticks of `chainId` have run `stage` to its end (the count of tas_keeper_tick_duration_seconds). */
async function stageRuns(keeper: KeeperInstance, chainId: number, stage: string): Promise<number> {
  const metric = keeper.metrics.registry.getSingleMetric('tas_keeper_tick_duration_seconds');
  if (!metric) throw new Error('the keeper has no tas_keeper_tick_duration_seconds');
  const { values } = await metric.get();
  return values
    .filter(
      (v) =>
        (v as { metricName?: string }).metricName?.endsWith('_count') &&
        String(v.labels.chain_id) === String(chainId) &&
        v.labels.stage === stage,
    )
    .reduce((sum, v) => sum + v.value, 0);
}

/**
 * Resolves once the keeper has run `stage` (its selection, or the DCA stage that creates due iterations) on block
 * `block` of `chainId` or a later one: its head (set when a tick starts on a block) has reached it, and the stage
 * has ended since (the tick's own, or the next one's). A test that then finds an order untouched knows the keeper
 * judged it on that block, not that it was still asleep.
 */
export async function keeperSelectedAt(
  keeper: KeeperInstance,
  chainId: number,
  block: number,
  { stage = 'select', timeoutMs = 15_000 }: { stage?: 'select' | 'dca'; timeoutMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const late = (): never => {
    throw new Error(
      `the keeper did not run ${stage} on block ${block} of chain ${chainId} within ${timeoutMs} ms`,
    );
  };
  while (
    ((await metricValue(keeper, 'tas_keeper_head_block', { chain_id: String(chainId) })) ?? -1) < block
  ) {
    if (Date.now() > deadline) late();
    await sleep(20);
  }
  const before = await stageRuns(keeper, chainId, stage);
  while ((await stageRuns(keeper, chainId, stage)) <= before) {
    if (Date.now() > deadline) late();
    await sleep(20);
  }
}

/**
 * Publishes the WETH/USDC reference price the api requires, as a keeper would: lets a test create every order
 * before the first keeper starts.
 */
export async function publishWethUsdcPrice(
  running: Pick<RunningService, 'api' | 'manifest' | 'provider'>,
): Promise<void> {
  await running.api.store.referencePrices.upsert([
    {
      chainId: running.manifest.chainId,
      baseSymbol: 'WETH',
      quoteSymbol: 'USDC',
      price: '3000',
      blockNumber: await running.provider.getBlockNumber(),
      updatedAt: Date.now(),
    },
  ]);
}

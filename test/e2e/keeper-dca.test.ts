import { setTimeout as sleep } from 'node:timers/promises';
import { formatUnits, type Wallet } from 'ethers';
import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import type { ApiClient } from '../helpers/api-client';
import {
  approveExecutor,
  baseUnits,
  createStrategy,
  executionEvents,
  feeCap,
  getStrategy,
  marketPrice,
  onchainIdOf,
  pollUntil,
  signedStrategyBody,
  strategyOrders,
  type DcaOrderJson,
  type DcaStrategyJson,
  type DcaStrategyRequest,
} from '../helpers/maker';
import { startWethUsdcKeeperE2e, type WethUsdcKeeperE2e } from '../helpers/keeper-e2e';
import { keeperSelectedAt } from '../helpers/keeper-orders';
import type { RunningService } from '../helpers/service-harness';

/**
 * DCA strategies end to end: strategies created through the public API on a devnet chain, their iterations
 * created and executed by the keeper at wall-clock slots (createdAt + k × frequency), checked against the chain
 * (receipts, OrderExecutor events, the maker's balances). Every strategy sells WETH for USDC.
 */

jest.setTimeout(90_000);

const TX_HASH = /^0x[0-9a-f]{64}$/;
const FINAL_ORDER_STATUSES = ['successful', 'error', 'expired', 'cancelled'];

let service: RunningService;
let chain: ManifestChain;
let client: ApiClient;
let makers: Wallet[];
let weth: ManifestToken;
let usdc: ManifestToken;
let capBps: bigint;
let balances: WethUsdcKeeperE2e['balances'];

beforeAll(async () => {
  ({ service, chain, client, makers, weth, usdc, capBps, balances } = await startWethUsdcKeeperE2e());
}, 150_000);

afterAll(async () => {
  await service?.close();
});

function strategyRequest(maker: Wallet, over: Partial<DcaStrategyRequest> = {}): Promise<DcaStrategyRequest> {
  return signedStrategyBody(
    client,
    chain,
    { maker, tokenIn: weth, tokenOut: usdc, totalAmount: 0.3, iterations: 3, frequency: 4 },
    over,
  );
}

/** Allowance for the whole budget plus the most fee the contract lets the keeper charge on each iteration. */
async function fundStrategy(maker: Wallet, perIteration: bigint, iterations: number): Promise<void> {
  const total = perIteration * BigInt(iterations);
  await approveExecutor(
    maker,
    chain,
    weth.address,
    total + feeCap(perIteration, capBps) * BigInt(iterations),
  );
}

/** Iteration k's slot: the strategy's creation time plus k frequencies. */
const slotOf = (strategy: DcaStrategyJson, k: number): number =>
  Date.parse(strategy.createdAt) + k * strategy.frequency * 1000;

/**
 * A successful iteration as the chain proves it: a successful receipt with this order's OrderExecuted event, for
 * the maker, selling exactly `amountIn` with a fee within the cap; the API's amounts agree with the event.
 */
async function expectIterationOnChain(
  order: DcaOrderJson,
  maker: Wallet,
  amountIn: bigint,
): Promise<{ fee: bigint; amountOut: bigint }> {
  expect(order.status).toBe('successful');
  expect(order.transactionHash).toMatch(TX_HASH);
  expect(order.errorMessage).toBeUndefined();
  const { receipt, executed } = await executionEvents(service.provider, chain, order.transactionHash!);
  expect(receipt.status).toBe(1);
  const onchainId = onchainIdOf({
    id: order.id,
    apiKey: client.credentials.apiKey,
    maker: maker.address,
    tokenIn: weth.address,
    tokenOut: usdc.address,
    amountIn,
  });
  const event = executed.find((e) => e.onchainId === onchainId);
  expect(event).toBeDefined();
  expect(event).toMatchObject({
    maker: maker.address,
    tokenIn: weth.address,
    tokenOut: usdc.address,
    amountIn,
  });
  const { fee, amountOut } = event!;
  expect(fee).toBeLessThanOrEqual(feeCap(amountIn, capBps));
  expect(amountOut).toBeGreaterThan(0n);
  expect(order.amountReceived).toBeGreaterThan(0);
  expect(order.amountReceived).toBeCloseTo(Number(formatUnits(amountOut, usdc.decimals)), 6);
  expect(order.executionPrice).toBeGreaterThan(0);
  expect(order.executionPrice).toBeCloseTo(
    order.amountReceived! / Number(formatUnits(amountIn, weth.decimals)),
    3,
  );
  return { fee, amountOut };
}

describe('DCA strategies executed by the keeper', () => {
  it('runs a 3-iteration strategy at its slots createdAt + k × frequency, each iteration on-chain, and finishes it', async () => {
    const maker = makers[0]!;
    const perIteration = baseUnits('0.1', weth);
    await fundStrategy(maker, perIteration, 3);
    const before = await balances(maker.address);

    const strategy = await createStrategy(client, await strategyRequest(maker));
    expect(strategy).toMatchObject({ status: 'active', iterations: 3, frequency: 4, totalAmount: 0.3 });

    // Watch the orders appear: never before their slot, and the first at once.
    const firstSeen = new Map<string, number>();
    const finished = await pollUntil(
      `strategy ${strategy.id} to finish`,
      async () => {
        const orders = await strategyOrders(client, strategy.id);
        const now = Date.now();
        for (const o of orders) if (!firstSeen.has(o.id)) firstSeen.set(o.id, now);
        // Iteration k exists only once its slot has come.
        orders.forEach((_, k) => expect(now).toBeGreaterThanOrEqual(slotOf(strategy, k)));
        return { strategy: await getStrategy(client, strategy.id), orders };
      },
      (s) => s.strategy.status !== 'active',
      { timeoutMs: 40_000, intervalMs: 250 },
    );
    expect(finished.strategy.status).toBe('finished');
    const orders = await strategyOrders(client, strategy.id);
    expect(orders).toHaveLength(3);

    let paid = 0n;
    let received = 0n;
    for (const [k, order] of orders.entries()) {
      expect(order).toMatchObject({ strategyId: strategy.id, accountTo: maker.address });
      // Created within its own slot window [slot k, slot k+1), and shown by the API within a second of it.
      const createdAt = Date.parse(order.createdAt);
      expect(createdAt).toBeGreaterThanOrEqual(slotOf(strategy, k));
      expect(createdAt).toBeLessThan(slotOf(strategy, k + 1));
      expect(firstSeen.get(order.id)!).toBeLessThan(slotOf(strategy, k) + 1_500);
      const { fee, amountOut } = await expectIterationOnChain(order, maker, perIteration);
      paid += perIteration + fee;
      received += amountOut;
    }
    // The iterations spend the whole budget and nothing else leaves the maker's wallet.
    const after = await balances(maker.address);
    expect(before.weth - after.weth).toBe(paid);
    expect(paid).toBeGreaterThanOrEqual(baseUnits('0.3', weth));
    expect(paid).toBeLessThanOrEqual(baseUnits('0.3', weth) + 3n * feeCap(perIteration, capBps));
    expect(after.usdc - before.usdc).toBe(received);
    // Three separate slots, three separate transactions.
    expect(new Set(orders.map((o) => o.transactionHash)).size).toBe(3);
    // `amount` is the amount of token sold: 0.3 / 3 sold exactly 0.1 WETH (1e17 base units) each time, and the
    // order reports it as the JSON number 0.1, not as the double quotient 0.09999999999999999.
    for (const order of orders) expect(order.amount).toBe(Number(formatUnits(perIteration, weth.decimals)));
  });

  it('creates no more orders for a cancelled strategy and cancels its pending one', async () => {
    const maker = makers[1]!;
    const perIteration = baseUnits('0.1', weth);
    await fundStrategy(maker, perIteration, 3);
    const before = await balances(maker.address);

    const strategy = await createStrategy(client, await strategyRequest(maker));
    const [first] = await pollUntil(
      'the first iteration to run',
      () => strategyOrders(client, strategy.id),
      (orders) => orders.length > 0 && FINAL_ORDER_STATUSES.includes(orders[0]!.status),
      { timeoutMs: 15_000 },
    );
    const { fee } = await expectIterationOnChain(first!, maker, perIteration);

    // A lower bound no market reaches holds the next iteration pending at its slot.
    const market = await marketPrice(service.provider, chain, weth, usdc);
    const bounded = await client.patch<DcaStrategyJson>(`/dca-order/strategies/${strategy.id}`, {
      minPrice: Math.round(market * 2),
    });
    expect(bounded.status).toBe(200);
    const waiting = await pollUntil(
      'the second iteration to be created',
      () => strategyOrders(client, strategy.id),
      (orders) => orders.length >= 2,
      { timeoutMs: 10_000 },
    );
    expect(waiting[1]!.status).toBe('pending');

    const cancel = await client.patch<DcaStrategyJson>(`/dca-order/strategies/${strategy.id}`, {
      status: 'cancelled',
    });
    expect(cancel.status).toBe(200);
    expect(cancel.body.data?.status).toBe('cancelled');
    const cancelledAt = Date.now();

    const second = await pollUntil(
      'the pending iteration to be cancelled',
      async () => (await strategyOrders(client, strategy.id))[1]!,
      (o) => o.status !== 'pending',
      { timeoutMs: 10_000 },
    );
    expect(second.status).toBe('cancelled');
    expect(second.transactionHash).toBeUndefined();

    // Past the third slot and one more frequency: nothing new, nothing executed.
    const quiet = slotOf(strategy, 3) + 1_000 - Date.now();
    if (quiet > 0) await sleep(quiet);
    await service.chain.mine();
    const block = await service.provider.getBlockNumber();
    await keeperSelectedAt(service.keepers[0]!, chain.chainId, block, { stage: 'dca' });
    const orders = await strategyOrders(client, strategy.id);
    expect(orders.map((o) => o.status)).toEqual(['successful', 'cancelled']);
    expect(orders.every((o) => Date.parse(o.createdAt) <= cancelledAt)).toBe(true);
    expect((await getStrategy(client, strategy.id)).status).toBe('cancelled');
    const after = await balances(maker.address);
    expect(before.weth - after.weth).toBe(perIteration + fee);
  });

  it('waits with an iteration whose price is below minPrice and marks it expired once the next slot (createdAt + (k + 1) × frequency) arrives, the last one a frequency after its own slot; then the strategy is finished', async () => {
    const maker = makers[2]!;
    const perIteration = baseUnits('0.1', weth);
    await fundStrategy(maker, perIteration, 2);
    const before = await balances(maker.address);
    const market = await marketPrice(service.provider, chain, weth, usdc);

    const strategy = await createStrategy(
      client,
      await strategyRequest(maker, {
        totalAmount: 0.2,
        iterations: 2,
        frequency: 3,
        minPrice: Math.round(market * 1.5),
      }),
    );
    expect(strategy.minPrice).toBe(Math.round(market * 1.5));

    // Iteration 0 exists at once and waits, unexecuted, while its window is open.
    const early = await pollUntil(
      'the first iteration to be created',
      () => strategyOrders(client, strategy.id),
      (orders) => orders.length > 0,
      { timeoutMs: 5_000 },
    );
    if (Date.now() < slotOf(strategy, 1) - 500) {
      expect(early[0]!.status).toBe('pending');
      expect(early[0]!.transactionHash).toBeUndefined();
    }

    const finished = await pollUntil(
      `strategy ${strategy.id} to finish`,
      () => getStrategy(client, strategy.id),
      (s) => s.status !== 'active',
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    expect(finished.status).toBe('finished');
    const orders = await strategyOrders(client, strategy.id);
    expect(orders.map((o) => o.status)).toEqual(['expired', 'expired']);
    for (const [k, order] of orders.entries()) {
      expect(order.transactionHash).toBeUndefined();
      expect(order.amountReceived).toBeUndefined();
      // Expired no earlier than the end of its window: the next slot.
      expect(Date.parse(order.updatedAt)).toBeGreaterThanOrEqual(slotOf(strategy, k + 1));
    }
    expect(await balances(maker.address)).toEqual(before);
  });
});

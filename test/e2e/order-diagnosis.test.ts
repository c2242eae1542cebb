import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import type { ApiClient } from '../helpers/api-client';
import {
  approveExecutor,
  baseUnits,
  createLimitOrder,
  createStrategy,
  feeCap,
  getLimitOrder,
  marketPrice,
  pollUntil,
  priceString,
  signedLimitOrderBody,
  signedStrategyBody,
  strategyOrders,
  waitForLimitOrder,
  type LimitOrderJson,
} from '../helpers/maker';
import { startWethUsdcKeeperE2e, type WethUsdcKeeperE2e } from '../helpers/keeper-e2e';
import { keeperSelectedAt } from '../helpers/keeper-orders';
import type { RunningService } from '../helpers/service-harness';

/**
 * Why a pending order has not filled, end to end: orders created through the public API on a devnet chain, judged
 * by the keeper, and read back with GET (`diagnosis`), their code changes in the event outbox.
 */

jest.setTimeout(120_000);

const ABOVE = 1.03;
const BELOW = 0.97;

let service: RunningService;
let chain: ManifestChain;
let client: ApiClient;
let makers: WethUsdcKeeperE2e['makers'];
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

function orderRequest(maker: WethUsdcKeeperE2e['makers'][number], priceTrigger: string) {
  return signedLimitOrderBody(client, chain, {
    maker,
    tokenIn: weth,
    tokenOut: usdc,
    amount: '1',
    priceTrigger,
  });
}

/** GET /limit-order/{id} until its diagnosis has `code`. */
function diagnosed(id: string, code: string): Promise<LimitOrderJson> {
  return pollUntil(
    `limit order ${id} diagnosed ${code}`,
    () => getLimitOrder(client, id),
    (o) => o.diagnosis?.code === code,
    { timeoutMs: 20_000 },
  );
}

/** The diagnosis codes the outbox sent for the order, oldest first. */
async function eventCodes(id: string): Promise<Array<string | null>> {
  const rows: Array<{ body: string }> = await service.keepers[0]!.store.knex('events')
    .select('body')
    .where({ resource_id: id })
    .orderBy('seq', 'asc');
  return rows.map((row) => {
    const body = JSON.parse(row.body) as { data: { diagnosis?: { code: string } } };
    return body.data.diagnosis?.code ?? null;
  });
}

describe('the diagnosis of a pending order', () => {
  it('shows PRICE_NOT_REACHED with the market price beside the trigger while the market is below it', async () => {
    const maker = makers[0]!;
    const amountIn = baseUnits('1', weth);
    await approveExecutor(maker, chain, weth.address, amountIn + feeCap(amountIn, capBps));
    const market = await marketPrice(service.provider, chain, weth, usdc);
    const trigger = priceString(market * ABOVE);

    const created = await createLimitOrder(client, await orderRequest(maker, trigger));
    const waiting = await diagnosed(created.id, 'PRICE_NOT_REACHED');

    expect(waiting.status).toBe('pending');
    expect(waiting.diagnosis).toMatchObject({
      code: 'PRICE_NOT_REACHED',
      priceTrigger: Number(trigger),
      message: expect.stringContaining('has not reached the trigger'),
    });
    const { marketPrice: seen, since } = waiting.diagnosis!;
    expect(seen).toBeLessThan(Number(trigger));
    expect(Math.abs(seen! - market) / market).toBeLessThan(0.02);
    expect(Date.parse(since)).toBeGreaterThanOrEqual(Date.parse(created.createdAt));
    expect(await eventCodes(created.id)).toContain('PRICE_NOT_REACHED');

    // Only while pending: a cancelled order shows none.
    const cancelled = await client.delete<LimitOrderJson>(`/limit-order/${created.id}`);
    expect(cancelled.status).toBe(200);
    expect((await getLimitOrder(client, created.id)).diagnosis).toBeUndefined();
  });

  it('shows ALLOWANCE_SHORT (required, available) for a crossed order its maker did not approve enough for, and executes it once the maker does', async () => {
    const maker = makers[1]!;
    const amountIn = baseUnits('1', weth);
    // Covers the amount, not the fee.
    await approveExecutor(maker, chain, weth.address, amountIn - 1n);
    const trigger = priceString((await marketPrice(service.provider, chain, weth, usdc)) * BELOW);
    const before = await balances(maker.address);

    const created = await createLimitOrder(client, await orderRequest(maker, trigger));
    const short = await diagnosed(created.id, 'ALLOWANCE_SHORT');

    expect(short).toMatchObject({ status: 'pending', txHash: '', reasonFail: [] });
    expect(short.diagnosis).toMatchObject({ code: 'ALLOWANCE_SHORT', available: (amountIn - 1n).toString() });
    const required = BigInt(short.diagnosis!.required!);
    // amount + fee, the fee within the contract's cap.
    expect(required).toBeGreaterThan(amountIn);
    expect(required).toBeLessThanOrEqual(amountIn + feeCap(amountIn, capBps));
    expect(await balances(maker.address)).toEqual(before);
    // It stays so: the keeper judges it again on each new block, it never fails. Three blocks, each waited for until
    // the keeper's selection ran on it (ticks run one after another: the third proves the second's tick ended).
    for (let i = 0; i < 3; i++) {
      await service.chain.mine();
      await keeperSelectedAt(service.keepers[0]!, chain.chainId, await service.provider.getBlockNumber());
    }
    const still = await getLimitOrder(client, created.id);
    expect(still).toMatchObject({ status: 'pending', reasonFail: [] });
    expect(still.diagnosis?.code).toBe('ALLOWANCE_SHORT');

    await approveExecutor(maker, chain, weth.address, amountIn + feeCap(amountIn, capBps));
    const done = await waitForLimitOrder(client, created.id, ['completed', 'failed'], 90_000);

    expect(done).toMatchObject({ status: 'completed', reasonFail: [] });
    expect(done.diagnosis).toBeUndefined();
    const after = await balances(maker.address);
    expect(before.weth - after.weth).toBeGreaterThan(amountIn);
    expect(after.usdc).toBeGreaterThan(before.usdc);
    // Each change of code was an event of the order: ALLOWANCE_SHORT while pending, then none once completed.
    const codes = await eventCodes(created.id);
    expect(codes).toContain('ALLOWANCE_SHORT');
    expect(codes[codes.length - 1]).toBeNull();
  });

  it('shows PRICE_NOT_REACHED with the strategy’s bounds on a due DCA iteration whose price is outside them', async () => {
    const maker = makers[2]!;
    const market = await marketPrice(service.provider, chain, weth, usdc);
    const minPrice = Math.round(market * 1.5);
    const strategy = await createStrategy(
      client,
      await signedStrategyBody(
        client,
        chain,
        { maker, tokenIn: weth, tokenOut: usdc, totalAmount: 0.2, iterations: 2, frequency: 3600 },
        { minPrice },
      ),
    );

    const [order] = await pollUntil(
      'the first iteration to be diagnosed',
      () => strategyOrders(client, strategy.id),
      (orders) => orders[0]?.diagnosis?.code === 'PRICE_NOT_REACHED',
      { timeoutMs: 20_000 },
    );

    expect(order!.status).toBe('pending');
    expect(order!.diagnosis).toMatchObject({ code: 'PRICE_NOT_REACHED', minPrice });
    expect(Math.abs(order!.diagnosis!.marketPrice! - market) / market).toBeLessThan(0.02);
    expect(order!.diagnosis!.maxPrice).toBeUndefined();
  });
});

import { MaxUint256, type Wallet } from 'ethers';
import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import type { ApiClient } from '../helpers/api-client';
import {
  approveExecutor,
  baseUnits,
  createLimitOrder,
  feeCap,
  getLimitOrder,
  limitOrderOnchainId,
  marketPrice,
  moveMarket,
  pollUntil,
  priceString,
  signedLimitOrderBody,
  waitForLimitOrder,
  type LimitOrderJson,
} from '../helpers/maker';
import { eventsOfOrder } from '../helpers/chain-proof';
import { startWethUsdcKeeperE2e, type WethUsdcKeeperE2e } from '../helpers/keeper-e2e';
import type { RunningService } from '../helpers/service-harness';

/**
 * Batches planned side by side (issue 26): with one order per batch and three executor wallets, every order a block
 * crosses is planned at once in its own batch. A maker whose allowance covers one order must still have exactly one
 * sent: the others wait (never sent, never failed), while another maker's order in a parallel batch completes.
 */

jest.setTimeout(120_000);

const ABOVE = 1.03;
const UP = 0.06;

let service: RunningService;
let chain: ManifestChain;
let client: ApiClient;
let makers: Wallet[];
let weth: ManifestToken;
let usdc: ManifestToken;
let capBps: bigint;
let balances: WethUsdcKeeperE2e['balances'];

beforeAll(async () => {
  ({ service, chain, client, makers, weth, usdc, capBps, balances } = await startWethUsdcKeeperE2e({
    executorsPerKeeper: [[0, 1, 2]],
    env: { KEEPER_MAX_BATCH_ORDERS: '1' },
  }));
}, 150_000);

afterAll(async () => {
  await service?.close();
});

async function place(maker: Wallet, priceTrigger: string): Promise<LimitOrderJson> {
  return createLimitOrder(
    client,
    await signedLimitOrderBody(client, chain, {
      maker,
      tokenIn: weth,
      tokenOut: usdc,
      amount: '1',
      priceTrigger,
    }),
  );
}

/** OrderExecuted or OrderFailed events naming the order, ever. */
async function eventsOf(order: LimitOrderJson): Promise<number> {
  const key = limitOrderOnchainId(order, client.credentials.apiKey, chain);
  return (await eventsOfOrder(service.provider, chain.contracts.orderExecutor, key)).length;
}

it('sends exactly one of a maker’s orders its allowance covers when they are planned in parallel batches; the rest wait, never sent', async () => {
  const [short, other] = [makers[0]!, makers[1]!];
  const amountIn = baseUnits('1', weth);
  // One order's amount with the most fee the contract allows: not two.
  await approveExecutor(short, chain, weth.address, amountIn + feeCap(amountIn, capBps));
  await approveExecutor(other, chain, weth.address, MaxUint256);
  const trigger = priceString((await marketPrice(service.provider, chain, weth, usdc)) * ABOVE);
  const shortBefore = await balances(short.address);

  const held = [await place(short, trigger), await place(short, trigger), await place(short, trigger)];
  const free = await place(other, trigger);
  // Every order crosses in this one block: the keeper's next tick plans them in parallel, one per batch.
  await moveMarket(service.provider, chain, 'WETH/USDC', UP);

  const done = await waitForLimitOrder(client, free.id, ['completed', 'failed']);
  expect(done.status).toBe('completed');
  const settled = await pollUntil(
    'one of the short maker’s orders completed and the others diagnosed ALLOWANCE_SHORT',
    () => Promise.all(held.map((o) => getLimitOrder(client, o.id))),
    (orders) =>
      orders.filter((o) => o.status === 'completed').length === 1 &&
      orders.filter((o) => o.status === 'pending' && o.diagnosis?.code === 'ALLOWANCE_SHORT').length === 2,
  );
  const completed = settled.find((o) => o.status === 'completed')!;
  const waiting = settled.filter((o) => o.status !== 'completed');
  for (const order of waiting) expect(order).toMatchObject({ txHash: '', reasonFail: [] });
  // The maker paid for one order only, and no transaction ever carried the others.
  const shortAfter = await balances(short.address);
  expect(shortBefore.weth - shortAfter.weth).toBeGreaterThanOrEqual(amountIn);
  expect(shortBefore.weth - shortAfter.weth).toBeLessThanOrEqual(amountIn + feeCap(amountIn, capBps));
  expect(await eventsOf(completed)).toBe(1);
  for (const order of waiting) expect(await eventsOf(order)).toBe(0);
});

import { MaxUint256, type Wallet } from 'ethers';
import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import { BATCH_BASE_GAS, GAS_PER_ORDER } from '../../shared/routing/execution-fee';
import type { ApiClient } from '../helpers/api-client';
import {
  approveExecutor,
  baseUnits,
  createLimitOrder,
  marketPrice,
  moveMarket,
  priceString,
  signedLimitOrderBody,
  waitForLimitOrder,
  type LimitOrderJson,
} from '../helpers/maker';
import { startWethUsdcKeeperE2e, type WethUsdcKeeperE2e } from '../helpers/keeper-e2e';
import type { RunningService } from '../helpers/service-harness';

/**
 * Gas budgets per group (issue 26): the keeper simulates a batch with executeBatch, which reports each group's
 * settlement gas, and sends executeBudgetedBatch with budgets a fifth over it and a gas limit near what the batch
 * uses (not the per-order model's limit, 2.4 times the use): so a block builder that packs by gas limits takes as
 * many batches as their gas allows. Every order completes and every maker is paid what its order says.
 */

jest.setTimeout(150_000);

const ORDERS_PER_MAKER = 8;

let service: RunningService;
let chain: ManifestChain;
let client: ApiClient;
let makers: Wallet[];
let weth: ManifestToken;
let usdc: ManifestToken;
let balances: WethUsdcKeeperE2e['balances'];

beforeAll(async () => {
  ({ service, chain, client, makers, weth, usdc, balances } = await startWethUsdcKeeperE2e({}));
  for (const maker of makers.slice(0, 3)) await approveExecutor(maker, chain, weth.address, MaxUint256);
}, 150_000);

afterAll(async () => {
  await service?.close();
});

it('sends crossed orders in budgeted batches whose gas limits sit near their use, and completes every order', async () => {
  const trigger = priceString((await marketPrice(service.provider, chain, weth, usdc)) * 1.02);
  const placed: { maker: Wallet; order: LimitOrderJson }[] = [];
  for (const maker of makers.slice(0, 3)) {
    for (let i = 0; i < ORDERS_PER_MAKER; i++) {
      const body = await signedLimitOrderBody(client, chain, {
        maker,
        tokenIn: weth,
        tokenOut: usdc,
        amount: '0.05',
        priceTrigger: trigger,
      });
      placed.push({ maker, order: await createLimitOrder(client, body) });
    }
  }
  const before = new Map<string, { weth: bigint; usdc: bigint }>();
  for (const maker of makers.slice(0, 3)) before.set(maker.address, await balances(maker.address));

  await moveMarket(service.provider, chain, 'WETH/USDC', 0.06);
  const done = await Promise.all(
    placed.map(({ order }) => waitForLimitOrder(client, order.id, ['completed', 'failed'], 60_000)),
  );
  expect(done.map((o) => o.status)).toEqual(placed.map(() => 'completed'));

  const oe = orderExecutorInterface();
  const budgeted = oe.getFunction('executeBudgetedBatch')!.selector;
  const hashes = [...new Set(done.map((o) => o.txHash))];
  const paid = new Map<string, { weth: bigint; usdc: bigint }>();
  let executed = 0;
  for (const hash of hashes) {
    const tx = (await service.provider.getTransaction(hash))!;
    const receipt = (await service.provider.getTransactionReceipt(hash))!;
    expect(tx.to!.toLowerCase()).toBe(chain.contracts.orderExecutor.toLowerCase());
    expect(tx.data.slice(0, 10)).toBe(budgeted);
    expect(receipt.status).toBe(1);
    const orders = done.filter((o) => o.txHash === hash).length;
    // A fifth over each group's settlement, a tenth over the rest, the route's estimate and fixed slack.
    expect(tx.gasLimit).toBeLessThanOrEqual((receipt.gasUsed * 13n) / 10n + 400_000n);
    expect(tx.gasLimit).toBeGreaterThan(receipt.gasUsed);
    if (orders >= 10) expect(tx.gasLimit).toBeLessThan(BATCH_BASE_GAS + GAS_PER_ORDER * BigInt(orders));
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== chain.contracts.orderExecutor.toLowerCase()) continue;
      const event = oe.parseLog(log);
      expect(event?.name).not.toBe('OrderFailed');
      if (event?.name !== 'OrderExecuted') continue;
      executed += 1;
      const maker = String(event.args.maker).toLowerCase();
      const sum = paid.get(maker) ?? { weth: 0n, usdc: 0n };
      sum.weth += (event.args.amountIn as bigint) + (event.args.fee as bigint);
      sum.usdc += event.args.amountOut as bigint;
      paid.set(maker, sum);
    }
  }
  expect(executed).toBe(placed.length);

  // Each maker gave exactly its orders' WETH and fees, and got exactly the USDC the events say.
  for (const maker of makers.slice(0, 3)) {
    const after = await balances(maker.address);
    const sum = paid.get(maker.address.toLowerCase())!;
    expect(before.get(maker.address)!.weth - after.weth).toBe(sum.weth);
    expect(after.usdc - before.get(maker.address)!.usdc).toBe(sum.usdc);
    expect(sum.weth).toBeGreaterThanOrEqual(baseUnits('0.05', weth) * BigInt(ORDERS_PER_MAKER));
  }
});

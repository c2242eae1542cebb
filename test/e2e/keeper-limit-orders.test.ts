import { setTimeout as sleep } from 'node:timers/promises';
import type { Wallet } from 'ethers';
import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import type { ApiClient } from '../helpers/api-client';
import {
  approveExecutor,
  baseUnits,
  coversLimitMinimum,
  createLimitOrder,
  executionEvents,
  feeCap,
  getLimitOrder,
  marketPrice,
  moveMarket,
  limitOrderOnchainId,
  pollUntil,
  priceString,
  signedLimitOrderBody,
  signPair,
  token,
  waitForLimitOrder,
  type LimitOrderJson,
  type LimitOrderRequest,
} from '../helpers/maker';
import { eventsOfOrder } from '../helpers/chain-proof';
import { startWethUsdcKeeperE2e, type WethUsdcKeeperE2e } from '../helpers/keeper-e2e';
import { keeperSelectedAt } from '../helpers/keeper-orders';
import type { RunningService } from '../helpers/service-harness';

/**
 * Limit orders end to end: orders created through the public API on a devnet chain, executed by the keeper with
 * real transactions, checked against the chain (receipts, OrderExecutor events, the maker's balances).
 * Every maker sells WETH for USDC; the market is read from POST /quotes and moved with the market mover.
 */

jest.setTimeout(90_000);

const PAIR = 'WETH/USDC';
/** Far enough from the market that a 1 WETH order's own price impact and the quote's fee never decide. */
const ABOVE = 1.03;
const BELOW = 0.97;
const UP = 0.06;
const TX_HASH = /^0x[0-9a-f]{64}$/;

let service: RunningService;
let chain: ManifestChain;
let client: ApiClient;
let makers: Wallet[];
let weth: ManifestToken;
let usdc: ManifestToken;
let capBps: bigint;
let balances: WethUsdcKeeperE2e['balances'];

beforeAll(async () => {
  // Two executor wallets: a second batch can go out while the first is still in flight.
  ({ service, chain, client, makers, weth, usdc, capBps, balances } = await startWethUsdcKeeperE2e({
    executorsPerKeeper: [[0, 1]],
  }));
}, 120_000);

afterAll(async () => {
  await service?.close();
});

function orderRequest(
  maker: Wallet,
  priceTrigger: string,
  over: Partial<LimitOrderRequest> = {},
): Promise<LimitOrderRequest> {
  return signedLimitOrderBody(
    client,
    chain,
    { maker, tokenIn: weth, tokenOut: usdc, amount: '1', priceTrigger },
    over,
  );
}

/** Allowance for `amount` plus the most fee the contract lets the keeper charge on it. */
async function fundOrder(maker: Wallet, amount: bigint): Promise<void> {
  await approveExecutor(maker, chain, weth.address, amount + feeCap(amount, capBps));
}

/** Mines `count` empty blocks, each followed by the keeper's selection on it. */
async function mineBlocks(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await service.chain.mine();
    await keeperSelectedAt(service.keepers[0]!, chain.chainId, await service.provider.getBlockNumber());
  }
}

/** Raises the market by UP on every WETH/USDC pool; the returned function brings it back down. */
async function raiseMarket(): Promise<{ block: number; restore: () => Promise<void> }> {
  const block = await moveMarket(service.provider, chain, PAIR, UP);
  return {
    block,
    restore: async () => {
      await moveMarket(service.provider, chain, PAIR, 1 / (1 + UP) - 1);
      // The next test prices its orders off this market: let the keeper see it first.
      await mineBlocks(1);
    },
  };
}

/**
 * A completed order as the chain proves it: a successful receipt whose OrderExecuted event for this order paid
 * the maker at least amount × priceTrigger × (1 − slippage) and took exactly amount + fee (fee within the cap),
 * and the maker's balances moved by exactly those amounts.
 */
async function expectExecutedOnChain(
  order: LimitOrderJson,
  maker: Wallet,
  amountIn: bigint,
  before: { weth: bigint; usdc: bigint },
): Promise<{ blockNumber: number; fee: bigint }> {
  expect(order.status).toBe('completed');
  expect(order.txHash).toMatch(TX_HASH);
  expect(order.reasonFail).toEqual([]);
  const { receipt, executed } = await executionEvents(service.provider, chain, order.txHash);
  expect(receipt.status).toBe(1);
  const event = executed.find(
    (e) => e.onchainId === limitOrderOnchainId(order, client.credentials.apiKey, chain),
  );
  expect(event).toBeDefined();
  const { fee, amountOut } = event!;
  expect(event).toMatchObject({
    maker: maker.address,
    tokenIn: weth.address,
    tokenOut: usdc.address,
    amountIn,
  });
  expect(fee).toBeGreaterThan(0n);
  expect(fee).toBeLessThanOrEqual(feeCap(amountIn, capBps));
  expect(
    coversLimitMinimum({
      received: amountOut,
      amountIn,
      priceTrigger: String(order.priceTrigger),
      slippage: order.slippage,
      decimalsIn: weth.decimals,
      decimalsOut: usdc.decimals,
    }),
  ).toBe(true);
  const after = await balances(maker.address);
  expect(before.weth - after.weth).toBe(amountIn + fee);
  expect(after.usdc - before.usdc).toBe(amountOut);
  // The public transaction status agrees with the receipt.
  const status = await client.get<{ status: string }>(
    `/transactions/${order.txHash}?chainId=${chain.chainId}`,
  );
  expect(status.body.data?.status).toBe('success');
  return { blockNumber: receipt.blockNumber, fee };
}

/**
 * No event of the order executor names this order from `fromBlock` on (default: ever). An attempt the chain
 * refused before a cancel (the keeper may act on a pool state one block old) emits OrderFailed, which is not an
 * execution; the cancel test passes the cancel's block.
 */
async function expectNeverExecuted(order: LimitOrderJson, fromBlock = 0): Promise<void> {
  const logs = await eventsOfOrder(
    service.provider,
    chain.contracts.orderExecutor,
    limitOrderOnchainId(order, client.credentials.apiKey, chain),
    { fromBlock },
  );
  expect(logs).toEqual([]);
}

/** No OrderExecuted event for this order ever reached the chain. */
async function expectNoExecutedEvent(order: LimitOrderJson): Promise<void> {
  const logs = await eventsOfOrder(
    service.provider,
    chain.contracts.orderExecutor,
    limitOrderOnchainId(order, client.credentials.apiKey, chain),
    { executedOnly: true },
  );
  expect(logs).toEqual([]);
}

describe('limit orders executed by the keeper', () => {
  it('keeps an order above the market pending over several blocks, then completes it in the block(s) after the market crosses its trigger, paying at least amount × trigger × (1 − slippage)', async () => {
    const maker = makers[0]!;
    const amountIn = baseUnits('1', weth);
    await fundOrder(maker, amountIn);
    const market = await marketPrice(service.provider, chain, weth, usdc);
    const before = await balances(maker.address);

    const created = await createLimitOrder(client, await orderRequest(maker, priceString(market * ABOVE)));
    expect(created).toMatchObject({ status: 'pending', txHash: '', reasonFail: [], attemptNumber: 0 });

    await mineBlocks(4);
    const waiting = await getLimitOrder(client, created.id);
    expect(waiting).toMatchObject({ status: 'pending', txHash: '', reasonFail: [] });
    expect(await balances(maker.address)).toEqual(before);
    const lastPendingBlock = await service.provider.getBlockNumber();

    const moved = await raiseMarket();
    try {
      const done = await waitForLimitOrder(client, created.id, ['completed', 'failed']);
      const { blockNumber } = await expectExecutedOnChain(done, maker, amountIn, before);
      // Included after the blocks it waited through, at the latest in the block after the last move.
      expect(blockNumber).toBeGreaterThan(lastPendingBlock);
      expect(blockNumber).toBeLessThanOrEqual(moved.block + 1);
      // What the keeper measured for it is reported on the order.
      expect(done.allowance).toMatch(/^[0-9]+$/);
      expect(done.estimateGas).toMatch(/^[1-9][0-9]*$/);
      expect(done.effectivePriceGas).toMatch(/^[1-9][0-9]*$/);
      expect(BigInt(done.allowance)).toBeGreaterThanOrEqual(amountIn);
    } finally {
      await moved.restore();
    }
  });

  it('never executes an order cancelled while pending, although the price then crosses its trigger and a twin order completes', async () => {
    const [maker, twinMaker] = [makers[1]!, makers[2]!];
    const amountIn = baseUnits('1', weth);
    await fundOrder(maker, amountIn);
    await fundOrder(twinMaker, amountIn);
    const trigger = priceString((await marketPrice(service.provider, chain, weth, usdc)) * ABOVE);
    const before = await balances(maker.address);
    const twinBefore = await balances(twinMaker.address);

    const order = await createLimitOrder(client, await orderRequest(maker, trigger));
    const twin = await createLimitOrder(client, await orderRequest(twinMaker, trigger));
    await mineBlocks(1);

    const cancel = await client.delete<LimitOrderJson>(`/limit-order/${order.id}`);
    const cancelBlock = await service.provider.getBlockNumber();
    expect(cancel.status).toBe(200);
    expect(cancel.body.data).toMatchObject({ status: 'cancelled', txHash: '' });
    expect(cancel.body.data?.deletedAt).not.toBe('');

    const moved = await raiseMarket();
    try {
      const twinDone = await waitForLimitOrder(client, twin.id, ['completed', 'failed']);
      await expectExecutedOnChain(twinDone, twinMaker, amountIn, twinBefore);
      await mineBlocks(3);

      const after = await getLimitOrder(client, order.id);
      expect(after).toMatchObject({ status: 'cancelled', txHash: '', reasonFail: [] });
      expect(await balances(maker.address)).toEqual(before);
      await expectNoExecutedEvent(order);
      await expectNeverExecuted(order, cancelBlock + 1);
      const again = await client.delete(`/limit-order/${order.id}`);
      expect(again.status).toBe(409);
    } finally {
      await moved.restore();
    }
  });

  it('fails orders with a wrong pair signature (another pair, another key, another integrator) with BAD_SIGNATURE, while a valid order crossing in the same block completes', async () => {
    const [otherPairMaker, otherKeyMaker, otherIntegratorMaker, validMaker] = [
      makers[0]!,
      makers[1]!,
      makers[2]!,
      makers[3]!,
    ];
    const badMakers = [otherPairMaker, otherKeyMaker, otherIntegratorMaker];
    const amountIn = baseUnits('1', weth);
    for (const m of [...badMakers, validMaker]) await fundOrder(m, amountIn);
    const usdt = token(chain, 'USDT');
    const trigger = priceString((await marketPrice(service.provider, chain, weth, usdc)) * ABOVE);
    const before = await Promise.all([...badMakers, validMaker].map((m) => balances(m.address)));

    // Signed for WETH/USDT instead of WETH/USDC; signed by the valid maker's key for another maker; signed by the
    // maker for the right pair but granted to another API key than the one creating the order.
    const apiKey = client.credentials.apiKey;
    const otherPair = await signPair(
      otherPairMaker,
      chain,
      otherPairMaker.address,
      weth.address,
      usdt.address,
      apiKey,
    );
    const otherKey = await signPair(
      validMaker,
      chain,
      otherKeyMaker.address,
      weth.address,
      usdc.address,
      apiKey,
    );
    const otherIntegrator = await signPair(
      otherIntegratorMaker,
      chain,
      otherIntegratorMaker.address,
      weth.address,
      usdc.address,
      `${apiKey}-another-key`,
    );
    const [badPair, badKey, badIntegrator, valid] = await Promise.all([
      orderRequest(otherPairMaker, trigger, { signature: otherPair }).then((b) =>
        createLimitOrder(client, b),
      ),
      orderRequest(otherKeyMaker, trigger, { signature: otherKey }).then((b) => createLimitOrder(client, b)),
      orderRequest(otherIntegratorMaker, trigger, { signature: otherIntegrator }).then((b) =>
        createLimitOrder(client, b),
      ),
      orderRequest(validMaker, trigger).then((b) => createLimitOrder(client, b)),
    ]);
    // The api does not check signatures: all four are accepted.
    for (const o of [badPair, badKey, badIntegrator, valid]) expect(o.status).toBe('pending');
    await mineBlocks(1);

    // All four cross together: one selection, one batch plan.
    const moved = await raiseMarket();
    try {
      const validDone = await waitForLimitOrder(client, valid.id, ['completed', 'failed']);
      await expectExecutedOnChain(validDone, validMaker, amountIn, before[3]!);
      for (const [i, bad] of [badPair, badKey, badIntegrator].entries()) {
        const done = await waitForLimitOrder(client, bad.id, ['completed', 'failed']);
        expect({ i, ...done }).toMatchObject({
          i,
          status: 'failed',
          txHash: '',
          reasonFail: ['BAD_SIGNATURE'],
        });
        expect(done.attemptNumber).toBeGreaterThanOrEqual(1);
        expect(await balances(badMakers[i]!.address)).toEqual(before[i]);
        await expectNeverExecuted(bad);
      }
    } finally {
      await moved.restore();
    }
  });

  it('holds the fee to the cap the maker signed (maxFeeBps sent with the order), and fails BAD_SIGNATURE an order whose signature names another cap than the one it was sent with', async () => {
    const [capped, mismatched] = [makers[0]!, makers[1]!];
    const amountIn = baseUnits('1', weth);
    for (const m of [capped, mismatched]) await fundOrder(m, amountIn);
    const trigger = priceString((await marketPrice(service.provider, chain, weth, usdc)) * ABOVE);
    const before = await Promise.all([capped, mismatched].map((m) => balances(m.address)));
    // 1 bp of 1 WETH is below the execution fee at the devnet's gas price: the signed cap decides the fee.
    const signedAt1Bp = (m: Wallet) =>
      signPair(m, chain, m.address, weth.address, usdc.address, client.credentials.apiKey, 1);
    const [ok, bad] = await Promise.all([
      orderRequest(capped, trigger, { signature: await signedAt1Bp(capped), maxFeeBps: 1 }).then((b) =>
        createLimitOrder(client, b),
      ),
      // Sent without its cap: checked against the contract's cap, which the maker did not sign.
      orderRequest(mismatched, trigger, { signature: await signedAt1Bp(mismatched) }).then((b) =>
        createLimitOrder(client, b),
      ),
    ]);
    await mineBlocks(1);

    const moved = await raiseMarket();
    try {
      const done = await waitForLimitOrder(client, ok.id, ['completed', 'failed']);
      const { fee } = await expectExecutedOnChain(done, capped, amountIn, before[0]!);
      expect(fee).toBeLessThanOrEqual(feeCap(amountIn, 1n));
      const failed = await waitForLimitOrder(client, bad.id, ['completed', 'failed']);
      expect(failed).toMatchObject({ status: 'failed', txHash: '', reasonFail: ['BAD_SIGNATURE'] });
      expect(await balances(mismatched.address)).toEqual(before[1]);
      await expectNeverExecuted(failed);
    } finally {
      await moved.restore();
    }
  });

  it('holds back only the order whose maker did not approve enough (pending, diagnosed ALLOWANCE_SHORT); another maker’s order completes', async () => {
    const [shortMaker, fundedMaker] = [makers[2]!, makers[3]!];
    const amountIn = baseUnits('1', weth);
    // Covers the amount but not the fee: the allowance must hold amount plus fee.
    await approveExecutor(shortMaker, chain, weth.address, amountIn - 1n);
    await fundOrder(fundedMaker, amountIn);
    const trigger = priceString((await marketPrice(service.provider, chain, weth, usdc)) * BELOW);
    const shortBefore = await balances(shortMaker.address);
    const fundedBefore = await balances(fundedMaker.address);

    const [short, funded] = await Promise.all([
      orderRequest(shortMaker, trigger).then((b) => createLimitOrder(client, b)),
      orderRequest(fundedMaker, trigger).then((b) => createLimitOrder(client, b)),
    ]);

    const fundedDone = await waitForLimitOrder(client, funded.id, ['completed', 'failed']);
    await expectExecutedOnChain(fundedDone, fundedMaker, amountIn, fundedBefore);
    // It waits for the maker's approval, never sent: the keeper judges it again and again.
    const shortWaiting = await pollUntil(
      `limit order ${short.id} diagnosed ALLOWANCE_SHORT`,
      () => getLimitOrder(client, short.id),
      (o) => o.diagnosis?.code === 'ALLOWANCE_SHORT',
    );
    expect(shortWaiting).toMatchObject({ status: 'pending', txHash: '', reasonFail: [] });
    expect(shortWaiting.diagnosis?.available).toBe((amountIn - 1n).toString());
    expect(await balances(shortMaker.address)).toEqual(shortBefore);
    expect((await client.delete(`/limit-order/${short.id}`)).status).toBe(200);
    await expectNeverExecuted(short);
  });

  it('settles an order that reaches its expiry unexecuted as failed with reasonFail ["expired"]', async () => {
    const maker = makers[0]!;
    const amountIn = baseUnits('1', weth);
    await fundOrder(maker, amountIn);
    const trigger = priceString((await marketPrice(service.provider, chain, weth, usdc)) * ABOVE);
    const before = await balances(maker.address);
    const expiresAt = Date.now() + 3_000;

    const order = await createLimitOrder(
      client,
      await orderRequest(maker, trigger, { expired: String(expiresAt) }),
    );
    expect(order.expired).toBe(String(expiresAt));
    await mineBlocks(1);
    if (Date.now() < expiresAt - 500) expect((await getLimitOrder(client, order.id)).status).toBe('pending');

    const done = await waitForLimitOrder(client, order.id, ['completed', 'failed', 'cancelled'], 15_000);
    expect(done).toMatchObject({ status: 'failed', txHash: '', reasonFail: ['expired'] });
    expect(Date.parse(done.updatedAt)).toBeGreaterThanOrEqual(expiresAt);
    expect(await balances(maker.address)).toEqual(before);
    // A settled order is no longer the maker's to change.
    expect((await client.delete(`/limit-order/${order.id}`)).status).toBe(409);
    await expectNeverExecuted(order);
  });

  it('executes a pending order once a PATCH lowers its priceTrigger below the market', async () => {
    const maker = makers[1]!;
    const amountIn = baseUnits('1', weth);
    await fundOrder(maker, amountIn);
    const market = await marketPrice(service.provider, chain, weth, usdc);
    const before = await balances(maker.address);

    const order = await createLimitOrder(client, await orderRequest(maker, priceString(market * ABOVE)));
    await mineBlocks(2);
    expect((await getLimitOrder(client, order.id)).status).toBe('pending');

    const lower = priceString(market * BELOW);
    const patched = await client.patch<LimitOrderJson>(`/limit-order/${order.id}`, {
      priceTrigger: lower,
      price: lower,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ status: 'pending', priceTrigger: Number(lower) });

    const done = await waitForLimitOrder(client, order.id, ['completed', 'failed']);
    expect(done.priceTrigger).toBe(Number(lower));
    await expectExecutedOnChain(done, maker, amountIn, before);
  });

  it('keeps a crossed order off the chain while the same maker’s batch is in flight and the allowance covers only one: it waits, then waits for an approval (ALLOWANCE_SHORT), never sent', async () => {
    const maker = makers[0]!;
    const amountIn = baseUnits('1', weth);
    // Enough for one order with the most fee the contract allows, not for two.
    await fundOrder(maker, amountIn);
    const trigger = priceString((await marketPrice(service.provider, chain, weth, usdc)) * BELOW);
    const before = await balances(maker.address);

    await service.chain.pauseMining();
    let first: LimitOrderJson;
    let second: LimitOrderJson;
    try {
      first = await createLimitOrder(client, await orderRequest(maker, trigger));
      // Broadcast, not mined: the chain's state still shows the whole allowance.
      await waitForLimitOrder(client, first.id, ['submitted']);
      second = await createLimitOrder(client, await orderRequest(maker, trigger));
      // Crossed, with a wallet free, yet never sent: the first batch will pull the allowance. The keeper has judged
      // it (held back for the block that mines the first) before the window below: a slow machine cannot pass it
      // unjudged. (Each tick claims it and puts it back, so it reads `pending` or, for a moment, `executing`.)
      await pollUntil(
        `limit order ${second.id} diagnosed WAITING_FOR_BLOCK`,
        () => getLimitOrder(client, second.id),
        (o) => o.diagnosis?.code === 'WAITING_FOR_BLOCK',
      );
      for (const until = Date.now() + 3_000; Date.now() < until; await sleep(100)) {
        const waiting = await getLimitOrder(client, second.id);
        expect(['pending', 'executing']).toContain(waiting.status);
        expect(waiting.txHash).toBe('');
      }
      expect((await getLimitOrder(client, first.id)).status).toBe('submitted');
    } finally {
      await service.chain.resumeMining();
    }
    const firstDone = await waitForLimitOrder(client, first.id, ['completed', 'failed']);
    const after = await expectExecutedOnChain(firstDone, maker, amountIn, before);
    expect(after.blockNumber).toBeGreaterThan(0);
    // The first batch took the allowance: the second waits for the maker to approve more.
    const secondWaiting = await pollUntil(
      `limit order ${second.id} diagnosed ALLOWANCE_SHORT`,
      () => getLimitOrder(client, second.id),
      (o) => o.diagnosis?.code === 'ALLOWANCE_SHORT',
    );
    expect(secondWaiting).toMatchObject({ status: 'pending', txHash: '', reasonFail: [] });
    expect((await client.delete(`/limit-order/${second.id}`)).status).toBe(200);
    // No transaction ever carried it: no OrderExecuted or OrderFailed event names it.
    await expectNeverExecuted(secondWaiting);
  });
});

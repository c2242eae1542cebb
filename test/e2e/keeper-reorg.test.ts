import type { Wallet } from 'ethers';
import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import type { ApiClient } from '../helpers/api-client';
import {
  canonicalHash,
  executedOnChain,
  executionProblem,
  headNumber,
  untilSettledOnChain,
  type ChainCheck,
} from '../helpers/chain-proof';
import { onItsOwnWethUsdcKeeperE2e, type WethUsdcKeeperE2e } from '../helpers/keeper-e2e';
import {
  baseUnits,
  createLimitOrder,
  createStrategy,
  getLimitOrder,
  limitOrderOnchainId,
  marketPrice,
  moveMarket,
  onchainIdOf,
  priceString,
  signedLimitOrderBody,
  signedStrategyBody,
  strategyOrders,
  type DcaStrategyJson,
  type LimitOrderJson,
  type LimitOrderRequest,
} from '../helpers/maker';
import type { RunningService } from '../helpers/service-harness';

/**
 * Reorg-safe completion, end to end on a devnet chain: an order is `completed` (a DCA iteration `successful`) only
 * with a transaction the canonical chain holds, with the order's OrderExecuted event. A reorg deeper than the
 * keeper's confirmations (KEEPER_CONFIRMATIONS=1 here), made with evm_snapshot/evm_revert or anvil_reorg, takes a
 * settled batch off the chain: its orders must go back to where the chain now has them (re-executed by the batch
 * sent again, or pending for another attempt) and in the end execute exactly once.
 *
 * Every time an order is read as completed, the chain is asked: a receipt in the canonical block of its height,
 * successful, with that order's OrderExecuted event.
 */

jest.setTimeout(150_000);

const PAIR = 'WETH/USDC';
/** Above the market by more than a 0.2 WETH order's price impact and the pools' fees: pending until a move. */
const ABOVE = 1.03;
const UP = 0.06;
const ORDER_AMOUNT = '0.2';
const LIMIT_IN_FLIGHT = ['executing', 'submitted'];
const DCA_IN_FLIGHT = ['pending', 'executing'];
/** A block every 2 s while the suite waits: a live chain, so the keeper's block-driven checks run. */
const MINE_EVERY_MS = 2_000;
/** How long a settled state must hold (keeper ticks every 100 ms here) before the suite believes it. */
const STABLE_MS = 3_000;

let service: RunningService;
let chain: ManifestChain;
let client: ApiClient;
let makers: Wallet[];
let weth: ManifestToken;
let usdc: ManifestToken;
let balances: WethUsdcKeeperE2e['balances'];

/**
 * Each case runs on its own devnet chain and keeper (about ten seconds to start): a reorg case the keeper gets wrong
 * (a nonce left ahead of the chain, orders left in flight) cannot fail the cases after it.
 */
function onItsOwnService(): void {
  // Every maker approves all its WETH before any snapshot: a revert must not take the makers' allowances back
  // (their orders would then wait for an approval, diagnosed ALLOWANCE_SHORT, which is not what these tests are about).
  onItsOwnWethUsdcKeeperE2e({ env: { KEEPER_CONFIRMATIONS: '1' } }, (e2e) => {
    ({ service, chain, client, makers, weth, usdc, balances } = e2e);
  });
}

const mine = (): Promise<void> => service.chain.mine();

function orderRequest(maker: Wallet, priceTrigger: string): Promise<LimitOrderRequest> {
  return signedLimitOrderBody(client, chain, {
    maker,
    tokenIn: weth,
    tokenOut: usdc,
    amount: ORDER_AMOUNT,
    priceTrigger,
  });
}

/** `count` orders spread over `who`, each selling ORDER_AMOUNT WETH with a trigger ABOVE the market now. */
async function ordersAboveMarket(who: Wallet[], count: number): Promise<LimitOrderJson[]> {
  const trigger = priceString((await marketPrice(service.provider, chain, weth, usdc)) * ABOVE);
  const created: LimitOrderJson[] = [];
  for (let i = 0; i < count; i++) {
    const order = await createLimitOrder(client, await orderRequest(who[i % who.length]!, trigger));
    expect(order.status).toBe('pending');
    created.push(order);
  }
  return created;
}

const limitOnchainId = (order: LimitOrderJson): string =>
  limitOrderOnchainId(order, client.credentials.apiKey, chain);

/**
 * One look at limit orders. Always a problem: `completed` with a transaction that does not prove it on the chain,
 * `pending` still naming a transaction. `untilCompleted`: done only when all are completed (a `failed` order throws
 * at once); otherwise: done when none is in flight (`pending` is a place the chain may send them back to).
 */
async function lookAtLimitOrders(ids: readonly string[], untilCompleted: boolean): Promise<ChainCheck> {
  const check: ChainCheck = { problems: [], inFlight: [], statuses: {} };
  for (const id of ids) {
    const order = await getLimitOrder(client, id);
    check.statuses[id] = order.txHash ? `${order.status} ${order.txHash}` : order.status;
    if (order.status === 'completed') {
      const problem = await executionProblem(
        service.provider,
        chain.contracts.orderExecutor,
        order.txHash,
        limitOnchainId(order),
      );
      if (problem) check.problems.push(`order ${id} is completed but ${problem}`);
    } else if (order.status === 'failed' || order.status === 'cancelled') {
      throw new Error(`order ${id} settled ${order.status}: ${JSON.stringify(order.reasonFail)}`);
    } else if (LIMIT_IN_FLIGHT.includes(order.status) || (untilCompleted && order.status === 'pending')) {
      check.inFlight.push(`${id} ${order.status}`);
    }
    if (order.status === 'pending' && order.txHash !== '')
      check.problems.push(`order ${id} is pending with txHash ${order.txHash}`);
  }
  return check;
}

/** untilSettledOnChain on a live chain: a block mined every MINE_EVERY_MS while it looks. */
function untilSettled(
  what: string,
  look: () => Promise<ChainCheck>,
  timeoutMs: number,
  stableMs: number,
): Promise<ChainCheck> {
  return untilSettledOnChain(what, look, { timeoutMs, stableMs, mine, mineEveryMs: MINE_EVERY_MS });
}

function untilCompleted(what: string, ids: readonly string[], timeoutMs = 60_000): Promise<ChainCheck> {
  return untilSettled(what, () => lookAtLimitOrders(ids, true), timeoutMs, 0);
}

/**
 * After a reorg: within `timeoutMs` no order may be completed without its transaction on the chain, and none may be
 * left in flight; that must then hold for STABLE_MS.
 */
function untilBackInLine(what: string, ids: readonly string[], timeoutMs: number): Promise<ChainCheck> {
  return untilSettled(what, () => lookAtLimitOrders(ids, false), timeoutMs, STABLE_MS);
}

async function wethOf(who: readonly Wallet[]): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for (const maker of who) out.set(maker.address.toLowerCase(), (await balances(maker.address)).weth);
  return out;
}

/**
 * The end state: every order completed, with exactly one OrderExecuted event on the whole chain, in the transaction
 * the API names, for the order's amount; each maker's WETH down by exactly amount + fee of its orders, once.
 */
async function expectEachExecutedOnce(ids: readonly string[], before: Map<string, bigint>): Promise<void> {
  const paid = new Map<string, bigint>();
  const amountIn = baseUnits(ORDER_AMOUNT, weth);
  for (const id of ids) {
    const order = await getLimitOrder(client, id);
    expect({ id, status: order.status }).toEqual({ id, status: 'completed' });
    const events = await executedOnChain(
      service.provider,
      chain.contracts.orderExecutor,
      limitOnchainId(order),
    );
    expect({ id, events: events.length }).toEqual({ id, events: 1 });
    const [event] = events;
    expect({ id, txHash: order.txHash }).toEqual({ id, txHash: event!.txHash });
    expect(
      await executionProblem(
        service.provider,
        chain.contracts.orderExecutor,
        order.txHash,
        limitOnchainId(order),
      ),
    ).toBeUndefined();
    expect(event!.maker).toBe(order.accountTo.toLowerCase());
    expect(event!.amountIn).toBe(amountIn);
    const maker = order.accountTo.toLowerCase();
    paid.set(maker, (paid.get(maker) ?? 0n) + event!.amountIn + event!.fee);
  }
  for (const [maker, amount] of paid) {
    const now = (await balances(maker)).weth;
    expect({ maker, wethDown: before.get(maker)! - now }).toEqual({ maker, wethDown: amount });
  }
}

/** Transaction hash → the number and hash of the block that holds it. */
type TxBlocks = Map<string, { number: number; hash: string }>;

/** Receipts of the orders' transactions as the chain has them now. */
async function blocksOf(ids: readonly string[]): Promise<TxBlocks> {
  const out: TxBlocks = new Map();
  for (const id of ids) {
    const { txHash } = await getLimitOrder(client, id);
    if (out.has(txHash)) continue;
    const receipt = await service.provider.getTransactionReceipt(txHash);
    if (!receipt) throw new Error(`no receipt for ${txHash} of order ${id}`);
    out.set(txHash, { number: receipt.blockNumber, hash: receipt.blockHash.toLowerCase() });
  }
  return out;
}

/** Whether the market now crosses every order's trigger (with the ABOVE margin's room for the pools' fees). */
async function marketCrosses(ids: readonly string[]): Promise<boolean> {
  const market = await marketPrice(service.provider, chain, weth, usdc);
  for (const id of ids) {
    const { priceTrigger } = await getLimitOrder(client, id);
    if (market < Number(priceTrigger) * 1.01) return false;
  }
  return true;
}

/** `count` orders of `who` above the market, the market then moved UP: resolves once all completed a first time. */
async function completedOnce(
  who: Wallet[],
  count: number,
): Promise<{ orders: LimitOrderJson[]; ids: string[] }> {
  const orders = await ordersAboveMarket(who, count);
  const ids = orders.map((o) => o.id);
  await moveMarket(service.provider, chain, PAIR, UP);
  await untilCompleted(`the ${count} orders to complete the first time`, ids);
  return { orders, ids };
}

/** No block of `blocks` is the canonical block of its height any more. */
async function expectOffTheChain(blocks: TxBlocks): Promise<void> {
  for (const [txHash, block] of blocks)
    expect({
      txHash,
      canonical: (await canonicalHash(service.provider, block.number)) === block.hash,
    }).toEqual({ txHash, canonical: false });
}

/** The lowest block of `blocks`, and the depth of a reorg from it up to the head. */
async function reorgFrom(blocks: TxBlocks): Promise<{ from: number; depth: number }> {
  const from = Math.min(...[...blocks.values()].map((b) => b.number));
  return { from, depth: (await headNumber(service.provider)) - from + 1 };
}

/**
 * After `reorg`: the orders back in line within `timeoutMs`; a reorg that also took a market move may leave them
 * pending below their trigger, so the market is crossed again if it no longer does; then each completes, executed
 * exactly once.
 */
async function completedAfterReorg(
  reorg: string,
  ids: readonly string[],
  timeoutMs: number,
  before: Map<string, bigint>,
): Promise<void> {
  await untilBackInLine(`the orders after ${reorg}`, ids, timeoutMs);
  if (!(await marketCrosses(ids))) await moveMarket(service.provider, chain, PAIR, UP);
  await untilCompleted(`the ${ids.length} orders to complete after anvil_reorg`, ids);
  await expectEachExecutedOnce(ids, before);
}

describe('reorg-safe completion', () => {
  describe('limit orders, evm_revert', () => {
    onItsOwnService();

    it('evm_revert of settled limit orders: none stays completed without its transaction, none is left in flight, and once the market crosses again each executes exactly once', async () => {
      const who = makers.slice(0, 4);
      const before = await wethOf(who);
      const snapshot = await service.chain.snapshot();
      const { orders, ids } = await completedOnce(who, 6);
      const firstBlocks = await blocksOf(ids);

      await service.chain.revert(snapshot);
      await service.chain.mine(8);
      // The revert took every first execution off the chain (the market move with it, so nothing can run them
      // again until the market moves back up).
      for (const order of orders)
        expect(
          await executedOnChain(service.provider, chain.contracts.orderExecutor, limitOnchainId(order)),
        ).toEqual([]);
      await expectOffTheChain(firstBlocks);
      // Measured on the reverted chain: the first execution's balance change is gone.
      const afterRevert = await wethOf(who);
      expect(afterRevert).toEqual(before);

      await untilBackInLine('the orders after the revert', ids, 60_000);
      // Below their triggers again, nothing can have executed them: each is back to pending, for another attempt.
      for (const order of orders) {
        const now = await getLimitOrder(client, order.id);
        expect({ id: order.id, status: now.status, txHash: now.txHash }).toEqual({
          id: order.id,
          status: 'pending',
          txHash: '',
        });
        expect(
          await executedOnChain(service.provider, chain.contracts.orderExecutor, limitOnchainId(order)),
        ).toEqual([]);
      }

      await moveMarket(service.provider, chain, PAIR, UP);
      await untilCompleted('the 6 orders to complete again', ids);
      await expectEachExecutedOnce(ids, afterRevert);
    }, 200_000);
  });

  describe('DCA iteration, evm_revert', () => {
    onItsOwnService();

    it('evm_revert of a successful DCA iteration: it does not stay successful without its transaction, then executes exactly once', async () => {
      const maker = makers[0]!;
      const perIteration = baseUnits('0.1', weth);
      const before = (await balances(maker.address)).weth;
      const snapshot = await service.chain.snapshot();
      // Two iterations ten minutes apart: only the first runs in this test, and its strategy stays active.
      const strategy = await createStrategy(
        client,
        await signedStrategyBody(client, chain, {
          maker,
          tokenIn: weth,
          tokenOut: usdc,
          totalAmount: 0.2,
          iterations: 2,
          frequency: 600,
        }),
      );
      try {
        const onchainId = (id: string): string =>
          onchainIdOf({
            id,
            apiKey: client.credentials.apiKey,
            maker: maker.address,
            tokenIn: weth.address,
            tokenOut: usdc.address,
            amountIn: perIteration,
          });
        /** Done when the one iteration is successful with its transaction on the chain. */
        const lookAtIteration = async (): Promise<ChainCheck> => {
          const check: ChainCheck = { problems: [], inFlight: [], statuses: {} };
          const orders = await strategyOrders(client, strategy.id);
          if (orders.length === 0) check.inFlight.push('no iteration yet');
          if (orders.length > 1) throw new Error(`more than one iteration: ${JSON.stringify(orders)}`);
          for (const order of orders) {
            check.statuses[order.id] = order.transactionHash
              ? `${order.status} ${order.transactionHash}`
              : order.status;
            if (order.status === 'successful') {
              const problem = await executionProblem(
                service.provider,
                chain.contracts.orderExecutor,
                order.transactionHash,
                onchainId(order.id),
              );
              if (problem) check.problems.push(`iteration ${order.id} is successful but ${problem}`);
            } else if (DCA_IN_FLIGHT.includes(order.status)) {
              check.inFlight.push(`${order.id} ${order.status}`);
            } else {
              throw new Error(`iteration ${order.id} ended ${order.status}: ${order.errorMessage ?? ''}`);
            }
          }
          return check;
        };
        await untilSettled('the first iteration to be successful', lookAtIteration, 60_000, 0);

        await service.chain.revert(snapshot);
        await service.chain.mine(8);
        // The market is where it was when the iteration first ran: the batch sent again (or a new one) executes it.
        await untilSettled('the iteration after the revert', lookAtIteration, 60_000, STABLE_MS);

        const [iteration] = await strategyOrders(client, strategy.id);
        expect(iteration!.status).toBe('successful');
        const events = await executedOnChain(
          service.provider,
          chain.contracts.orderExecutor,
          onchainId(iteration!.id),
        );
        expect(events).toHaveLength(1);
        expect(iteration!.transactionHash).toBe(events[0]!.txHash);
        expect(events[0]!.amountIn).toBe(perIteration);
        // `before` was read before the snapshot: the revert brought the maker's balance back to it.
        expect(before - (await balances(maker.address)).weth).toBe(events[0]!.amountIn + events[0]!.fee);
      } finally {
        await client.patch<DcaStrategyJson>(`/dca-order/strategies/${strategy.id}`, { status: 'cancelled' });
      }
    }, 200_000);
  });

  describe('limit orders, anvil_reorg to empty blocks', () => {
    onItsOwnService();

    it('anvil_reorg replacing the settled batch’s block with empty ones: the orders end completed exactly once, as the chain has them', async () => {
      const who = makers.slice(1, 4);
      const before = await wethOf(who);
      const { ids } = await completedOnce(who, 3);
      const firstBlocks = await blocksOf(ids);

      // Replace every block from the first batch's up to the head with empty ones (same height).
      const { depth } = await reorgFrom(firstBlocks);
      await service.provider.send('anvil_reorg', [depth, []]);
      await expectOffTheChain(firstBlocks);
      await service.chain.mine(2);

      await completedAfterReorg('anvil_reorg', ids, 45_000, before);
    }, 200_000);
  });

  describe('limit orders, anvil_reorg re-including the batch', () => {
    onItsOwnService();

    it('anvil_reorg re-including the batch one block later: the orders stay or come back completed with that transaction, executed once', async () => {
      const who = makers.slice(0, 2);
      const before = await wethOf(who);
      const { ids } = await completedOnce(who, 2);
      await mine();
      const firstBlocks = await blocksOf(ids);
      const { from, depth } = await reorgFrom(firstBlocks);
      expect(depth).toBeGreaterThanOrEqual(2);
      // The batch transactions (one sender: in nonce order), each one block later than it was.
      const batches = await Promise.all(
        [...firstBlocks.keys()].map(async (hash) => ({
          raw: String(await service.provider.send('eth_getRawTransactionByHash', [hash])),
          tx: (await service.provider.getTransaction(hash))!,
          block: firstBlocks.get(hash)!.number,
        })),
      );
      batches.sort((a, b) => a.tx.nonce - b.tx.nonce);
      await service.provider.send('anvil_reorg', [depth, batches.map((b) => [b.raw, b.block - from + 1])]);
      for (const [txHash, block] of firstBlocks) {
        expect({
          txHash,
          canonical: (await canonicalHash(service.provider, block.number)) === block.hash,
        }).toEqual({ txHash, canonical: false });
        const moved = await service.provider.getTransactionReceipt(txHash);
        expect({ txHash, movedTo: moved?.blockNumber }).toEqual({ txHash, movedTo: block.number + 1 });
      }
      await service.chain.mine(2);

      await completedAfterReorg('anvil_reorg re-including their batch', ids, 30_000, before);
    }, 200_000);
  });
});

import { toQuantity, Wallet } from 'ethers';
import { devnetKeys } from '../../devnet/keys';
import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import type { ApiClient } from '../helpers/api-client';
import {
  chainNonce,
  executedOnChain,
  executionProblem,
  headNumber,
  transactionAtNonce,
  untilSettledOnChain,
  type ChainCheck,
} from '../helpers/chain-proof';
import { onItsOwnWethUsdcKeeperE2e } from '../helpers/keeper-e2e';
import {
  createLimitOrder,
  getLimitOrder,
  limitOrderOnchainId,
  marketPrice,
  priceString,
  signedLimitOrderBody,
  waitForLimitOrder,
  type LimitOrderJson,
} from '../helpers/maker';
import type { RunningService } from '../helpers/service-harness';
import { waitForReceipt } from '../../devnet/wait-for-receipt';

/**
 * Nonce-gap repair, end to end on an anvil devnet chain. The keeper runs one executor wallet E. The gap is made
 * deterministically, with nonces of E the keeper never recorded:
 * 1. the test itself sends `gap` transactions from E (E's key, devnet/keys.ts) before the keeper's first batch, so
 *    the keeper's first batch goes out at the nonce after them;
 * 2. with mining paused, a crossing order makes the keeper sign and broadcast that batch (nonce m, in the pool);
 * 3. anvil_setNonce puts E's on-chain nonce back to m − gap, and mining resumes: the node drops the batch (its nonce
 *    is now too high) and the chain expects m − gap while the keeper waits on m, with nothing pending in between.
 * The keeper must fill m − gap … m − 1 (nothing recorded there: each with an empty transaction from E to itself) so
 * its batch mines, and the order executes exactly once.
 *
 * Lowering E's nonce below a batch the keeper mined would not do: the keeper would rightly send its record for that
 * nonce again, and anvil would mine the same transaction hash a second time (no real chain can), after which its
 * eth_getLogs no longer returns the first copy's events.
 */

jest.setTimeout(120_000);

/** Below the market: an order crosses at once. */
const BELOW = 0.97;
const ORDER_AMOUNT = '0.2';
const E = devnetKeys(2).executors[0]!;
// anvil_reorg and anvil_setNonce are anvil's (the devnet's default engine); on ganache these fail, never skip.
const onAnvil = describe;

let service: RunningService;
let chain: ManifestChain;
let client: ApiClient;
let makers: Wallet[];
let weth: ManifestToken;
let usdc: ManifestToken;

/**
 * Each case on its own devnet chain and keeper (the keeper must not have used E before the case sends from it).
 * One executor wallet, so every batch comes from E.
 */
function onItsOwnService(): void {
  onItsOwnWethUsdcKeeperE2e({ executorsPerKeeper: [[0]], env: { KEEPER_CONFIRMATIONS: '1' } }, (e2e) => {
    ({ service, chain, client, makers, weth, usdc } = e2e);
  });
}

async function crossingOrder(maker: Wallet): Promise<LimitOrderJson> {
  const trigger = priceString((await marketPrice(service.provider, chain, weth, usdc)) * BELOW);
  const body = await signedLimitOrderBody(client, chain, {
    maker,
    tokenIn: weth,
    tokenOut: usdc,
    amount: ORDER_AMOUNT,
    priceTrigger: trigger,
  });
  return createLimitOrder(client, body);
}

const onchainId = (order: LimitOrderJson): string =>
  limitOrderOnchainId(order, client.credentials.apiKey, chain);

/** Until the order is completed with its transaction on the chain; `failed` throws at once. */
async function untilCompleted(
  order: LimitOrderJson,
  timeoutMs: number,
  mineEveryMs = 0,
): Promise<LimitOrderJson> {
  await untilSettledOnChain(
    `order ${order.id} to complete`,
    async (): Promise<ChainCheck> => {
      const now = await getLimitOrder(client, order.id);
      const check: ChainCheck = {
        problems: [],
        inFlight: [],
        statuses: { [order.id]: now.txHash ? `${now.status} ${now.txHash}` : now.status },
      };
      if (now.status === 'failed' || now.status === 'cancelled')
        throw new Error(`order ${order.id} settled ${now.status}: ${JSON.stringify(now.reasonFail)}`);
      if (now.status !== 'completed') check.inFlight.push(`${order.id} ${now.status}`);
      else {
        const problem = await executionProblem(
          service.provider,
          chain.contracts.orderExecutor,
          now.txHash,
          onchainId(now),
        );
        if (problem) check.problems.push(problem);
      }
      return check;
    },
    { timeoutMs, stableMs: 0, mine: () => service.chain.mine(), mineEveryMs },
  );
  return getLimitOrder(client, order.id);
}

/**
 * `count` transactions from E sent by the test (1 wei each to a fresh address: no transaction the keeper signs can
 * have the same hash), mined; returns E's nonce after them.
 */
async function sendFromExecutor(count: number): Promise<number> {
  const signer = E.connect(service.provider);
  const to = Wallet.createRandom().address;
  for (let i = 0; i < count; i++) {
    const tx = await signer.sendTransaction({ to, value: 1n, gasLimit: 21_000n });
    expect((await waitForReceipt(service.provider, tx.hash)).status).toBe(1);
  }
  return chainNonce(service.provider, E.address);
}

/**
 * The gap as the keeper meets it: its batch for `order` broadcast at nonce `m` while mining is paused, then E's
 * nonce put back to `m − gap` and mining resumed (the node drops the batch). Returns `m` and the block before.
 */
async function gapBelowTheBatchOf(
  order: () => Promise<LimitOrderJson>,
  gap: number,
): Promise<{ created: LimitOrderJson; batchNonce: number; gapBlock: number }> {
  await service.chain.pauseMining();
  let created: LimitOrderJson;
  let batchNonce: number;
  try {
    created = await order();
    const submitted = await waitForLimitOrder(client, created.id, ['submitted'], 30_000);
    const batch = await service.provider.getTransaction(submitted.txHash);
    expect(batch?.from).toBe(E.address);
    batchNonce = batch!.nonce;
    // The keeper signed at the chain's count: the nonces below are all mined, none of them the keeper's.
    expect(await chainNonce(service.provider, E.address)).toBe(batchNonce);
    await service.provider.send('anvil_setNonce', [E.address, toQuantity(batchNonce - gap)]);
    expect(await chainNonce(service.provider, E.address)).toBe(batchNonce - gap);
  } finally {
    await service.chain.resumeMining();
  }
  const gapBlock = await headNumber(service.provider);
  return { created, batchNonce, gapBlock };
}

/** Executed exactly once: one OrderExecuted event on the whole chain, in the transaction the API names. */
async function expectExecutedOnce(order: LimitOrderJson): Promise<void> {
  const now = await getLimitOrder(client, order.id);
  expect(now.status).toBe('completed');
  const events = await executedOnChain(service.provider, chain.contracts.orderExecutor, onchainId(now));
  expect(events).toHaveLength(1);
  expect(now.txHash).toBe(events[0]!.txHash);
  expect(
    await executionProblem(service.provider, chain.contracts.orderExecutor, now.txHash, onchainId(now)),
  ).toBeUndefined();
}

/** Each nonce of `nonces` used after `fromBlock` by an empty transaction from E to itself. */
async function expectFilledEmpty(nonces: number[], fromBlock: number): Promise<void> {
  for (const nonce of nonces) {
    const tx = await transactionAtNonce(service.provider, E.address, nonce, fromBlock + 1);
    expect({ nonce, filled: tx !== undefined }).toEqual({ nonce, filled: true });
    expect({ nonce, to: tx!.to, value: tx!.value, input: tx!.input }).toEqual({
      nonce,
      to: E.address.toLowerCase(),
      value: 0n,
      input: '0x',
    });
  }
}

onAnvil('nonce gaps of an executor wallet', () => {
  describe('one nonce', () => {
    onItsOwnService();

    it('a one-nonce gap below the batch the keeper waits on, on a chain idle between transactions: the keeper fills it with an empty transaction and the batch mines within 30 s; the order executes once', async () => {
      const before = await sendFromExecutor(1);
      const { created, batchNonce, gapBlock } = await gapBelowTheBatchOf(() => crossingOrder(makers[0]!), 1);
      expect(batchNonce).toBe(before);

      // No block is mined by the test: on an instant-mining chain blocks come only with transactions.
      const done = await untilCompleted(created, 30_000);
      expect((await service.provider.getTransaction(done.txHash))!.nonce).toBe(batchNonce);
      await expectFilledEmpty([batchNonce - 1], gapBlock);
      expect(await chainNonce(service.provider, E.address)).toBe(batchNonce + 1);
      await expectExecutedOnce(created);

      // Nothing left behind: the next order goes out and completes as usual.
      const next = await crossingOrder(makers[1]!);
      await untilCompleted(next, 30_000);
      await expectExecutedOnce(next);
    }, 90_000);
  });

  describe('two nonces', () => {
    onItsOwnService();

    it('a two-nonce gap on a chain mining a block every second: both nonces are filled and the batch mines within 30 s; the order executes once', async () => {
      const before = await sendFromExecutor(2);
      const { created, batchNonce, gapBlock } = await gapBelowTheBatchOf(() => crossingOrder(makers[2]!), 2);
      expect(batchNonce).toBe(before);

      const done = await untilCompleted(created, 30_000, 1_000);
      expect((await service.provider.getTransaction(done.txHash))!.nonce).toBe(batchNonce);
      await expectFilledEmpty([batchNonce - 2, batchNonce - 1], gapBlock);
      expect(await chainNonce(service.provider, E.address)).toBeGreaterThanOrEqual(batchNonce + 1);
      await expectExecutedOnce(created);

      const next = await crossingOrder(makers[3]!);
      await untilCompleted(next, 30_000, 1_000);
      await expectExecutedOnce(next);
    }, 90_000);
  });
});

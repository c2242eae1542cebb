import { devnetKeys } from '../../devnet/keys';
import { startChain, type ChainHandle } from '../../devnet/start-chain';
import { PrivateSendPolicy } from '../../keeper/outbox/private-send-policy';
import { PublicSendPolicy } from '../../keeper/outbox/public-send-policy';
import type { KeeperInstance } from '../../keeper/build-keeper';
import type { SentTransaction, TxRequest } from '../../keeper/outbox/executor-wallet';
import { FeePolicy, type TxFees } from '../../keeper/outbox/fee-policy';
import { WalletPool } from '../../keeper/submit/wallet-pool';
import { ChainClient } from '../../shared/chain/chain-client';
import { createLogger } from '../../shared/log/create-logger';
import { crossingOrder, expectCrossingOrderExecuted } from '../helpers/crossing-order';
import { createLimitOrder, getLimitOrder } from '../helpers/maker';
import { startRecordingRelay, type RecordingRelay } from '../helpers/recording-relay';
import { startService, type RunningService } from '../helpers/service-harness';
import { waitForReceipt } from '../../devnet/wait-for-receipt';

/**
 * Private submission (KEEPER_PRIVATE_RPC_URLS) on anvil chains, with a local recording relay standing in for
 * Flashbots Protect: it answers the hash at once and forwards to the chain only later (or never, while holding).
 * The public node must not know a transaction before the relay forwards it, and only the fallback, when the
 * operator allows it, ever sends it publicly.
 */

jest.setTimeout(240_000);

const CHAIN_ID = 1;
const GWEI = 10n ** 9n;
const SINK = '0x000000000000000000000000000000000000dEaD';
const TRANSFER: TxRequest = { to: SINK, data: '0x', gasLimit: 21_000n, value: 1n };
const FALLBACK_BLOCKS = 2;

const relays: RecordingRelay[] = [];

async function relayTo(
  targetUrl: string,
  opts: { delayMs?: number; hold?: boolean },
): Promise<RecordingRelay> {
  const relay = await startRecordingRelay({ targetUrl, ...opts });
  relays.push(relay);
  return relay;
}

afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.close()));
});

describe('an executor wallet pool sending through a private relay', () => {
  const executors = devnetKeys(8).executors;
  let chain: ChainHandle;
  let client: ChainClient;
  let fees: TxFees;

  beforeAll(async () => {
    chain = await startChain({ chainId: CHAIN_ID, engine: 'anvil' });
    client = new ChainClient(
      { chainId: CHAIN_ID, name: 'devnet', rpcUrls: [chain.rpcUrl] },
      { backoffMs: 5 },
    );
    const decision = await new FeePolicy(client, { maxFeePerGasCap: 1_000n * GWEI }).current();
    if (decision.kind !== 'ok') throw new Error('devnet fees above the cap');
    fees = decision.fees;
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await chain?.stop();
  });

  function privatePool(
    relay: RecordingRelay,
    executor: number,
    fallbackToPublic: boolean,
  ): { pool: WalletPool; policy: PrivateSendPolicy } {
    const policy = new PrivateSendPolicy({
      chainId: CHAIN_ID,
      urls: [relay.url],
      publicPolicy: new PublicSendPolicy(client),
      fallbackAfterBlocks: FALLBACK_BLOCKS,
      fallbackToPublic,
      log: createLogger('silent', 'test'),
    });
    return { pool: new WalletPool(client, [executors[executor]!], { sendPolicy: policy }), policy };
  }

  async function sendOne(pool: WalletPool): Promise<{ sent: SentTransaction; sentBlock: number }> {
    const wallet = pool.acquire();
    if (!wallet) throw new Error('no free executor wallet');
    const sentBlock = await chain.provider.getBlockNumber();
    return { sent: await wallet.send(TRANSFER, fees), sentBlock };
  }

  /** eth_getTransactionByHash on the public node: null while it has never seen the transaction. */
  const publicTx = (hash: string): Promise<unknown> => client.send('eth_getTransactionByHash', [hash]);
  const pendingNonce = async (address: string): Promise<number> =>
    Number(BigInt(String(await client.send('eth_getTransactionCount', [address, 'pending']))));

  /**
   * What the follower does at each new block for a transaction the public node does not know: mines one block and
   * puts the transaction out again with the blocks it has waited. Returns that count.
   */
  async function nextBlockRebroadcast(policy: PrivateSendPolicy, sent: SentTransaction, sentBlock: number) {
    await chain.mine();
    const waited = (await chain.provider.getBlockNumber()) - sentBlock;
    await policy.rebroadcast(sent.raw, waited);
    return waited;
  }

  it('(a) hands the transaction to the relay only: unknown to the public node until the relay forwards it, then mined', async () => {
    const relay = await relayTo(chain.rpcUrl, { delayMs: 2_000 });
    const { pool } = privatePool(relay, 0, false);
    const nonce = await pendingNonce(executors[0]!.address);

    const { sent } = await sendOne(pool);
    const [recorded] = await relay.waitForSends(1);
    expect(recorded).toMatchObject({ raw: sent.raw, hash: sent.hash });
    expect(await publicTx(sent.hash)).toBeNull();
    expect(await pendingNonce(executors[0]!.address)).toBe(nonce);
    // The public look came before the relay let go of it: the check above saw the held state.
    expect(relay.sends()[0]!.forwardedAt).toBeUndefined();

    const receipt = await waitForReceipt(chain.provider, sent.hash, 20_000);
    expect(receipt.status).toBe(1);
    const { receivedAt, forwardedAt, forwardError } = relay.sends()[0]!;
    expect(forwardError).toBeUndefined();
    // The relay holds it 2 s on a timer; Date.now() on both sides can round that to 1,999 ms (CI at c8a0284).
    expect(forwardedAt! - receivedAt).toBeGreaterThanOrEqual(1_990);
  });

  it('(b) sends a transaction the relay holds publicly too once it has waited the fallback blocks, when allowed', async () => {
    const relay = await relayTo(chain.rpcUrl, { hold: true });
    const { pool, policy } = privatePool(relay, 1, true);
    const { sent, sentBlock } = await sendOne(pool);
    await relay.waitForSends(1);
    expect(await publicTx(sent.hash)).toBeNull();

    for (let waited = 0; waited < FALLBACK_BLOCKS - 1;) {
      waited = await nextBlockRebroadcast(policy, sent, sentBlock);
      expect(waited).toBeLessThan(FALLBACK_BLOCKS);
      // Still private: re-sent to the relay, which keeps holding it.
      expect(await publicTx(sent.hash)).toBeNull();
    }
    expect(await nextBlockRebroadcast(policy, sent, sentBlock)).toBe(FALLBACK_BLOCKS);

    const receipt = await waitForReceipt(chain.provider, sent.hash, 20_000);
    expect(receipt.status).toBe(1);
    expect(receipt.blockNumber).toBeGreaterThan(sentBlock + FALLBACK_BLOCKS);
    // Every broadcast went to the relay too, and the relay never forwarded any: the public path landed it.
    expect(relay.sends().map((s) => s.hash)).toEqual([sent.hash, sent.hash, sent.hash]);
    expect(relay.sends().every((s) => s.forwardedAt === undefined)).toBe(true);
  });

  it('(c) never sends it publicly when the fallback is not allowed, however many blocks it waits', async () => {
    const relay = await relayTo(chain.rpcUrl, { hold: true });
    const { pool, policy } = privatePool(relay, 2, false);
    const nonce = await pendingNonce(executors[2]!.address);
    const { sent, sentBlock } = await sendOne(pool);
    await relay.waitForSends(1);

    const waits: number[] = [];
    while (waits.length < FALLBACK_BLOCKS + 3) {
      waits.push(await nextBlockRebroadcast(policy, sent, sentBlock));
      expect(await publicTx(sent.hash)).toBeNull();
    }
    expect(waits).toEqual([1, 2, 3, 4, 5]);
    expect(await pendingNonce(executors[2]!.address)).toBe(nonce);
    expect(relay.sends()).toHaveLength(1 + waits.length);
    expect(relay.sends().every((s) => s.hash === sent.hash && s.forwardedAt === undefined)).toBe(true);
  });
});

describe('the keeper with KEEPER_PRIVATE_RPC_URLS', () => {
  let service: RunningService;
  const keepers: KeeperInstance[] = [];

  beforeAll(async () => {
    // Each case starts its keeper once its relay is up (the relay needs the chain's URL), on its own executor.
    service = await startService({ chainId: CHAIN_ID, keepers: 0, executorsPerKeeper: [[0], [1], [2]] });
  }, 240_000);

  afterEach(async () => {
    for (const keeper of keepers.splice(0)) await service.stopKeeper(keeper);
  });

  afterAll(async () => {
    await service?.close();
  });

  /** A keeper whose executor `executor` sends through `relay` (its URL with a key-like path and query). */
  async function keeperVia(relay: RecordingRelay, executor: number, env: Record<string, string> = {}) {
    keepers.push(
      await service.startKeeper({
        executorIndexes: [executor],
        env: { KEEPER_PRIVATE_RPC_URLS: `${CHAIN_ID}=${relay.url}/protect?apikey=unused`, ...env },
      }),
    );
  }

  const publicTx = (hash: string): Promise<unknown> =>
    service.provider.send('eth_getTransactionByHash', [hash]);

  /** A crossing limit order of manifest account `account`, created once the keeper prices the pair. */
  async function placeOrder(account: number) {
    const { client, manifest } = service;
    const order = await crossingOrder(manifest, account, client.credentials.apiKey);
    const created = await createLimitOrder(client, order.body, 180_000);
    return { order, id: created.id };
  }

  /**
   * Mines one block and waits until the keeper has acted on it: it put the batch out again (the relay records
   * every private send) or the public node now has it (the fallback).
   */
  async function mineAndFollow(relay: RecordingRelay, hash: string): Promise<void> {
    const before = relay.sends().length;
    await service.chain.mine();
    for (const deadline = Date.now() + 30_000; ;) {
      if (relay.sends().length > before || (await publicTx(hash)) !== null) return;
      if (Date.now() > deadline) throw new Error('the keeper did not follow the batch at the new block');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("(a) sends a limit order's batch to the relay, unseen by the public node while held, and completes it once forwarded", async () => {
    const relay = await relayTo(service.chain.rpcUrl, { hold: true });
    await keeperVia(relay, 0);
    const { order, id } = await placeOrder(2);

    const [batch] = await relay.waitForSends(1, 120_000);
    expect(await publicTx(batch!.hash)).toBeNull();
    expect(relay.sends()[0]!.forwardedAt).toBeUndefined();
    // The keeper recorded the batch it handed to the relay.
    expect(await getLimitOrder(service.client, id)).toMatchObject({
      status: 'submitted',
      txHash: batch!.hash,
    });

    await relay.release();
    const receipt = await expectCrossingOrderExecuted(service.client, service.manifest, order, id);
    expect(receipt.hash).toBe(batch!.hash);
    expect(relay.sends().every((s) => s.forwardedAt !== undefined)).toBe(true);
  });

  it('(b) with the relay holding for good, sends the batch publicly after KEEPER_PRIVATE_FALLBACK_BLOCKS and completes the order', async () => {
    const relay = await relayTo(service.chain.rpcUrl, { hold: true });
    await keeperVia(relay, 1, {
      KEEPER_PRIVATE_FALLBACK_PUBLIC: 'true',
      KEEPER_PRIVATE_FALLBACK_BLOCKS: String(FALLBACK_BLOCKS),
    });
    const { order, id } = await placeOrder(1);
    const [batch] = await relay.waitForSends(1, 120_000);
    const recordedBlock = await service.provider.getBlockNumber();

    // One block on: the follower re-sends it, privately only.
    await mineAndFollow(relay, batch!.hash);
    expect(relay.sends().length).toBeGreaterThan(1);
    expect(await publicTx(batch!.hash)).toBeNull();
    for (let blocks = 1; (await publicTx(batch!.hash)) === null; blocks++) {
      if (blocks > FALLBACK_BLOCKS + 2) throw new Error('the batch never went public');
      await mineAndFollow(relay, batch!.hash);
    }

    const receipt = await expectCrossingOrderExecuted(service.client, service.manifest, order, id);
    expect(receipt.hash).toBe(batch!.hash);
    expect(receipt.blockNumber).toBeGreaterThanOrEqual(recordedBlock + FALLBACK_BLOCKS);
    // The relay forwarded nothing: the public fallback landed it.
    expect(relay.sends().every((s) => s.forwardedAt === undefined)).toBe(true);
  });

  it('(c) without the fallback, never lets the public node see the batch or a replacement of it', async () => {
    const relay = await relayTo(service.chain.rpcUrl, { hold: true });
    await keeperVia(relay, 2, { KEEPER_PRIVATE_FALLBACK_BLOCKS: String(FALLBACK_BLOCKS) });
    const executor = devnetKeys(3).executors[2]!.address;
    const nonce = await service.provider.getTransactionCount(executor, 'pending');
    const { id } = await placeOrder(3);
    const [batch] = await relay.waitForSends(1, 120_000);

    // Past the fallback blocks and past KEEPER_REPLACE_AFTER_BLOCKS (3): re-sends and fee replacements alike.
    for (let blocks = 0; blocks < FALLBACK_BLOCKS + 3; blocks++) await mineAndFollow(relay, batch!.hash);
    const hashes = [...new Set(relay.sends().map((s) => s.hash))];
    expect(relay.sends().length).toBeGreaterThan(FALLBACK_BLOCKS + 3);
    // The batch and at least one dearer replacement of it, all sent to the relay only.
    expect(hashes.length).toBeGreaterThan(1);
    for (const hash of hashes) expect(await publicTx(hash)).toBeNull();
    expect(await service.provider.getTransactionCount(executor, 'pending')).toBe(nonce);
    expect(await getLimitOrder(service.client, id)).toMatchObject({ status: 'submitted' });
  });
});

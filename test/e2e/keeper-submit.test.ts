import { setTimeout as sleep } from 'node:timers/promises';
import { Wallet } from 'ethers';
import { devnetKeys } from '../../devnet/keys';
import { startChain, type ChainHandle } from '../../devnet/start-chain';
import { ChainClient } from '../../shared/chain/chain-client';
import type { ExecutorWallet, SentTransaction, TxRequest } from '../../keeper/outbox/executor-wallet';
import { FeePolicy, type Eip1559Fees, type TxFees } from '../../keeper/outbox/fee-policy';
import type { NonceResync } from '../../keeper/outbox/nonce-manager';
import { SendError } from '../../keeper/outbox/send-error';
import { WalletPool, type WalletPoolOptions } from '../../keeper/submit/wallet-pool';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy';
import { mined, waitForReceipt } from '../../devnet/wait-for-receipt';

/**
 * The keeper's submit stage against a ganache chain: executor wallets funded at genesis send real transactions
 * through the project's ChainClient, directly or through a proxy that fails requests.
 */

jest.setTimeout(120_000);

const CHAIN_ID = 1;
const GWEI = 10n ** 9n;
const CAP = 1_000n * GWEI;
/** Nobody's key: value transfers to it are the cheapest transactions that still spend a nonce. */
const SINK = '0x000000000000000000000000000000000000dEaD';
const TRANSFER: TxRequest = { to: SINK, data: '0x', gasLimit: 21_000n, value: 1n };

const executors = devnetKeys(8).executors;
let chain: ChainHandle;
const clients: ChainClient[] = [];
const proxies: RpcProxy[] = [];

function client(url: string = chain.rpcUrl, retries = 2): ChainClient {
  const c = new ChainClient({ chainId: CHAIN_ID, name: 'devnet', rpcUrls: [url] }, { retries, backoffMs: 5 });
  clients.push(c);
  return c;
}

function pool(wallets: Wallet[], opts: WalletPoolOptions = {}, rpc: ChainClient = client()): WalletPool {
  return new WalletPool(rpc, wallets, opts);
}

async function currentFees(rpc: ChainClient): Promise<TxFees> {
  const decision = await new FeePolicy(rpc, { maxFeePerGasCap: CAP }).current();
  if (decision.kind !== 'ok') throw new Error(`devnet fees above the cap: ${decision.neededPerGas}`);
  return decision.fees;
}

async function chainNonce(address: string, tag: 'latest' | 'pending' = 'latest'): Promise<number> {
  return Number(await chain.provider.getTransactionCount(address, tag));
}

async function sendError(promise: Promise<unknown>): Promise<SendError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof SendError)) throw new Error(`expected a SendError, got ${String(err)}`);
  return err;
}

beforeAll(async () => {
  chain = await startChain({ chainId: CHAIN_ID });
}, 60_000);

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

afterAll(async () => {
  await chain?.stop();
});

describe('a pool of executor wallets', () => {
  it('sends 20 concurrent transactions from 2 wallets, one in flight each, with contiguous nonces that all mine', async () => {
    const rpc = client();
    const wallets = [executors[0]!, executors[1]!];
    const startNonces = await Promise.all(wallets.map((w) => chainNonce(w.address)));
    const executorPool = pool(wallets, { maxInFlightPerWallet: 1 }, rpc);
    const fees = await currentFees(rpc);
    let highestInFlight = 0;

    const sendOne = async (): Promise<SentTransaction> => {
      for (;;) {
        const wallet = executorPool.acquire();
        if (!wallet) {
          await sleep(2);
          continue;
        }
        highestInFlight = Math.max(highestInFlight, wallet.inFlight);
        try {
          const sent = await wallet.send(TRANSFER, fees);
          const receipt = await waitForReceipt(chain.provider, sent.hash, 10_000);
          expect(receipt?.status).toBe(1);
          return sent;
        } finally {
          executorPool.free(wallet);
        }
      }
    };
    const sent = await Promise.all(Array.from({ length: 20 }, () => sendOne()));

    expect(highestInFlight).toBe(1);
    expect(new Set(sent.map((s) => s.hash)).size).toBe(20);
    for (const [i, wallet] of wallets.entries()) {
      const nonces = sent
        .filter((s) => s.wallet === wallet.address)
        .map((s) => s.nonce)
        .sort((a, b) => a - b);
      // Both wallets took part, each from its chain nonce on without a hole.
      expect(nonces.length).toBeGreaterThan(0);
      expect(nonces).toEqual(nonces.map((_, k) => startNonces[i]! + k));
      expect(await chainNonce(wallet.address)).toBe(startNonces[i]! + nonces.length);
    }
    for (const s of sent) expect((await rpc.getTransaction(s.hash))?.blockNumber).not.toBeNull();
  });

  it('signs concurrent sends of one wallet with 10 in flight with distinct nonces, all mined', async () => {
    const rpc = client();
    const executorPool = pool([executors[7]!], { maxInFlightPerWallet: 10 }, rpc);
    const start = await chainNonce(executors[7]!.address);
    const fees = await currentFees(rpc);
    const wallets = Array.from({ length: 10 }, () => executorPool.acquire());
    expect(executorPool.acquire()).toBeUndefined();
    const sent = await Promise.all(wallets.map((w) => w!.send(TRANSFER, fees)));
    expect(sent.map((s) => s.nonce).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 10 }, (_, k) => start + k),
    );
    // anvil mines each send in its own task: a receipt read straight after the send can come back empty. Ten sends
    // of one wallet reach it concurrently: one that arrives ahead of a lower nonce waits in the pool until a block
    // comes after the gap is filled, and an instant-mining chain may then stay idle (a live chain keeps mining).
    for (const s of sent) {
      const receipt = await waitForReceipt(chain.provider, s.hash, 3_000).catch(async () => {
        await chain.mine();
        return waitForReceipt(chain.provider, s.hash, 10_000);
      });
      expect(receipt.status).toBe(1);
    }
    expect(await chainNonce(executors[7]!.address)).toBe(start + 10);
  });

  it('gives no wallet beyond its in-flight limit and skips wallets with a low balance', async () => {
    const unfunded = Wallet.createRandom();
    const balances: Array<{ address: string; wei: bigint; low: boolean }> = [];
    const executorPool = pool([new Wallet(unfunded.privateKey), executors[5]!], {
      maxInFlightPerWallet: 2,
      lowBalanceWei: 10n ** 18n,
      onBalance: (address, wei, low) => balances.push({ address, wei, low }),
    });
    const read = await executorPool.balances();
    expect(read).toEqual([
      { address: unfunded.address, wei: 0n, low: true },
      {
        address: executors[5]!.address,
        wei: await chain.provider.getBalance(executors[5]!.address),
        low: false,
      },
    ]);
    // Reads run in parallel: the callbacks come in any order.
    expect(balances).toHaveLength(2);
    expect(balances).toEqual(expect.arrayContaining(read));

    const first = executorPool.acquire();
    const second = executorPool.acquire();
    expect(first?.address).toBe(executors[5]!.address);
    expect(second).toBe(first);
    expect(executorPool.acquire()).toBeUndefined();
    executorPool.free(first!);
    expect(executorPool.acquire()).toBe(first);

    // Sending from the empty wallet anyway: refused by the node, flagged, and its nonce is still free.
    const empty = executorPool.wallets[0]!;
    const err = await sendError(empty.send(TRANSFER, await currentFees(client())));
    expect(err.kind).toBe('insufficient-funds');
    expect(empty.lowBalance).toBe(true);
    expect(empty.nonces.snapshot()).toEqual({ next: 0, outstanding: [], released: [] });
  });

  it('reports balances it cannot read as unknown instead of failing', async () => {
    const deadPool = pool(
      [executors[5]!],
      { onBalanceError: () => undefined },
      client('http://127.0.0.1:1', 0),
    );
    expect(await deadPool.balances()).toEqual([{ address: executors[5]!.address, wei: null, low: false }]);
  });
});

describe('nonces after failed sends', () => {
  it('reuses the nonce of a send the RPC never delivered, and of one the node refused', async () => {
    const proxy = await startRpcProxy(chain.rpcUrl);
    proxies.push(proxy);
    const rpc = client(proxy.url, 1);
    const executorPool = pool([executors[2]!], {}, rpc);
    const wallet = executorPool.acquire()!;
    const fees = await currentFees(rpc);
    const start = await chainNonce(wallet.address);

    const first = await wallet.send(TRANSFER, fees);
    expect(first.nonce).toBe(start);

    proxy.setFailure({ failEvery: 1 });
    const lost = await sendError(wallet.send(TRANSFER, fees));
    expect(lost.kind).toBe('unavailable');
    expect(lost.nonce).toBe(start + 1);
    expect(await chain.provider.getTransaction(lost.hash)).toBeNull();
    proxy.setFailure({ failEvery: 0 });

    const retried = await wallet.send(TRANSFER, fees);
    expect(retried.nonce).toBe(start + 1);

    // A gas limit below the intrinsic 21,000: the node refuses, the nonce goes to the next send.
    const refused = await sendError(wallet.send({ ...TRANSFER, gasLimit: 20_000n }, fees));
    expect(refused.kind).toBe('rejected');
    expect(refused.nonce).toBe(start + 2);
    const next = await wallet.send(TRANSFER, fees);
    expect(next.nonce).toBe(start + 2);

    for (const tx of [first, retried, next])
      expect((await waitForReceipt(chain.provider, tx.hash, 10_000))?.status).toBe(1);
    expect(await chainNonce(wallet.address)).toBe(start + 3);
  });

  it('calls beforeBroadcast with the signed transaction before the node sees it, and sends nothing when it fails', async () => {
    const rpc = client();
    const executorPool = pool([executors[6]!], {}, rpc);
    const wallet = executorPool.acquire()!;
    const fees = await currentFees(rpc);
    const start = await chainNonce(wallet.address);
    const recorded: Array<{ hash: string; known: boolean }> = [];

    const sent = await wallet.send(TRANSFER, fees, {
      beforeBroadcast: async (tx) => {
        recorded.push({ hash: tx.hash, known: (await chain.provider.getTransaction(tx.hash)) !== null });
        expect(tx).toMatchObject({ nonce: start, fees, wallet: wallet.address });
        expect(tx.raw).toMatch(/^0x02/);
      },
    });
    expect(recorded).toEqual([{ hash: sent.hash, known: false }]);
    expect((await chain.provider.getTransaction(sent.hash))?.nonce).toBe(start);

    const failed = await sendError(
      wallet.send(TRANSFER, fees, {
        beforeBroadcast: () => {
          throw new Error('store is down');
        },
      }),
    );
    expect(failed).toMatchObject({ kind: 'before-broadcast-failed', nonce: start + 1 });
    expect(failed.message).toBe('before-broadcast-failed: store is down');
    expect(await chain.provider.getTransaction(failed.hash)).toBeNull();
    expect((await wallet.send(TRANSFER, fees)).nonce).toBe(start + 1);
  });

  it('resyncs after a transaction sent from the same key elsewhere', async () => {
    const rpc = client();
    const resyncs: NonceResync[] = [];
    const executorPool = pool([executors[3]!], { onResync: (e) => resyncs.push(e) }, rpc);
    const wallet = executorPool.acquire()!;
    const fees = await currentFees(rpc);
    const start = await chainNonce(wallet.address);
    await wallet.send(TRANSFER, fees);

    // Another process with the same key takes the next nonce.
    const outside = executors[3]!.connect(chain.provider);
    await mined(outside.sendTransaction({ to: SINK, value: 1n }));
    expect(await chainNonce(wallet.address)).toBe(start + 2);

    const stale = await sendError(wallet.send(TRANSFER, fees));
    expect(stale).toMatchObject({ kind: 'nonce-too-low', nonce: start + 1 });
    expect(resyncs.at(-1)).toMatchObject({ reason: 'nonce too low', from: start + 2, to: start + 2 });

    const after = await wallet.send(TRANSFER, fees);
    expect(after.nonce).toBe(start + 2);
    expect((await waitForReceipt(chain.provider, after.hash, 10_000))?.status).toBe(1);

    // An explicit resync reads the same count again after another outside transaction.
    await mined(outside.sendTransaction({ to: SINK, value: 1n }));
    expect(await wallet.nonces.resync('check')).toBe(start + 4);
    expect((await wallet.send(TRANSFER, fees)).nonce).toBe(start + 4);
  });
});

describe('replacing a pending transaction', () => {
  it('mines only the replacement with bumped fees, and reports a too small bump as underpriced', async () => {
    const rpc = client();
    const policy = new FeePolicy(rpc, { maxFeePerGasCap: CAP });
    const executorPool = pool([executors[4]!], {}, rpc);
    const wallet: ExecutorWallet = executorPool.acquire()!;
    // ganache re-numbers a nonce-0 transaction sent while the sender has one pending: start from nonce 1 or more.
    await wallet.send(TRANSFER, await currentFees(rpc));

    await chain.pauseMining();
    try {
      const decision = await policy.current();
      if (decision.kind !== 'ok' || decision.fees.type !== 2) throw new Error('expected EIP-1559 fees');
      const original = await wallet.send(TRANSFER, decision.fees);
      const nonceBefore = await chainNonce(wallet.address);
      expect(original.nonce).toBe(nonceBefore);
      expect(await rpc.getTransactionReceipt(original.hash)).toBeNull();

      // Nodes differ on the smallest bump they take (geth and ganache 10%, anvil any increase); every node
      // refuses a replacement that pays less than the pending transaction.
      const prev = original.fees as Eip1559Fees;
      const small: Eip1559Fees = {
        type: 2,
        maxFeePerGas: (prev.maxFeePerGas * 95n) / 100n,
        maxPriorityFeePerGas: (prev.maxPriorityFeePerGas * 95n) / 100n,
      };
      const underpriced = await sendError(executorPool.find(original.wallet)!.replace(original, small));
      expect(underpriced).toMatchObject({ kind: 'replacement-underpriced', nonce: original.nonce });
      expect(underpriced.message).toMatch(/underpriced|fee too low/);

      // A cap that leaves no valid bump is reported, not sent.
      const tightCap = new FeePolicy(rpc, { maxFeePerGasCap: prev.maxFeePerGas + 1n });
      expect(tightCap.bumpForReplacement(prev)).toMatchObject({ kind: 'capped' });

      const bump = policy.bumpForReplacement(prev);
      if (bump.kind !== 'ok' || bump.fees.type !== 2) throw new Error('expected a bump under the cap');
      expect(bump.fees.maxFeePerGas * 1000n).toBeGreaterThanOrEqual(prev.maxFeePerGas * 1125n);
      expect(bump.fees.maxPriorityFeePerGas * 1000n).toBeGreaterThanOrEqual(
        prev.maxPriorityFeePerGas * 1125n,
      );
      const replacement = await executorPool.find(original.wallet)!.replace(original, bump.fees);
      expect(replacement.nonce).toBe(original.nonce);
      expect(replacement.hash).not.toBe(original.hash);

      await chain.mine();
      const replaced = await rpc.getTransactionReceipt(replacement.hash);
      expect(replaced?.status).toBe(1);
      expect(await rpc.getTransactionReceipt(original.hash)).toBeNull();
      expect(await chainNonce(wallet.address)).toBe(nonceBefore + 1);
      const block = await rpc.getBlock(replaced!.blockNumber);
      expect(block?.transactions).toEqual([replacement.hash]);

      // Replacing a mined nonce: the node says the nonce is used.
      const again = policy.bumpForReplacement(bump.fees);
      if (again.kind !== 'ok') throw new Error('expected a bump under the cap');
      const late = await sendError(executorPool.find(original.wallet)!.replace(original, again.fees));
      expect(late.kind).toBe('nonce-too-low');
    } finally {
      await chain.resumeMining();
    }
  });
});

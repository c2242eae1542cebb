import { toQuantity, Wallet, type TransactionRequest } from 'ethers';
import { startAnvilChain } from '../../devnet/engine/anvil-chain';
import type { ChainHandle } from '../../devnet/engine/devnet-chain';
import { StrandedTransactions, type StrandedRescue } from '../../devnet/engine/stranded-transactions';
import { TxQueue } from '../../devnet/world/tx-queue';

/**
 * anvil strands a transaction added while the one before it was being mined (foundry-rs/foundry#10122): queued
 * for a nonce that is already on-chain, never mined, nor anything its sender sends after. The state is made here
 * with anvil_setNonce (the sender's next nonce moves to a queued transaction's without any transaction providing
 * it), which is exactly what the race leaves.
 */
const CHAIN_ID = 31337;
const WEI = 10n ** 18n;

/** The chain of the test running: one with no watcher (checks by hand), one with its watcher. */
let chain: ChainHandle;
let unwatched: ChainHandle;
let watched: ChainHandle;
const rescues: StrandedRescue[] = [];

beforeAll(async () => {
  [unwatched, watched] = await Promise.all([
    startAnvilChain({ chainId: CHAIN_ID, blockTime: 1, strandedCheckMs: 0 }),
    startAnvilChain({ chainId: CHAIN_ID, blockTime: 1, onStranded: (r) => rescues.push(r) }),
  ]);
});

afterAll(async () => {
  await Promise.all([unwatched?.stop(), watched?.stop()]);
});

async function fundedWallet(): Promise<Wallet> {
  const wallet = new Wallet(Wallet.createRandom().privateKey, chain.provider);
  await chain.setBalance(wallet.address, 10n * WEI);
  return wallet;
}

/** Signs and sends a 1-wei transfer to `to` with `nonce`; returns its hash. */
async function sendWithNonce(wallet: Wallet, to: string, nonce: number): Promise<string> {
  const tx: TransactionRequest = {
    chainId: CHAIN_ID,
    type: 2,
    nonce,
    to,
    value: 1n,
    gasLimit: 21_000n,
    maxFeePerGas: 100n * 10n ** 9n,
    maxPriorityFeePerGas: 10n ** 9n,
  };
  return (await chain.provider.send('eth_sendRawTransaction', [await wallet.signTransaction(tx)])) as string;
}

async function strand(wallet: Wallet, to: string): Promise<[string, string]> {
  // Nonce 0 is never sent: 1 and 2 wait for it, then the sender's next nonce becomes 1 with nothing mined.
  const first = await sendWithNonce(wallet, to, 1);
  const second = await sendWithNonce(wallet, to, 2);
  await chain.provider.send('anvil_setNonce', [wallet.address, toQuantity(1)]);
  return [first, second];
}

async function receiptOf(hash: string): Promise<{ status: string } | null> {
  return (await chain.provider.send('eth_getTransactionReceipt', [hash])) as { status: string } | null;
}

/** The pool's ready (`pending`) or waiting (`queued`) count. */
async function poolCount(kind: 'pending' | 'queued'): Promise<number> {
  return Number(((await chain.provider.send('txpool_status', [])) as Record<typeof kind, string>)[kind]);
}

describe('transactions anvil strands in its pool', () => {
  it('are re-imported on the second check that finds them, and then mined; a real nonce gap is left alone', async () => {
    chain = unwatched;
    const send = (method: string, params: unknown[]): Promise<unknown> => chain.provider.send(method, params);
    const doctor = new StrandedTransactions(send);
    // Blocks only when the test mines them.
    await chain.pauseMining();
    try {
      const stranded = await fundedWallet();
      const gapped = await fundedWallet();
      const to = Wallet.createRandom().address;
      const [first, second] = await strand(stranded, to);
      // A transaction queued behind a nonce never sent (0 is next, 3 is sent): a gap, not a stranding.
      const gap = await sendWithNonce(gapped, to, 3);
      await chain.mine(2);
      expect(await receiptOf(first)).toBeNull();
      expect(await poolCount('queued')).toBe(3);

      // First sighting: only suspected.
      expect(await doctor.check()).toEqual([]);
      const [rescue, ...more] = await doctor.check();
      expect(more).toEqual([]);
      expect(rescue).toEqual({
        sender: stranded.address,
        stranded: first,
        nonce: 1,
        reimported: 2,
      });
      await chain.mine(1);
      expect((await receiptOf(first))?.status).toBe('0x1');
      expect((await receiptOf(second))?.status).toBe('0x1');
      expect(await chain.provider.getBalance(to)).toBe(2n);
      // The gap stays queued, untouched, however often the pool is checked.
      expect(await doctor.check()).toEqual([]);
      expect(await doctor.check()).toEqual([]);
      expect(await receiptOf(gap)).toBeNull();
      expect(await poolCount('queued')).toBe(1);
    } finally {
      await chain.resumeMining();
    }
  });

  it('a devnet queue that gives up on a transaction says what the node knows of it', async () => {
    chain = unwatched;
    await chain.pauseMining();
    try {
      const wallet = await fundedWallet();
      const queue = await TxQueue.create(chain.provider, wallet, { mining: chain, receiptTimeoutMs: 1_500 });
      queue.call('a transfer', Wallet.createRandom().address, ['function f()'], 'f', [], 50_000n);
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await poolCount('pending')) === 0)
        await new Promise((r) => setTimeout(r, 20));
      expect(await poolCount('pending')).toBe(1);
      // Its nonce is used up meanwhile (as by another signer of the same key): it is never mined.
      await chain.provider.send('anvil_setNonce', [wallet.address, toQuantity(5)]);
      await expect(queue.flush()).rejects.toThrow(
        /^devnet transaction 0x[0-9a-f]{64} was not mined within 1.5 s \((unknown to the node|nonce 0, the sender's next 5); max fee \d+, base fee \d+; pool: \d+ ready, \d+ queued\)$/,
      );
    } finally {
      await chain.resumeMining();
    }
  });

  it("the chain's own watcher finds a stranded transaction and it is mined without anyone asking", async () => {
    chain = watched;
    const wallet = await fundedWallet();
    const to = Wallet.createRandom().address;
    const [first, second] = await strand(wallet, to);
    // Stranded: interval blocks go by without it.
    await chain.mine(2);
    expect(await receiptOf(first)).toBeNull();
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !(await receiptOf(second))) await new Promise((r) => setTimeout(r, 200));
    expect((await receiptOf(first))?.status).toBe('0x1');
    expect((await receiptOf(second))?.status).toBe('0x1');
    expect(await chain.provider.getBalance(to)).toBe(2n);
    expect(rescues).toContainEqual({ sender: wallet.address, stranded: first, nonce: 1, reimported: 2 });
  });
});

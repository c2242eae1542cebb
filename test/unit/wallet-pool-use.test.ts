import { Wallet, id } from 'ethers';
import type { RawRpc } from '../../keeper/outbox/raw-rpc';
import { WalletPool } from '../../keeper/submit/wallet-pool';

const rpc: RawRpc = {
  chainId: 1,
  send: () => Promise.reject(new Error('no chain in this test')),
};
const signers = [1, 2, 3].map((i) => new Wallet(id(`wallet-pool-use/${i}`)));

describe('WalletPool: wallets put to use as load needs', () => {
  it('keeps a quiet chain to one wallet, and puts another to use only when every wallet in use has a transaction in flight', () => {
    const used: Array<[string, number]> = [];
    const pool = new WalletPool(rpc, signers, {
      maxInFlightPerWallet: 2,
      onPutToUse: (address, inUse) => used.push([address, inUse]),
    });
    const a = pool.acquire()!;
    pool.free(a);
    // Quiet: the same wallet again, nothing else put to use.
    expect(pool.acquire()).toBe(a);
    pool.free(a);
    expect(used).toEqual([[signers[0]!.address, 1]]);

    // A wave: each wallet in use is busy, so the next one joins; then the least loaded is taken.
    const first = pool.acquire()!;
    const second = pool.acquire()!;
    const third = pool.acquire()!;
    expect([first, second, third].map((w) => w.address)).toEqual(signers.map((s) => s.address));
    expect(used.map(([, n]) => n)).toEqual([1, 2, 3]);
    const more = [pool.acquire(), pool.acquire(), pool.acquire()];
    expect(more.map((w) => w?.inFlight)).toEqual([2, 2, 2]);
    expect(pool.acquire()).toBeUndefined();

    // After the wave every wallet stays in use, and the least loaded goes first.
    pool.free(second);
    expect(pool.acquire()).toBe(second);
  });

  it('counts a wallet holding a transaction handed over by a restart as in use, and skips low wallets', () => {
    const pool = new WalletPool(rpc, signers, { maxInFlightPerWallet: 1, lowBalanceWei: 10n });
    pool.wallets[0]!.recordBalance(0n, 10n);
    pool.wallets[2]!.take();
    // Wallet 0 is low, wallet 2 is full with its handed-over transaction: wallet 1 is put to use.
    expect(pool.acquire()).toBe(pool.wallets[1]);
    expect(pool.acquire()).toBeUndefined();
  });
});

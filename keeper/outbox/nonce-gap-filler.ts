import type { ChainClient } from '../../shared/chain/chain-client';
import type { Logger } from '../../shared/log/create-logger';
import type { KeeperMetrics } from '../keeper-metrics';
import type { ExecutorWallet } from './executor-wallet';
import type { FeePolicy } from './fee-policy';
import { isOutageError } from '../watch/chain-availability';

export interface NonceGapFillerDeps {
  chainId: number;
  client: ChainClient;
  fees: FeePolicy;
  metrics: KeeperMetrics;
  log: Logger;
  now: () => number;
}

/** On a chain whose blocks come only with transactions, a gap that lasts this long is one too. */
const GAP_WAIT_MS = 5_000;
const EMPTY_TX_GAS = 21_000n;

const count = async (client: ChainClient, address: string, tag: 'latest' | 'pending'): Promise<number> =>
  Number(BigInt(String(await client.send('eth_getTransactionCount', [address, tag]))));

/**
 * Repairs nonce gaps of the keeper's wallets on one chain. A wallet has a gap when the chain's nonce `n` is below
 * the next nonce this process signed with, the node holds nothing of ours at `n` (its pending count, which counts
 * only consecutive nonces, equals `n`), no send of ours is signing `n`, and all of that still holds a block later:
 * everything we signed above `n` waits on it for good. That happens when a reorg takes back a transaction of ours
 * the follow path no longer has a record of (settled past the re-check window, a record cleared once final) or a
 * node forgets one — or a transaction sits with a private relay the public node cannot see. The follow path
 * re-sends what it has a record of within a block, hence the wait; after it, the last transaction this process
 * sent at `n` is put out again if there is one, and otherwise `n` is filled with an empty transaction to the
 * wallet itself at the chain's current fees (a warning and
 * `tas_keeper_nonce_gaps_filled_total`). A record of `n` that turns up later is then dropped (its nonce used), and
 * its work is retried, never run twice. (On a chain that mines only with transactions, "a block later" is five
 * seconds later.)
 */
export class NonceGapFiller {
  /** Per wallet, the gap seen at the last check and the block it was seen at. */
  private readonly seen = new Map<string, { nonce: number; block: number; at: number }>();

  constructor(private readonly deps: NonceGapFillerDeps) {}

  async check(wallets: readonly ExecutorWallet[], head: number): Promise<void> {
    for (const wallet of wallets) {
      try {
        await this.checkWallet(wallet, head);
      } catch (err) {
        if (isOutageError(err)) throw err;
        this.deps.log.warn({ err, wallet: wallet.address }, 'nonce gap check failed');
      }
    }
  }

  private async checkWallet(wallet: ExecutorWallet, head: number): Promise<void> {
    const { deps } = this;
    const local = wallet.nonces.snapshot();
    if (local.next === undefined) return this.clear(wallet);
    const [latest, pending] = await Promise.all([
      count(deps.client, wallet.address, 'latest'),
      count(deps.client, wallet.address, 'pending'),
    ]);
    if (pending !== latest || local.next <= latest || local.outstanding.includes(latest))
      return this.clear(wallet);
    const before = this.seen.get(wallet.address);
    if (!before || before.nonce !== latest) {
      this.seen.set(wallet.address, { nonce: latest, block: head, at: deps.now() });
      return;
    }
    if (head <= before.block && deps.now() - before.at < GAP_WAIT_MS) return;
    // What this process sent at that nonce (a private relay holding it, a node that lost it) goes out again: the
    // chain has nothing of ours there that we know of only when there is no such transaction.
    const mined = async (hash: string): Promise<boolean> =>
      (await deps.client.getTransactionReceipt(hash)) !== null;
    if (await wallet.putOutAgain(latest, mined)) {
      this.seen.set(wallet.address, { nonce: latest, block: head, at: deps.now() });
      return;
    }
    const decision = await deps.fees.current();
    if (decision.kind === 'too-expensive') return;
    const filler = await wallet.replace(
      {
        hash: '',
        nonce: latest,
        raw: '',
        fees: decision.fees,
        wallet: wallet.address,
        chainId: wallet.chainId,
        request: { to: wallet.address, data: '0x', gasLimit: EMPTY_TX_GAS },
      },
      decision.fees,
    );
    this.clear(wallet);
    deps.metrics.nonceGapFilled(deps.chainId);
    deps.log.warn(
      { wallet: wallet.address, nonce: latest, localNext: local.next, txHash: filler.hash },
      'nonce gap filled with an empty transaction: the chain had nothing of ours at it',
    );
  }

  private clear(wallet: ExecutorWallet): void {
    this.seen.delete(wallet.address);
  }
}

import type { Wallet } from 'ethers';
import type { SendPolicy } from '../outbox/send-policy';
import { ExecutorWallet, DEFAULT_MAX_IN_FLIGHT } from '../outbox/executor-wallet';
import type { NonceResync } from '../outbox/nonce-manager';
import type { RawRpc } from '../outbox/raw-rpc';
import { broadcastFailureText } from '../outbox/send-error';

export interface WalletBalance {
  address: string;
  /** Wei; null when the balance could not be read (the wallet keeps its previous low/not-low state). */
  wei: bigint | null;
  low: boolean;
}

export interface WalletPoolOptions {
  /** Transactions each wallet may have in flight at once (default 1). */
  maxInFlightPerWallet?: number;
  /** A wallet with less native balance (wei) is not given new transactions until a later read finds more. */
  lowBalanceWei?: bigint;
  /** After every balance read: the keeper exports it as the wallet-balance gauge and the low-balance alert. */
  onBalance?: (address: string, wei: bigint, low: boolean) => void;
  /** Every nonce resync of a wallet (the nonce-resync metric). */
  onResync?: (event: NonceResync) => void;
  /** A balance that could not be read; the pool carries on. */
  onBalanceError?: (address: string, reason: string) => void;
  /** Where every wallet's transactions go out (the chain's send policy); default: `rpc`, publicly. */
  sendPolicy?: SendPolicy;
  /** A configured wallet was put to use under load; `inUse`: how many are in use now. */
  onPutToUse?: (address: string, inUse: number) => void;
}

/**
 * The executor wallets of one chain. A caller acquires a wallet (one in-flight slot), sends through it (the outbox's
 * send path, outbox/send-recorded.ts), and frees it when the transaction has ended: mined, dropped or given up. Wallets whose balance is below the threshold get
 * nothing new; the process goes on with the others, or with none, and the balance metric raises the alert.
 */
export class WalletPool {
  readonly chainId: number;
  readonly wallets: readonly ExecutorWallet[];
  private readonly threshold: bigint;
  /** Where the search for a free wallet starts: spreads sends over wallets with equal load. */
  private cursor = 0;
  /** The wallets put to use so far (never taken out of use: their nonces and balances stay followed). */
  private readonly inUse = new Set<ExecutorWallet>();

  constructor(
    private readonly rpc: RawRpc,
    signers: readonly Wallet[],
    private readonly opts: WalletPoolOptions = {},
  ) {
    const addresses = new Set(signers.map((s) => s.address));
    if (addresses.size !== signers.length) throw new Error('an executor key is in the pool twice');
    this.chainId = rpc.chainId;
    this.threshold = opts.lowBalanceWei ?? 0n;
    this.wallets = signers.map(
      (signer) =>
        new ExecutorWallet(signer, rpc, {
          maxInFlight: opts.maxInFlightPerWallet ?? DEFAULT_MAX_IN_FLIGHT,
          onResync: opts.onResync,
          sendPolicy: opts.sendPolicy,
        }),
    );
  }

  /**
   * A wallet with a free slot and enough balance, its slot taken; undefined when every wallet is busy or low. The
   * least loaded of the wallets in use is taken; another configured wallet is put to use only when every wallet in
   * use already has a transaction in flight (or none of them can take one): a quiet chain keeps to one wallet, a
   * crossing wave spreads over as many as its transactions need, each a lane of consecutive nonces.
   */
  acquire(): ExecutorWallet | undefined {
    const count = this.wallets.length;
    let best: ExecutorWallet | undefined;
    let bestIndex = 0;
    for (let i = 0; i < count; i++) {
      const index = (this.cursor + i) % count;
      const wallet = this.wallets[index]!;
      // A wallet a restarted keeper's tracker handed a transaction is in use.
      if (wallet.inFlight > 0) this.inUse.add(wallet);
      if (!this.inUse.has(wallet) || !wallet.available()) continue;
      if (!best || wallet.inFlight < best.inFlight) {
        best = wallet;
        bestIndex = index;
      }
    }
    if (!best || best.inFlight > 0) {
      const index = this.wallets.findIndex((w) => !this.inUse.has(w) && w.available());
      if (index >= 0) {
        best = this.wallets[index]!;
        bestIndex = index;
        this.inUse.add(best);
        this.opts.onPutToUse?.(best.address, this.inUse.size);
      }
    }
    if (!best || !best.take()) return undefined;
    this.cursor = (bestIndex + 1) % count;
    return best;
  }

  /** Frees the slot of an acquired wallet. */
  free(wallet: ExecutorWallet): void {
    this.own(wallet).free();
  }

  /** The pool's wallet for an address (a restarted keeper's tracked transactions name their sender). */
  find(address: string): ExecutorWallet | undefined {
    const lower = address.toLowerCase();
    return this.wallets.find((w) => w.address.toLowerCase() === lower);
  }

  /**
   * Reads every wallet's native balance, updates which wallets are low and reports each through `onBalance`.
   * Never throws: a balance that cannot be read is null and the wallet keeps its previous state.
   */
  async balances(): Promise<WalletBalance[]> {
    return Promise.all(
      this.wallets.map(async (wallet): Promise<WalletBalance> => {
        let wei: bigint;
        try {
          const answer = await this.rpc.send('eth_getBalance', [wallet.address, 'latest']);
          if (typeof answer !== 'string' || !/^0x[0-9a-fA-F]+$/.test(answer))
            throw new Error(`eth_getBalance answered ${JSON.stringify(answer)}`);
          wei = BigInt(answer);
        } catch (err) {
          this.opts.onBalanceError?.(wallet.address, broadcastFailureText(err));
          return { address: wallet.address, wei: null, low: wallet.lowBalance };
        }
        const low = wallet.recordBalance(wei, this.threshold);
        try {
          this.opts.onBalance?.(wallet.address, wei, low);
        } catch {
          // A failing metrics callback must not stop the balance check of the other wallets.
        }
        return { address: wallet.address, wei, low };
      }),
    );
  }

  private own(wallet: ExecutorWallet): ExecutorWallet {
    if (!this.wallets.includes(wallet)) throw new Error(`wallet ${wallet.address} is not in this pool`);
    return wallet;
  }
}

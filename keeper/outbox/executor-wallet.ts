import { keccak256, type Wallet } from 'ethers';
import { signTransaction } from '../../shared/chain/transaction-signing';
import { PublicSendPolicy } from '../outbox/public-send-policy';
import type { SendPolicy } from '../outbox/send-policy';
import type { TxFees } from './fee-policy';
import { NonceManager, type NonceResync } from './nonce-manager';
import type { RawRpc } from './raw-rpc';
import { SendError, broadcastFailureText, classifyBroadcastFailure } from './send-error';

/** A transaction to send: a contract call (the OrderExecutor's executeBatch) with an explicit gas limit. */
export interface TxRequest {
  to: string;
  data: string;
  gasLimit: bigint;
  /** Wei; 0 when omitted. */
  value?: bigint;
}

/** A signed transaction, before it is broadcast. */
export interface SignedTx {
  hash: string;
  nonce: number;
  /** The signed transaction as 0x-hex: what a restarted keeper re-broadcasts. */
  raw: string;
  fees: TxFees;
  /** The executor wallet's address. */
  wallet: string;
}

/** A transaction the node accepted. */
export interface SentTransaction extends SignedTx {
  chainId: number;
  request: TxRequest;
}

export interface SendOptions {
  /**
   * Awaited after signing and before broadcasting, so that the caller can store the hash, nonce and raw
   * transaction durably first: a keeper killed during the broadcast then knows what may be in the pool. When it
   * throws nothing is broadcast (SendError `before-broadcast-failed`) and a send's nonce is free again.
   */
  beforeBroadcast?: (tx: SignedTx) => Promise<void> | void;
}

export interface ExecutorWalletOptions {
  /** Transactions the wallet may have in flight at once. */
  maxInFlight?: number;
  onResync?: (event: NonceResync) => void;
  /** Where signed transactions go out (the chain's send policy); default: the chain's public RPC, `rpc`. */
  sendPolicy?: SendPolicy;
}

export const DEFAULT_MAX_IN_FLIGHT = 1;

/**
 * One executor wallet on one chain: signs locally with its nonce manager and broadcasts through the chain's send
 * policy (public RPC or private endpoints); nonces, balances and receipts are read from the chain's public RPC.
 * It counts its transactions in flight and remembers its last balance; the pool decides from both which wallet
 * sends next.
 */
export class ExecutorWallet {
  readonly address: string;
  readonly chainId: number;
  readonly nonces: NonceManager;
  readonly maxInFlight: number;
  private readonly sendPolicy: SendPolicy;
  /** The last raw transaction this process put out at each nonce not yet known mined (pruned by `putOutAgain`). */
  private readonly lastOut = new Map<number, string>();
  private inFlightCount = 0;
  private low = false;
  private lastBalance: bigint | undefined;

  constructor(
    private readonly signer: Wallet,
    private readonly rpc: RawRpc,
    opts: ExecutorWalletOptions = {},
  ) {
    this.maxInFlight = opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    if (!Number.isInteger(this.maxInFlight) || this.maxInFlight < 1)
      throw new Error(`maxInFlight must be a positive integer, got ${this.maxInFlight}`);
    this.address = signer.address;
    this.chainId = rpc.chainId;
    this.nonces = new NonceManager(signer.address, rpc, { onResync: opts.onResync });
    this.sendPolicy = opts.sendPolicy ?? new PublicSendPolicy(rpc);
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  /** Below the pool's threshold at the last balance read, or refused a send for insufficient funds since. */
  get lowBalance(): boolean {
    return this.low;
  }

  /** Wei at the last read; undefined before the first. */
  get balance(): bigint | undefined {
    return this.lastBalance;
  }

  /** Whether the wallet may take another transaction now. */
  available(): boolean {
    return !this.low && this.inFlightCount < this.maxInFlight;
  }

  /** Takes a slot; false when the wallet is full or low. */
  take(): boolean {
    if (!this.available()) return false;
    this.inFlightCount += 1;
    return true;
  }

  /** Gives a slot back: its transaction ended (mined, dropped, abandoned) or was never sent. */
  free(): void {
    if (this.inFlightCount > 0) this.inFlightCount -= 1;
  }

  recordBalance(wei: bigint, threshold: bigint): boolean {
    this.lastBalance = wei;
    this.low = wei < threshold;
    return this.low;
  }

  /** Signs with the next nonce and broadcasts. Throws SendError; the nonce is then free again or resynced. */
  async send(request: TxRequest, fees: TxFees, opts: SendOptions = {}): Promise<SentTransaction> {
    let nonce: number;
    try {
      nonce = await this.nonces.reserve();
    } catch (err) {
      throw new SendError('unavailable', -1, '', `cannot read the nonce: ${broadcastFailureText(err)}`);
    }
    let signed: SignedTx;
    try {
      signed = await this.sign(request, fees, nonce);
    } catch (err) {
      this.nonces.release(nonce);
      throw err;
    }
    await this.runHook(signed, opts, () => this.nonces.release(nonce));
    try {
      await this.sendPolicy.broadcast(signed.raw);
    } catch (err) {
      if (await this.acceptedDespite(err, signed.hash)) {
        this.nonces.confirmSent(nonce);
        return this.sent(signed, request);
      }
      throw await this.sendFailed(err, signed);
    }
    this.nonces.confirmSent(nonce);
    return this.sent(signed, request);
  }

  /**
   * Re-signs `tx`'s nonce with `fees` (bumped: FeePolicy.bumpForReplacement) and broadcasts it; `request`
   * replaces the call (a cancellation sends 0 to the wallet itself). The nonce was spent by the original, so
   * nothing changes in the nonce manager whatever happens.
   */
  async replace(
    tx: SentTransaction,
    fees: TxFees,
    opts: SendOptions & { request?: TxRequest } = {},
  ): Promise<SentTransaction> {
    if (tx.wallet !== this.address) throw new Error(`transaction ${tx.hash} was not sent by ${this.address}`);
    const request = opts.request ?? tx.request;
    const signed = await this.sign(request, fees, tx.nonce);
    await this.runHook(signed, opts, () => undefined);
    try {
      await this.sendPolicy.broadcast(signed.raw);
    } catch (err) {
      if (await this.acceptedDespite(err, signed.hash)) return this.sent(signed, request);
      const kind = classifyBroadcastFailure(err);
      const reason = broadcastFailureText(err);
      if (kind === 'insufficient-funds') this.low = true;
      // For a replacement every "underpriced" means the pending original was not beaten.
      const reported =
        kind === 'fee-too-low' || kind === 'replacement-underpriced'
          ? 'replacement-underpriced'
          : kind === 'already-known'
            ? 'rejected'
            : kind;
      throw new SendError(reported, tx.nonce, signed.hash, reason);
    }
    return this.sent(signed, request);
  }

  private async sign(request: TxRequest, fees: TxFees, nonce: number): Promise<SignedTx> {
    const { raw, hash } = signTransaction(
      {
        chainId: BigInt(this.chainId),
        nonce,
        to: request.to,
        data: request.data,
        gasLimit: request.gasLimit,
        value: request.value ?? 0n,
        fees:
          fees.type === 2
            ? { type: 2, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
            : { type: 0, gasPrice: fees.gasPrice },
      },
      this.signer.signingKey,
    );
    return { hash, nonce, raw, fees, wallet: this.address };
  }

  private async runHook(signed: SignedTx, opts: SendOptions, undo: () => void): Promise<void> {
    if (!opts.beforeBroadcast) return;
    try {
      await opts.beforeBroadcast(signed);
    } catch (err) {
      undo();
      const reason = err instanceof Error ? err.message : String(err);
      throw new SendError('before-broadcast-failed', signed.nonce, signed.hash, reason);
    }
  }

  /**
   * Whether the node has the transaction after all. The RPC client retries a send whose answer was lost, and the
   * retry then hears "already known", "nonce too low" (ganache mines at once) or, from ganache, "underpriced"
   * about our own transaction; a node that never answered may still have it.
   */
  private async acceptedDespite(err: unknown, hash: string): Promise<boolean> {
    const kind = classifyBroadcastFailure(err);
    if (kind === 'already-known') return true;
    if (kind === 'insufficient-funds' || kind === 'rejected') return false;
    return (await this.knows(hash)) === true;
  }

  /** The failure of a new send, with the nonce made right: free again, or resynced when someone else took it. */
  private async sendFailed(err: unknown, signed: SignedTx): Promise<SendError> {
    const { nonce, hash } = signed;
    const kind = classifyBroadcastFailure(err);
    const reason = broadcastFailureText(err);
    switch (kind) {
      case 'nonce-too-low':
        this.nonces.confirmSent(nonce);
        await this.nonces.resync('nonce too low');
        return new SendError('nonce-too-low', nonce, hash, reason);
      case 'replacement-underpriced':
      case 'fee-too-low': {
        // Taken by a pending transaction we did not send from here, or just too cheap: the pending count tells.
        const count = await this.nonces.resync(kind);
        if (count !== undefined && count > nonce) {
          this.nonces.confirmSent(nonce);
          return new SendError('replacement-underpriced', nonce, hash, reason);
        }
        this.nonces.release(nonce);
        return new SendError(
          kind === 'fee-too-low' ? 'fee-too-low' : 'replacement-underpriced',
          nonce,
          hash,
          reason,
        );
      }
      case 'unavailable':
        this.nonces.release(nonce);
        // The node may have taken it without answering: the next nonce comes from its pending count.
        this.nonces.invalidate();
        return new SendError('unavailable', nonce, hash, reason);
      case 'insufficient-funds':
        this.low = true;
        this.nonces.release(nonce);
        return new SendError('insufficient-funds', nonce, hash, reason);
      default:
        this.nonces.release(nonce);
        return new SendError('rejected', nonce, hash, reason);
    }
  }

  /** eth_getTransactionByHash: true when pending or mined, false when unknown, undefined when it cannot be read. */
  private async knows(hash: string): Promise<boolean | undefined> {
    try {
      return (await this.rpc.send('eth_getTransactionByHash', [hash])) !== null;
    } catch {
      return undefined;
    }
  }

  /**
   * Puts out again the last transaction this process sent at `nonce`, through the wallet's send policy (a private
   * relay sees it again, a public node that lost it has it back), unless `mined` finds it on the chain; false when
   * it sent none there. Nonces below
   * `nonce` are forgotten: the chain has them. Refusals ("already known", "nonce too low") are no failure.
   */
  async putOutAgain(nonce: number, mined: (hash: string) => Promise<boolean>): Promise<boolean> {
    for (const n of [...this.lastOut.keys()]) if (n < nonce) this.lastOut.delete(n);
    const raw = this.lastOut.get(nonce);
    if (!raw) return false;
    // A chain whose count went below a transaction it still holds (a test node's set nonce) gets nothing twice.
    if (await mined(keccak256(raw))) return true;
    try {
      await this.sendPolicy.rebroadcast(raw, 0);
    } catch (err) {
      if (classifyBroadcastFailure(err) === 'unavailable') throw err;
    }
    return true;
  }

  private sent(signed: SignedTx, request: TxRequest): SentTransaction {
    this.lastOut.set(signed.nonce, signed.raw);
    return { ...signed, chainId: this.chainId, request };
  }
}

import type { RawRpc } from './raw-rpc';

/** A read of the chain's pending transaction count that (re)set the local nonce state. */
export interface NonceResync {
  address: string;
  /** The local next nonce before the read; undefined when there was none (first use, or reset after an error). */
  from: number | undefined;
  /** The next nonce after it. */
  to: number;
  reason: string;
}

export interface NonceManagerOptions {
  /** Every successful read of the chain's count (for the keeper's nonce-resync metric and logs). */
  onResync?: (event: NonceResync) => void;
}

/** What the manager holds, for logs and tests. */
export interface NonceSnapshot {
  next: number | undefined;
  /** Reserved and neither confirmed nor released: being signed or broadcast right now. */
  outstanding: number[];
  /** Given back after a failed send; handed out again, lowest first, before any new nonce. */
  released: number[];
}

/**
 * The nonces of one wallet on one chain, kept locally so that transactions can be sent back to back without
 * waiting for the node, and without ever leaving a gap: a nonce whose send failed before the node accepted it is
 * handed out again before any higher one. Reservations and chain reads are serialised, so concurrent callers never
 * get the same nonce. Whenever the local view may be wrong (nonce too low, a send with an unknown outcome) the
 * caller resyncs from the node's pending count, or invalidates and the next reservation reads it.
 */
export class NonceManager {
  private next: number | undefined;
  private readonly outstanding = new Set<number>();
  /** Sorted ascending, every entry below `next`. */
  private released: number[] = [];
  private lock: Promise<unknown> = Promise.resolve();

  constructor(
    readonly address: string,
    private readonly rpc: RawRpc,
    private readonly opts: NonceManagerOptions = {},
  ) {}

  /** The nonce for the next transaction. Rejects when the chain's count is needed and cannot be read. */
  reserve(): Promise<number> {
    return this.exclusive(async () => {
      if (this.next === undefined) await this.readChain('initial');
      const reused = this.released.shift();
      const nonce = reused ?? this.next!++;
      this.outstanding.add(nonce);
      return nonce;
    });
  }

  /** The node accepted the transaction: the nonce is spent. */
  confirmSent(nonce: number): void {
    this.outstanding.delete(nonce);
  }

  /** The send failed before the node accepted the transaction: the nonce goes to the next caller. */
  release(nonce: number): void {
    if (!this.outstanding.delete(nonce)) return;
    // After a reset the next chain read recomputes the free nonces; keeping this one could hand it out twice.
    if (this.next === undefined || nonce >= this.next) return;
    if (nonce === this.next - 1) {
      this.next = nonce;
      // Nonces given back earlier just below it are now the top as well: fold them into `next`.
      while (this.released.length > 0 && this.released[this.released.length - 1] === this.next - 1) {
        this.released.pop();
        this.next -= 1;
      }
      return;
    }
    if (this.released.includes(nonce)) return;
    const at = this.released.findIndex((n) => n > nonce);
    if (at === -1) this.released.push(nonce);
    else this.released.splice(at, 0, nonce);
  }

  /**
   * Reads `eth_getTransactionCount(address, 'pending')` and restarts from it; returns that count. On any error
   * the local state is dropped instead (the next reservation reads the chain again) and undefined is returned: a
   * stale nonce is worse than a failed reservation.
   */
  resync(reason = 'requested'): Promise<number | undefined> {
    return this.exclusive(async () => {
      try {
        return await this.readChain(reason);
      } catch {
        this.invalidateNow();
        return undefined;
      }
    });
  }

  /** Forgets the local state without a read; the next reservation reads the chain. */
  invalidate(): void {
    // Queued behind running reservations, so one that already read the chain is not undone halfway.
    void this.exclusive(async () => this.invalidateNow());
  }

  snapshot(): NonceSnapshot {
    return {
      next: this.next,
      outstanding: [...this.outstanding].sort((a, b) => a - b),
      released: [...this.released],
    };
  }

  private invalidateNow(): void {
    this.next = undefined;
    this.released = [];
  }

  /**
   * Sets `next` from the chain's pending count. Nonces reserved by callers still signing stay theirs: `next` goes
   * above them, and the nonces between the chain's count and them become free to reuse, so no gap is left.
   */
  private async readChain(reason: string): Promise<number> {
    const answer = await this.rpc.send('eth_getTransactionCount', [this.address, 'pending']);
    if (typeof answer !== 'string' || !/^0x[0-9a-fA-F]+$/.test(answer)) {
      throw new Error(`eth_getTransactionCount answered ${JSON.stringify(answer)} for ${this.address}`);
    }
    const count = Number(BigInt(answer));
    const from = this.next;
    const highestOutstanding = Math.max(-1, ...this.outstanding);
    this.next = Math.max(count, highestOutstanding + 1);
    this.released = [];
    for (let n = count; n < this.next; n++) if (!this.outstanding.has(n)) this.released.push(n);
    this.opts.onResync?.({ address: this.address, from, to: this.next, reason });
    return count;
  }

  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const result = this.lock.then(run, run);
    this.lock = result.catch(() => undefined);
    return result;
  }
}

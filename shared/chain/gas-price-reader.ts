import type { ChainClient } from './chain-client';

export interface GasPriceClients {
  find(chainId: number): Pick<ChainClient, 'feeData'> | undefined;
}

/**
 * The gas price a transaction sent now would pay, per chain: base fee plus priority fee where the chain has
 * EIP-1559, else eth_gasPrice. Cached for a short time and shared by concurrent callers, so quotes with gas
 * information cost at most one fee read per chain per interval.
 */
export class GasPriceReader {
  private readonly cached = new Map<number, { at: number; price: Promise<bigint> }>();

  constructor(
    private readonly clients: GasPriceClients,
    private readonly ttlMs = 2_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Rejects when the chain has no client or its RPC fails (the failure is not cached). */
  effectiveGasPrice(chainId: number): Promise<bigint> {
    const hit = this.cached.get(chainId);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.price;
    const client = this.clients.find(chainId);
    if (!client) return Promise.reject(new Error(`chain ${chainId} has no RPC client`));
    const price = client
      .feeData()
      .then((fee) =>
        fee.baseFeePerGas !== null && fee.maxPriorityFeePerGas !== null
          ? fee.baseFeePerGas + fee.maxPriorityFeePerGas
          : fee.gasPrice,
      );
    const entry = { at: this.now(), price };
    this.cached.set(chainId, entry);
    price.catch(() => {
      if (this.cached.get(chainId) === entry) this.cached.delete(chainId);
    });
    return price;
  }
}

import type { ChainRegistry } from './chain-registry';
import { ChainClient, type ChainClientOptions } from './chain-client';

/** One ChainClient per enabled chain of the deployment that has an RPC URL (a chain without one has no client). */
export class ChainClients {
  private readonly byId: ReadonlyMap<number, ChainClient>;

  constructor(registry: ChainRegistry, opts: ChainClientOptions = {}) {
    this.byId = new Map(
      registry
        .all()
        .filter((chain) => chain.rpcUrls.length > 0)
        .map((chain) => [
          chain.chainId,
          new ChainClient(chain, { ...opts, log: opts.log?.child({ chainId: chain.chainId }) }),
        ]),
    );
  }

  /** Callers check the chain is enabled first (ChainRegistry.isEnabled); an unknown chain is a programming error. */
  get(chainId: number): ChainClient {
    const client = this.byId.get(chainId);
    if (!client) throw new Error(`chain ${chainId} is not enabled`);
    return client;
  }

  /** The client of a chain, or undefined when it is not enabled or has no RPC URL. */
  find(chainId: number): ChainClient | undefined {
    return this.byId.get(chainId);
  }

  ids(): number[] {
    return [...this.byId.keys()].sort((a, b) => a - b);
  }

  close(): void {
    for (const client of this.byId.values()) client.close();
  }
}

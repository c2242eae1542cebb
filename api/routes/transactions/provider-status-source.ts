import { FetchRequest, JsonRpcProvider, Network } from 'ethers';
import type { ChainConfig } from '../../../shared/config/config-schema';
import type {
  ChainTransactionReader,
  KnownTransaction,
  MinedReceipt,
  TransactionStatusSource,
} from './transaction-status-source';

/** Long enough for a busy public node, short enough to answer well inside the gateway's 30 s budget. */
export const DEFAULT_RPC_TIMEOUT_MS = 5_000;

/**
 * An ethers provider for one RPC URL, with the settings every provider of this service needs: a static network
 * (no eth_chainId probe before each call, no built-in network plugins reaching the internet), no request cache
 * (`cacheTimeout: -1`: a status read must see the latest state) and no JSON-RPC batching.
 */
function statusProvider(chain: ChainConfig, rpcUrl: string, timeoutMs: number): JsonRpcProvider {
  const network = new Network(chain.name, chain.chainId);
  const request = new FetchRequest(rpcUrl);
  request.timeout = timeoutMs;
  return new JsonRpcProvider(request, network, {
    staticNetwork: network,
    cacheTimeout: -1,
    batchMaxCount: 1,
  });
}

class ProviderReader implements ChainTransactionReader {
  constructor(private readonly provider: JsonRpcProvider) {}

  async getTransaction(hash: string): Promise<KnownTransaction | null> {
    const tx = await this.provider.getTransaction(hash);
    return tx ? { blockNumber: tx.blockNumber } : null;
  }

  async getTransactionReceipt(hash: string): Promise<MinedReceipt | null> {
    const receipt = await this.provider.getTransactionReceipt(hash);
    return receipt
      ? { blockNumber: receipt.blockNumber, status: receipt.status, gasUsed: receipt.gasUsed }
      : null;
  }

  blockNumber(): Promise<number> {
    return this.provider.getBlockNumber();
  }
}

/**
 * Interim source: one provider per enabled chain on its first RPC URL, without retries or failover (the chain
 * client replaces it). `close()` destroys the providers.
 */
export class ProviderStatusSource implements TransactionStatusSource {
  private readonly readers = new Map<number, ProviderReader>();
  private readonly providers: JsonRpcProvider[] = [];

  constructor(chains: readonly ChainConfig[], timeoutMs: number = DEFAULT_RPC_TIMEOUT_MS) {
    for (const chain of chains) {
      const rpcUrl = chain.rpcUrls[0];
      if (!rpcUrl) continue;
      const provider = statusProvider(chain, rpcUrl, timeoutMs);
      this.providers.push(provider);
      this.readers.set(chain.chainId, new ProviderReader(provider));
    }
  }

  forChain(chainId: number): ChainTransactionReader | undefined {
    return this.readers.get(chainId);
  }

  close(): void {
    for (const provider of this.providers) provider.destroy();
    this.readers.clear();
  }
}

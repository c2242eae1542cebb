import { JsonRpcProvider, Network } from 'ethers';

/**
 * A JSON-RPC provider for a devnet (or forked) chain. Settings that matter on ganache:
 * - a static plain network: ethers' built-in network for chain 137 would fetch gas prices from the internet,
 *   and a static network skips the eth_chainId probe before every request;
 * - `cacheTimeout: -1`: ethers caches identical requests for 250 ms, which hands out the same nonce twice;
 * - `batchMaxCount: 1`: JSON-RPC batching makes sequential calls about 3x slower on ganache;
 * - a short polling interval: receipts of interval-mined blocks are seen quickly (instant mining never polls).
 */
export function devnetProvider(rpcUrl: string, chainId: number): JsonRpcProvider {
  const network = new Network(`devnet-${chainId}`, chainId);
  return new JsonRpcProvider(rpcUrl, network, {
    staticNetwork: network,
    cacheTimeout: -1,
    batchMaxCount: 1,
    pollingInterval: 100,
  });
}

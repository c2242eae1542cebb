/**
 * Discovery shared by the sources whose factory maps a token pair to one pool (Uniswap V2 and its forks'
 * `getPair`, our StableSwap factory's `getPool`): one multicall over every pair, the pools not known yet.
 */
import { ZeroAddress, type Interface } from 'ethers';
import type { ChainClient } from '../../chain/chain-client';
import { multicall } from '../../chain/multicall';

export interface FactoryPair {
  /** The pool (lowercase). */
  address: string;
  /** The pair asked about, lowercase and sorted (tokenPairs). */
  pair: [string, string];
}

export interface FactoryPairsFound {
  /** The block the factory was read at: the pools exist there, so their details are read at it too. */
  blockNumber: number;
  fresh: FactoryPair[];
}

export async function findFactoryPairs(opts: {
  client: ChainClient;
  multicall: string;
  chunkSize?: number;
  factory: string;
  factoryInterface: Interface;
  /** The factory's pair lookup: `(address, address) view returns (address)`. */
  method: string;
  pairs: readonly [string, string][];
  isKnown: (address: string) => boolean;
}): Promise<FactoryPairsFound> {
  const { factoryInterface, method, pairs } = opts;
  const found = await multicall(
    opts.client,
    opts.multicall,
    pairs.map(([a, b]) => ({
      target: opts.factory,
      callData: factoryInterface.encodeFunctionData(method, [a, b]),
    })),
    { chunkSize: opts.chunkSize },
  );
  const fresh: FactoryPair[] = [];
  found.results.forEach((result, i) => {
    if (!result.success) return;
    const address = (
      factoryInterface.decodeFunctionResult(method, result.returnData)[0] as string
    ).toLowerCase();
    if (address !== ZeroAddress && !opts.isKnown(address)) fresh.push({ address, pair: pairs[i]! });
  });
  return { blockNumber: found.blockNumber, fresh };
}

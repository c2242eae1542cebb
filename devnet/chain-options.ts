import type { ServerOptions } from 'ganache';
import { forkChainOptions, type ForkConfig } from './fork-config';

export interface ChainOptionsInput {
  chainId: number;
  /** Private keys funded at genesis. */
  fundedKeys: string[];
  /** Native coins (wei) each funded key gets. */
  balanceWei: bigint;
  /** ganache's database folder; omitted = in memory. */
  dbPath?: string;
  /** Seconds between blocks; 0 = a block per transaction (instant mining). */
  blockTime?: number;
  fork?: ForkConfig;
}

/** ganache's options for one devnet chain: pure, so the fork and persistence settings are testable. */
export function ganacheOptions(input: ChainOptionsInput): ServerOptions {
  const blockTime = input.blockTime ?? 0;
  if (!Number.isFinite(blockTime) || blockTime < 0)
    throw new Error(`blockTime must be >= 0, got ${blockTime}`);
  const options: ServerOptions = {
    chain: {
      chainId: input.chainId,
      // ganache's net_version defaults to a timestamp; make it the chain id like on the real networks.
      networkId: input.chainId,
      // The newest hardfork ganache 7.9.2 implements.
      hardfork: 'shanghai',
      // Uniswap V3's NonfungiblePositionManager is above the 24 KB limit of EIP-170.
      allowUnlimitedContractSize: true,
    },
    miner: { blockTime },
    wallet: {
      accounts: input.fundedKeys.map((secretKey) => ({
        secretKey,
        balance: `0x${input.balanceWei.toString(16)}`,
      })),
    },
    logging: { quiet: true },
    ...(input.dbPath ? { database: { dbPath: input.dbPath } } : {}),
  };
  if (!input.fork) return options;
  const forked = forkChainOptions({ ...input.fork, chainId: input.chainId });
  return { ...options, chain: { ...options.chain, ...forked.chain }, fork: forked.fork };
}

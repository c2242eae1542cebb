/**
 * Forked mode: ganache serves a local chain whose state is read lazily from a user-supplied RPC URL at a
 * pinned (or the latest) block. Only our contracts are deployed there (deployServiceContracts), against the
 * real chain's wrapped native token and Uniswap factories. Notes:
 * - ganache 7.9.2 runs the fork with Shanghai rules: contracts of the real chain that need Cancun opcodes
 *   (tstore, mcopy, blobs) fail on the fork; Uniswap V2/V3 pools and ordinary ERC-20s work;
 * - the chain id is set explicitly to the real chain's id so signatures (EIP-155, EIP-712) match it;
 * - the devnet keys are funded on the fork exactly as on a plain devnet chain.
 * It cannot run on machines without internet; the unit test covers the options it builds.
 */
export interface ForkConfig {
  /** RPC URL of the chain to fork (http(s) or ws(s)). */
  url: string;
  /** Block to fork at; omitted = the latest block when the chain starts. */
  blockNumber?: number;
}

/** The fork-specific part of ganache's options; startChain merges it over the common devnet options. */
export interface ForkChainOptions {
  fork: { url: string; blockNumber?: number };
  chain: { chainId: number; networkId: number };
}

export function forkChainOptions(opts: ForkConfig & { chainId: number }): ForkChainOptions {
  let parsed: URL;
  try {
    parsed = new URL(opts.url);
  } catch {
    throw new Error(`fork.url is not a URL: ${opts.url}`);
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol)) {
    throw new Error(`fork.url must be an http(s) or ws(s) URL, got ${parsed.protocol}`);
  }
  if (opts.blockNumber !== undefined && (!Number.isSafeInteger(opts.blockNumber) || opts.blockNumber < 0)) {
    throw new Error(`fork.blockNumber must be a non-negative integer, got ${opts.blockNumber}`);
  }
  if (!Number.isSafeInteger(opts.chainId) || opts.chainId <= 0) {
    throw new Error(`chainId must be a positive integer, got ${opts.chainId}`);
  }
  return {
    fork: { url: opts.url, ...(opts.blockNumber !== undefined ? { blockNumber: opts.blockNumber } : {}) },
    chain: { chainId: opts.chainId, networkId: opts.chainId },
  };
}

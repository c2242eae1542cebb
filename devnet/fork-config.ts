/**
 * Forked mode (DEVNET_FORK_URL, DEVNET_FORK_BLOCK): one local chain whose state is read lazily from a
 * user-supplied RPC URL at a pinned (or the latest) block, under the real chain's id so signatures (EIP-155,
 * EIP-712) match it. On anvil (the default engine) the fork runs with the newest hardfork and anvil caches the
 * RPC responses of a pinned block on disk, so a restart at the same block reads the remote chain again only for
 * what it has not seen. ganache still forks (the options below) but runs Shanghai rules: contracts that need
 * Cancun opcodes (tstore, mcopy, blobs) fail there.
 * On the fork, startDevnet deploys only our contracts, against the real wrapped native and Uniswap factories
 * (fork-addresses.ts), funds the devnet keys with native coins as on a plain chain, and gives the test accounts
 * the real tokens by writing their balances (fork/fund-fork-accounts.ts). Without internet this is tested on a
 * fork of a local chain (test/e2e/devnet-fork.test.ts); the unit tests cover the options and the slot probing.
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

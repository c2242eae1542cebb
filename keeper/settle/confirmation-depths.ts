/**
 * How deep a batch's block must be before its orders are final, and how far back settled batches are checked
 * again, per chain. A chains-file entry's `confirmations` wins, then KEEPER_CONFIRMATIONS, then these defaults for
 * the spec's chains: each chain's practical reorg depth (a block this deep has not been seen to leave its chain
 * since the chain's current consensus), with the re-check window reaching past the chain's finality where that is
 * near, so a deeper reorg is still noticed and the orders put back.
 */
const DEFAULT_DEPTHS: ReadonlyMap<number, { confirmations: number; recheckBlocks: number }> = new Map([
  // Ethereum: reorgs of more than 2 blocks have not happened since the merge; final after 2 epochs (64 blocks).
  [1, { confirmations: 3, recheckBlocks: 96 }],
  // OP Mainnet, Base: the sequencer's unsafe head can reorg before the batch lands on L1 (minutes).
  [10, { confirmations: 10, recheckBlocks: 600 }],
  [8453, { confirmations: 10, recheckBlocks: 600 }],
  // BNB Chain: fast finality after 2 blocks in the normal case; 5 leaves room for a missed vote.
  [56, { confirmations: 5, recheckBlocks: 64 }],
  // Polygon PoS: milestones finalise in seconds since Heimdall v2; older forks went 30+ blocks deep.
  [137, { confirmations: 16, recheckBlocks: 256 }],
  // Arbitrum One: 0.25 s blocks from the sequencer; 20 blocks is 5 s.
  [42161, { confirmations: 20, recheckBlocks: 2_400 }],
  // Avalanche C-Chain: Snowman consensus is final at acceptance.
  [43114, { confirmations: 1, recheckBlocks: 32 }],
  // Linea: the sequencer's blocks, final once proven on L1.
  [59144, { confirmations: 5, recheckBlocks: 600 }],
]);

/** Any other chain: depth 1, re-checked over the last 64 blocks. */
const FALLBACK = { confirmations: 1, recheckBlocks: 64 };

export interface ConfirmationDepth {
  confirmations: number;
  recheckBlocks: number;
}

export function confirmationDepthOf(
  chainId: number,
  chainConfirmations: number | undefined,
  keeperConfirmations: number | undefined,
): ConfirmationDepth {
  const defaults = DEFAULT_DEPTHS.get(chainId) ?? FALLBACK;
  const confirmations = chainConfirmations ?? keeperConfirmations ?? defaults.confirmations;
  // Never re-check less than a few times the depth: a reorg just past the depth must still be seen.
  return { confirmations, recheckBlocks: Math.max(defaults.recheckBlocks, confirmations * 4, 32) };
}

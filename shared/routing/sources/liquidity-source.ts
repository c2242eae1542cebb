import type { PoolState } from '../pools/pool-state';

/**
 * Hop kinds of our SwapRouter and OrderExecutor (contracts-abi/src/RouteTypes.sol): the contracts look every pool
 * up (or check it) in their configured venues, so a source only says which kind of hop its pools are.
 */
export const HOP_KIND_V2 = 0;
export const HOP_KIND_V3 = 1;
export const HOP_KIND_EXTERNAL = 2;
export const HOP_KIND_SUSHISWAP_V2 = 3;
export const HOP_KIND_V4 = 4;
export const HOP_KIND_BALANCER_WEIGHTED = 5;
export const HOP_KIND_STABLE_SWAP = 6;
export type HopKind =
  | typeof HOP_KIND_V2
  | typeof HOP_KIND_V3
  | typeof HOP_KIND_EXTERNAL
  | typeof HOP_KIND_SUSHISWAP_V2
  | typeof HOP_KIND_V4
  | typeof HOP_KIND_BALANCER_WEIGHTED
  | typeof HOP_KIND_STABLE_SWAP;

/** Block number of a snapshot that was never refreshed. */
export const NEVER_REFRESHED = -1;

export interface SourceSnapshot {
  /** The block every pool state was read at; NEVER_REFRESHED (with no pools) before the first refresh. */
  blockNumber: number;
  pools: readonly PoolState[];
}

/**
 * One liquidity source of one chain (an on-chain DEX now, an external aggregator later). The engine knows
 * sources only through this interface, so the set of sources is configuration.
 */
export interface LiquiditySource {
  /** Opaque aggregatorId, unique on the chain: 'uniswap-v2', 'sushiswap-v2', 'balancer-v2'... */
  readonly id: string;
  /** Dex name shown in quote routes: 'Uniswap V2'. */
  readonly name: string;
  readonly chainId: number;
  /** How the swap builder encodes a hop through this source's pools in SwapRouter calldata. */
  readonly hopKind: HopKind;
  /** Finds the pools among `tokens` (addresses, any casing); adds to the pools already known. */
  discover(tokens: readonly string[]): Promise<void>;
  /** Loads the state of every known pool at `blockNumber`; the snapshot changes only when it succeeds. */
  refresh(blockNumber: number): Promise<void>;
  snapshot(): SourceSnapshot;
  /**
   * Forgets loaded state that later refreshes would otherwise reuse (V3 tick sets), so the next refresh
   * reads everything again: after a reorg, whatever was read from orphaned blocks is suspect.
   */
  reset(): void;
}

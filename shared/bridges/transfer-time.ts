import type { ChainConfig } from '../config/config-schema';

/** Assumed for a chain that mines on demand (no `blockTimeSeconds`): a devnet's blocks come with transactions. */
export const DEFAULT_BLOCK_SECONDS = 2;

const blockSeconds = (chain: Pick<ChainConfig, 'blockTimeSeconds'> | undefined): number =>
  chain?.blockTimeSeconds ?? DEFAULT_BLOCK_SECONDS;

/**
 * Seconds from the source receipt to the output on the destination when the relay waits `confirmations` origin
 * blocks on top of the deposit's and then lands in the destination's next block.
 */
export function transferSeconds(
  origin: Pick<ChainConfig, 'blockTimeSeconds'> | undefined,
  destination: Pick<ChainConfig, 'blockTimeSeconds'> | undefined,
  confirmations: number,
): number {
  return confirmations * blockSeconds(origin) + blockSeconds(destination);
}

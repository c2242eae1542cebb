import { formatUnits } from 'ethers';
import type { QuoteEngine } from '../quote-engine';

export interface PricedToken {
  /** ERC-20 address or the native pseudo-address, any casing. */
  address: string;
  decimals: number;
}

/** A routed conversion rate measured on a probe amount, kept exact so amounts convert in base units. */
export interface PairRate {
  blockNumber: number;
  probeIn: bigint;
  probeOut: bigint;
  /** Human units of tokenOut per 1 human unit of tokenIn (display and trigger checks only). */
  price: number;
}

/**
 * The probe is 1/1000 of a token, but at least a million base units where the token has them (at most one whole
 * token): small enough that price impact stays far below the pools' fee on any pool worth routing through, large
 * enough that rounding does not move the rate. A pool rounds its fee up to a base unit: 1/1000 USDC (1,000 units)
 * paid 1 unit at 0.05 %, a 0.1 % fee, and the keeper's screen of limit orders, which compares triggers with this
 * rate, then held back USDC sellers the market already paid.
 */
export function probeAmount(decimals: number): bigint {
  return 10n ** BigInt(Math.max(decimals - 3, Math.min(decimals, 6)));
}

/**
 * The market rate of tokenIn in tokenOut: the best route's exact output for a probe amount at the cached block.
 * It is net of the pools' own fees (what a seller really gets), not a mid price. Undefined without a route.
 */
export function pairRate(
  engine: QuoteEngine,
  chainId: number,
  tokenIn: PricedToken,
  tokenOut: PricedToken,
): PairRate | undefined {
  const probeIn = probeAmount(tokenIn.decimals);
  const result = engine.quote({
    chainId,
    tokenIn: tokenIn.address,
    tokenOut: tokenOut.address,
    amountIn: probeIn,
    gasPriceWei: 0n,
  });
  const best = result?.quotes[0];
  if (!result || !best || best.amountOut === 0n) return undefined;
  const price =
    Number(formatUnits(best.amountOut, tokenOut.decimals)) / Number(formatUnits(probeIn, tokenIn.decimals));
  return { blockNumber: result.blockNumber, probeIn, probeOut: best.amountOut, price };
}

/** `amount` of tokenIn in tokenOut base units at the rate, rounded up (a cost estimate must not fall short). */
export function convertAtRate(amount: bigint, rate: PairRate): bigint {
  return (amount * rate.probeOut + rate.probeIn - 1n) / rate.probeIn;
}

/** 1 pip = 1/100 of a basis point: the SwapRouter's unit for the protocol fee (1500 pips = 15 bps = 0.15%). */
export const PIPS_PER_BPS = 100;
const PIPS = 1_000_000n;
const BPS = 10_000n;

export interface FeeBreakdown {
  /** As the quote reports it: a number of basis points, possibly fractional. */
  protocolFeeBps: number;
  integratorMarginBps: number;
  protocolFeeAmount: bigint;
  integratorMarginAmount: bigint;
  /** What the account receives: gross output less both fees. */
  amountOut: bigint;
}

/**
 * The fees exactly as the SwapRouter takes them from the gross output: each rounded down on its own, both from
 * the gross amount (contracts-abi/src/SwapRouter.sol), so a quote's breakdown is what arrives on-chain to the unit.
 */
export function applyFees(
  grossAmountOut: bigint,
  protocolFeePips: number,
  integratorFeeBps: number,
): FeeBreakdown {
  if (!Number.isInteger(protocolFeePips) || protocolFeePips < 0 || protocolFeePips > 10_000) {
    throw new RangeError(`protocol fee must be 0 to 10,000 pips, got ${protocolFeePips}`);
  }
  if (!Number.isInteger(integratorFeeBps) || integratorFeeBps < 0 || integratorFeeBps > 100) {
    throw new RangeError(`integrator fee must be 0 to 100 bps, got ${integratorFeeBps}`);
  }
  if (grossAmountOut < 0n) throw new RangeError('gross output cannot be negative');
  const protocolFeeAmount = (grossAmountOut * BigInt(protocolFeePips)) / PIPS;
  const integratorMarginAmount = (grossAmountOut * BigInt(integratorFeeBps)) / BPS;
  return {
    protocolFeeBps: protocolFeePips / PIPS_PER_BPS,
    integratorMarginBps: integratorFeeBps,
    protocolFeeAmount,
    integratorMarginAmount,
    amountOut: grossAmountOut - protocolFeeAmount - integratorMarginAmount,
  };
}

/** `minOutAmount` for a slippage in percent given as a decimal string ("0.5"): floor(amountOut × (1 − s/100)). */
export function minimumAfterSlippage(amountOut: bigint, slippagePercent: string): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(slippagePercent);
  if (!match) throw new RangeError(`slippage must be a decimal string, got ${slippagePercent}`);
  const fraction = match[2] ?? '';
  const scale = 10n ** BigInt(fraction.length + 2);
  const slippage = BigInt(`${match[1]}${fraction}`);
  if (slippage > scale) throw new RangeError(`slippage above 100%: ${slippagePercent}`);
  return (amountOut * (scale - slippage)) / scale;
}

import { formatUnits } from 'ethers';
import { isNativeAddress, NATIVE_TOKEN_KEY } from '../../../shared/domain/addresses';
import { convertAtRate } from '../../../shared/routing/prices/pair-price';
import type { Prices } from '../../../shared/routing/prices/usd-prices';
import type { GAS_MULTIPLIERS } from './schemas';

/** The spec's scale of `estimatedGas` per `gasMultiplier`, in percent (LOW is 1.55x). */
const GAS_MULTIPLIER_PERCENT: Readonly<Record<(typeof GAS_MULTIPLIERS)[number], bigint>> = {
  NONE: 100n,
  LOW: 155n,
  MEDIUM: 200n,
  HIGH: 400n,
};

export interface DataFeeTransaction {
  effectiveGasPrice: string;
  transactionFee: string;
  /** USD as decimal strings; null when the chain has no USD stable route for the token. */
  transactionFeeInUSD: string | null;
  nativePrice: string | null;
  tokenPrice: string | null;
  /** Human units of the input token; null when the native coin has no route to it. */
  transactionFeeInToken: string | null;
  valueToApprove: string | null;
}

/** `estimatedGas` scaled by the multiplier, rounded up. */
export function scaledGas(estimatedGas: bigint, multiplier: (typeof GAS_MULTIPLIERS)[number]): bigint {
  const percent = GAS_MULTIPLIER_PERCENT[multiplier];
  return (estimatedGas * percent + 99n) / 100n;
}

/** Plain decimal notation, never an exponent (a fee of 1e-7 USD reads `0.0000001`). */
function usdString(value: number): string {
  return value.toLocaleString('en-US', { useGrouping: false, maximumSignificantDigits: 12 });
}

function humanUnits(amount: bigint, decimals: number): string {
  return formatUnits(amount, decimals).replace(/\.0$/, '');
}

/**
 * `dataFeeTransaction` for a quote: the (scaled) gas estimate at the chain's effective gas price, in wei, in USD
 * and in the input token, all from the same block's routed prices.
 */
export function dataFeeTransaction(args: {
  /** Absent: no prices, so only the wei fields and the fee in the native coin or its wrapped token. */
  prices: Prices | undefined;
  chainId: number;
  gas: bigint;
  effectiveGasPrice: bigint;
  tokenIn: { address: string; decimals: number };
  amountIn: bigint;
  chain: { nativeDecimals: number; wrappedNative: string };
}): DataFeeTransaction {
  const { prices, chainId, tokenIn } = args;
  const fee = args.gas * args.effectiveGasPrice;
  const nativePrice = prices?.nativeUsd(chainId);
  const tokenPrice = prices?.usd(chainId, tokenIn.address);
  const { nativeDecimals } = args.chain;
  const input = tokenIn.address.toLowerCase();
  // Selling the native coin or its wrapped token, the fee is already in the input's units.
  const sameAsNative = isNativeAddress(input) || input === args.chain.wrappedNative.toLowerCase();
  const rate = sameAsNative
    ? undefined
    : prices?.rate(chainId, { address: NATIVE_TOKEN_KEY, decimals: nativeDecimals }, tokenIn);
  const feeInToken = sameAsNative ? fee : rate ? convertAtRate(fee, rate) : undefined;
  return {
    effectiveGasPrice: args.effectiveGasPrice.toString(),
    transactionFee: fee.toString(),
    transactionFeeInUSD:
      nativePrice === undefined ? null : usdString(Number(formatUnits(fee, nativeDecimals)) * nativePrice),
    nativePrice: nativePrice === undefined ? null : usdString(nativePrice),
    tokenPrice: tokenPrice === undefined ? null : usdString(tokenPrice),
    transactionFeeInToken: feeInToken === undefined ? null : humanUnits(feeInToken, tokenIn.decimals),
    valueToApprove:
      feeInToken === undefined ? null : humanUnits(args.amountIn + feeInToken, tokenIn.decimals),
  };
}

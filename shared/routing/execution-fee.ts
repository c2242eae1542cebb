import { convertAtRate } from './prices/pair-price';
import type { Prices } from './prices/usd-prices';
import { NATIVE_TOKEN_KEY } from '../domain/addresses';

/**
 * Gas one more order adds to a batch (check, pull, share of the swap, payout), measured on devnet: each order after
 * the first adds about 53.9k, a 50-order batch of one pair costs 57.2k per order (contracts-abi/gas-snapshot.json,
 * an order whose maker held none of the bought token). A single order also pays the batch's fixed cost:
 * BATCH_BASE_GAS.
 */
export const GAS_PER_ORDER = 55_000n;
export const BATCH_BASE_GAS = 110_000n;
/**
 * Gas limit headroom per group for the OrderExecutor's price bound, read once per group through a static call of at
 * most PriceBound.PRICE_READ_GAS. Limit only: unused gas is not paid.
 */
export const PRICE_BOUND_GAS_PER_GROUP = 300_000n;

/**
 * The execution fee of one order in its sold token: its share of the batch gas at the gas price, converted at
 * the routed native price, rounded up, capped at what the contract allows (maxFeeBps of amountIn). Undefined
 * when the token has no route from the native coin (the order cannot be priced: back off).
 */
export function executionFee(args: {
  prices: Prices;
  chainId: number;
  tokenIn: { address: string; decimals: number };
  wrappedNative: string;
  nativeDecimals: number;
  amountIn: bigint;
  gasPerOrder: bigint;
  gasPriceWei: bigint;
  maxFeeBps: bigint;
}): bigint | undefined {
  const costWei = args.gasPerOrder * args.gasPriceWei;
  let fee: bigint;
  if (args.tokenIn.address.toLowerCase() === args.wrappedNative.toLowerCase()) {
    fee = costWei;
  } else {
    const rate = args.prices.rate(
      args.chainId,
      { address: NATIVE_TOKEN_KEY, decimals: args.nativeDecimals },
      args.tokenIn,
    );
    if (!rate) return undefined;
    fee = convertAtRate(costWei, rate);
  }
  const cap =
    (args.amountIn / 10_000n) * args.maxFeeBps + ((args.amountIn % 10_000n) * args.maxFeeBps) / 10_000n;
  return fee < cap ? fee : cap;
}

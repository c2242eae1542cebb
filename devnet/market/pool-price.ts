import { Contract, type Provider } from 'ethers';
import { V2_FACTORY_ABI, V2_PAIR_ABI, V3_FACTORY_ABI, V3_POOL_ABI } from '../world/abis';

export interface PairToken {
  symbol: string;
  address: string;
  decimals: number;
}

const SCALE = 10n ** 18n;

/** num/den as a float without losing the small ratios of tokens with very different decimals. */
function ratio(num: bigint, den: bigint): number {
  return Number((num * SCALE) / den) / Number(SCALE);
}

/** Price of one whole `base` in whole `quote` from V2 reserves. */
export function v2Price(
  reserveBase: bigint,
  reserveQuote: bigint,
  base: PairToken,
  quote: PairToken,
): number {
  return ratio(reserveQuote * 10n ** BigInt(base.decimals), reserveBase * 10n ** BigInt(quote.decimals));
}

/** Price of one whole `base` in whole `quote` from a V3 pool's sqrtPriceX96 (token1 per token0, raw units). */
export function v3Price(
  sqrtPriceX96: bigint,
  baseIsToken0: boolean,
  base: PairToken,
  quote: PairToken,
): number {
  const p = sqrtPriceX96 * sqrtPriceX96;
  const q192 = 2n ** 192n;
  const baseUnit = 10n ** BigInt(base.decimals);
  const quoteUnit = 10n ** BigInt(quote.decimals);
  return baseIsToken0 ? ratio(p * baseUnit, q192 * quoteUnit) : ratio(q192 * baseUnit, p * quoteUnit);
}

export interface V2PoolState {
  address: string;
  reserveBase: bigint;
  reserveQuote: bigint;
  price: number;
}

export async function readV2Pool(
  provider: Provider,
  factory: string,
  base: PairToken,
  quote: PairToken,
): Promise<V2PoolState> {
  const address = (await new Contract(factory, V2_FACTORY_ABI, provider).getFunction('getPair')(
    base.address,
    quote.address,
  )) as string;
  if (BigInt(address) === 0n) throw new Error(`no Uniswap V2 pair ${base.symbol}/${quote.symbol}`);
  const pair = new Contract(address, V2_PAIR_ABI, provider);
  const [token0, reserves] = (await Promise.all([
    pair.getFunction('token0')(),
    pair.getFunction('getReserves')(),
  ])) as [string, [bigint, bigint, bigint]];
  const baseIsToken0 = token0.toLowerCase() === base.address.toLowerCase();
  const [reserveBase, reserveQuote] = baseIsToken0 ? [reserves[0], reserves[1]] : [reserves[1], reserves[0]];
  return { address, reserveBase, reserveQuote, price: v2Price(reserveBase, reserveQuote, base, quote) };
}

export interface V3PoolState {
  address: string;
  sqrtPriceX96: bigint;
  baseIsToken0: boolean;
  price: number;
}

export async function readV3Pool(
  provider: Provider,
  factory: string,
  base: PairToken,
  quote: PairToken,
  fee: number,
): Promise<V3PoolState> {
  const address = (await new Contract(factory, V3_FACTORY_ABI, provider).getFunction('getPool')(
    base.address,
    quote.address,
    fee,
  )) as string;
  if (BigInt(address) === 0n)
    throw new Error(`no Uniswap V3 pool ${base.symbol}/${quote.symbol} with fee ${fee}`);
  const pool = new Contract(address, V3_POOL_ABI, provider);
  const [token0, slot0] = (await Promise.all([
    pool.getFunction('token0')(),
    pool.getFunction('slot0')(),
  ])) as [string, [bigint]];
  const baseIsToken0 = token0.toLowerCase() === base.address.toLowerCase();
  return {
    address,
    sqrtPriceX96: slot0[0],
    baseIsToken0,
    price: v3Price(slot0[0], baseIsToken0, base, quote),
  };
}

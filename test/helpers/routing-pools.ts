/** Synthetic pool states for routing tests: V2 reserves and V3 positions built with the exact tick math. */
import { getSqrtRatioAtTick, MAX_TICK, MIN_TICK } from '../../shared/routing/math/tick-math';
import type { V3Tick } from '../../shared/routing/math/v3-swap';
import type { V2PoolState, V3PoolState } from '../../shared/routing/pools/pool-state';

/** A lowercase 20-byte address from a small number (distinct prefixes keep tokens and pools apart). */
export function address(prefix: number, n: number): string {
  return '0x' + prefix.toString(16).padStart(2, '0') + n.toString(16).padStart(38, '0');
}

export const token = (n: number): string => address(0xaa, n);

let poolCounter = 0;
const nextPoolAddress = (): string => address(0xbb, ++poolCounter);

/** A V2 pair holding reserveA of tokenA and reserveB of tokenB (sorted into token0/token1). */
export function v2Pool(
  tokenA: string,
  tokenB: string,
  reserveA: bigint,
  reserveB: bigint,
  feeBps = 30n,
): V2PoolState {
  const aFirst = tokenA < tokenB;
  return {
    kind: 'v2',
    sourceId: 'uniswap-v2',
    address: nextPoolAddress(),
    token0: aFirst ? tokenA : tokenB,
    token1: aFirst ? tokenB : tokenA,
    reserve0: aFirst ? reserveA : reserveB,
    reserve1: aFirst ? reserveB : reserveA,
    feeBps,
  };
}

export interface Position {
  tickLower: number;
  tickUpper: number;
  liquidity: bigint;
}

/**
 * A V3 pool at `tick` (price of token1 in token0, sorted order) with the given positions; a position with
 * no bounds given is full range (min/max usable tick for the spacing).
 */
export function v3Pool(
  tokenA: string,
  tokenB: string,
  tick: number,
  positions: readonly Position[],
  fee = 3000,
  tickSpacing = 60,
): V3PoolState {
  const net = new Map<number, bigint>();
  let liquidity = 0n;
  for (const p of positions) {
    net.set(p.tickLower, (net.get(p.tickLower) ?? 0n) + p.liquidity);
    net.set(p.tickUpper, (net.get(p.tickUpper) ?? 0n) - p.liquidity);
    if (p.tickLower <= tick && tick < p.tickUpper) liquidity += p.liquidity;
  }
  const ticks: V3Tick[] = [...net.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, liquidityNet]) => ({ index, liquidityNet }));
  return {
    kind: 'v3',
    sourceId: 'uniswap-v3',
    address: nextPoolAddress(),
    token0: tokenA < tokenB ? tokenA : tokenB,
    token1: tokenA < tokenB ? tokenB : tokenA,
    fee,
    tickSpacing,
    sqrtPriceX96: getSqrtRatioAtTick(tick),
    tick,
    liquidity,
    ticks,
  };
}

export function fullRange(liquidity: bigint, tickSpacing = 60): Position {
  return {
    tickLower: Math.ceil(MIN_TICK / tickSpacing) * tickSpacing,
    tickUpper: Math.floor(MAX_TICK / tickSpacing) * tickSpacing,
    liquidity,
  };
}

/** mulberry32: a small deterministic generator, so pool sets are the same on every run. */
export function seededRandom(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/**
 * ~`count` pools over 8 connectors and `others` other tokens, V2 and V3 mixed, several per pair; every
 * pool touches at least one connector (as listed pools do), so routes between two others exist.
 */
export function randomPoolSet(seed: number, count: number, others = 30) {
  const rand = seededRandom(seed);
  const connectors = Array.from({ length: 8 }, (_, i) => token(100 + i));
  const tokens = Array.from({ length: others }, (_, i) => token(200 + i));
  const pools: (V2PoolState | V3PoolState)[] = [];
  const E18 = 10n ** 18n;
  while (pools.length < count) {
    const a = connectors[rand(connectors.length)]!;
    const b = rand(3) === 0 ? connectors[rand(connectors.length)]! : tokens[rand(tokens.length)]!;
    if (a === b) continue;
    const reserve = BigInt(1 + rand(1000)) * E18;
    pools.push(
      rand(2) === 0
        ? v2Pool(a, b, reserve, (reserve * BigInt(95 + rand(10))) / 100n)
        : v3Pool(a, b, rand(400) - 200, [fullRange(reserve)], [500, 3000, 10000][rand(3)]!, 60),
    );
  }
  return { pools, connectors, tokens };
}

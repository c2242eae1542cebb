/**
 * What the fixture world of a chain contains: tokens with their real symbols and decimals, reference USD
 * prices, and the pools seeded at those prices. Pure data plus the arithmetic on it, so tests compute the
 * same targets that deployWorld used.
 */

export interface TokenSpec {
  symbol: string;
  name: string;
  decimals: number;
  /** Reference price in micro-USD (1 USD = 1_000_000), so pool amounts are exact bigints. */
  usdMicros: bigint;
}

/** A pool seeded with `baseAmount` whole units of `base` and the same USD value of `quote`. */
export interface PoolSpec {
  base: string;
  quote: string;
  baseAmount: bigint;
}

export interface V3PoolSpec extends PoolSpec {
  fee: number;
}

/** A hooks-free Uniswap V4 pool: one full-range position holding the spec's amounts. */
export interface V4PoolSpec extends PoolSpec {
  /** LP fee in pips (500 = 0.05%). */
  fee: number;
  tickSpacing: number;
}

/**
 * A two-token Balancer V2 weighted pool at the reference price: `baseAmount` of base is `baseWeightPercent` of the
 * pool's value, the quote side the rest (weightedPoolAmounts).
 */
export interface WeightedPoolSpec extends PoolSpec {
  baseWeightPercent: bigint;
  /** Swap fee, 18-decimal fixed point (3e15 = 0.3%). */
  swapFee: bigint;
}

/** A two-coin pool of our StableSwap, equal USD value on both sides. */
export interface StablePoolSpec extends PoolSpec {
  /** The amplification A as Curve quotes it (the pool stores A * 100). */
  amp: bigint;
  /** Swap fee out of 1e10 (4e6 = 0.04%), as Curve counts it. */
  fee: bigint;
}

export interface WorldSpec {
  nativeSymbol: string;
  /** The wrapped native token: our WrappedNative contract (WETH9's behaviour) under this name and symbol. */
  wrapped: TokenSpec;
  /** The mintable TestTokens. */
  tokens: TokenSpec[];
  v2Pools: PoolSpec[];
  v3Pools: V3PoolSpec[];
  /** SushiSwap V2 pairs (0.3%, as Uniswap V2). */
  sushiPools: PoolSpec[];
  /** Uniswap V4 pools; deployed only where the engine runs Cancun (see supportsCancun). */
  v4Pools: V4PoolSpec[];
  balancerPools: WeightedPoolSpec[];
  stablePools: StablePoolSpec[];
}

/** Share of the largest pool reserve of a token that each funded account gets: at least a third. */
export const FUND_SHARE = { numerator: 2n, denominator: 5n } as const;

const USD = 1_000_000n;
const TOKENS = {
  WETH: { symbol: 'WETH', name: 'Wrapped Ether', decimals: 18, usdMicros: 3_000n * USD },
  USDC: { symbol: 'USDC', name: 'USD Coin', decimals: 6, usdMicros: USD },
  USDT: { symbol: 'USDT', name: 'Tether USD', decimals: 6, usdMicros: USD },
  DAI: { symbol: 'DAI', name: 'Dai Stablecoin', decimals: 18, usdMicros: USD },
  WBTC: { symbol: 'WBTC', name: 'Wrapped BTC', decimals: 8, usdMicros: 60_000n * USD },
  LINK: { symbol: 'LINK', name: 'ChainLink Token', decimals: 18, usdMicros: 15n * USD },
  UNI: { symbol: 'UNI', name: 'Uniswap', decimals: 18, usdMicros: 8n * USD },
  // name() and symbol() as the real chains' contracts return them (Polygon's, once WMATIC, now reads WPOL).
  WPOL: { symbol: 'WPOL', name: 'Wrapped Polygon Ecosystem Token', decimals: 18, usdMicros: USD / 2n },
  WBNB: { symbol: 'WBNB', name: 'Wrapped BNB', decimals: 18, usdMicros: 600n * USD },
  WAVAX: { symbol: 'WAVAX', name: 'Wrapped AVAX', decimals: 18, usdMicros: 30n * USD },
  // Each traded on one venue only (SUSHI on SushiSwap, BAL on Balancer), so each venue is the only route for one.
  SUSHI: { symbol: 'SUSHI', name: 'SushiToken', decimals: 18, usdMicros: (6n * USD) / 5n },
  BAL: { symbol: 'BAL', name: 'Balancer', decimals: 18, usdMicros: 4n * USD },
} satisfies Record<string, TokenSpec>;

// 2,000 WETH (6M USD) a side keeps the price impact of a 1 WETH swap near 0.1% on V2.
const WETH_DEPTH = 2_000n;

const ETHEREUM_LIKE_V2: PoolSpec[] = [
  { base: 'WETH', quote: 'USDC', baseAmount: WETH_DEPTH },
  { base: 'WETH', quote: 'USDT', baseAmount: WETH_DEPTH },
  { base: 'WETH', quote: 'DAI', baseAmount: WETH_DEPTH },
  { base: 'WBTC', quote: 'WETH', baseAmount: 100n },
  { base: 'USDC', quote: 'USDT', baseAmount: 6_000_000n },
  { base: 'DAI', quote: 'USDC', baseAmount: 2_000_000n },
  { base: 'WETH', quote: 'LINK', baseAmount: 500n },
];

const V3_POOLS: V3PoolSpec[] = [500, 3000].flatMap((fee) => [
  { base: 'WETH', quote: 'USDC', baseAmount: WETH_DEPTH, fee },
  { base: 'WBTC', quote: 'WETH', baseAmount: 100n, fee },
]);

/**
 * The other venues' pools every world has, sized so that each venue is the best quote for some pair class:
 * a modest WETH/USDC pair on SushiSwap, WETH/USDC at 0.3% on Uniswap V4 (V3's 0.05% pool stays best for small
 * trades, very large ones split), a 50/50 WETH/DAI Balancer pool at 0.1% (cheaper than V2's 0.3%), and
 * StableSwap pools of 10M USD a side, where a 100,000 USD stable trade loses a few basis points.
 */
const SUSHI_POOLS: PoolSpec[] = [{ base: 'WETH', quote: 'USDC', baseAmount: 300n }];
const V4_POOLS: V4PoolSpec[] = [
  { base: 'WETH', quote: 'USDC', baseAmount: 1_000n, fee: 3000, tickSpacing: 60 },
];
const BALANCER_POOLS: WeightedPoolSpec[] = [
  { base: 'WETH', quote: 'DAI', baseAmount: 500n, baseWeightPercent: 50n, swapFee: 10n ** 15n },
];
const STABLE_DEPTH = 10_000_000n;
/** A = 2000, fee 0.04%: Curve's parameters for its deepest USD pools. */
const STABLE_POOLS: StablePoolSpec[] = [
  ['USDC', 'USDT'],
  ['USDC', 'DAI'],
  ['USDT', 'DAI'],
].map(([base, quote]) => ({
  base: base!,
  quote: quote!,
  baseAmount: STABLE_DEPTH,
  amp: 2_000n,
  fee: 4_000_000n,
}));

/** Ethereum and the ether-native rollups (OP Mainnet, Base, Arbitrum One, Linea): the wrapped native is WETH. */
function etherWorld(): WorldSpec {
  return {
    nativeSymbol: 'ETH',
    wrapped: TOKENS.WETH,
    tokens: [
      TOKENS.USDC,
      TOKENS.USDT,
      TOKENS.DAI,
      TOKENS.WBTC,
      TOKENS.LINK,
      TOKENS.UNI,
      TOKENS.SUSHI,
      TOKENS.BAL,
    ],
    v2Pools: [...ETHEREUM_LIKE_V2, { base: 'WETH', quote: 'UNI', baseAmount: 500n }],
    v3Pools: V3_POOLS,
    // SUSHI trades only on SushiSwap: 900k USD a side.
    sushiPools: [...SUSHI_POOLS, { base: 'SUSHI', quote: 'WETH', baseAmount: 750_000n }],
    // UNI/WETH at 0.05%, twice the V2 pair's depth: V4 is the best UNI route.
    v4Pools: [{ base: 'WETH', quote: 'UNI', baseAmount: 1_000n, fee: 500, tickSpacing: 10 }, ...V4_POOLS],
    // BAL trades only on Balancer: the 80/20 BAL/WETH pool of 2M USD (BAL's own pool shape).
    balancerPools: [
      { base: 'BAL', quote: 'WETH', baseAmount: 400_000n, baseWeightPercent: 80n, swapFee: 3n * 10n ** 15n },
      ...BALANCER_POOLS,
    ],
    stablePools: STABLE_POOLS,
  };
}

interface NonEtherNative {
  nativeSymbol: string;
  wrapped: TokenSpec;
  /** Whole units of the wrapped native in its V2 pool with USDC. */
  wrappedUsdcDepth: bigint;
  /** Whole units of WETH in the V2 pool of WETH with the wrapped native. */
  wethWrappedDepth: bigint;
  stables?: { usdc: TokenSpec; usdt: TokenSpec };
}

/**
 * A chain whose native coin is not ether: WETH is bridged ether, an ordinary TestToken with the ether pools of
 * Ethereum, and the wrapped native is paired with USDC and with WETH so that it routes to both.
 * The deployer wraps every unit of the wrapped native it seeds and funds out of its genesis balance
 * (DEVNET_GENESIS_COINS): the depths are sized for that.
 */
function nonEtherWorld(chain: NonEtherNative): WorldSpec {
  const { usdc, usdt } = chain.stables ?? { usdc: TOKENS.USDC, usdt: TOKENS.USDT };
  return {
    nativeSymbol: chain.nativeSymbol,
    wrapped: chain.wrapped,
    tokens: [TOKENS.WETH, usdc, usdt, TOKENS.DAI, TOKENS.WBTC, TOKENS.LINK],
    v2Pools: [
      ...ETHEREUM_LIKE_V2,
      { base: chain.wrapped.symbol, quote: 'USDC', baseAmount: chain.wrappedUsdcDepth },
      { base: 'WETH', quote: chain.wrapped.symbol, baseAmount: chain.wethWrappedDepth },
    ],
    v3Pools: V3_POOLS,
    sushiPools: SUSHI_POOLS,
    v4Pools: V4_POOLS,
    balancerPools: BALANCER_POOLS,
    stablePools: STABLE_POOLS,
  };
}

/**
 * BNB Smart Chain: native BNB, 6M USD a side as the ether pools. Its USDC and USDT (the Binance-Peg tokens) have
 * 18 decimals, as on the real chain.
 */
function bnbWorld(): WorldSpec {
  return nonEtherWorld({
    nativeSymbol: 'BNB',
    wrapped: TOKENS.WBNB,
    wrappedUsdcDepth: 10_000n,
    wethWrappedDepth: WETH_DEPTH,
    stables: { usdc: { ...TOKENS.USDC, decimals: 18 }, usdt: { ...TOKENS.USDT, decimals: 18 } },
  });
}

/**
 * Polygon PoS: native POL at 0.5 USD, so its pools are smaller than the ether pools in USD: seeding and funding
 * them wraps 6.4M of the deployer's 10M POL.
 */
function polygonWorld(): WorldSpec {
  return nonEtherWorld({
    nativeSymbol: 'POL',
    wrapped: TOKENS.WPOL,
    wrappedUsdcDepth: 1_000_000n,
    wethWrappedDepth: 300n,
  });
}

/** Avalanche C-Chain: native AVAX; 6M USD a side, as the ether pools. */
function avalancheWorld(): WorldSpec {
  return nonEtherWorld({
    nativeSymbol: 'AVAX',
    wrapped: TOKENS.WAVAX,
    wrappedUsdcDepth: 200_000n,
    wethWrappedDepth: WETH_DEPTH,
  });
}

const WORLDS: Readonly<Record<number, () => WorldSpec>> = {
  1: etherWorld,
  10: etherWorld,
  56: bnbWorld,
  137: polygonWorld,
  8453: etherWorld,
  42161: etherWorld,
  43114: avalancheWorld,
  59144: etherWorld,
};

/** The chains of the spec, each with a world of its own; any other chain id gets Ethereum's world. */
export const WORLD_CHAIN_IDS: readonly number[] = Object.keys(WORLDS).map(Number);

export function worldSpec(chainId: number): WorldSpec {
  return (WORLDS[chainId] ?? etherWorld)();
}

export function specTokens(spec: WorldSpec): TokenSpec[] {
  return [spec.wrapped, ...spec.tokens];
}

export function tokenSpec(spec: WorldSpec, symbol: string): TokenSpec {
  const token = specTokens(spec).find((t) => t.symbol === symbol);
  if (!token) throw new Error(`token ${symbol} is not part of this world`);
  return token;
}

/** The raw (base-unit) amounts a pool is seeded with: equal USD value on both sides. */
export function poolAmounts(spec: WorldSpec, pool: PoolSpec): { base: bigint; quote: bigint } {
  const base = tokenSpec(spec, pool.base);
  const quote = tokenSpec(spec, pool.quote);
  return {
    base: pool.baseAmount * 10n ** BigInt(base.decimals),
    quote: (pool.baseAmount * base.usdMicros * 10n ** BigInt(quote.decimals)) / quote.usdMicros,
  };
}

/**
 * The raw amounts a weighted pool is seeded with: `baseAmount` of base, and quote worth (100 - w) / w of it, so the
 * pool's spot price (balances over weights) is the reference price.
 */
export function weightedPoolAmounts(
  spec: WorldSpec,
  pool: WeightedPoolSpec,
): { base: bigint; quote: bigint } {
  const base = tokenSpec(spec, pool.base);
  const quote = tokenSpec(spec, pool.quote);
  const w = pool.baseWeightPercent;
  if (w <= 0n || w >= 100n) throw new Error(`weight ${w}% of ${pool.base} is not between 0 and 100`);
  return {
    base: pool.baseAmount * 10n ** BigInt(base.decimals),
    quote:
      (pool.baseAmount * base.usdMicros * (100n - w) * 10n ** BigInt(quote.decimals)) / (quote.usdMicros * w),
  };
}

/** Every pool of every venue with the raw amounts it is seeded with. */
export function seededPools(
  spec: WorldSpec,
): Array<{ base: string; quote: string; amounts: { base: bigint; quote: bigint } }> {
  const equal = [...spec.v2Pools, ...spec.v3Pools, ...spec.sushiPools, ...spec.v4Pools, ...spec.stablePools];
  return [
    ...equal.map((p) => ({ base: p.base, quote: p.quote, amounts: poolAmounts(spec, p) })),
    ...spec.balancerPools.map((p) => ({
      base: p.base,
      quote: p.quote,
      amounts: weightedPoolAmounts(spec, p),
    })),
  ];
}

/** Reference price of one `base` in `quote` (whole units), as a float for display and tolerance checks. */
export function referencePrice(spec: WorldSpec, base: string, quote: string): number {
  return Number(tokenSpec(spec, base).usdMicros) / Number(tokenSpec(spec, quote).usdMicros);
}

/** Per token symbol, the raw amount that all pools of all venues hold and the largest single pool reserve. */
export function reserveTotals(spec: WorldSpec): Map<string, { total: bigint; largest: bigint }> {
  const totals = new Map<string, { total: bigint; largest: bigint }>();
  const add = (symbol: string, amount: bigint) => {
    const t = totals.get(symbol) ?? { total: 0n, largest: 0n };
    totals.set(symbol, { total: t.total + amount, largest: amount > t.largest ? amount : t.largest });
  };
  for (const pool of seededPools(spec)) {
    add(pool.base, pool.amounts.base);
    add(pool.quote, pool.amounts.quote);
  }
  return totals;
}

/** What each funded account gets of a token: FUND_SHARE of its largest pool reserve (10 whole units at least). */
export function fundAmount(spec: WorldSpec, symbol: string): bigint {
  const token = tokenSpec(spec, symbol);
  const largest = reserveTotals(spec).get(symbol)?.largest ?? 0n;
  const share = (largest * FUND_SHARE.numerator) / FUND_SHARE.denominator;
  const floor = 10n * 10n ** BigInt(token.decimals);
  return share > floor ? share : floor;
}

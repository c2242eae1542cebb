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

export interface WorldSpec {
  nativeSymbol: string;
  /** The wrapped native token: our WrappedNative contract (WETH9's behaviour) under this name and symbol. */
  wrapped: TokenSpec;
  /** The mintable TestTokens. */
  tokens: TokenSpec[];
  v2Pools: PoolSpec[];
  v3Pools: V3PoolSpec[];
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

/** Ethereum and the ether-native rollups (OP Mainnet, Base, Arbitrum One, Linea): the wrapped native is WETH. */
function etherWorld(): WorldSpec {
  return {
    nativeSymbol: 'ETH',
    wrapped: TOKENS.WETH,
    tokens: [TOKENS.USDC, TOKENS.USDT, TOKENS.DAI, TOKENS.WBTC, TOKENS.LINK, TOKENS.UNI],
    v2Pools: [...ETHEREUM_LIKE_V2, { base: 'WETH', quote: 'UNI', baseAmount: 500n }],
    v3Pools: V3_POOLS,
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

/** Reference price of one `base` in `quote` (whole units), as a float for display and tolerance checks. */
export function referencePrice(spec: WorldSpec, base: string, quote: string): number {
  return Number(tokenSpec(spec, base).usdMicros) / Number(tokenSpec(spec, quote).usdMicros);
}

/** Per token symbol, the raw amount that all pools together hold and the largest single pool reserve. */
export function reserveTotals(spec: WorldSpec): Map<string, { total: bigint; largest: bigint }> {
  const totals = new Map<string, { total: bigint; largest: bigint }>();
  const add = (symbol: string, amount: bigint) => {
    const t = totals.get(symbol) ?? { total: 0n, largest: 0n };
    totals.set(symbol, { total: t.total + amount, largest: amount > t.largest ? amount : t.largest });
  };
  for (const pool of [...spec.v2Pools, ...spec.v3Pools]) {
    const amounts = poolAmounts(spec, pool);
    add(pool.base, amounts.base);
    add(pool.quote, amounts.quote);
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

/**
 * Uniswap's own best-trade search (`@uniswap/v2-sdk` Trade.bestTradeExactIn) over the same V2 pool states our
 * engine quotes from: the benchmark's reference for speed and output. Pairs are built once from the cached
 * reserves, as an integrator keeping V2 state in memory would; only the search itself is timed.
 */
import { CurrencyAmount, Token } from '@uniswap/sdk-core';
import { Pair, Trade } from '@uniswap/v2-sdk';
import { getAddress } from 'ethers';
import type { V2PoolState } from '../../shared/routing/pools/pool-state';

export interface BenchToken {
  address: string;
  symbol: string;
  decimals: number;
}

export interface SdkQuote {
  /** Gross output of the best trade: the pairs' own math, no protocol fee. */
  amountOut: bigint;
  /** Token symbols along the best trade's route. */
  path: string[];
}

/** Hops the search may use: the same bound as our engine's routes. */
export const SDK_MAX_HOPS = 3;

export class V2SdkRouter {
  private readonly tokens = new Map<string, Token>();
  private readonly pairs: Pair[];

  constructor(chainId: number, tokens: readonly BenchToken[], pools: readonly V2PoolState[]) {
    for (const t of tokens)
      this.tokens.set(
        t.address.toLowerCase(),
        new Token(chainId, getAddress(t.address), t.decimals, t.symbol),
      );
    this.pairs = pools.map((pool) => {
      if (pool.feeBps !== 30n)
        throw new Error(`pair ${pool.address} has fee ${pool.feeBps} bps: the sdk assumes 30`);
      return new Pair(
        CurrencyAmount.fromRawAmount(this.token(pool.token0), pool.reserve0.toString()),
        CurrencyAmount.fromRawAmount(this.token(pool.token1), pool.reserve1.toString()),
      );
    });
  }

  get pairCount(): number {
    return this.pairs.length;
  }

  /** The best trade's output, as the sdk finds it; undefined when no path joins the tokens. */
  quote(tokenIn: string, tokenOut: string, amountIn: bigint): SdkQuote | undefined {
    const trades = Trade.bestTradeExactIn(
      this.pairs,
      CurrencyAmount.fromRawAmount(this.token(tokenIn), amountIn.toString()),
      this.token(tokenOut),
      { maxHops: SDK_MAX_HOPS },
    );
    const best = trades[0];
    if (!best) return undefined;
    return {
      amountOut: BigInt(best.outputAmount.quotient.toString()),
      path: best.route.path.map((t) => t.symbol ?? t.address),
    };
  }

  private token(address: string): Token {
    const token = this.tokens.get(address.toLowerCase());
    if (!token) throw new Error(`token ${address} is not in the benchmark's token list`);
    return token;
  }
}

import { getCreateAddress, Interface, MaxUint256, toQuantity } from 'ethers';
import type { ChainHandle } from '../../devnet/engine/devnet-chain';
import type { ManifestChain } from '../../devnet/manifest';
import {
  FACTOR_SCALE,
  moveFactor,
  v2AmountInForRatio,
  v3TargetSqrtPrice,
  v3TargetSqrtPriceInverse,
} from '../../devnet/market/move-amounts';
import { v2Price, v3Price, type PairToken } from '../../devnet/market/pool-price';
import {
  ERC20_ABI,
  FAR_DEADLINE,
  V2_PAIR_ABI,
  V2_ROUTER_ABI,
  V3_POOL_ABI,
  V3_SWAP_ROUTER_ABI,
  V4_SWAP_TEST_ABI,
} from '../../devnet/world/abis';
import { loadNpmArtifact } from '../../devnet/world/npm-artifacts';
import { readV4Slot0 } from '../../devnet/world/v4-pool-state';
import { findMarketPools, type MarketPool } from './market-pools';
import type { TokenFunding } from './token-funding';
import { succeeded } from './mined-receipt';

/** A pool within this fraction of its target is left alone: a trade would cost gas for nothing. */
const TOLERANCE = 2e-6;
/** Whole units of each market token the mover holds: far more than any path of the run can need. */
const MOVER_UNITS = 10n ** 12n;
const V2_SWAP_GAS = 300_000n;
const V3_SWAP_GAS = 1_000_000n;
const V4_SWAP_GAS = 1_000_000n;
const TRANSFER_GAS = 100_000n;
const DEPLOY_GAS = 5_000_000n;
/** Uniswap V2's (and SushiSwap's) 0.3 % fee, as the pair's K check applies it. */
const V2_FEE_KEEP = 997n;
const V2_FEE_SCALE = 1000n;
/**
 * The mover tips nothing: in each block the keeper's transactions (sent on the previous block, with a tip) come
 * first, then the market's trades take every pool to the block's path price.
 */
const MOVER_MAX_FEE = 10_000n * 10n ** 9n;
const MOVER_TIP = 0n;

const ERC20 = new Interface(ERC20_ABI);
const PAIR = new Interface(V2_PAIR_ABI);
const POOL = new Interface(V3_POOL_ABI);
const V2_ROUTER = new Interface(V2_ROUTER_ABI);
const V3_ROUTER = new Interface(V3_SWAP_ROUTER_ABI);
const V4_SWAP_TEST = new Interface(V4_SWAP_TEST_ABI);
const SUSHI_PAIR = new Interface([
  'function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data)',
]);

type Pool = MarketPool;

interface DrivenMarket {
  pair: string;
  base: PairToken;
  quote: PairToken;
  /** The V2 pair first when there is one: its price is the market's realized price. */
  pools: Pool[];
}

interface PoolState {
  pool: Pool;
  price: number;
  reserveBase: bigint;
  reserveQuote: bigint;
  sqrtPriceX96: bigint;
}

export interface MarketInput {
  pair: string;
  base: string;
  quote: string;
}

/**
 * The market of one chain during a run: before each block it trades every pool of every market (Uniswap V2 and each
 * V3 fee tier holding liquidity) to the path's price, from the mover's account. Its trades wait in the pool without
 * a tip, so the block that is mined next opens with the keeper's transactions sent on the previous block (executed
 * in the market they were planned on) and closes at the path's price.
 */
export class MarketDriver {
  /** v4-core's PoolSwapTest, deployed by the mover when a market has a V4 pool. */
  private v4Router: string | undefined;

  private constructor(
    private readonly chain: ChainHandle,
    private readonly manifest: ManifestChain,
    private readonly mover: string,
    private readonly markets: DrivenMarket[],
  ) {}

  static async create(
    chain: ChainHandle,
    manifest: ManifestChain,
    markets: readonly MarketInput[],
    mover: string,
    funding: TokenFunding,
  ): Promise<MarketDriver> {
    const token = (symbol: string): PairToken => {
      const found = manifest.tokens.find((t) => t.symbol === symbol);
      if (!found) throw new Error(`chain ${manifest.chainId} has no token ${symbol}`);
      return found;
    };
    const driven: DrivenMarket[] = [];
    for (const market of markets) {
      const base = token(market.base);
      const quote = token(market.quote);
      const pools = await findMarketPools(chain.provider, manifest, base, quote);
      if (!pools.length) throw new Error(`no pool of ${market.pair} on chain ${manifest.chainId} to move`);
      driven.push({ pair: market.pair, base, quote, pools });
    }
    const driver = new MarketDriver(chain, manifest, mover, driven);
    await driver.prepareMover(funding);
    return driver;
  }

  /** Each market's realized price now: its V2 pair's (or first pool's) price. */
  async prices(): Promise<number[]> {
    const states = await Promise.all(this.markets.map((m) => this.readPool(m, m.pools[0])));
    return states.map((s) => s.price);
  }

  /**
   * Sends the trades that take every pool to `targets` (one per market, QUOTE per BASE) for the next block; returns
   * the realized prices read before trading, i.e. those after the last mined block.
   */
  async move(targets: readonly number[]): Promise<{ before: number[]; trades: string[] }> {
    const states = await Promise.all(
      this.markets.map((m) => Promise.all(m.pools.map((pool) => this.readPool(m, pool)))),
    );
    const trades: string[] = [];
    for (let i = 0; i < this.markets.length; i++) {
      for (const state of states[i]) {
        trades.push(...(await this.trade(this.markets[i], state, targets[i])));
      }
    }
    return { before: states.map((s) => s[0].price), trades };
  }

  /** The transactions that take one pool to `target` (none when it is already there). */
  private async trade(market: DrivenMarket, state: PoolState, target: number): Promise<string[]> {
    const ratio = target / state.price;
    if (!Number.isFinite(ratio) || Math.abs(ratio - 1) < TOLERANCE) return [];
    const factor = moveFactor(ratio - 1);
    const { contracts } = this.manifest;
    const { pool } = state;
    if (pool.kind === 'v2' || pool.kind === 'sushi') {
      const up = factor > FACTOR_SCALE;
      const [tokenIn, tokenOut] = up ? [market.quote, market.base] : [market.base, market.quote];
      const [reserveIn, reserveOut] = up
        ? [state.reserveQuote, state.reserveBase]
        : [state.reserveBase, state.reserveQuote];
      const amountIn = up
        ? v2AmountInForRatio(state.reserveQuote, factor, FACTOR_SCALE)
        : v2AmountInForRatio(state.reserveBase, FACTOR_SCALE, factor);
      if (amountIn === 0n) return [];
      if (pool.kind === 'v2') {
        const data = V2_ROUTER.encodeFunctionData('swapExactTokensForTokens', [
          amountIn,
          0n,
          [tokenIn.address, tokenOut.address],
          this.mover,
          FAR_DEADLINE,
        ]);
        return [await this.send(contracts.uniswapV2Router02, data, V2_SWAP_GAS)];
      }
      // The devnet has no SushiSwap router: pay the pair, then take the output its K check allows.
      const withFee = amountIn * V2_FEE_KEEP;
      const amountOut = (withFee * reserveOut) / (reserveIn * V2_FEE_SCALE + withFee);
      if (amountOut === 0n) return [];
      const outIsToken0 = (tokenOut === market.base) === pool.baseIsToken0;
      return [
        await this.send(
          tokenIn.address,
          ERC20.encodeFunctionData('transfer', [pool.address, amountIn]),
          TRANSFER_GAS,
        ),
        await this.send(
          pool.address,
          SUSHI_PAIR.encodeFunctionData('swap', [
            outIsToken0 ? amountOut : 0n,
            outIsToken0 ? 0n : amountOut,
            this.mover,
            '0x',
          ]),
          V2_SWAP_GAS,
        ),
      ];
    }
    const limit = pool.baseIsToken0
      ? v3TargetSqrtPrice(state.sqrtPriceX96, factor)
      : v3TargetSqrtPriceInverse(state.sqrtPriceX96, factor);
    const zeroForOne = limit < state.sqrtPriceX96;
    const [token0, token1] = pool.baseIsToken0 ? [market.base, market.quote] : [market.quote, market.base];
    const [tokenIn, tokenOut] = zeroForOne ? [token0, token1] : [token1, token0];
    // Exact input capped by the price limit: the pool stops at the target and takes only what it needs.
    const amountIn = (MOVER_UNITS / 4n) * 10n ** BigInt(tokenIn.decimals);
    if (pool.kind === 'v4') {
      if (!this.v4Router) throw new Error('the mover has no V4 router');
      const data = V4_SWAP_TEST.encodeFunctionData('swap', [
        pool.key,
        { zeroForOne, amountSpecified: -amountIn, sqrtPriceLimitX96: limit },
        { takeClaims: false, settleUsingBurn: false },
        '0x',
      ]);
      return [await this.send(this.v4Router, data, V4_SWAP_GAS)];
    }
    const data = V3_ROUTER.encodeFunctionData('exactInputSingle', [
      {
        tokenIn: tokenIn.address,
        tokenOut: tokenOut.address,
        fee: pool.fee,
        recipient: this.mover,
        deadline: FAR_DEADLINE,
        amountIn,
        amountOutMinimum: 0n,
        sqrtPriceLimitX96: limit,
      },
    ]);
    return [await this.send(contracts.uniswapV3SwapRouter, data, V3_SWAP_GAS)];
  }

  /** From the impersonated mover; `to` undefined deploys `data`. */
  private async send(to: string | undefined, data: string, gas: bigint): Promise<string> {
    return (await this.chain.provider.send('eth_sendTransaction', [
      {
        from: this.mover,
        ...(to === undefined ? {} : { to }),
        data,
        gas: toQuantity(gas),
        maxFeePerGas: toQuantity(MOVER_MAX_FEE),
        maxPriorityFeePerGas: toQuantity(MOVER_TIP),
      },
    ])) as string;
  }

  private async readPool(market: DrivenMarket, pool: Pool): Promise<PoolState> {
    const { provider } = this.chain;
    if (pool.kind === 'v2' || pool.kind === 'sushi') {
      const raw = await provider.call({ to: pool.address, data: PAIR.encodeFunctionData('getReserves', []) });
      const [r0, r1] = PAIR.decodeFunctionResult('getReserves', raw) as unknown as [bigint, bigint];
      const [reserveBase, reserveQuote] = pool.baseIsToken0 ? [r0, r1] : [r1, r0];
      const price = v2Price(reserveBase, reserveQuote, market.base, market.quote);
      return { pool, price, reserveBase, reserveQuote, sqrtPriceX96: 0n };
    }
    let sqrtPriceX96: bigint;
    if (pool.kind === 'v4') {
      const manager = this.manifest.contracts.uniswapV4PoolManager;
      if (!manager) throw new Error(`chain ${this.manifest.chainId} has no V4 PoolManager`);
      sqrtPriceX96 = (await readV4Slot0(provider, manager, pool.poolId)).sqrtPriceX96;
    } else {
      const raw = await provider.call({ to: pool.address, data: POOL.encodeFunctionData('slot0', []) });
      sqrtPriceX96 = POOL.decodeFunctionResult('slot0', raw)[0] as bigint;
    }
    const price = v3Price(sqrtPriceX96, pool.baseIsToken0, market.base, market.quote);
    return { pool, price, reserveBase: 0n, reserveQuote: 0n, sqrtPriceX96 };
  }

  /** Funds the mover with every market token and approves both routers once; sends from it without its key. */
  private async prepareMover(funding: TokenFunding): Promise<void> {
    await funding.setNative(this.mover, 10n ** 30n);
    const tokens = new Map(
      this.markets.flatMap((m) => [m.base, m.quote]).map((t) => [t.address.toLowerCase(), t]),
    );
    const { contracts } = this.manifest;
    for (const token of tokens.values()) {
      await funding.fund(token.address, this.mover, MOVER_UNITS * 10n ** BigInt(token.decimals));
    }
    // Impersonated for the whole run (after funding, whose wrapping impersonates and stops).
    await this.chain.impersonate(this.mover);
    const spenders = [contracts.uniswapV2Router02, contracts.uniswapV3SwapRouter];
    if (this.markets.some((m) => m.pools.some((p) => p.kind === 'v4'))) {
      this.v4Router = await this.deployV4Router();
      spenders.push(this.v4Router);
    }
    for (const token of tokens.values()) {
      for (const spender of spenders) {
        const hash = await this.send(
          token.address,
          ERC20.encodeFunctionData('approve', [spender, MaxUint256]),
          100_000n,
        );
        if (!(await succeeded(this.chain.provider, hash)))
          throw new Error(`the mover's approval of ${token.symbol} failed`);
      }
    }
  }

  /** v4-core's own PoolSwapTest on the run's PoolManager: the devnet world has no V4 swap router of its own. */
  private async deployV4Router(): Promise<string> {
    const manager = this.manifest.contracts.uniswapV4PoolManager;
    if (!manager) throw new Error(`chain ${this.manifest.chainId} has no V4 PoolManager`);
    const artifact = loadNpmArtifact('PoolSwapTest');
    const nonce = await this.chain.provider.getTransactionCount(this.mover, 'pending');
    const args = new Interface(artifact.abi).encodeDeploy([manager]);
    const hash = await this.send(undefined, artifact.bytecode + args.slice(2), DEPLOY_GAS);
    if (!(await succeeded(this.chain.provider, hash)))
      throw new Error("the mover's V4 router did not deploy");
    return getCreateAddress({ from: this.mover, nonce });
  }
}

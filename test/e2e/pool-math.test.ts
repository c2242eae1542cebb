import { Contract, type Wallet } from 'ethers';
import {
  FAR_DEADLINE,
  V2_FACTORY_ABI,
  V2_PAIR_ABI,
  V2_ROUTER_ABI,
  V3_FACTORY_ABI,
  V3_QUOTER_V2_ABI,
  V3_SWAP_ROUTER_ABI,
} from '../../devnet/world/abis';
import { loadNpmArtifact } from '../../devnet/world/npm-artifacts';
import { v2AmountIn, v2AmountOut } from '../../shared/routing/math/uniswap-v2-math';
import { getSqrtRatioAtTick, MAX_TICK, MIN_TICK } from '../../shared/routing/math/tick-math';
import {
  quoterV2TicksCrossed,
  simulateV3ExactIn,
  type V3PoolState,
  type V3SwapResult,
} from '../../shared/routing/math/v3-swap';
import {
  balanceOf,
  GAS_LIMIT,
  mined,
  startContractsWorld,
  wethUsdcMinter,
  type ContractsWorld,
} from './contracts/contracts-fixture';

// World deployment takes a few seconds; jest's per-project testTimeout does not apply to hooks run this way.
jest.setTimeout(180_000);

const E18 = 10n ** 18n;

interface Quote {
  amountOut: bigint;
  sqrtPriceX96After: bigint;
  initializedTicksCrossed: number;
}

/** The pool's full in-memory state: slot0, liquidity and every initialized tick from the bitmap. */
async function readPoolState(pool: Contract): Promise<V3PoolState> {
  const [slot0, liquidity, fee, spacing] = await Promise.all([
    pool.getFunction('slot0')() as Promise<[bigint, bigint]>,
    pool.getFunction('liquidity')() as Promise<bigint>,
    pool.getFunction('fee')() as Promise<bigint>,
    pool.getFunction('tickSpacing')() as Promise<bigint>,
  ]);
  const tickSpacing = Number(spacing);
  const firstWord = Math.floor(Math.floor(MIN_TICK / tickSpacing) / 256);
  const lastWord = Math.floor(Math.floor(MAX_TICK / tickSpacing) / 256);
  const words = await Promise.all(
    Array.from({ length: lastWord - firstWord + 1 }, (_, i) =>
      (pool.getFunction('tickBitmap')(firstWord + i) as Promise<bigint>).then((bits) => ({
        word: firstWord + i,
        bits,
      })),
    ),
  );
  const indices = words.flatMap(({ word, bits }) =>
    Array.from({ length: 256 }, (_, bit) => bit)
      .filter((bit) => (bits >> BigInt(bit)) & 1n)
      .map((bit) => (word * 256 + bit) * tickSpacing),
  );
  const ticks = await Promise.all(
    indices.map(async (index) => {
      const info = (await pool.getFunction('ticks')(index)) as [bigint, bigint];
      return { index, liquidityNet: info[1] };
    }),
  );
  return {
    sqrtPriceX96: slot0[0],
    tick: Number(slot0[1]),
    liquidity,
    fee: Number(fee),
    tickSpacing,
    ticks: ticks.sort((a, b) => a.index - b.index),
  };
}

/** Initialized ticks a swap from `state` to `result` passes, counted from prices alone (the crossing rule). */
function crossedByPrice(state: V3PoolState, zeroForOne: boolean, result: V3SwapResult): number {
  return state.ticks.filter((t) =>
    zeroForOne
      ? t.index <= state.tick && getSqrtRatioAtTick(t.index) >= result.sqrtPriceX96After
      : t.index > state.tick && getSqrtRatioAtTick(t.index) <= result.sqrtPriceX96After,
  ).length;
}

describe('pool math against the devnet contracts', () => {
  let ctx: ContractsWorld;
  let weth: string;
  let usdc: string;

  beforeAll(async () => {
    ctx = await startContractsWorld();
    weth = ctx.address('WETH');
    usdc = ctx.address('USDC');
  });

  afterAll(async () => {
    await ctx?.stop();
  });

  describe('Uniswap V2', () => {
    const pairs: Array<[string, string, bigint[]]> = [
      ['WETH', 'USDC', [1n, 10n ** 9n, E18, 37n * E18, 500n * E18, 10n ** 24n]],
      ['USDC', 'WETH', [1n, 999n, 3_000n * 10n ** 6n, 10n ** 12n, 10n ** 15n]],
      ['WBTC', 'WETH', [1n, 10n ** 6n, 3n * 10n ** 8n, 10n ** 11n]],
      ['DAI', 'USDC', [1n, 10n ** 12n, 12_345n * E18, 10n ** 26n]],
      ['USDC', 'USDT', [1n, 10n ** 6n, 10n ** 12n]],
    ];

    it.each(pairs)(
      'v2AmountOut / v2AmountIn equal Router02 for %s -> %s',
      async (inSymbol, outSymbol, amounts) => {
        const [tokenIn, tokenOut] = [ctx.address(inSymbol), ctx.address(outSymbol)];
        const router = new Contract(
          ctx.world.contracts.uniswapV2Router02,
          [
            ...V2_ROUTER_ABI,
            'function getAmountsIn(uint256 amountOut, address[] path) view returns (uint256[] amounts)',
          ],
          ctx.provider,
        );
        const factory = new Contract(ctx.world.contracts.uniswapV2Factory, V2_FACTORY_ABI, ctx.provider);
        const pair = new Contract(
          (await factory.getFunction('getPair')(tokenIn, tokenOut)) as string,
          V2_PAIR_ABI,
          ctx.provider,
        );
        const [r0, r1] = (await pair.getFunction('getReserves')()) as [bigint, bigint];
        const [reserveIn, reserveOut] = BigInt(tokenIn) < BigInt(tokenOut) ? [r0, r1] : [r1, r0];
        for (const amountIn of amounts) {
          const [, onChainOut] = (await router.getFunction('getAmountsOut')(amountIn, [
            tokenIn,
            tokenOut,
          ])) as bigint[];
          expect(v2AmountOut(amountIn, reserveIn, reserveOut)).toBe(onChainOut);
          if (onChainOut! > 0n) {
            const [onChainIn] = (await router.getFunction('getAmountsIn')(onChainOut, [
              tokenIn,
              tokenOut,
            ])) as bigint[];
            expect(v2AmountIn(onChainOut!, reserveIn, reserveOut)).toBe(onChainIn);
          }
        }
      },
    );

    it('returns 0 for nothing in or an empty pair and throws for an output the pair cannot give', () => {
      expect(v2AmountOut(0n, 10n, 10n)).toBe(0n);
      expect(v2AmountOut(5n, 0n, 0n)).toBe(0n);
      expect(() => v2AmountIn(5n, 0n, 0n)).toThrow(/empty reserves/);
      expect(() => v2AmountIn(10n, 100n, 10n)).toThrow(/exceeds/);
    });
  });

  describe('Uniswap V3 WETH/USDC 0.3 % with narrow positions', () => {
    let pool: Contract;
    let quoter: Contract;
    let token0: string;
    let token1: string;
    let narrowTicks: number[];

    const quote = async (zeroForOne: boolean, amountIn: bigint, sqrtPriceLimitX96 = 0n): Promise<Quote> => {
      const [tokenIn, tokenOut] = zeroForOne ? [token0, token1] : [token1, token0];
      const [amountOut, sqrtPriceX96After, initializedTicksCrossed] = (await quoter
        .getFunction('quoteExactInputSingle')
        .staticCall({ tokenIn, tokenOut, amountIn, fee: 3000, sqrtPriceLimitX96 })) as [
        bigint,
        bigint,
        bigint,
      ];
      return { amountOut, sqrtPriceX96After, initializedTicksCrossed: Number(initializedTicksCrossed) };
    };

    /** Compares one swap with QuoterV2 and the independent crossing count; returns the simulation. */
    const expectExact = async (
      state: V3PoolState,
      zeroForOne: boolean,
      amountIn: bigint,
      limit?: bigint,
    ): Promise<V3SwapResult> => {
      const result = simulateV3ExactIn(state, zeroForOne, amountIn, limit);
      const quoted = await quote(zeroForOne, amountIn, limit);
      expect({
        amountOut: result.amountOut,
        sqrtPriceX96After: result.sqrtPriceX96After,
        initializedTicksCrossed: quoterV2TicksCrossed(
          state.ticks,
          state.tickSpacing,
          state.tick,
          result.tickAfter,
        ),
      }).toEqual(quoted);
      expect(result.ticksCrossed).toBe(crossedByPrice(state, zeroForOne, result));
      return result;
    };

    beforeAll(async () => {
      [token0, token1] = BigInt(weth) < BigInt(usdc) ? [weth, usdc] : [usdc, weth];
      const factory = new Contract(ctx.world.contracts.uniswapV3Factory, V3_FACTORY_ABI, ctx.provider);
      pool = new Contract(
        (await factory.getFunction('getPool')(weth, usdc, 3000)) as string,
        loadNpmArtifact('UniswapV3Pool').abi,
        ctx.provider,
      );
      quoter = new Contract(ctx.world.contracts.uniswapV3QuoterV2, V3_QUOTER_V2_ABI, ctx.provider);

      const lp = ctx.accounts[0]!;
      const minter = await wethUsdcMinter(ctx, lp);
      const { tick } = await readPoolState(pool);
      const t0 = Math.floor(tick / 60) * 60;
      // Overlapping narrow ranges around the price, one ending exactly at the current tick's range start.
      const ranges: Array<[number, number]> = [
        [t0 - 120, t0 + 180],
        [t0 - 300, t0 + 60],
        [t0 - 600, t0 - 240],
        [t0 + 240, t0 + 540],
        [t0 - 60, t0],
        [t0 + 60, t0 + 120],
      ];
      for (const [tickLower, tickUpper] of ranges) await minter.mint(tickLower, tickUpper);
      narrowTicks = [...new Set(ranges.flat())].sort((a, b) => a - b);
    });

    it.each([true, false])(
      'equals QuoterV2 exactly without crossing, crossing one, several, all narrow ticks and bitmap words (zeroForOne %s)',
      async (zeroForOne) => {
        const state = await readPoolState(pool);
        expect(state.ticks.map((t) => t.index)).toEqual(expect.arrayContaining(narrowTicks));
        const inIsWeth = (zeroForOne ? token0 : token1) === weth;
        const unit = inIsWeth ? 10n ** 12n : 10n ** 3n;
        const narrowAhead = narrowTicks.filter((t) => (zeroForOne ? t <= state.tick : t > state.tick)).length;
        const picked = new Map<string, bigint>();
        for (let amount = unit; amount < unit * 10n ** 16n; amount = (amount * 13n) / 10n) {
          const result = simulateV3ExactIn(state, zeroForOne, amount);
          const wordBefore = Math.floor(Math.floor(state.tick / 60) / 256);
          const wordAfter = Math.floor(Math.floor(result.tickAfter / 60) / 256);
          const kind =
            wordAfter !== wordBefore
              ? 'across words'
              : result.ticksCrossed === 0
                ? 'none'
                : result.ticksCrossed === 1
                  ? 'one'
                  : result.ticksCrossed < narrowAhead
                    ? 'several'
                    : 'all narrow';
          if (!picked.has(kind) || kind === 'none') picked.set(kind, amount);
        }
        expect([...picked.keys()].sort()).toEqual(['across words', 'all narrow', 'none', 'one', 'several']);
        for (const amount of [1n, 7n, ...picked.values()]) await expectExact(state, zeroForOne, amount);
      },
    );

    it.each([true, false])(
      'stops at a price limit between narrow ticks exactly as QuoterV2 (zeroForOne %s)',
      async (zeroForOne) => {
        const state = await readPoolState(pool);
        const limitTick = zeroForOne ? state.tick - 200 : state.tick + 330;
        const limit = getSqrtRatioAtTick(limitTick) + 12_345n;
        const huge = 10n ** 30n;
        const result = await expectExact(state, zeroForOne, huge, limit);
        expect(result.sqrtPriceX96After).toBe(limit);
        expect(result.amountIn).toBeLessThan(huge);
        expect(result.ticksCrossed).toBeGreaterThan(1);
        // A limit the swap does not reach changes nothing.
        const small = zeroForOne ? 10n ** 15n : 10n ** 6n;
        expect((await expectExact(state, zeroForOne, small, limit)).amountIn).toBe(small);
      },
    );

    it('executes a swap through the V3 SwapRouter receiving exactly the simulated amount and state', async () => {
      const trader: Wallet = ctx.accounts[1]!;
      for (const zeroForOne of [true, false]) {
        const state = await readPoolState(pool);
        const [tokenIn, tokenOut] = zeroForOne ? [token0, token1] : [token1, token0];
        const amountIn = tokenIn === weth ? 60n * E18 : 200_000n * 10n ** 6n;
        const simulated = simulateV3ExactIn(state, zeroForOne, amountIn);
        expect(simulated.ticksCrossed).toBeGreaterThan(1);
        const inToken = ctx.token(tokenIn === weth ? 'WETH' : 'USDC').connect(trader) as Contract;
        await mined(inToken.getFunction('approve')(ctx.world.contracts.uniswapV3SwapRouter, amountIn));
        const router = new Contract(ctx.world.contracts.uniswapV3SwapRouter, V3_SWAP_ROUTER_ABI, trader);
        const before = await balanceOf(ctx, tokenOut, trader.address);
        await mined(
          router.getFunction('exactInputSingle')(
            {
              tokenIn,
              tokenOut,
              fee: 3000,
              recipient: trader.address,
              deadline: FAR_DEADLINE,
              amountIn,
              amountOutMinimum: simulated.amountOut,
              sqrtPriceLimitX96: 0n,
            },
            { gasLimit: GAS_LIMIT },
          ),
        );
        expect((await balanceOf(ctx, tokenOut, trader.address)) - before).toBe(simulated.amountOut);
        const after = await readPoolState(pool);
        expect([after.sqrtPriceX96, after.tick, after.liquidity]).toEqual([
          simulated.sqrtPriceX96After,
          simulated.tickAfter,
          simulated.liquidityAfter,
        ]);
      }
    });
  });
});

import { Contract, ContractFactory, MaxUint256, ZeroAddress, type InterfaceAbi, type Wallet } from 'ethers';
import { devnetKeys } from '../../devnet/keys';
import { readV2Pool, v3Price } from '../../devnet/market/pool-price';
import { startChain, type ChainHandle } from '../../devnet/start-chain';
import {
  BALANCER_VAULT_ABI,
  BALANCER_WEIGHTED_POOL_ABI,
  BALANCER_WEIGHTED_POOL_FACTORY_ABI,
  ERC20_ABI,
  STABLE_SWAP_FACTORY_ABI,
  STABLE_SWAP_POOL_ABI,
  V2_PAIR_ABI,
  V4_SWAP_TEST_ABI,
} from '../../devnet/world/abis';
import { deployWorld, type DeployedWorld } from '../../devnet/world/deploy-world';
import { loadNpmArtifact } from '../../devnet/world/npm-artifacts';
import { readV4Slot0 } from '../../devnet/world/v4-pool-state';
import { fullRangeTicksForSpacing } from '../../devnet/world/v3-math';
import {
  poolAmounts,
  referencePrice,
  tokenSpec,
  weightedPoolAmounts,
  worldSpec,
} from '../../devnet/world/world-spec';
import { v2AmountOut } from '../../shared/routing/math/uniswap-v2-math';
import { simulateV3ExactIn } from '../../shared/routing/math/v3-swap';
import { MAX_SQRT_RATIO, MIN_SQRT_RATIO } from '../../shared/routing/math/tick-math';
import { mined } from '../../devnet/wait-for-receipt';

/**
 * The venues of a started devnet chain beside Uniswap V2 and V3 (SushiSwap V2, Uniswap V4, Balancer V2, our
 * StableSwap), each asked through its own contracts: every pool sits at the world's reference price, and a swap
 * pays what the venue's own quote (or its published math) says.
 */

const keys = devnetKeys();
const CHAIN_ID = 1;
const spec = worldSpec(CHAIN_ID);
const ONE = 10n ** 18n;

let chain: ChainHandle;
let world: DeployedWorld;
let trader: Wallet;

const tokenOf = (symbol: string) => {
  const token = world.tokens.find((t) => t.symbol === symbol);
  if (!token) throw new Error(`no ${symbol}`);
  return token;
};
const units = (symbol: string, whole: bigint) => whole * 10n ** BigInt(tokenSpec(spec, symbol).decimals);
const balanceOf = async (symbol: string, holder: string) =>
  (await new Contract(tokenOf(symbol).address, ERC20_ABI, chain.provider).getFunction('balanceOf')(
    holder,
  )) as bigint;
const approve = async (symbol: string, spender: string) => {
  const token = new Contract(tokenOf(symbol).address, ERC20_ABI, trader);
  await mined(token.getFunction('approve')(spender, MaxUint256));
};
/** |a / b - 1| */
const relativeError = (a: number, b: number) => Math.abs(a / b - 1);

/** Runs `body` on a snapshot of the chain: every test sees the world as deployed. */
async function onSnapshot(body: () => Promise<void>): Promise<void> {
  const id = await chain.snapshot();
  try {
    await body();
  } finally {
    await chain.revert(id);
  }
}

beforeAll(async () => {
  chain = await startChain({ chainId: CHAIN_ID, engine: 'anvil' });
  world = await deployWorld({
    provider: chain.provider,
    mining: chain,
    chainId: CHAIN_ID,
    deployer: keys.deployer,
    executors: keys.executors.map((e) => e.address),
    fund: [keys.accounts[0]!.address],
  });
  trader = keys.accounts[0]!.connect(chain.provider);
});

afterAll(async () => {
  await chain?.stop();
});

describe('SushiSwap V2', () => {
  it('holds SUSHI/WETH and a modest WETH/USDC pair at the reference prices, exactly the seeded reserves', async () => {
    expect(spec.sushiPools.map((p) => `${p.base}/${p.quote}`)).toEqual(['WETH/USDC', 'SUSHI/WETH']);
    for (const pool of spec.sushiPools) {
      const [base, quote] = [tokenOf(pool.base), tokenOf(pool.quote)];
      const state = await readV2Pool(chain.provider, world.contracts.sushiswapV2Factory, base, quote);
      const seeded = poolAmounts(spec, pool);
      expect([state.reserveBase, state.reserveQuote]).toEqual([seeded.base, seeded.quote]);
      expect(relativeError(state.price, referencePrice(spec, pool.base, pool.quote))).toBeLessThan(1e-9);
      expect(world.venuePools.sushi).toContain(state.address);
    }
    // SUSHI is on SushiSwap only.
    const sushiOnUniswap = (await new Contract(
      world.contracts.uniswapV2Factory,
      ['function getPair(address, address) view returns (address)'],
      chain.provider,
    ).getFunction('getPair')(tokenOf('SUSHI').address, tokenOf('WETH').address)) as string;
    expect(sushiOnUniswap).toBe(ZeroAddress);
  });

  it('pays the 0.3% constant-product amount for 1,000 SUSHI, as a hop through the pair does', async () => {
    await onSnapshot(async () => {
      const pairAddress = world.venuePools.sushi[1]!;
      const pair = new Contract(
        pairAddress,
        [...V2_PAIR_ABI, 'function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data)'],
        trader,
      );
      const [reserve0, reserve1] = (await pair.getFunction('getReserves')()) as [bigint, bigint];
      const sushiIs0 = ((await pair.getFunction('token0')()) as string) === tokenOf('SUSHI').address;
      const amountIn = units('SUSHI', 1_000n);
      const out = sushiIs0
        ? v2AmountOut(amountIn, reserve0, reserve1)
        : v2AmountOut(amountIn, reserve1, reserve0);
      const sushi = new Contract(tokenOf('SUSHI').address, ERC20_ABI, trader);
      await mined(sushi.getFunction('transfer')(pairAddress, amountIn));
      const before = await balanceOf('WETH', trader.address);
      await mined(pair.getFunction('swap')(sushiIs0 ? 0n : out, sushiIs0 ? out : 0n, trader.address, '0x'));
      expect((await balanceOf('WETH', trader.address)) - before).toBe(out);
      // 1,000 SUSHI at 1.2 USD is 0.4 WETH, less the 0.3% fee and about 0.13% of price impact.
      expect(Number(out) / 1e18).toBeGreaterThan(0.4 * 0.997 * 0.998);
      expect(Number(out) / 1e18).toBeLessThan(0.4 * 0.997);
    });
  });
});

describe('Uniswap V4', () => {
  it('holds hooks-free UNI/WETH 0.05% (spacing 10) and WETH/USDC 0.3% (spacing 60) full-range at the reference prices', async () => {
    const manager = world.contracts.uniswapV4PoolManager!;
    expect(world.venuePools.v4.map((p) => [p.key.fee, p.key.tickSpacing, p.key.hooks])).toEqual([
      [500, 10, ZeroAddress],
      [3000, 60, ZeroAddress],
    ]);
    for (const [i, pool] of spec.v4Pools.entries()) {
      const seeded = world.venuePools.v4[i]!;
      const state = await readV4Slot0(chain.provider, manager, seeded.id);
      expect(state.lpFee).toBe(pool.fee);
      expect(state.protocolFee).toBe(0);
      expect(state.liquidity).toBe(seeded.liquidity);
      const [base, quote] = [tokenOf(pool.base), tokenOf(pool.quote)];
      const baseIs0 = seeded.key.currency0 === base.address;
      const price = v3Price(state.sqrtPriceX96, baseIs0, base, quote);
      expect(relativeError(price, referencePrice(spec, pool.base, pool.quote))).toBeLessThan(1e-9);
    }
    // Deeper than the V2 UNI/WETH pair: 1,000 WETH of full-range liquidity against 500.
    const v2 = spec.v2Pools.find((p) => p.base === 'WETH' && p.quote === 'UNI')!;
    expect(spec.v4Pools[0]!.baseAmount).toBe(2n * v2.baseAmount);
  });

  it('swaps 1,000 UNI for WETH through PoolSwapTest exactly as the concentrated-liquidity math computes', async () => {
    await onSnapshot(async () => {
      const seeded = world.venuePools.v4[0]!;
      const router = new Contract(
        await deployFromTrader(loadNpmArtifact('PoolSwapTest'), [world.contracts.uniswapV4PoolManager]),
        V4_SWAP_TEST_ABI,
        trader,
      );
      await approve('UNI', await router.getAddress());
      const amountIn = units('UNI', 1_000n);
      const zeroForOne = seeded.key.currency0 === tokenOf('UNI').address;
      const state = await readV4Slot0(chain.provider, world.contracts.uniswapV4PoolManager!, seeded.id);
      const { tickLower, tickUpper } = fullRangeTicksForSpacing(seeded.key.tickSpacing);
      const expected = simulateV3ExactIn(
        {
          ...state,
          fee: seeded.key.fee,
          tickSpacing: seeded.key.tickSpacing,
          ticks: [
            { index: tickLower, liquidityNet: seeded.liquidity },
            { index: tickUpper, liquidityNet: -seeded.liquidity },
          ],
        },
        zeroForOne,
        amountIn,
      );
      const before = await Promise.all([balanceOf('UNI', trader.address), balanceOf('WETH', trader.address)]);
      const params = {
        zeroForOne,
        // Negative: exact input in V4's convention.
        amountSpecified: -amountIn,
        sqrtPriceLimitX96: zeroForOne ? MIN_SQRT_RATIO + 1n : MAX_SQRT_RATIO - 1n,
      };
      await mined(
        router.getFunction('swap')(seeded.key, params, { takeClaims: false, settleUsingBurn: false }, '0x'),
      );
      const after = await Promise.all([balanceOf('UNI', trader.address), balanceOf('WETH', trader.address)]);
      expect(before[0] - after[0]).toBe(amountIn);
      expect(after[1] - before[1]).toBe(expected.amountOut);
      // 1,000 UNI at 8 USD is 2.667 WETH, less the 0.05% fee and about 0.27% of price impact.
      const reference = (1_000 * 8) / 3_000;
      expect(Number(expected.amountOut) / 1e18).toBeGreaterThan(reference * 0.9995 * 0.996);
      expect(Number(expected.amountOut) / 1e18).toBeLessThan(reference * 0.9995);
    });
  });
});

describe('Balancer V2', () => {
  it('holds the 80/20 BAL/WETH (0.3%) and 50/50 WETH/DAI (0.1%) weighted pools with the seeded balances', async () => {
    const vault = new Contract(world.contracts.balancerVault, BALANCER_VAULT_ABI, chain.provider);
    const factory = new Contract(
      world.contracts.balancerWeightedPoolFactory,
      BALANCER_WEIGHTED_POOL_FACTORY_ABI,
      chain.provider,
    );
    for (const [i, pool] of spec.balancerPools.entries()) {
      const seeded = world.venuePools.balancer[i]!;
      const [tokens, balances] = (await vault.getFunction('getPoolTokens')(seeded.id)) as [
        string[],
        bigint[],
      ];
      expect(tokens).toEqual(seeded.tokens);
      expect(balances).toEqual(seeded.balances);
      const amounts = weightedPoolAmounts(spec, pool);
      const baseFirst = tokens[0] === tokenOf(pool.base).address;
      expect(balances).toEqual(baseFirst ? [amounts.base, amounts.quote] : [amounts.quote, amounts.base]);
      const contract = new Contract(seeded.address, BALANCER_WEIGHTED_POOL_ABI, chain.provider);
      expect(await contract.getFunction('getPoolId')()).toBe(seeded.id);
      expect(await contract.getFunction('getSwapFeePercentage')()).toBe(pool.swapFee);
      const weights = (await contract.getFunction('getNormalizedWeights')()) as bigint[];
      const baseWeight = (pool.baseWeightPercent * ONE) / 100n;
      expect(weights).toEqual(baseFirst ? [baseWeight, ONE - baseWeight] : [ONE - baseWeight, baseWeight]);
      expect(await factory.getFunction('isPoolFromFactory')(seeded.address)).toBe(true);
    }
  });

  it.each([
    ['BAL', 'WETH', 1_000, 0],
    ['WETH', 'DAI', 10, 1],
  ] as const)(
    'quotes %s -> %s (%d whole) by queryBatchSwap at the weighted-math amount, and swaps exactly that',
    async (tokenIn, tokenOut, whole, poolIndex) => {
      await onSnapshot(async () => {
        const seeded = world.venuePools.balancer[poolIndex]!;
        const vault = new Contract(world.contracts.balancerVault, BALANCER_VAULT_ABI, trader);
        const amountIn = units(tokenIn, BigInt(whole));
        const assets = [tokenOf(tokenIn).address, tokenOf(tokenOut).address];
        const funds = {
          sender: trader.address,
          fromInternalBalance: false,
          recipient: trader.address,
          toInternalBalance: false,
        };
        const [deltaIn, deltaOut] = (await vault
          .getFunction('queryBatchSwap')
          .staticCall(
            0,
            [{ poolId: seeded.id, assetInIndex: 0, assetOutIndex: 1, amount: amountIn, userData: '0x' }],
            assets,
            funds,
          )) as bigint[];
        expect(deltaIn).toBe(amountIn);
        const quoted = -deltaOut!;
        // out = balanceOut * (1 - (balanceIn / (balanceIn + in * (1 - fee)))^(wIn / wOut)), in floating point.
        const inIndex = seeded.tokens.indexOf(assets[0]!);
        const [bIn, bOut] = [Number(seeded.balances[inIndex]), Number(seeded.balances[1 - inIndex])];
        const [wIn, wOut] = [Number(seeded.weights[inIndex]), Number(seeded.weights[1 - inIndex])];
        const fee = Number(seeded.spec.swapFee) / 1e18;
        const expected = bOut * (1 - (bIn / (bIn + Number(amountIn) * (1 - fee))) ** (wIn / wOut));
        expect(relativeError(Number(quoted), expected)).toBeLessThan(1e-9);
        // At the reference price less the fee and an impact below (1 + wIn/wOut) times the trade's share of the
        // balance in (the marginal price moves by about that much).
        const reference = referencePrice(spec, tokenIn, tokenOut) * whole;
        const out = Number(quoted) / 10 ** tokenSpec(spec, tokenOut).decimals;
        const impact = ((1 + wIn / wOut) * Number(amountIn)) / bIn;
        expect(out).toBeLessThan(reference * (1 - fee));
        expect(out).toBeGreaterThan(reference * (1 - fee) * (1 - impact));
        // The swap pays exactly the quote.
        await approve(tokenIn, world.contracts.balancerVault);
        const before = await balanceOf(tokenOut, trader.address);
        const single = {
          poolId: seeded.id,
          kind: 0,
          assetIn: assets[0],
          assetOut: assets[1],
          amount: amountIn,
          userData: '0x',
        };
        const swap = new Contract(
          world.contracts.balancerVault,
          [
            'function swap((bytes32 poolId, uint8 kind, address assetIn, address assetOut, uint256 amount, bytes userData) singleSwap, (address sender, bool fromInternalBalance, address recipient, bool toInternalBalance) funds, uint256 limit, uint256 deadline) payable returns (uint256)',
          ],
          trader,
        );
        await mined(swap.getFunction('swap')(single, funds, quoted, MaxUint256));
        expect((await balanceOf(tokenOut, trader.address)) - before).toBe(quoted);
      });
    },
  );
});

describe('StableSwap', () => {
  it('holds USDC/USDT, USDC/DAI and USDT/DAI with 10M USD a side, A = 2000, fee 0.04%, created by the factory', async () => {
    const factory = new Contract(world.contracts.stableSwapFactory, STABLE_SWAP_FACTORY_ABI, chain.provider);
    expect(world.venuePools.stable.map((p) => `${p.spec.base}/${p.spec.quote}`)).toEqual([
      'USDC/USDT',
      'USDC/DAI',
      'USDT/DAI',
    ]);
    for (const seeded of world.venuePools.stable) {
      const pool = new Contract(seeded.address, STABLE_SWAP_POOL_ABI, chain.provider);
      expect(await factory.getFunction('isPool')(seeded.address)).toBe(true);
      expect(await factory.getFunction('getPool')(seeded.coins[1], seeded.coins[0])).toBe(seeded.address);
      expect([await pool.getFunction('coins')(0), await pool.getFunction('coins')(1)]).toEqual(seeded.coins);
      expect([await pool.getFunction('balances')(0), await pool.getFunction('balances')(1)]).toEqual(
        seeded.balances,
      );
      expect(await pool.getFunction('A')()).toBe(200_000n);
      expect(await pool.getFunction('fee')()).toBe(4_000_000n);
      // One whole coin of either side buys 0.9996 of the other (the fee) at the 1:1 reference price.
      for (const [i, j] of [
        [0, 1],
        [1, 0],
      ] as const) {
        const [symbolIn, symbolOut] = [seeded.coins[i], seeded.coins[j]].map(
          (a) => world.tokens.find((t) => t.address === a)!.symbol,
        );
        const dy = (await pool.getFunction('getDy')(i, j, units(symbolIn!, 1n))) as bigint;
        const out = Number(dy) / 10 ** tokenSpec(spec, symbolOut!).decimals;
        expect(out).toBeLessThanOrEqual(0.9996);
        expect(out).toBeGreaterThan(0.9995);
      }
    }
  });

  it('swaps 100,000 USDC for at least 99,650 USDT, exactly its getDy quote', async () => {
    await onSnapshot(async () => {
      const seeded = world.venuePools.stable[0]!;
      const pool = new Contract(seeded.address, STABLE_SWAP_POOL_ABI, trader);
      const usdcIndex = seeded.coins.indexOf(tokenOf('USDC').address);
      const amountIn = units('USDC', 100_000n);
      const quoted = (await pool.getFunction('getDy')(usdcIndex, 1 - usdcIndex, amountIn)) as bigint;
      expect(quoted).toBeGreaterThanOrEqual(units('USDT', 99_650n));
      await approve('USDC', seeded.address);
      const before = await balanceOf('USDT', trader.address);
      await mined(pool.getFunction('exchange')(usdcIndex, 1 - usdcIndex, amountIn, quoted));
      const received = (await balanceOf('USDT', trader.address)) - before;
      expect(received).toBe(quoted);
      // The 0.04% fee and a few basis points of impact: far better than V2's 0.3% USDC/USDT pair.
      expect(Number(received) / 1e6).toBeGreaterThan(99_950);
    });
  });
});

describe('a chain without Cancun (ganache)', () => {
  let ganache: ChainHandle;
  let plain: DeployedWorld;
  beforeAll(async () => {
    ganache = await startChain({ chainId: CHAIN_ID, engine: 'ganache' });
    plain = await deployWorld({
      provider: ganache.provider,
      mining: ganache,
      chainId: CHAIN_ID,
      deployer: keys.deployer,
      executors: keys.executors.map((e) => e.address),
      fund: [],
    });
  });
  afterAll(async () => {
    await ganache?.stop();
  });

  it('has every venue but Uniswap V4, and our contracts know V4 is absent', async () => {
    expect(plain.contracts.uniswapV4PoolManager).toBeUndefined();
    expect(plain.venuePools.v4).toEqual([]);
    for (const address of [
      plain.contracts.sushiswapV2Factory,
      plain.contracts.balancerVault,
      plain.contracts.balancerWeightedPoolFactory,
      plain.contracts.stableSwapFactory,
    ]) {
      expect(await ganache.provider.getCode(address)).not.toBe('0x');
    }
    const router = new Contract(
      plain.contracts.swapRouter,
      [
        'function uniswapV4PoolManager() view returns (address)',
        'function stableSwapFactory() view returns (address)',
      ],
      ganache.provider,
    );
    expect(await router.getFunction('uniswapV4PoolManager')()).toBe(ZeroAddress);
    expect(await router.getFunction('stableSwapFactory')()).toBe(plain.contracts.stableSwapFactory);
    const stable = plain.venuePools.stable[0]!;
    expect(
      await new Contract(stable.address, STABLE_SWAP_POOL_ABI, ganache.provider).getFunction('balances')(0),
    ).toBe(stable.balances[0]);
  });
});

/** Deploys a contract from the trader and waits for it (test-only helpers such as PoolSwapTest). */
async function deployFromTrader(
  artifact: { abi: InterfaceAbi; bytecode: string },
  args: unknown[],
): Promise<string> {
  const factory = new ContractFactory(artifact.abi, artifact.bytecode, trader);
  const contract = await factory.deploy(...args);
  await contract.waitForDeployment();
  return contract.getAddress();
}

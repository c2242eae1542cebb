import { Contract, ContractFactory, MaxUint256, parseUnits, type Wallet } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import { devnetKeys } from '../../devnet/keys';
import { startChain, type ChainHandle } from '../../devnet/start-chain';
import {
  ERC20_ABI,
  FAR_DEADLINE,
  V3_POSITION_MANAGER_ABI,
  V3_SWAP_ROUTER_ABI,
} from '../../devnet/world/abis';
import { v3PoolAddress } from '../../devnet/world/uniswap-pool-address';
import { DEFAULT_PRICE_BOUND } from '../../devnet/world/deploy-service-contracts';
import { deployWorld, type DeployedWorld } from '../../devnet/world/deploy-world';
import { referencePrice, tokenSpec, worldSpec } from '../../devnet/world/world-spec';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import { minimumAtBound } from '../../shared/domain/price-bound';
import { mined } from '../../devnet/wait-for-receipt';

/**
 * The OrderExecutor's price bound on a devnet world, read through its own views: each source (a Uniswap V3 pool's
 * time-weighted price, two legs through WETH, USD feeds) at the world's reference prices, a pool pumped for one
 * block barely moving it, a pair with no source having none, and the keeper's mirror of minimumAtBound exact.
 */

jest.setTimeout(120_000);

const keys = devnetKeys();
const CHAIN_ID = 1;
const spec = worldSpec(CHAIN_ID);
const Q128 = 1n << 128n;

let chain: ChainHandle;
let world: DeployedWorld;
let trader: Wallet;
let executor: Contract;
let oracle: Contract;

const tokenOf = (symbol: string) => {
  const token = world.tokens.find((t) => t.symbol === symbol);
  if (!token) throw new Error(`no ${symbol}`);
  return token;
};

/** priceBound(in, out) as whole tokenOut per whole tokenIn (12 significant decimals kept). */
async function boundPrice(inSymbol: string, outSymbol: string): Promise<number> {
  const priceX128 = (await executor.getFunction('priceBound')(
    tokenOf(inSymbol).address,
    tokenOf(outSymbol).address,
  )) as bigint;
  const decimalsIn = BigInt(tokenSpec(spec, inSymbol).decimals);
  const decimalsOut = BigInt(tokenSpec(spec, outSymbol).decimals);
  const micro = (priceX128 * 10n ** (decimalsIn + 12n)) / (Q128 * 10n ** decimalsOut);
  return Number(micro) / 1e12;
}

const relativeError = (a: number, b: number) => Math.abs(a / b - 1);

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
  executor = new Contract(world.contracts.orderExecutor, orderExecutorInterface(), chain.provider);
  oracle = new Contract(
    (await executor.getFunction('priceOracle')()) as string,
    loadArtifact('PriceOracle').abi,
    chain.provider,
  );
  // Half an hour of history behind every pool, as a live chain has.
  await chain.increaseTime(DEFAULT_PRICE_BOUND.twapWindow);
  await chain.mine();
});

afterAll(async () => {
  await chain?.stop();
});

describe('the price bound of each source', () => {
  it("prices WETH/USDC from its Uniswap V3 pools' time-weighted average, both ways", async () => {
    expect(
      relativeError(await boundPrice('WETH', 'USDC'), referencePrice(spec, 'WETH', 'USDC')),
    ).toBeLessThan(1e-3);
    expect(
      relativeError(await boundPrice('USDC', 'WETH'), referencePrice(spec, 'USDC', 'WETH')),
    ).toBeLessThan(1e-3);
  });

  it('prices WBTC/USDC through WETH (no WBTC/USDC V3 pool)', async () => {
    expect(
      relativeError(await boundPrice('WBTC', 'USDC'), referencePrice(spec, 'WBTC', 'USDC')),
    ).toBeLessThan(2e-3);
  });

  it('prices tokens without a V3 pool against WETH from their USD feeds (BAL on Balancer only, the StableSwap stables)', async () => {
    expect(relativeError(await boundPrice('BAL', 'WETH'), referencePrice(spec, 'BAL', 'WETH'))).toBeLessThan(
      1e-9,
    );
    expect(relativeError(await boundPrice('USDT', 'DAI'), 1)).toBeLessThan(1e-9);
    // DAI's feed against USDC's pool: the wrapped native's feed converts between the units.
    expect(relativeError(await boundPrice('DAI', 'USDC'), 1)).toBeLessThan(1e-3);
  });

  it('has no bound (0) for a token with neither a pool nor a feed', async () => {
    const artifact = loadArtifact('TestToken');
    const fresh = await new ContractFactory(artifact.abi, artifact.bytecode, trader).deploy(
      'Fresh',
      'FRSH',
      18,
    );
    await fresh.waitForDeployment();
    expect(await executor.getFunction('priceBound')(await fresh.getAddress(), tokenOf('USDC').address)).toBe(
      0n,
    );
  });
});

describe('sources the owner configured, never discovered', () => {
  it('leaves the bound of a pair alone when anyone creates a Uniswap V3 pool of it at another price', async () => {
    const id = await chain.snapshot();
    try {
      const before = (await executor.getFunction('priceBound')(
        tokenOf('DAI').address,
        tokenOf('USDC').address,
      )) as bigint;
      const [dai, usdc] = [tokenOf('DAI').address, tokenOf('USDC').address];
      const [token0, token1] = dai.toLowerCase() < usdc.toLowerCase() ? [dai, usdc] : [usdc, dai];
      // Half a dollar per DAI, in a 1 % pool (a fee tier nobody uses for the pair).
      const daiIsToken0 = token0 === dai;
      const price = daiIsToken0 ? 0.5e6 / 1e18 : 1e18 / 0.5e6;
      const sqrtPriceX96 = BigInt(Math.floor(Math.sqrt(price) * 2 ** 48)) * 2n ** 48n;
      const manager = new Contract(world.contracts.uniswapV3PositionManager, V3_POSITION_MANAGER_ABI, trader);
      await mined(
        manager.getFunction('createAndInitializePoolIfNecessary')(token0, token1, 10_000, sqrtPriceX96, {
          gasLimit: 6_000_000n,
        }),
      );
      await chain.increaseTime(DEFAULT_PRICE_BOUND.twapWindow);
      await chain.mine();
      expect(await executor.getFunction('priceBound')(tokenOf('DAI').address, tokenOf('USDC').address)).toBe(
        before,
      );
    } finally {
      await chain.revert(id);
    }
  });

  it('accepts as a token’s pool only the factory’s pool of that token and WETH, and only from the owner', async () => {
    const owner = oracle.connect(keys.deployer.connect(chain.provider)) as Contract;
    const wethUsdc = v3PoolAddress(
      world.contracts.uniswapV3Factory,
      tokenOf('WETH').address,
      tokenOf('USDC').address,
      500,
    );
    await expect(
      owner.getFunction('setOracle').staticCall(tokenOf('DAI').address, 2, wethUsdc),
    ).rejects.toThrow();
    await expect(
      owner.getFunction('setOracle').staticCall(tokenOf('USDC').address, 2, wethUsdc),
    ).resolves.toEqual([]);
    const stranger = oracle.connect(trader) as Contract;
    await expect(
      stranger.getFunction('setOracle').staticCall(tokenOf('USDC').address, 0, wethUsdc),
    ).rejects.toThrow();
  });
});

describe('a pool pumped for one block', () => {
  it('moves the bound by a fraction of the pump, while the spot price moves by all of it', async () => {
    const id = await chain.snapshot();
    try {
      const before = await boundPrice('WETH', 'USDC');
      const router = new Contract(world.contracts.uniswapV3SwapRouter, V3_SWAP_ROUTER_ABI, trader);
      const usdc = new Contract(tokenOf('USDC').address, ERC20_ABI, trader);
      await mined(usdc.getFunction('approve')(world.contracts.uniswapV3SwapRouter, MaxUint256));
      // Buy WETH with a third of the USDC the funded account holds in both V3 pools: the price jumps.
      const spend = parseUnits('1500000', 6);
      for (const fee of [500, 3000]) {
        await mined(
          router.getFunction('exactInputSingle')({
            tokenIn: tokenOf('USDC').address,
            tokenOut: tokenOf('WETH').address,
            fee,
            recipient: trader.address,
            deadline: FAR_DEADLINE,
            amountIn: spend,
            amountOutMinimum: 0n,
            sqrtPriceLimitX96: 0n,
          }),
        );
      }
      // One 12-second block later.
      await chain.increaseTime(12);
      await chain.mine();
      const pool = new Contract(
        world.contracts.uniswapV3QuoterV2,
        [
          'function quoteExactInputSingle((address tokenIn, address tokenOut, uint256 amountIn, uint24 fee, uint160 sqrtPriceLimitX96)) returns (uint256 amountOut, uint160, uint32, uint256)',
        ],
        chain.provider,
      );
      const [spotOut] = (await pool.getFunction('quoteExactInputSingle').staticCall({
        tokenIn: tokenOf('WETH').address,
        tokenOut: tokenOf('USDC').address,
        amountIn: 10n ** 16n,
        fee: 500,
        sqrtPriceLimitX96: 0n,
      })) as [bigint];
      const spot = Number(spotOut) / 1e6 / 0.01;
      const after = await boundPrice('WETH', 'USDC');
      expect(spot / before - 1).toBeGreaterThan(0.2);
      expect(Math.abs(after / before - 1)).toBeLessThan(0.02);
    } finally {
      await chain.revert(id);
    }
  });
});

describe("the keeper's mirror of minimumAtBound", () => {
  it('equals the contract for amounts across magnitudes, at the contract deviation and a tighter one', async () => {
    const priceX128 = (await executor.getFunction('priceBound')(
      tokenOf('WETH').address,
      tokenOf('USDC').address,
    )) as bigint;
    const deviation = BigInt(DEFAULT_PRICE_BOUND.maxDeviationBps);
    for (const amountIn of [1n, 999n, 10n ** 15n, 3n * 10n ** 18n + 7n, 10n ** 30n]) {
      expect(minimumAtBound(amountIn, { priceX128, deviationBps: deviation })).toBe(
        await executor.getFunction('minimumAtBound')(amountIn, priceX128, 0),
      );
      expect(minimumAtBound(amountIn, { priceX128, deviationBps: 50n })).toBe(
        await executor.getFunction('minimumAtBound')(amountIn, priceX128, 50),
      );
    }
  });
});

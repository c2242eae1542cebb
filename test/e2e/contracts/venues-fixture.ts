import { Contract, ContractFactory, MaxUint256, ZeroAddress, id, type Wallet } from 'ethers';
import { loadArtifact } from '../../../contracts-abi/artifacts';
import {
  BALANCER_VAULT_ABI,
  BALANCER_WEIGHTED_POOL_ABI,
  SUSHISWAP_FACTORY_ABI,
  V2_PAIR_ABI,
  V4_SWAP_TEST_ABI,
} from '../../../devnet/world/abis';
import { loadNpmArtifact } from '../../../devnet/world/npm-artifacts';
import { sortTokens } from '../../../devnet/world/uniswap-pool-address';
import { GAS_LIMIT, mined, type ContractsWorld } from './contracts-fixture';

/**
 * Exact expected outputs on the venues beyond Uniswap V2/V3 (SushiSwap V2, Uniswap V4, Balancer V2, our StableSwap),
 * each from the venue itself at the current state: the pair's reserves, v4-core's PoolSwapTest (a real swap run
 * as a call), the Vault's queryBatchSwap, the pool's getDy.
 */

const MIN_SQRT_PRICE_LIMIT = 4295128740n;
const MAX_SQRT_PRICE_LIMIT = 1461446703485210103287273052203988822378723970341n;

export interface V4Key {
  currency0: string;
  currency1: string;
  fee: number;
  tickSpacing: number;
  hooks: string;
}

export function v4Key(a: string, b: string, fee: number, tickSpacing: number): V4Key {
  const [currency0, currency1] = sortTokens(a, b);
  return { currency0, currency1, fee, tickSpacing, hooks: ZeroAddress };
}

/** The two signed 128-bit halves of a V4 BalanceDelta (amount0 high, amount1 low). */
export function splitDelta(delta: bigint): [bigint, bigint] {
  return [BigInt.asIntN(128, delta >> 128n), BigInt.asIntN(128, delta)];
}

export interface VenueKit {
  sushiPair(a: string, b: string): Promise<string>;
  sushiAmountOut(tokenIn: string, tokenOut: string, amountIn: bigint): Promise<bigint>;
  /** The Vault pool id of the weighted factory's pool holding exactly {a, b}. */
  balancerPoolId(a: string, b: string): Promise<string>;
  balancerAmountOut(poolId: string, tokenIn: string, tokenOut: string, amountIn: bigint): Promise<bigint>;
  stablePool(a: string, b: string): Promise<string>;
  stableAmountOut(pool: string, tokenIn: string, tokenOut: string, amountIn: bigint): Promise<bigint>;
  v4AmountOut(
    tokenIn: string,
    tokenOut: string,
    fee: number,
    tickSpacing: number,
    amountIn: bigint,
  ): Promise<bigint>;
  vault: Contract;
  stableFactory: Contract;
}

/**
 * `quoter` runs the V4 quotes as calls (from PoolSwapTest, deployed here): it must hold and approve whatever it
 * quotes, so its TestTokens are topped up by minting, its WETH by wrapping, before each quote.
 */
export async function venueKit(ctx: ContractsWorld, quoter: Wallet): Promise<VenueKit> {
  const c = ctx.world.contracts;
  if (!c.uniswapV4PoolManager) throw new Error('the world has no Uniswap V4 (an engine without Cancun)');
  const sushi = new Contract(c.sushiswapV2Factory, SUSHISWAP_FACTORY_ABI, ctx.provider);
  const vault = new Contract(c.balancerVault, BALANCER_VAULT_ABI, ctx.provider);
  const stableFactory = new Contract(
    c.stableSwapFactory,
    loadArtifact('StableSwapFactory').abi,
    ctx.provider,
  );
  const swapTestArtifact = loadNpmArtifact('PoolSwapTest');
  const deployment = await new ContractFactory(
    swapTestArtifact.abi,
    swapTestArtifact.bytecode,
    quoter,
  ).deploy(c.uniswapV4PoolManager, { gasLimit: GAS_LIMIT });
  await deployment.waitForDeployment();
  const swapTest = new Contract(await deployment.getAddress(), V4_SWAP_TEST_ABI, quoter);

  async function holdForQuote(token: string, amount: bigint): Promise<void> {
    const erc20 = new Contract(token, loadArtifact('WrappedNative').abi, quoter);
    const balance = (await erc20.getFunction('balanceOf')(quoter.address)) as bigint;
    if (balance < amount) {
      if (token === ctx.address('WETH')) {
        await mined(erc20.getFunction('deposit')({ value: amount - balance }));
      } else {
        const testToken = new Contract(token, loadArtifact('TestToken').abi, quoter);
        await mined(testToken.getFunction('mint')(quoter.address, amount - balance));
      }
    }
    // Read, not remembered: tests revert the chain to snapshots in between.
    if (((await erc20.getFunction('allowance')(quoter.address, swapTest.target)) as bigint) < amount) {
      await mined(erc20.getFunction('approve')(swapTest.target, MaxUint256));
    }
  }

  const kit: VenueKit = {
    vault,
    stableFactory,
    sushiPair: (a, b) => sushi.getFunction('getPair')(a, b) as Promise<string>,
    async sushiAmountOut(tokenIn, tokenOut, amountIn) {
      const pair = new Contract(await kit.sushiPair(tokenIn, tokenOut), V2_PAIR_ABI, ctx.provider);
      const [r0, r1] = (await pair.getFunction('getReserves')()) as [bigint, bigint, bigint];
      const [reserveIn, reserveOut] = BigInt(tokenIn) < BigInt(tokenOut) ? [r0, r1] : [r1, r0];
      const withFee = amountIn * 997n;
      return (withFee * reserveOut) / (reserveIn * 1000n + withFee);
    },
    async balancerPoolId(a, b) {
      const logs = await ctx.provider.getLogs({
        address: c.balancerWeightedPoolFactory,
        topics: [id('PoolCreated(address)')],
        fromBlock: 0,
      });
      const wanted = sortTokens(a, b).join();
      for (const log of logs) {
        const pool = new Contract(`0x${log.topics[1]!.slice(26)}`, BALANCER_WEIGHTED_POOL_ABI, ctx.provider);
        const poolId = (await pool.getFunction('getPoolId')()) as string;
        const [tokens] = (await vault.getFunction('getPoolTokens')(poolId)) as [string[]];
        if (tokens.length === 2 && sortTokens(tokens[0]!, tokens[1]!).join() === wanted) return poolId;
      }
      throw new Error(`no weighted pool of ${a}/${b}`);
    },
    async balancerAmountOut(poolId, tokenIn, tokenOut, amountIn) {
      const funds = {
        sender: c.swapRouter,
        fromInternalBalance: false,
        recipient: c.swapRouter,
        toInternalBalance: false,
      };
      const deltas = (await vault
        .getFunction('queryBatchSwap')
        .staticCall(
          0,
          [{ poolId, assetInIndex: 0, assetOutIndex: 1, amount: amountIn, userData: '0x' }],
          [tokenIn, tokenOut],
          funds,
        )) as bigint[];
      if (deltas[0] !== amountIn) throw new Error(`the Vault would take ${deltas[0]}, not ${amountIn}`);
      return -deltas[1]!;
    },
    stablePool: (a, b) => stableFactory.getFunction('getPool')(a, b) as Promise<string>,
    async stableAmountOut(pool, tokenIn, tokenOut, amountIn) {
      const contract = new Contract(pool, loadArtifact('StableSwapPool').abi, ctx.provider);
      const i = BigInt(tokenIn) < BigInt(tokenOut) ? 0 : 1;
      return (await contract.getFunction('getDy')(i, 1 - i, amountIn)) as bigint;
    },
    async v4AmountOut(tokenIn, tokenOut, fee, tickSpacing, amountIn) {
      await holdForQuote(tokenIn, amountIn);
      const zeroForOne = BigInt(tokenIn) < BigInt(tokenOut);
      const delta = (await swapTest.getFunction('swap').staticCall(
        v4Key(tokenIn, tokenOut, fee, tickSpacing),
        {
          zeroForOne,
          amountSpecified: -amountIn,
          sqrtPriceLimitX96: zeroForOne ? MIN_SQRT_PRICE_LIMIT : MAX_SQRT_PRICE_LIMIT,
        },
        { takeClaims: false, settleUsingBurn: false },
        '0x',
      )) as bigint;
      const [amount0, amount1] = splitDelta(delta);
      const [paid, received] = zeroForOne ? [amount0, amount1] : [amount1, amount0];
      if (paid !== -amountIn) throw new Error(`the V4 pool would take ${-paid}, not ${amountIn}`);
      return received;
    },
  };
  return kit;
}

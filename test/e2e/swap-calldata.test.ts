import { Contract, MaxUint256, getAddress, id, type Wallet } from 'ethers';
import { ChainClient } from '../../shared/chain/chain-client';
import { makeRoute } from '../../shared/routing/pathfinding/route';
import type { PoolState, V2PoolState, V3PoolState } from '../../shared/routing/pools/pool-state';
import type { Split } from '../../shared/routing/splitting/best-split';
import {
  buildSwapTransaction,
  simulateSwap,
  type BuildSwapInput,
  type SwapTransaction,
} from '../../shared/routing/swap-calldata';
import { V2_FACTORY_ABI, V2_PAIR_ABI, V3_FACTORY_ABI, V3_POOL_ABI } from '../../devnet/world/abis';
import {
  GAS_LIMIT,
  ZERO_ADDRESS,
  balanceOf,
  call,
  fundedWallets,
  latestTimestamp,
  mined,
  revertTo,
  snapshot,
  startContractsWorld,
  v2AmountOut,
  v3AmountOut,
  type ContractsWorld,
} from './contracts/contracts-fixture';

/** SwapRouter calldata built from splits, dry-run with simulateSwap and sent on a ganache chain. */

jest.setTimeout(120_000);

const NATIVE_LOWER = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const NATIVE_MIXED = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const USDC_UNIT = 10n ** 6n;
const ETHER = 10n ** 18n;
const INTEGRATOR = getAddress(`0x${id('swap-calldata integrator').slice(26)}`);

let ctx: ContractsWorld;
let client: ChainClient;
let user: Wallet;
let other: Wallet;
let usdc: string;
let weth: string;
let wbtc: string;
let pips: bigint;
let baseSnapshot: string;

async function v2Pool(tokenA: string, tokenB: string): Promise<V2PoolState> {
  const factory = new Contract(ctx.world.contracts.uniswapV2Factory, V2_FACTORY_ABI, ctx.provider);
  const address = (await factory.getFunction('getPair')(tokenA, tokenB)) as string;
  const pair = new Contract(address, V2_PAIR_ABI, ctx.provider);
  const [reserve0, reserve1] = (await pair.getFunction('getReserves')()) as [bigint, bigint, bigint];
  const [token0, token1] = [tokenA, tokenB].map((t) => t.toLowerCase()).sort() as [string, string];
  return {
    kind: 'v2',
    sourceId: 'uniswap-v2',
    address: address.toLowerCase(),
    token0,
    token1,
    reserve0,
    reserve1,
    feeBps: 30n,
  };
}

/** A hop needs only the pool's tokens and fee; the price fields are read for completeness, ticks left out. */
async function v3Pool(tokenA: string, tokenB: string, fee: number): Promise<V3PoolState> {
  const factory = new Contract(ctx.world.contracts.uniswapV3Factory, V3_FACTORY_ABI, ctx.provider);
  const address = (await factory.getFunction('getPool')(tokenA, tokenB, fee)) as string;
  const pool = new Contract(address, V3_POOL_ABI, ctx.provider);
  const [sqrtPriceX96, tick] = (await pool.getFunction('slot0')()) as unknown as [bigint, bigint];
  const liquidity = (await pool.getFunction('liquidity')()) as bigint;
  const [token0, token1] = [tokenA, tokenB].map((t) => t.toLowerCase()).sort() as [string, string];
  return {
    kind: 'v3',
    sourceId: 'uniswap-v3',
    address: address.toLowerCase(),
    token0,
    token1,
    fee,
    tickSpacing: fee === 500 ? 10 : 60,
    sqrtPriceX96,
    tick: Number(tick),
    liquidity,
    ticks: [],
  };
}

function split(pools: PoolState[], tokens: string[], amountIn: bigint): Split {
  return {
    route: makeRoute(
      pools,
      tokens.map((t) => t.toLowerCase()),
    ),
    amountIn,
    amountOut: 0n,
  };
}

function fees(gross: bigint, integratorFeeBps: number) {
  const protocolFee = (gross * pips) / 1_000_000n;
  const integratorFee = (gross * BigInt(integratorFeeBps)) / 10_000n;
  return { integratorFee, amountOut: gross - protocolFee - integratorFee };
}

async function input(
  overrides: Partial<BuildSwapInput> & Pick<BuildSwapInput, 'splits'>,
): Promise<BuildSwapInput> {
  return {
    swapRouter: ctx.world.contracts.swapRouter,
    account: user.address,
    tokenIn: usdc,
    tokenOut: weth,
    amountIn: overrides.splits.reduce((a, s) => a + s.amountIn, 0n),
    minAmountOut: 0n,
    deadline: (await latestTimestamp(ctx.provider)) + 600n,
    integratorFeeBps: 0,
    integratorFeeRecipient: ZERO_ADDRESS,
    ...overrides,
  };
}

/** Sends `tx` from `wallet`; returns the native coins it paid in gas. */
async function send(wallet: Wallet, tx: SwapTransaction): Promise<bigint> {
  const receipt = await mined(wallet.sendTransaction({ ...tx, gasLimit: GAS_LIMIT }));
  return receipt.gasUsed * receipt.gasPrice;
}

/** Simulates, checks the simulation against `expected`, sends, and checks the account receives exactly it. */
async function expectSimulatedSwap(tx: SwapTransaction, tokenOut: string, expected: bigint): Promise<void> {
  const simulation = await simulateSwap(client, tx, user.address);
  expect(simulation).toEqual({ ok: true, amountOut: expected });
  const outNative = tokenOut.toLowerCase() === NATIVE_LOWER;
  const before = await balanceOf(ctx, outNative ? NATIVE_MIXED : tokenOut, user.address);
  const gasPaid = await send(user, tx);
  const after = await balanceOf(ctx, outNative ? NATIVE_MIXED : tokenOut, user.address);
  expect(after - before + (outNative ? gasPaid : 0n)).toBe(expected);
  // Nothing stays in the router.
  expect(await balanceOf(ctx, weth, ctx.world.contracts.swapRouter)).toBe(0n);
  expect(await balanceOf(ctx, usdc, ctx.world.contracts.swapRouter)).toBe(0n);
}

beforeAll(async () => {
  ctx = await startContractsWorld();
  client = new ChainClient({ chainId: ctx.world.chainId, name: 'devnet', rpcUrls: [ctx.chain.rpcUrl] });
  [user, other] = ctx.accounts as [Wallet, Wallet];
  [usdc, weth, wbtc] = ['USDC', 'WETH', 'WBTC'].map((s) => ctx.address(s)) as [string, string, string];
  await mined(call(ctx.token('USDC'), user, 'approve', [ctx.world.contracts.spender, MaxUint256]));
  pips = (await ctx.swapRouter.getFunction('protocolFeePips')()) as bigint;
  baseSnapshot = await snapshot(ctx.chain);
});

afterAll(async () => {
  client?.close();
  await ctx?.stop();
});

beforeEach(async () => {
  baseSnapshot = await revertTo(ctx.chain, baseSnapshot);
});

describe('buildSwapTransaction + simulateSwap on the fixture world', () => {
  it('one V2 route with an integrator fee: exact output to the account and the fee to the recipient', async () => {
    const amountIn = 3_000n * USDC_UNIT;
    const tx = buildSwapTransaction(
      await input({
        splits: [split([await v2Pool(usdc, weth)], [usdc, weth], amountIn)],
        integratorFeeBps: 50,
        integratorFeeRecipient: INTEGRATOR,
      }),
    );
    expect(tx.to).toBe(getAddress(ctx.world.contracts.swapRouter));
    expect(tx.value).toBe(0n);
    const expected = fees(await v2AmountOut(ctx, usdc, weth, amountIn), 50);
    expect(expected.integratorFee).toBeGreaterThan(0n);
    const usdcBefore = await balanceOf(ctx, usdc, user.address);
    await expectSimulatedSwap(tx, weth, expected.amountOut);
    expect(await balanceOf(ctx, weth, INTEGRATOR)).toBe(expected.integratorFee);
    expect(usdcBefore - (await balanceOf(ctx, usdc, user.address))).toBe(amountIn);
  });

  it('splits the input across a V2 and a V3 route by the splits’ exact amounts', async () => {
    const [toV2, toV3] = [1_700n * USDC_UNIT + 123n, 1_300n * USDC_UNIT + 7n];
    const tx = buildSwapTransaction(
      await input({
        splits: [
          split([await v2Pool(usdc, weth)], [usdc, weth], toV2),
          split([await v3Pool(weth, usdc, 500)], [usdc, weth], toV3),
        ],
      }),
    );
    // The pools are distinct, so each quote alone is exact.
    const gross =
      (await v2AmountOut(ctx, usdc, weth, toV2)) + (await v3AmountOut(ctx, usdc, weth, 500, toV3));
    await expectSimulatedSwap(tx, weth, fees(gross, 0).amountOut);
  });

  it('runs a 2-hop route USDC → WETH (V2) → WBTC (V3, fee 3000)', async () => {
    const amountIn = 6_000n * USDC_UNIT;
    const tx = buildSwapTransaction(
      await input({
        tokenOut: wbtc,
        splits: [
          split([await v2Pool(usdc, weth), await v3Pool(wbtc, weth, 3000)], [usdc, weth, wbtc], amountIn),
        ],
      }),
    );
    const mid = await v2AmountOut(ctx, usdc, weth, amountIn);
    const gross = await v3AmountOut(ctx, weth, wbtc, 3000, mid);
    await expectSimulatedSwap(tx, wbtc, fees(gross, 0).amountOut);
  });

  it('takes the native coin in (lowercase pseudo-address) over a WETH route', async () => {
    const amountIn = 2n * ETHER;
    const tx = buildSwapTransaction(
      await input({
        tokenIn: NATIVE_LOWER,
        tokenOut: usdc,
        amountIn,
        splits: [split([await v2Pool(weth, usdc)], [weth, usdc], amountIn)],
      }),
    );
    expect(tx.value).toBe(amountIn);
    const expected = fees(await v2AmountOut(ctx, weth, usdc, amountIn), 0).amountOut;
    const ethBefore = await ctx.provider.getBalance(user.address);
    await expectSimulatedSwap(tx, usdc, expected);
    const spent = ethBefore - (await ctx.provider.getBalance(user.address));
    expect(spent).toBeGreaterThan(amountIn);
    expect(spent).toBeLessThan(amountIn + ETHER / 100n);
  });

  it('pays the native coin out (mixed-case pseudo-address) from a WETH route', async () => {
    const amountIn = 3_000n * USDC_UNIT;
    const tx = buildSwapTransaction(
      await input({
        tokenOut: NATIVE_MIXED,
        splits: [split([await v3Pool(usdc, weth, 500)], [usdc, weth], amountIn)],
      }),
    );
    const gross = await v3AmountOut(ctx, usdc, weth, 500, amountIn);
    await expectSimulatedSwap(tx, NATIVE_MIXED, fees(gross, 0).amountOut);
  });

  it('reports InsufficientOutput, Expired, NotAccount and ALLOWANCE_OR_BALANCE', async () => {
    const amountIn = 3_000n * USDC_UNIT;
    const splits = [split([await v2Pool(usdc, weth)], [usdc, weth], amountIn)];
    const achievable = fees(await v2AmountOut(ctx, usdc, weth, amountIn), 0).amountOut;

    const tight = buildSwapTransaction(await input({ splits, minAmountOut: achievable }));
    expect(await simulateSwap(client, tight, user.address)).toEqual({ ok: true, amountOut: achievable });
    const tooHigh = buildSwapTransaction(await input({ splits, minAmountOut: achievable + 1n }));
    expect(await simulateSwap(client, tooHigh, user.address)).toMatchObject({
      ok: false,
      reason: 'InsufficientOutput',
      amountOut: achievable,
    });

    const expired = buildSwapTransaction(
      await input({ splits, deadline: (await latestTimestamp(ctx.provider)) - 1n }),
    );
    expect(await simulateSwap(client, expired, user.address)).toMatchObject({ ok: false, reason: 'Expired' });

    const mine = buildSwapTransaction(await input({ splits }));
    expect(await simulateSwap(client, mine, other.address)).toMatchObject({
      ok: false,
      reason: 'NotAccount',
    });

    // An account holding USDC but without an allowance to the spender, then one with an allowance but no USDC.
    const [unapproved] = await fundedWallets(
      ctx,
      'swap-calldata/unapproved',
      1,
      usdc,
      amountIn,
      ctx.world.contracts.spender,
      0n,
    );
    const [broke] = await fundedWallets(
      ctx,
      'swap-calldata/broke',
      1,
      usdc,
      0n,
      ctx.world.contracts.spender,
      amountIn,
    );
    for (const [wallet, error] of [
      [unapproved!, 'ERC20InsufficientAllowance'],
      [broke!, 'ERC20InsufficientBalance'],
    ] as const) {
      const tx = buildSwapTransaction(await input({ account: wallet.address, splits }));
      expect(await simulateSwap(client, tx, wallet.address)).toEqual({
        ok: false,
        reason: 'ALLOWANCE_OR_BALANCE',
        message: expect.stringContaining(error) as unknown,
      });
    }

    // WETH9 reverts without data: told apart from a route failure by reading balance and allowance.
    expect(await balanceOf(ctx, weth, user.address)).toBeGreaterThan(ETHER);
    const wethIn = buildSwapTransaction(
      await input({
        tokenIn: weth,
        tokenOut: usdc,
        amountIn: ETHER,
        splits: [split([await v2Pool(weth, usdc)], [weth, usdc], ETHER)],
      }),
    );
    expect(await simulateSwap(client, wethIn, user.address)).toMatchObject({
      ok: false,
      reason: 'ALLOWANCE_OR_BALANCE',
    });
    await mined(call(ctx.token('WETH'), user, 'approve', [ctx.world.contracts.spender, ETHER]));
    expect(await simulateSwap(client, wethIn, user.address)).toMatchObject({ ok: true });

    // Native input above the account's balance.
    const nativeIn = 10_000n * ETHER;
    const native = buildSwapTransaction(
      await input({
        account: broke!.address,
        tokenIn: NATIVE_MIXED,
        tokenOut: usdc,
        amountIn: nativeIn,
        splits: [split([await v2Pool(weth, usdc)], [weth, usdc], nativeIn)],
      }),
    );
    expect(await simulateSwap(client, native, broke!.address)).toMatchObject({
      ok: false,
      reason: 'ALLOWANCE_OR_BALANCE',
    });
  });

  it('rejects splits that do not add up or do not connect the tokens', async () => {
    const pool = await v2Pool(usdc, weth);
    await expect(
      (async () =>
        buildSwapTransaction(await input({ amountIn: 2n, splits: [split([pool], [usdc, weth], 1n)] })))(),
    ).rejects.toThrow(RangeError);
    await expect(
      (async () =>
        buildSwapTransaction(await input({ tokenIn: wbtc, splits: [split([pool], [usdc, weth], 1n)] })))(),
    ).rejects.toThrow(RangeError);
    await expect(
      (async () =>
        buildSwapTransaction(await input({ tokenOut: wbtc, splits: [split([pool], [usdc, weth], 1n)] })))(),
    ).rejects.toThrow(RangeError);
  });
});

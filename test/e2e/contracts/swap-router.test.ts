import { Contract, getAddress, id, MaxUint256, type Wallet } from 'ethers';
import {
  balanceOf,
  call,
  decodeRevertData,
  deployTestContract,
  externalHop,
  latestTimestamp,
  mined,
  NATIVE,
  parseLogs,
  revertOf,
  revertTo,
  snapshot,
  startContractsWorld,
  v2AmountOut,
  v2Hop,
  v3AmountOut,
  v3Hop,
  ZERO_ADDRESS,
  type ContractsWorld,
  type RoutePath,
} from './contracts-fixture';

// World deployment takes a few seconds; jest's per-project testTimeout does not apply to hooks run this way.
jest.setTimeout(120_000);

const USDC_UNIT = 10n ** 6n;
const ETHER = 10n ** 18n;
const INTEGRATOR = getAddress(`0x${id('integrator fee recipient').slice(26)}`);

interface SwapParams {
  account: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  minAmountOut: bigint;
  deadline: bigint;
  integratorFeeBps: number;
  integratorFeeRecipient: string;
  paths: RoutePath[];
}

describe('SwapRouter on ganache with the fixture world', () => {
  let ctx: ContractsWorld;
  let user: Wallet;
  let other: Wallet;
  let usdc: string;
  let weth: string;
  let dai: string;
  let wbtc: string;
  let pips: bigint;
  let baseSnapshot: string;

  beforeAll(async () => {
    ctx = await startContractsWorld();
    [user, other] = ctx.accounts as [Wallet, Wallet];
    [usdc, weth, dai, wbtc] = ['USDC', 'WETH', 'DAI', 'WBTC'].map((s) => ctx.address(s)) as [
      string,
      string,
      string,
      string,
    ];
    for (const symbol of ['USDC', 'DAI']) {
      await mined(call(ctx.token(symbol), user, 'approve', [ctx.world.contracts.spender, MaxUint256]));
    }
    pips = (await ctx.swapRouter.getFunction('protocolFeePips')()) as bigint;
    baseSnapshot = await snapshot(ctx.chain);
  });

  afterAll(async () => {
    await ctx?.stop();
  });

  beforeEach(async () => {
    baseSnapshot = await revertTo(ctx.chain, baseSnapshot);
  });

  async function params(overrides: Partial<SwapParams>): Promise<SwapParams> {
    return {
      account: user.address,
      tokenIn: usdc,
      tokenOut: weth,
      amountIn: 3_000n * USDC_UNIT,
      minAmountOut: 0n,
      deadline: (await latestTimestamp(ctx.provider)) + 600n,
      integratorFeeBps: 0,
      integratorFeeRecipient: ZERO_ADDRESS,
      paths: [{ weight: 1n, hops: [v2Hop(weth)] }],
      ...overrides,
    };
  }

  function fees(gross: bigint, integratorFeeBps: number) {
    const protocolFee = (gross * pips) / 1_000_000n;
    const integratorFee = (gross * BigInt(integratorFeeBps)) / 10_000n;
    return { protocolFee, integratorFee, amountOut: gross - protocolFee - integratorFee };
  }

  async function balances(token: string, owners: string[]): Promise<bigint[]> {
    return Promise.all(owners.map((o) => balanceOf(ctx, token, o)));
  }

  it('swaps over a V2 pair and pays protocol and integrator fees exact to the wei', async () => {
    expect(pips).toBe(1500n);
    const p = await params({ integratorFeeBps: 50, integratorFeeRecipient: INTEGRATOR });
    const gross = await v2AmountOut(ctx, usdc, weth, p.amountIn);
    const expected = fees(gross, 50);
    // The exact expected output is also the tightest minimum that passes.
    p.minAmountOut = expected.amountOut;
    const protocolRecipient = ctx.world.protocolFeeRecipient;
    const wethBefore = await balances(weth, [
      user.address,
      protocolRecipient,
      INTEGRATOR,
      ctx.world.contracts.swapRouter,
    ]);
    const usdcBefore = await balanceOf(ctx, usdc, user.address);

    const returned = (await (ctx.swapRouter.connect(user) as Contract)
      .getFunction('swap')
      .staticCall(p)) as bigint;
    expect(returned).toBe(expected.amountOut);
    const receipt = await mined(call(ctx.swapRouter, user, 'swap', [p]));

    const wethAfter = await balances(weth, [
      user.address,
      protocolRecipient,
      INTEGRATOR,
      ctx.world.contracts.swapRouter,
    ]);
    expect(wethAfter[0]! - wethBefore[0]!).toBe(expected.amountOut);
    expect(wethAfter[1]! - wethBefore[1]!).toBe(expected.protocolFee);
    expect(wethAfter[2]! - wethBefore[2]!).toBe(expected.integratorFee);
    expect(wethAfter[3]).toBe(0n);
    expect(usdcBefore - (await balanceOf(ctx, usdc, user.address))).toBe(p.amountIn);
    expect(await balanceOf(ctx, usdc, ctx.world.contracts.swapRouter)).toBe(0n);

    const [event] = parseLogs(ctx.swapRouter, receipt, 'Swapped');
    expect(event?.args.toArray()).toEqual([
      user.address,
      usdc,
      weth,
      p.amountIn,
      gross,
      expected.protocolFee,
      expected.integratorFee,
      expected.amountOut,
      INTEGRATOR,
    ]);
  });

  it('reverts with InsufficientOutput when the output after fees is below minAmountOut', async () => {
    const p = await params({ integratorFeeBps: 30, integratorFeeRecipient: INTEGRATOR });
    const { amountOut } = fees(await v2AmountOut(ctx, usdc, weth, p.amountIn), 30);
    p.minAmountOut = amountOut + 1n;
    expect(await revertOf(ctx.swapRouter, user, 'swap', [p])).toEqual({
      name: 'InsufficientOutput',
      args: [amountOut, amountOut + 1n],
    });
  });

  it('reverts with Expired after the deadline', async () => {
    const p = await params({ deadline: (await latestTimestamp(ctx.provider)) - 1n });
    expect((await revertOf(ctx.swapRouter, user, 'swap', [p])).name).toBe('Expired');
  });

  it('is bound to the account: the same calldata sent by someone else reverts with NotAccount', async () => {
    const p = await params({});
    const before = await balanceOf(ctx, usdc, user.address);
    expect((await revertOf(ctx.swapRouter, other, 'swap', [p])).name).toBe('NotAccount');
    expect(await balanceOf(ctx, usdc, user.address)).toBe(before);
  });

  it('rejects integrator fees above 100 bps or without a recipient, and a zero input', async () => {
    const tooHigh = await params({ integratorFeeBps: 101, integratorFeeRecipient: INTEGRATOR });
    expect((await revertOf(ctx.swapRouter, user, 'swap', [tooHigh])).name).toBe('BadFee');
    const noRecipient = await params({ integratorFeeBps: 10 });
    expect((await revertOf(ctx.swapRouter, user, 'swap', [noRecipient])).name).toBe('BadFee');
    expect((await revertOf(ctx.swapRouter, user, 'swap', [await params({ amountIn: 0n })])).name).toBe(
      'ZeroAmount',
    );
  });

  it('takes native input: wraps msg.value and requires it to equal amountIn', async () => {
    const amountIn = ETHER;
    const p = await params({
      tokenIn: NATIVE,
      tokenOut: usdc,
      amountIn,
      paths: [{ weight: 1n, hops: [v2Hop(usdc)] }],
    });
    const expected = fees(await v2AmountOut(ctx, weth, usdc, amountIn), 0);
    const [ethBefore, usdcBefore] = [
      await balanceOf(ctx, NATIVE, user.address),
      await balanceOf(ctx, usdc, user.address),
    ];

    expect((await revertOf(ctx.swapRouter, user, 'swap', [p], amountIn - 1n)).name).toBe('BadValue');
    const receipt = await mined(call(ctx.swapRouter, user, 'swap', [p], amountIn));

    const gasCost = receipt.gasUsed * receipt.gasPrice;
    expect(ethBefore - (await balanceOf(ctx, NATIVE, user.address))).toBe(amountIn + gasCost);
    expect((await balanceOf(ctx, usdc, user.address)) - usdcBefore).toBe(expected.amountOut);
    expect(await balanceOf(ctx, usdc, ctx.world.protocolFeeRecipient)).toBe(expected.protocolFee);
    expect(await balanceOf(ctx, NATIVE, ctx.world.contracts.swapRouter)).toBe(0n);
  });

  it('refuses native coins sent with an ERC-20 input', async () => {
    expect((await revertOf(ctx.swapRouter, user, 'swap', [await params({})], 1n)).name).toBe('BadValue');
  });

  it('pays native output: unwraps the account part, fees stay in WETH', async () => {
    const p = await params({ tokenOut: NATIVE, integratorFeeBps: 25, integratorFeeRecipient: INTEGRATOR });
    const expected = fees(await v2AmountOut(ctx, usdc, weth, p.amountIn), 25);
    const ethBefore = await balanceOf(ctx, NATIVE, user.address);
    const wethBefore = await balances(weth, [user.address, ctx.world.protocolFeeRecipient, INTEGRATOR]);

    const receipt = await mined(call(ctx.swapRouter, user, 'swap', [p]));

    const gasCost = receipt.gasUsed * receipt.gasPrice;
    expect((await balanceOf(ctx, NATIVE, user.address)) - ethBefore).toBe(expected.amountOut - gasCost);
    const wethAfter = await balances(weth, [user.address, ctx.world.protocolFeeRecipient, INTEGRATOR]);
    expect(wethAfter[0]).toBe(wethBefore[0]);
    expect(wethAfter[1]! - wethBefore[1]!).toBe(expected.protocolFee);
    expect(wethAfter[2]! - wethBefore[2]!).toBe(expected.integratorFee);
    const [event] = parseLogs(ctx.swapRouter, receipt, 'Swapped');
    expect(event?.args.getValue('tokenOut')).toBe(NATIVE);
    expect(await balanceOf(ctx, weth, ctx.world.contracts.swapRouter)).toBe(0n);
  });

  it('splits the input across a V2 and a V3 path by weight, the last path taking the remainder', async () => {
    const amountIn = 3_000n * USDC_UNIT + 1n;
    // 2:1 weights: the V2 path gets floor(2/3), the V3 path the rest (one more unit than a third).
    const v2Share = (amountIn * 2n) / 3n;
    const v3Share = amountIn - v2Share;
    const gross =
      (await v2AmountOut(ctx, usdc, weth, v2Share)) + (await v3AmountOut(ctx, usdc, weth, 500, v3Share));
    const p = await params({
      amountIn,
      paths: [
        { weight: 2n, hops: [v2Hop(weth)] },
        { weight: 1n, hops: [v3Hop(weth, 500)] },
      ],
    });
    const before = await balanceOf(ctx, weth, user.address);
    const receipt = await mined(call(ctx.swapRouter, user, 'swap', [p]));
    expect((await balanceOf(ctx, weth, user.address)) - before).toBe(fees(gross, 0).amountOut);
    expect(parseLogs(ctx.swapRouter, receipt, 'Swapped')[0]?.args.getValue('grossAmountOut')).toBe(gross);
    expect(await balanceOf(ctx, usdc, ctx.world.contracts.swapRouter)).toBe(0n);
  });

  it('runs a multi-hop path: V2 (USDC to WETH) then V3 (WETH to WBTC)', async () => {
    const p = await params({
      tokenOut: wbtc,
      paths: [{ weight: 1n, hops: [v2Hop(weth), v3Hop(wbtc, 3000)] }],
    });
    const viaWeth = await v2AmountOut(ctx, usdc, weth, p.amountIn);
    const gross = await v3AmountOut(ctx, weth, wbtc, 3000, viaWeth);
    const before = await balanceOf(ctx, wbtc, user.address);
    await mined(call(ctx.swapRouter, user, 'swap', [p]));
    expect((await balanceOf(ctx, wbtc, user.address)) - before).toBe(fees(gross, 0).amountOut);
    expect(await balanceOf(ctx, weth, ctx.world.contracts.swapRouter)).toBe(0n);
  });

  it('reverts with BadPath for a missing pool, a path ending in another token, or an unknown hop kind', async () => {
    const uni = ctx.address('UNI');
    const noPair = await params({ tokenOut: uni, paths: [{ weight: 1n, hops: [v2Hop(uni)] }] });
    expect((await revertOf(ctx.swapRouter, user, 'swap', [noPair])).name).toBe('BadPath');
    const noPool = await params({ paths: [{ weight: 1n, hops: [v3Hop(weth, 10_000)] }] });
    expect((await revertOf(ctx.swapRouter, user, 'swap', [noPool])).name).toBe('BadPath');
    const wrongEnd = await params({ tokenOut: dai, paths: [{ weight: 1n, hops: [v2Hop(weth)] }] });
    expect((await revertOf(ctx.swapRouter, user, 'swap', [wrongEnd])).name).toBe('BadPath');
    const badKind = await params({ paths: [{ weight: 1n, hops: [{ ...v2Hop(weth), kind: 7 }] }] });
    expect((await revertOf(ctx.swapRouter, user, 'swap', [badKind])).name).toBe('BadPath');
    expect((await revertOf(ctx.swapRouter, user, 'swap', [await params({ paths: [] })])).name).toBe(
      'BadPath',
    );
  });

  describe('external sources', () => {
    let source: Contract;
    const sourceOut = 2_999n * ETHER;

    beforeEach(async () => {
      source = await deployTestContract(ctx, 'TestExternalSource');
      await mined(
        call(ctx.token('DAI'), ctx.accounts[3]!, 'mint', [await source.getAddress(), 10n * sourceOut]),
      );
    });

    function fillData(amountIn: bigint, amountOut: bigint): string {
      return source.interface.encodeFunctionData('fill', [usdc, dai, amountIn, amountOut]);
    }

    it('runs a whitelisted source and measures what it paid', async () => {
      const target = await source.getAddress();
      await mined(call(ctx.swapRouter, ctx.deployer, 'setSourceWhitelisted', [target, true]));
      expect(await ctx.swapRouter.getFunction('isWhitelistedSource')(target)).toBe(true);
      const amountIn = 3_000n * USDC_UNIT;
      const p = await params({
        tokenOut: dai,
        amountIn,
        paths: [{ weight: 1n, hops: [externalHop(dai, target, fillData(amountIn, sourceOut))] }],
      });
      const before = await balanceOf(ctx, dai, user.address);
      await mined(call(ctx.swapRouter, user, 'swap', [p]));
      expect((await balanceOf(ctx, dai, user.address)) - before).toBe(fees(sourceOut, 0).amountOut);
      expect(await balanceOf(ctx, usdc, target)).toBe(amountIn);
      const allowance = (await ctx.token('USDC').getFunction('allowance')(
        ctx.world.contracts.swapRouter,
        target,
      )) as bigint;
      expect(allowance).toBe(0n);
    });

    it('reverts with PartialFill when the source takes less than its share', async () => {
      const target = await source.getAddress();
      await mined(call(ctx.swapRouter, ctx.deployer, 'setSourceWhitelisted', [target, true]));
      const amountIn = 3_000n * USDC_UNIT;
      const p = await params({
        tokenOut: dai,
        amountIn,
        paths: [{ weight: 1n, hops: [externalHop(dai, target, fillData(amountIn - 1n, sourceOut))] }],
      });
      expect((await revertOf(ctx.swapRouter, user, 'swap', [p])).name).toBe('PartialFill');
    });

    it('reverts with SourceNotWhitelisted for a target the owner did not whitelist', async () => {
      const target = await source.getAddress();
      const amountIn = 3_000n * USDC_UNIT;
      const p = await params({
        tokenOut: dai,
        amountIn,
        paths: [{ weight: 1n, hops: [externalHop(dai, target, fillData(amountIn, sourceOut))] }],
      });
      expect(await revertOf(ctx.swapRouter, user, 'swap', [p])).toEqual({
        name: 'SourceNotWhitelisted',
        args: [target],
      });
    });

    it('blocks a source that reenters swap (ReentrancyGuard)', async () => {
      const target = await source.getAddress();
      await mined(call(ctx.swapRouter, ctx.deployer, 'setSourceWhitelisted', [target, true]));
      const inner = await params({ account: target, amountIn: 1n });
      const reenter = ctx.swapRouter.interface.encodeFunctionData('swap', [inner]);
      await mined(call(source, ctx.accounts[3]!, 'setReentry', [ctx.world.contracts.swapRouter, reenter]));
      const amountIn = 3_000n * USDC_UNIT;
      const p = await params({
        tokenOut: dai,
        amountIn,
        paths: [{ weight: 1n, hops: [externalHop(dai, target, fillData(amountIn, sourceOut))] }],
      });
      expect((await revertOf(ctx.swapRouter, user, 'swap', [p])).name).toBe('ReentrancyGuardReentrantCall');
    });
  });

  describe('contract accounts receiving native output', () => {
    let caller: Contract;
    let callerAddress: string;

    beforeEach(async () => {
      caller = await deployTestContract(ctx, 'TestSwapCaller');
      callerAddress = await caller.getAddress();
      await mined(call(ctx.token('USDC'), ctx.accounts[3]!, 'mint', [callerAddress, 10_000n * USDC_UNIT]));
      await mined(call(caller, ctx.accounts[3]!, 'approve', [usdc, ctx.world.contracts.spender, MaxUint256]));
    });

    it('cannot reenter from its receive hook: the attempt fails, the outer swap completes', async () => {
      const inner = await params({ account: callerAddress, amountIn: USDC_UNIT });
      const reenter = ctx.swapRouter.interface.encodeFunctionData('swap', [inner]);
      await mined(
        call(caller, ctx.accounts[3]!, 'setReceiveMode', [2, ctx.world.contracts.swapRouter, reenter]),
      );
      const p = await params({ account: callerAddress, tokenOut: NATIVE });
      const expected = fees(await v2AmountOut(ctx, usdc, weth, p.amountIn), 0);
      const outer = ctx.swapRouter.interface.encodeFunctionData('swap', [p]);

      await mined(call(caller, ctx.accounts[3]!, 'execute', [ctx.world.contracts.swapRouter, outer]));

      expect(await balanceOf(ctx, NATIVE, callerAddress)).toBe(expected.amountOut);
      expect(await balanceOf(ctx, usdc, callerAddress)).toBe(10_000n * USDC_UNIT - p.amountIn);
      expect(await caller.getFunction('reentryAttempts')()).toBe(1n);
      const reentryError = (await caller.getFunction('lastReentryError')()) as string;
      expect(decodeRevertData(reentryError).name).toBe('ReentrancyGuardReentrantCall');
    });

    it('reverts with NativeTransferFailed when the account refuses the coins', async () => {
      await mined(call(caller, ctx.accounts[3]!, 'setReceiveMode', [1, ZERO_ADDRESS, '0x']));
      const p = await params({ account: callerAddress, tokenOut: NATIVE });
      const outer = ctx.swapRouter.interface.encodeFunctionData('swap', [p]);
      const decoded = await revertOf(caller, ctx.accounts[3]!, 'execute', [
        ctx.world.contracts.swapRouter,
        outer,
      ]);
      expect(decoded.name).toBe('NativeTransferFailed');
    });
  });

  it('pays only genuine pools of the configured factory from uniswapV3SwapCallback', async () => {
    const data = ctx.swapRouter.interface
      .getAbiCoder()
      .encode(['address', 'address', 'uint24'], [usdc, weth, 500]);
    const decoded = await revertOf(ctx.swapRouter, user, 'uniswapV3SwapCallback', [1n, 0n, data]);
    expect(decoded.name).toBe('NotPool');
  });

  describe('owner settings', () => {
    it('changes the protocol fee (owner only, at most 10,000 pips, recipient required)', async () => {
      await mined(call(ctx.swapRouter, ctx.deployer, 'setProtocolFee', [0, ZERO_ADDRESS]));
      const p = await params({});
      const gross = await v2AmountOut(ctx, usdc, weth, p.amountIn);
      const before = await balanceOf(ctx, weth, user.address);
      await mined(call(ctx.swapRouter, user, 'swap', [p]));
      expect((await balanceOf(ctx, weth, user.address)) - before).toBe(gross);

      expect(
        (await revertOf(ctx.swapRouter, ctx.deployer, 'setProtocolFee', [10_001, INTEGRATOR])).name,
      ).toBe('BadFee');
      expect((await revertOf(ctx.swapRouter, ctx.deployer, 'setProtocolFee', [10, ZERO_ADDRESS])).name).toBe(
        'BadFee',
      );
      expect(await revertOf(ctx.swapRouter, user, 'setProtocolFee', [10, INTEGRATOR])).toEqual({
        name: 'OwnableUnauthorizedAccount',
        args: [user.address],
      });
    });

    it('whitelists sources for the owner only, never the router itself or the spender', async () => {
      expect((await revertOf(ctx.swapRouter, user, 'setSourceWhitelisted', [INTEGRATOR, true])).name).toBe(
        'OwnableUnauthorizedAccount',
      );
      for (const forbidden of [ctx.world.contracts.spender, ctx.world.contracts.swapRouter]) {
        expect(
          await revertOf(ctx.swapRouter, ctx.deployer, 'setSourceWhitelisted', [forbidden, true]),
        ).toEqual({
          name: 'ForbiddenSource',
          args: [forbidden],
        });
      }
    });
  });

  describe('TokenSpender', () => {
    it('lets only allowed callers pull, and only the owner set callers', async () => {
      expect(await ctx.spender.getFunction('isCaller')(ctx.world.contracts.swapRouter)).toBe(true);
      expect(await ctx.spender.getFunction('isCaller')(other.address)).toBe(false);
      expect(await revertOf(ctx.spender, other, 'pull', [usdc, user.address, other.address, 1n])).toEqual({
        name: 'NotCaller',
        args: [other.address],
      });
      expect(await revertOf(ctx.spender, other, 'setCaller', [other.address, true])).toEqual({
        name: 'OwnableUnauthorizedAccount',
        args: [other.address],
      });
    });
  });
});

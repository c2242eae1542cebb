import { MaxUint256, TypedDataEncoder, id, type TransactionReceipt, type Wallet } from 'ethers';
import {
  balanceOf,
  call,
  deployTestContract,
  externalHop,
  fundedWallets,
  latestTimestamp,
  mined,
  NATIVE,
  orderExecutorDomain,
  orderId,
  parseLogs,
  revertOf,
  revertTo,
  signPair,
  snapshot,
  startContractsWorld,
  v2AmountOut,
  v2Hop,
  ZERO_ADDRESS,
  type ContractsWorld,
  type GroupInput,
  type OrderInput,
} from './contracts-fixture';

// World deployment and maker set-up take a few seconds; jest's per-project testTimeout does not apply here.
jest.setTimeout(120_000);

const USDC = 10n ** 6n;
const ETHER = 10n ** 18n;
const MAX_FEE_BPS = 500n;

interface Outcome {
  executed: Map<string, { maker: string; amountIn: bigint; fee: bigint; amountOut: bigint }>;
  failed: Map<string, string>;
}

describe('OrderExecutor on ganache with the fixture world', () => {
  let ctx: ContractsWorld;
  let executor: Wallet;
  let usdc: string;
  let weth: string;
  let dai: string;
  /** 100,000 USDC each, allowance 1,000,000 USDC to the OrderExecutor. */
  let makers: Wallet[];
  /** 100,000 USDC, allowance 10 USDC. */
  let lowAllowance: Wallet;
  /** 10 USDC, allowance 1,000,000 USDC. */
  let lowBalance: Wallet;
  /** 100,000 DAI each, allowance 1,000,000 DAI. */
  let daiMakers: Wallet[];
  let baseSnapshot: string;
  let counter = 0;

  beforeAll(async () => {
    ctx = await startContractsWorld();
    executor = ctx.executor;
    [usdc, weth, dai] = ['USDC', 'WETH', 'DAI'].map((s) => ctx.address(s)) as [string, string, string];
    const oe = ctx.world.contracts.orderExecutor;
    makers = await fundedWallets(ctx, 'usdc-maker', 4, usdc, 100_000n * USDC, oe, 1_000_000n * USDC);
    [lowAllowance] = await fundedWallets(ctx, 'low-allowance', 1, usdc, 100_000n * USDC, oe, 10n * USDC);
    [lowBalance] = await fundedWallets(ctx, 'low-balance', 1, usdc, 10n * USDC, oe, 1_000_000n * USDC);
    daiMakers = await fundedWallets(ctx, 'dai-maker', 2, dai, 100_000n * ETHER, oe, 1_000_000n * ETHER);
    baseSnapshot = await snapshot(ctx.chain);
  });

  afterAll(async () => {
    await ctx?.stop();
  });

  beforeEach(async () => {
    baseSnapshot = await revertTo(ctx.chain, baseSnapshot);
  });

  async function order(
    maker: Wallet,
    tokenIn: string,
    tokenOut: string,
    amountIn: bigint,
    opts: Partial<OrderInput> & { signer?: Wallet } = {},
  ): Promise<OrderInput> {
    const { signer, ...rest } = opts;
    return {
      id: orderId(`order-${++counter}`),
      maker: maker.address,
      amountIn,
      fee: amountIn / 1000n,
      minAmountOut: 0n,
      signature: await signPair(ctx, signer ?? maker, maker.address, tokenIn, tokenOut),
      ...rest,
    };
  }

  async function deadline(): Promise<bigint> {
    return (await latestTimestamp(ctx.provider)) + 600n;
  }

  async function execute(groups: GroupInput[], batchDeadline?: bigint): Promise<TransactionReceipt> {
    return mined(
      call(ctx.orderExecutor, executor, 'executeBatch', [groups, batchDeadline ?? (await deadline())]),
    );
  }

  function outcome(receipt: TransactionReceipt): Outcome {
    const executed: Outcome['executed'] = new Map();
    for (const e of parseLogs(ctx.orderExecutor, receipt, 'OrderExecuted')) {
      executed.set(e.args.getValue('id') as string, {
        maker: e.args.getValue('maker') as string,
        amountIn: e.args.getValue('amountIn') as bigint,
        fee: e.args.getValue('fee') as bigint,
        amountOut: e.args.getValue('amountOut') as bigint,
      });
    }
    const failed: Outcome['failed'] = new Map();
    for (const e of parseLogs(ctx.orderExecutor, receipt, 'OrderFailed')) {
      failed.set(e.args.getValue('id') as string, e.args.getValue('reason') as string);
    }
    return { executed, failed };
  }

  /** Pro-rata shares of `gross` as the contract computes them: the last order takes the remainder. */
  function shares(gross: bigint, amounts: bigint[]): bigint[] {
    const total = amounts.reduce((a, b) => a + b, 0n);
    const out = amounts.map((a) => (gross * a) / total);
    out[out.length - 1] = gross - out.slice(0, -1).reduce((a, b) => a + b, 0n);
    return out;
  }

  async function snapshotBalances(token: string, owners: string[]): Promise<bigint[]> {
    return Promise.all(owners.map((o) => balanceOf(ctx, token, o)));
  }

  const usdcToWeth = (orders: OrderInput[]): GroupInput => ({
    tokenIn: usdc,
    tokenOut: weth,
    paths: [{ weight: 1n, hops: [v2Hop(weth)] }],
    orders,
  });

  it('reverts the whole call for a caller that is not a registered executor', async () => {
    const o = await order(makers[0]!, usdc, weth, 1_000n * USDC);
    const args = [[usdcToWeth([o])], await deadline()];
    expect((await revertOf(ctx.orderExecutor, ctx.accounts[0]!, 'executeBatch', args)).name).toBe(
      'NotExecutor',
    );
    expect(await ctx.orderExecutor.getFunction('isExecutor')(executor.address)).toBe(true);
    expect(await ctx.orderExecutor.getFunction('isExecutor')(ctx.accounts[0]!.address)).toBe(false);
  });

  it('fails only the orders with a bad signature, another pair, low allowance or low balance', async () => {
    const [m0, m1, m2] = makers as [Wallet, Wallet, Wallet];
    const good1 = await order(m0, usdc, weth, 1_000n * USDC, { fee: 2n * USDC, minAmountOut: 1n });
    const wrongSigner = await order(m1, usdc, weth, 500n * USDC, { signer: m2 });
    const otherPair = await order(m1, usdc, weth, 500n * USDC, {
      signature: await signPair(ctx, m1, m1.address, usdc, dai),
    });
    const allowance = await order(lowAllowance, usdc, weth, 500n * USDC);
    const balance = await order(lowBalance, usdc, weth, 500n * USDC);
    const good2 = await order(m2, usdc, weth, 2_345_678_901n, { fee: 1_234_567n });
    const orders = [good1, wrongSigner, otherPair, allowance, balance, good2];

    const gross = await v2AmountOut(ctx, usdc, weth, good1.amountIn + good2.amountIn);
    const [share1, share2] = shares(gross, [good1.amountIn, good2.amountIn]) as [bigint, bigint];
    const owners = [m0, m1, m2, lowAllowance, lowBalance].map((w) => w.address);
    const oe = ctx.world.contracts.orderExecutor;
    const usdcBefore = await snapshotBalances(usdc, [...owners, ctx.world.feeCollector]);
    const wethBefore = await snapshotBalances(weth, owners);

    const receipt = await execute([usdcToWeth(orders)]);

    const { executed, failed } = outcome(receipt);
    expect(failed).toEqual(
      new Map([
        [wrongSigner.id, 'BAD_SIGNATURE'],
        [otherPair.id, 'BAD_SIGNATURE'],
        [allowance.id, 'INSUFFICIENT_ALLOWANCE'],
        [balance.id, 'INSUFFICIENT_BALANCE'],
      ]),
    );
    expect(executed).toEqual(
      new Map([
        [good1.id, { maker: m0.address, amountIn: good1.amountIn, fee: good1.fee, amountOut: share1 }],
        [good2.id, { maker: m2.address, amountIn: good2.amountIn, fee: good2.fee, amountOut: share2 }],
      ]),
    );
    const usdcAfter = await snapshotBalances(usdc, [...owners, ctx.world.feeCollector]);
    const wethAfter = await snapshotBalances(weth, owners);
    expect(usdcBefore.map((b, i) => b - usdcAfter[i]!)).toEqual([
      good1.amountIn + good1.fee,
      0n,
      good2.amountIn + good2.fee,
      0n,
      0n,
      -(good1.fee + good2.fee),
    ]);
    expect(wethAfter.map((b, i) => b - wethBefore[i]!)).toEqual([share1, 0n, share2, 0n, 0n]);
    expect(await snapshotBalances(usdc, [oe])).toEqual([0n]);
    expect(await snapshotBalances(weth, [oe])).toEqual([0n]);
    // The fees of the group leave in one transfer.
    const feeTransfers = receipt.logs.filter(
      (l) =>
        l.address === usdc &&
        l.topics[0] === id('Transfer(address,address,uint256)') &&
        l.topics[2]?.endsWith(ctx.world.feeCollector.slice(2).toLowerCase()),
    );
    expect(feeTransfers).toHaveLength(1);
    expect(await ctx.orderExecutor.getFunction('executed')(good1.id)).toBe(true);
    expect(await ctx.orderExecutor.getFunction('executed')(wrongSigner.id)).toBe(false);
  });

  it('fails an id that was already executed with ALREADY_EXECUTED, in a later batch or a later group', async () => {
    const first = await order(makers[0]!, usdc, weth, 1_000n * USDC);
    await execute([usdcToWeth([first])]);
    const before = await balanceOf(ctx, usdc, makers[0]!.address);
    const fresh = await order(makers[1]!, usdc, weth, 1_000n * USDC);
    const again = await order(makers[2]!, usdc, weth, 1_000n * USDC, { id: fresh.id });

    const { executed, failed } = outcome(await execute([usdcToWeth([first, fresh]), usdcToWeth([again])]));

    expect([...executed.keys()]).toEqual([fresh.id]);
    expect(failed).toEqual(
      new Map([
        [first.id, 'ALREADY_EXECUTED'],
        [fresh.id, 'ALREADY_EXECUTED'],
      ]),
    );
    expect(await balanceOf(ctx, usdc, makers[0]!.address)).toBe(before);
    expect(await balanceOf(ctx, usdc, makers[2]!.address)).toBe(100_000n * USDC);
  });

  it('caps the fee at maxFeeBps (FEE_TOO_HIGH above, executed at the cap) and refuses ZERO_AMOUNT', async () => {
    expect(await ctx.orderExecutor.getFunction('maxFeeBps')()).toBe(MAX_FEE_BPS);
    const amountIn = 1_000n * USDC + 7n;
    const cap = (amountIn * MAX_FEE_BPS) / 10_000n;
    const tooHigh = await order(makers[0]!, usdc, weth, amountIn, { fee: cap + 1n });
    const atCap = await order(makers[1]!, usdc, weth, amountIn, { fee: cap });
    const zero = await order(makers[2]!, usdc, weth, 0n, { fee: 0n });
    const collectorBefore = await balanceOf(ctx, usdc, ctx.world.feeCollector);

    const { executed, failed } = outcome(await execute([usdcToWeth([tooHigh, atCap, zero])]));

    expect(failed).toEqual(
      new Map([
        [tooHigh.id, 'FEE_TOO_HIGH'],
        [zero.id, 'ZERO_AMOUNT'],
      ]),
    );
    expect(executed.get(atCap.id)?.fee).toBe(cap);
    expect((await balanceOf(ctx, usdc, ctx.world.feeCollector)) - collectorBefore).toBe(cap);
    expect(await balanceOf(ctx, usdc, makers[0]!.address)).toBe(100_000n * USDC);
  });

  it('fails absurd amounts as single orders instead of reverting the batch on an overflow', async () => {
    const huge = await order(makers[0]!, usdc, weth, MaxUint256, { fee: 1n });
    const hugeNoFee = await order(makers[1]!, usdc, weth, MaxUint256, { fee: 0n });
    const good = await order(makers[2]!, usdc, weth, 1_000n * USDC);
    const { executed, failed } = outcome(await execute([usdcToWeth([huge, hugeNoFee, good])]));
    expect(failed).toEqual(
      new Map([
        [huge.id, 'INSUFFICIENT_BALANCE'],
        [hugeNoFee.id, 'INSUFFICIENT_BALANCE'],
      ]),
    );
    expect([...executed.keys()]).toEqual([good.id]);
  });

  it('fails every order with DEADLINE once the batch deadline has passed', async () => {
    const orders = [
      await order(makers[0]!, usdc, weth, 1_000n * USDC),
      await order(makers[1]!, usdc, weth, 1n * USDC),
    ];
    const { executed, failed } = outcome(
      await execute([usdcToWeth(orders)], (await latestTimestamp(ctx.provider)) - 1n),
    );
    expect(executed.size).toBe(0);
    expect([...failed.values()]).toEqual(['DEADLINE', 'DEADLINE']);
    expect(await balanceOf(ctx, usdc, makers[0]!.address)).toBe(100_000n * USDC);
  });

  it('fails a group whose minimum cannot be met with INSUFFICIENT_OUTPUT while another group executes', async () => {
    const [m0, m1] = makers as [Wallet, Wallet];
    const a = await order(m0, usdc, weth, 3_000n * USDC);
    const b = await order(m1, usdc, weth, 1_500n * USDC);
    const [shareA] = shares(await v2AmountOut(ctx, usdc, weth, a.amountIn + b.amountIn), [
      a.amountIn,
      b.amountIn,
    ]);
    a.minAmountOut = shareA! + 1n;
    const [d0, d1] = daiMakers as [Wallet, Wallet];
    const c = await order(d0, dai, usdc, 1_000n * ETHER, { fee: ETHER });
    const d = await order(d1, dai, usdc, 3_333n * ETHER, { fee: 0n });
    const grossUsdc = await v2AmountOut(ctx, dai, usdc, c.amountIn + d.amountIn);
    const [shareC, shareD] = shares(grossUsdc, [c.amountIn, d.amountIn]) as [bigint, bigint];
    const daiGroup: GroupInput = {
      tokenIn: dai,
      tokenOut: usdc,
      paths: [{ weight: 1n, hops: [v2Hop(usdc)] }],
      orders: [c, d],
    };
    const usdcBefore = await snapshotBalances(usdc, [m0.address, m1.address, d0.address, d1.address]);

    const { executed, failed } = outcome(await execute([usdcToWeth([a, b]), daiGroup]));

    expect(failed).toEqual(
      new Map([
        [a.id, 'INSUFFICIENT_OUTPUT'],
        [b.id, 'INSUFFICIENT_OUTPUT'],
      ]),
    );
    expect(executed.get(c.id)?.amountOut).toBe(shareC);
    expect(executed.get(d.id)?.amountOut).toBe(shareD);
    const usdcAfter = await snapshotBalances(usdc, [m0.address, m1.address, d0.address, d1.address]);
    expect(usdcAfter.map((x, i) => x - usdcBefore[i]!)).toEqual([0n, 0n, shareC, shareD]);
    expect(await balanceOf(ctx, dai, d0.address)).toBe(100_000n * ETHER - c.amountIn - c.fee);
    expect(await ctx.orderExecutor.getFunction('executed')(a.id)).toBe(false);
    expect(await ctx.orderExecutor.getFunction('executed')(c.id)).toBe(true);
  });

  it('fails a group whose swap reverts with SWAP_FAILED and moves nothing', async () => {
    const uni = ctx.address('UNI');
    const o = await order(makers[0]!, usdc, uni, 1_000n * USDC);
    const group: GroupInput = {
      tokenIn: usdc,
      tokenOut: uni,
      paths: [{ weight: 1n, hops: [v2Hop(uni)] }],
      orders: [o],
    };
    const { failed } = outcome(await execute([group]));
    expect(failed).toEqual(new Map([[o.id, 'SWAP_FAILED']]));
    expect(await balanceOf(ctx, usdc, makers[0]!.address)).toBe(100_000n * USDC);
    expect(await ctx.orderExecutor.getFunction('executed')(o.id)).toBe(false);
  });

  it('pays native tokenOut as coins, each maker its exact share', async () => {
    const [m0, m1] = makers as [Wallet, Wallet];
    const a = await order(m0, usdc, NATIVE, 2_000n * USDC);
    const b = await order(m1, usdc, NATIVE, 1_001n * USDC);
    const gross = await v2AmountOut(ctx, usdc, weth, a.amountIn + b.amountIn);
    const [shareA, shareB] = shares(gross, [a.amountIn, b.amountIn]) as [bigint, bigint];
    const ethBefore = await snapshotBalances(NATIVE, [m0.address, m1.address]);

    const { executed } = outcome(
      await execute([
        { tokenIn: usdc, tokenOut: NATIVE, paths: [{ weight: 1n, hops: [v2Hop(weth)] }], orders: [a, b] },
      ]),
    );

    expect(executed.get(a.id)?.amountOut).toBe(shareA);
    const ethAfter = await snapshotBalances(NATIVE, [m0.address, m1.address]);
    expect(ethAfter.map((x, i) => x - ethBefore[i]!)).toEqual([shareA, shareB]);
    expect(await snapshotBalances(NATIVE, [ctx.world.contracts.orderExecutor])).toEqual([0n]);
    expect(await snapshotBalances(weth, [ctx.world.contracts.orderExecutor])).toEqual([0n]);
  });

  it('fails the group (SWAP_FAILED) when a whitelisted source tries to reenter executeBatch', async () => {
    const source = await deployTestContract(ctx, 'TestExternalSource');
    const target = await source.getAddress();
    await mined(call(ctx.token('DAI'), ctx.accounts[3]!, 'mint', [target, 10_000n * ETHER]));
    await mined(call(ctx.orderExecutor, ctx.deployer, 'setSourceWhitelisted', [target, true]));
    // The reentrant call comes from the source, which is not an executor: the guard must stop it first either way.
    const reenter = ctx.orderExecutor.interface.encodeFunctionData('executeBatch', [[], 0n]);
    await mined(call(source, ctx.accounts[3]!, 'setReentry', [ctx.world.contracts.orderExecutor, reenter]));
    const o = await order(makers[0]!, usdc, dai, 1_000n * USDC);
    const fill = source.interface.encodeFunctionData('fill', [usdc, dai, o.amountIn, 999n * ETHER]);
    const group: GroupInput = {
      tokenIn: usdc,
      tokenOut: dai,
      paths: [{ weight: 1n, hops: [externalHop(dai, target, fill)] }],
      orders: [o],
    };

    expect(outcome(await execute([group])).failed).toEqual(new Map([[o.id, 'SWAP_FAILED']]));
    expect(await balanceOf(ctx, usdc, makers[0]!.address)).toBe(100_000n * USDC);

    await mined(call(source, ctx.accounts[3]!, 'setReentry', [ZERO_ADDRESS, '0x']));
    const ok = await order(makers[0]!, usdc, dai, 1_000n * USDC);
    const { executed } = outcome(await execute([{ ...group, orders: [ok] }]));
    expect(executed.get(ok.id)?.amountOut).toBe(999n * ETHER);
  });

  it('accepts settleGroup only from itself', async () => {
    const settlement = {
      id: orderId('x'),
      maker: makers[0]!.address,
      amountIn: 1n,
      fee: 0n,
      minAmountOut: 0n,
    };
    const args = [usdc, weth, [{ weight: 1n, hops: [v2Hop(weth)] }], [settlement]];
    expect((await revertOf(ctx.orderExecutor, executor, 'settleGroup', args)).name).toBe('NotSelf');
  });

  it('exposes the EIP-712 domain and type hash that wallets sign against', async () => {
    expect(await ctx.orderExecutor.getFunction('domainSeparator')()).toBe(
      TypedDataEncoder.hashDomain(orderExecutorDomain(ctx)),
    );
    expect(await ctx.orderExecutor.getFunction('PAIR_AUTHORIZATION_TYPEHASH')()).toBe(
      id('PairAuthorization(address maker,address tokenIn,address tokenOut)'),
    );
  });

  it('keeps executors, fee collector and fee cap owner-managed and bounded', async () => {
    const outsider = ctx.accounts[0]!;
    expect((await revertOf(ctx.orderExecutor, outsider, 'setExecutor', [outsider.address, true])).name).toBe(
      'OwnableUnauthorizedAccount',
    );
    expect((await revertOf(ctx.orderExecutor, ctx.deployer, 'setMaxFeeBps', [1001])).name).toBe('BadConfig');
    expect((await revertOf(ctx.orderExecutor, ctx.deployer, 'setFeeCollector', [ZERO_ADDRESS])).name).toBe(
      'BadConfig',
    );
    await mined(call(ctx.orderExecutor, ctx.deployer, 'setMaxFeeBps', [1000]));
    await mined(call(ctx.orderExecutor, ctx.deployer, 'setFeeCollector', [outsider.address]));
    await mined(call(ctx.orderExecutor, ctx.deployer, 'setExecutor', [executor.address, false]));
    expect(await ctx.orderExecutor.getFunction('maxFeeBps')()).toBe(1000n);
    expect(await ctx.orderExecutor.getFunction('feeCollector')()).toBe(outsider.address);
    const o = await order(makers[0]!, usdc, weth, 1_000n * USDC);
    expect(
      (await revertOf(ctx.orderExecutor, executor, 'executeBatch', [[usdcToWeth([o])], await deadline()]))
        .name,
    ).toBe('NotExecutor');
  });
});

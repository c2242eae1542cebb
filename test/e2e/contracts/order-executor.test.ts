import {
  AbiCoder,
  Contract,
  ContractFactory,
  MaxUint256,
  TypedDataEncoder,
  id,
  type TransactionReceipt,
  type Wallet,
} from 'ethers';
import { loadArtifact } from '../../../contracts-abi/artifacts';
import {
  FAR_DEADLINE,
  V2_FACTORY_ABI,
  V2_PAIR_ABI,
  V2_ROUTER_ABI,
  STABLE_SWAP_FACTORY_ABI,
  V3_POOL_ABI,
  WETH_ABI,
} from '../../../devnet/world/abis';
import { DEFAULT_PRICE_BOUND } from '../../../devnet/world/deploy-service-contracts';
import { integratorOf, onchainOrderIdOf } from '../../../shared/domain/pair-authorization';
import {
  balanceOf,
  call,
  contractWalletMaker,
  createV3Pool,
  deployRevertingContract,
  deployTestContract,
  externalHop,
  fundedWallets,
  GAS_LIMIT,
  increaseTime,
  latestTimestamp,
  mined,
  minimumAtBound,
  NATIVE,
  ORACLE_NONE,
  ORACLE_USD_FEED,
  ORACLE_V3_WETH_POOL,
  onchainIdOf,
  orderExecutorDomain,
  orderRef,
  parseLogs,
  revertOf,
  revertTo,
  signPair,
  snapshot,
  startContractsWorld,
  TEST_INTEGRATOR,
  v2AmountOut,
  v2Hop,
  v3AmountOut,
  v3Hop,
  v3PoolOf,
  ZERO_ADDRESS,
  type ContractsWorld,
  type GroupInput,
  type OrderInput,
  type PairSigning,
} from './contracts-fixture';

// World deployment and maker set-up take a few seconds; jest's per-project testTimeout does not apply here.
jest.setTimeout(120_000);

const USDC = 10n ** 6n;
const ETHER = 10n ** 18n;
const MAX_FEE_BPS = 500n;
const Q128 = 1n << 128n;
const V3_OBSERVE =
  'function observe(uint32[] secondsAgos) view returns (int56[] tickCumulatives, uint160[] secondsPerLiquidityCumulativeX128s)';

/** An order as handed to executeBatch, with the on-chain id the contract derives for it (ignored by the ABI coder). */
type Order = OrderInput & { id: string };

interface Outcome {
  executed: Map<string, { maker: string; amountIn: bigint; fee: bigint; amountOut: bigint }>;
  failed: Map<string, string>;
  /** Every OrderFailed in log order: [id, reason] (an id may fail twice when an order is passed twice). */
  failures: Array<[string, string]>;
}

describe('OrderExecutor on anvil with the fixture world', () => {
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

  /**
   * A signed order of `maker` (an EOA, or a contract wallet's address with its owner as `signer`) for TEST_INTEGRATOR
   * and the contract's deviation unless told otherwise; `sign` overrides what the signature covers (a signature
   * made for another integrator, pair or deviation than the order carries).
   */
  async function order(
    maker: Wallet | string,
    tokenIn: string,
    tokenOut: string,
    amountIn: bigint,
    opts: Partial<OrderInput> & { signer?: Wallet; sign?: PairSigning & { tokenOut?: string } } = {},
  ): Promise<Order> {
    const { signer, sign, ...rest } = opts;
    const makerAddress = typeof maker === 'string' ? maker : maker.address;
    const signingKey = signer ?? (typeof maker === 'string' ? undefined : maker);
    if (!signingKey) throw new Error(`a contract-wallet maker ${maker} needs its owner as signer`);
    const base: OrderInput = {
      maker: makerAddress,
      ref: orderRef(`order-${++counter}`),
      // Consecutive, as the store assigns them to orders claimed together; unique in the run (the chain reverts).
      index: BigInt(counter),
      integrator: TEST_INTEGRATOR,
      maxDeviationBps: 0,
      maxFeeBps: Number(MAX_FEE_BPS),
      amountIn,
      fee: amountIn / 1000n,
      minAmountOut: 0n,
      signature: '0x',
      ...rest,
    };
    base.signature =
      rest.signature ??
      (await signPair(ctx, signingKey, makerAddress, tokenIn, sign?.tokenOut ?? tokenOut, {
        integrator: sign?.integrator ?? base.integrator,
        maxDeviationBps: sign?.maxDeviationBps ?? base.maxDeviationBps,
        maxFeeBps: sign?.maxFeeBps ?? base.maxFeeBps,
      }));
    return { ...base, id: onchainIdOf(base, tokenIn, tokenOut) };
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
    const failures = parseLogs(ctx.orderExecutor, receipt, 'OrderFailed').map(
      (e) => [e.args.getValue('id') as string, e.args.getValue('reason') as string] as [string, string],
    );
    return { executed, failed: new Map(failures), failures };
  }

  /** PriceOracle.oracleOf: the token's configured kind (ORACLE_*) and source. */
  async function oracleOf(token: string): Promise<[number, string]> {
    const [kind, source] = (await ctx.priceOracle.getFunction('oracleOf')(token)) as [bigint, string];
    return [Number(kind), source];
  }

  function priceBound(tokenIn: string, tokenOut: string): Promise<bigint> {
    return ctx.orderExecutor.getFunction('priceBound')(tokenIn, tokenOut) as Promise<bigint>;
  }

  /** Whether the order's execution index is spent (by this order, or another carrying its index). */
  function isExecuted(o: Order): Promise<boolean> {
    return ctx.orderExecutor.getFunction('isExecuted')(o.index) as Promise<boolean>;
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
    const otherPair = await order(m1, usdc, weth, 500n * USDC, { sign: { tokenOut: dai } });
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
    expect(await isExecuted(good1)).toBe(true);
    expect(await isExecuted(wrongSigner)).toBe(false);
  });

  it('fails with BAD_SIGNATURE an order passed with another integrator or deviation than its maker signed', async () => {
    const [m0, m1, m2] = makers as [Wallet, Wallet, Wallet];
    const integratorA = integratorOf('integrator-a');
    const integratorB = integratorOf('integrator-b');
    // Signed for A, passed as B's order (the id an executor of B would use).
    const signedForA = await order(m0, usdc, weth, 1_000n * USDC, {
      integrator: integratorB,
      sign: { integrator: integratorA },
    });
    // Signed with a 1% deviation, passed with the contract's (wider) one.
    const widened = await order(m1, usdc, weth, 1_000n * USDC, {
      integrator: integratorA,
      maxDeviationBps: 0,
      sign: { maxDeviationBps: 100 },
    });
    const good = await order(m2, usdc, weth, 1_000n * USDC, { integrator: integratorA });
    const owners = [m0.address, m1.address];
    const usdcBefore = await snapshotBalances(usdc, owners);
    const wethBefore = await snapshotBalances(weth, owners);

    const { executed, failed } = outcome(await execute([usdcToWeth([signedForA, widened, good])]));

    expect(failed).toEqual(
      new Map([
        [signedForA.id, 'BAD_SIGNATURE'],
        [widened.id, 'BAD_SIGNATURE'],
      ]),
    );
    expect([...executed.keys()]).toEqual([good.id]);
    expect(await snapshotBalances(usdc, owners)).toEqual(usdcBefore);
    expect(await snapshotBalances(weth, owners)).toEqual(wethBefore);
    expect(await isExecuted(signedForA)).toBe(false);
    // The same maker, pair and amount for the integrator it signed is another id, and executes.
    const asSigned = await order(m0, usdc, weth, 1_000n * USDC, {
      ref: signedForA.ref,
      integrator: integratorA,
    });
    expect(asSigned.id).not.toBe(signedForA.id);
    expect([...outcome(await execute([usdcToWeth([asSigned])])).executed.keys()]).toEqual([asSigned.id]);
  });

  it('fails an order executed before with ALREADY_EXECUTED, in a later batch or as a copy in its own group', async () => {
    const first = await order(makers[0]!, usdc, weth, 1_000n * USDC);
    await execute([usdcToWeth([first])]);
    expect(await isExecuted(first)).toBe(true);
    const before = await balanceOf(ctx, usdc, makers[0]!.address);
    const fresh = await order(makers[1]!, usdc, weth, 1_000n * USDC);
    const other = await order(makers[2]!, usdc, weth, 1_000n * USDC);
    const makerBefore = await snapshotBalances(usdc, [makers[1]!.address, makers[2]!.address]);

    // `fresh` twice in one group (the copy fails alone, the group is settled without it) and once more later.
    const { executed, failures } = outcome(
      await execute([usdcToWeth([first, fresh, { ...fresh }, other]), usdcToWeth([fresh])]),
    );

    expect([...executed.keys()].sort()).toEqual([fresh.id, other.id].sort());
    expect(failures).toEqual([
      [first.id, 'ALREADY_EXECUTED'],
      [fresh.id, 'ALREADY_EXECUTED'],
      [fresh.id, 'ALREADY_EXECUTED'],
    ]);
    expect(await balanceOf(ctx, usdc, makers[0]!.address)).toBe(before);
    const makerAfter = await snapshotBalances(usdc, [makers[1]!.address, makers[2]!.address]);
    // Each maker paid once.
    expect(makerBefore.map((b, i) => b - makerAfter[i]!)).toEqual([
      fresh.amountIn + fresh.fee,
      other.amountIn + other.fee,
    ]);
  });

  it('binds an id to its maker and index: an executor reusing a victim’s ref gets another id, and spending the victim’s index with its own order only fails the victim’s order', async () => {
    const victim = makers[0]!;
    const oe = ctx.world.contracts.orderExecutor;
    // The executor key makes orders of its own with the victim's reference, pair, integrator and amount.
    await mined(call(ctx.token('USDC'), executor, 'mint', [executor.address, 10_000n * USDC]));
    await mined(call(ctx.token('USDC'), executor, 'approve', [oe, MaxUint256]));
    const victimOrder = await order(victim, usdc, weth, 1_000n * USDC);
    const squatter = await order(executor, usdc, weth, 1_000n * USDC, { ref: victimOrder.ref });
    expect(squatter.id).not.toBe(victimOrder.id);
    expect(victimOrder.id).toBe(
      await ctx.orderExecutor.getFunction('orderId')(
        victim.address,
        usdc,
        weth,
        TEST_INTEGRATOR,
        victimOrder.ref,
        1_000n * USDC,
        victimOrder.index,
      ),
    );

    expect([...outcome(await execute([usdcToWeth([squatter])])).executed.keys()]).toEqual([squatter.id]);
    expect(await isExecuted(squatter)).toBe(true);
    expect(await isExecuted(victimOrder)).toBe(false);

    // The victim's own index under the executor's order: the index is spent, by an order that is not the victim's.
    const snap = await snapshot(ctx.chain);
    const burner = await order(executor, usdc, weth, 1_000n * USDC, {
      ref: victimOrder.ref,
      index: victimOrder.index,
    });
    expect(burner.id).not.toBe(victimOrder.id);
    const burnt = outcome(await execute([usdcToWeth([burner])]));
    expect([...burnt.executed.keys()]).toEqual([burner.id]);
    expect(await isExecuted(victimOrder)).toBe(true);
    const victimUsdc = await balanceOf(ctx, usdc, victim.address);
    const victimWeth = await balanceOf(ctx, weth, victim.address);
    const refused = outcome(await execute([usdcToWeth([victimOrder])]));
    // Nothing of the victim moves, and no OrderExecuted carries its order's id: the keeper does not complete it.
    expect(refused.failures).toEqual([[victimOrder.id, 'ALREADY_EXECUTED']]);
    expect(refused.executed.size).toBe(0);
    expect(await balanceOf(ctx, usdc, victim.address)).toBe(victimUsdc);
    expect(await balanceOf(ctx, weth, victim.address)).toBe(victimWeth);
    await revertTo(ctx.chain, snap);

    const before = await balanceOf(ctx, weth, victim.address);
    const { executed, failed } = outcome(await execute([usdcToWeth([victimOrder])]));
    expect(failed.size).toBe(0);
    expect(executed.get(victimOrder.id)?.maker).toBe(victim.address);
    expect((await balanceOf(ctx, weth, victim.address)) - before).toBe(
      executed.get(victimOrder.id)!.amountOut,
    );
    expect(await isExecuted(victimOrder)).toBe(true);
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

  it('fails an order whose minimum cannot be met with INSUFFICIENT_OUTPUT alone; its group and another execute', async () => {
    const [m0, m1] = makers as [Wallet, Wallet];
    const a = await order(m0, usdc, weth, 3_000n * USDC);
    const b = await order(m1, usdc, weth, 1_500n * USDC);
    const [shareA] = shares(await v2AmountOut(ctx, usdc, weth, a.amountIn + b.amountIn), [
      a.amountIn,
      b.amountIn,
    ]);
    a.minAmountOut = shareA! + 1n;
    // The group is settled again without `a`: `b` alone takes what its own amount buys.
    const shareB = await v2AmountOut(ctx, usdc, weth, b.amountIn);
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
    const wethBefore = await snapshotBalances(weth, [m0.address, m1.address]);

    const { executed, failed } = outcome(await execute([usdcToWeth([a, b]), daiGroup]));

    expect(failed).toEqual(new Map([[a.id, 'INSUFFICIENT_OUTPUT']]));
    expect(executed.get(b.id)?.amountOut).toBe(shareB);
    expect(executed.get(c.id)?.amountOut).toBe(shareC);
    expect(executed.get(d.id)?.amountOut).toBe(shareD);
    const usdcAfter = await snapshotBalances(usdc, [m0.address, m1.address, d0.address, d1.address]);
    expect(usdcAfter.map((x, i) => x - usdcBefore[i]!)).toEqual([0n, -(b.amountIn + b.fee), shareC, shareD]);
    const wethAfter = await snapshotBalances(weth, [m0.address, m1.address]);
    expect(wethAfter.map((x, i) => x - wethBefore[i]!)).toEqual([0n, shareB]);
    expect(await balanceOf(ctx, dai, d0.address)).toBe(100_000n * ETHER - c.amountIn - c.fee);
    expect(await isExecuted(a)).toBe(false);
    expect(await isExecuted(b)).toBe(true);
    expect(await isExecuted(c)).toBe(true);
  });

  it('sheds at most MAX_GROUP_RETRIES + 1 short orders, then fails the rest of the group with RETRY_LIMIT', async () => {
    expect(await ctx.orderExecutor.getFunction('MAX_GROUP_RETRIES')()).toBe(4n);
    const oe = ctx.world.contracts.orderExecutor;
    const shortMakers = await fundedWallets(ctx, 'short-maker', 6, usdc, 10_000n * USDC, oe, MaxUint256);
    const short = await Promise.all(
      shortMakers.map((m) => order(m, usdc, weth, 100n * USDC, { minAmountOut: 10n ** 30n })),
    );
    const honest = await order(makers[0]!, usdc, weth, 1_000n * USDC);
    const usdcBefore = await snapshotBalances(
      usdc,
      [...shortMakers, makers[0]!].map((m) => m.address),
    );

    const { executed, failures } = outcome(await execute([usdcToWeth([...short, honest])]));

    // The rest keep their order when one is shed: s0, s1, s2, s3, s4 fail alone; s5 and the honest order are
    // left when the retries run out.
    const [s0, s1, s2, s3, s4, s5] = short as [Order, Order, Order, Order, Order, Order];
    expect(executed.size).toBe(0);
    expect(failures).toEqual([
      [s0.id, 'INSUFFICIENT_OUTPUT'],
      [s1.id, 'INSUFFICIENT_OUTPUT'],
      [s2.id, 'INSUFFICIENT_OUTPUT'],
      [s3.id, 'INSUFFICIENT_OUTPUT'],
      [s4.id, 'INSUFFICIENT_OUTPUT'],
      [s5.id, 'RETRY_LIMIT'],
      [honest.id, 'RETRY_LIMIT'],
    ]);
    expect(
      await snapshotBalances(
        usdc,
        [...shortMakers, makers[0]!].map((m) => m.address),
      ),
    ).toEqual(usdcBefore);
    expect(await isExecuted(honest)).toBe(false);
    // The next batch executes the honest order.
    expect([...outcome(await execute([usdcToWeth([honest])])).executed.keys()]).toEqual([honest.id]);
  });

  it('fails alone (INSUFFICIENT_ALLOWANCE) an order whose allowance an earlier order of the batch used up', async () => {
    // A maker whose allowance is revoked mid-batch cannot be staged with a plain token; the same window is reached by
    // two orders of one maker and an allowance covering only one of them. The pull is attempted, and its failure
    // named from the maker's balance and allowance as they are then.
    const oe = ctx.world.contracts.orderExecutor;
    const [maker] = await fundedWallets(ctx, 'one-allowance', 1, usdc, 10_000n * USDC, oe, 1_500n * USDC);
    const first = await order(maker!, usdc, weth, 1_000n * USDC);
    const second = await order(maker!, usdc, weth, 1_000n * USDC);
    const honest = await order(makers[0]!, usdc, weth, 2_000n * USDC);
    const gross = await v2AmountOut(ctx, usdc, weth, first.amountIn + honest.amountIn);
    const [shareFirst, shareHonest] = shares(gross, [first.amountIn, honest.amountIn]) as [bigint, bigint];

    const { executed, failed } = outcome(await execute([usdcToWeth([first, second, honest])]));

    expect(failed).toEqual(new Map([[second.id, 'INSUFFICIENT_ALLOWANCE']]));
    expect(executed.get(first.id)?.amountOut).toBe(shareFirst);
    expect(executed.get(honest.id)?.amountOut).toBe(shareHonest);
    expect(await balanceOf(ctx, usdc, maker!.address)).toBe(10_000n * USDC - first.amountIn - first.fee);
    expect(await isExecuted(second)).toBe(false);
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
    expect(await isExecuted(o)).toBe(false);
  });

  it('fails BELOW_PRICE_BOUND an order with no minimum routed through pools the executor made', async () => {
    // The executor's own token EVIL, paired in the configured V2 factory with USDC at par and with WETH at a
    // hundredth of a WETH for 1,000: a maker's 1,000 USDC buys a few thousandths of a WETH through them. Without the
    // bound, minAmountOut 0 would let the executor take the USDC out of its pool afterwards.
    const evilArtifact = loadArtifact('TestToken');
    const deployment = await new ContractFactory(evilArtifact.abi, evilArtifact.bytecode, executor).deploy(
      'Evil',
      'EVIL',
      18,
      { gasLimit: GAS_LIMIT },
    );
    await deployment.waitForDeployment();
    const evil = await deployment.getAddress();
    const router = ctx.world.contracts.uniswapV2Router02;
    await mined(
      call(new Contract(evil, evilArtifact.abi, ctx.provider), executor, 'mint', [
        executor.address,
        10n ** 30n,
      ]),
    );
    await mined(call(ctx.token('USDC'), executor, 'mint', [executor.address, 1_000n * USDC]));
    await mined(call(new Contract(weth, WETH_ABI, ctx.provider), executor, 'deposit', [], ETHER / 100n));
    for (const token of [evil, usdc, weth]) {
      await mined(
        call(new Contract(token, WETH_ABI, ctx.provider), executor, 'approve', [router, MaxUint256]),
      );
    }
    const v2Router = new Contract(router, V2_ROUTER_ABI, ctx.provider);
    for (const [a, b, amountA, amountB] of [
      [usdc, evil, 1_000n * USDC, 1_000n * ETHER],
      [evil, weth, 1_000n * ETHER, ETHER / 100n],
    ] as const) {
      await mined(
        call(v2Router, executor, 'addLiquidity', [
          a,
          b,
          amountA,
          amountB,
          0n,
          0n,
          executor.address,
          FAR_DEADLINE,
        ]),
      );
    }
    const factory = new Contract(ctx.world.contracts.uniswapV2Factory, V2_FACTORY_ABI, ctx.provider);
    const evilWeth = new Contract(
      (await factory.getFunction('getPair')(evil, weth)) as string,
      V2_PAIR_ABI,
      ctx.provider,
    );
    const reservesBefore = (await evilWeth.getFunction('getReserves')()) as bigint[];

    const maker = makers[0]!;
    const o = await order(maker, usdc, weth, 1_000n * USDC, { minAmountOut: 0n });
    const bound = await minimumAtBound(ctx, usdc, weth, o.amountIn);
    // The bound: USDC's configured oracle (the WETH/USDC 0.05% pool's average) less 5%, about a third of a WETH.
    expect(bound).toBeGreaterThan((ETHER * 95n) / 100n / 3n - ETHER / 100n);
    const viaEvilOut = await v2AmountOut(ctx, evil, weth, await v2AmountOut(ctx, usdc, evil, o.amountIn));
    expect(viaEvilOut).toBeGreaterThan(0n);
    expect(viaEvilOut).toBeLessThan(bound / 10n);
    const viaEvil = { weight: 1n, hops: [v2Hop(evil), v2Hop(weth)] };
    const wethBefore = await balanceOf(ctx, weth, maker.address);

    const { executed, failed } = outcome(await execute([{ ...usdcToWeth([o]), paths: [viaEvil] }]));

    expect(executed.size).toBe(0);
    expect(failed).toEqual(new Map([[o.id, 'BELOW_PRICE_BOUND']]));
    expect(await balanceOf(ctx, usdc, maker.address)).toBe(100_000n * USDC);
    expect(await balanceOf(ctx, weth, maker.address)).toBe(wethBefore);
    expect(await isExecuted(o)).toBe(false);
    expect(await evilWeth.getFunction('getReserves')()).toEqual(reservesBefore);
  });

  it('ignores a V3 pool the executor creates at half the price: the bound stays, an order through it fails BELOW_PRICE_BOUND', async () => {
    // The review's repro. DAI/USDC has no Uniswap V3 pool at any tier; the executor creates one at 1%, priced at
    // 1 DAI = 0.5 USDC with a little liquidity, and lets a minute pass. A contract discovering the pair's pools took
    // it as the pair's price, so the executor could fill makers' DAI at half price through it and keep the rest.
    for (const fee of [500, 3000, 10_000]) expect(await v3PoolOf(ctx, dai, usdc, fee)).toBe(ZERO_ADDRESS);
    const boundBefore = await priceBound(dai, usdc);
    const pool = await createV3Pool(ctx, executor, 10_000, [dai, 2_000n * ETHER], [usdc, 1_000n * USDC]);
    await increaseTime(ctx.chain, 60);
    const v3Pool = new Contract(pool, [...V3_POOL_ABI, V3_OBSERVE], ctx.provider);
    // A minute of history at a constant tick: what a time-weighted read of this pool answers.
    const [[older, newer]] = (await v3Pool.getFunction('observe')([60, 0])) as [[bigint, bigint]];
    const [sqrtPriceX96, tick] = (await v3Pool.getFunction('slot0')()) as [bigint, bigint];
    expect((newer - older) / 60n).toBe(tick);
    // The pool's price of a DAI base unit in USDC base units, Q128.
    const token1PerToken0 = (sqrtPriceX96 * sqrtPriceX96) >> 64n;
    const poolPrice = BigInt(dai) < BigInt(usdc) ? token1PerToken0 : (Q128 * Q128) / token1PerToken0;

    expect(await priceBound(dai, usdc)).toBe(boundBefore);
    expect(poolPrice * 2n).toBeLessThan((boundBefore * 101n) / 100n);
    expect(poolPrice * 2n).toBeGreaterThan((boundBefore * 99n) / 100n);
    // Nor can the executor name it: the oracle is the owner's, and a pool not against WETH is refused even then.
    expect(
      (await revertOf(ctx.priceOracle, executor, 'setOracle', [dai, ORACLE_V3_WETH_POOL, pool])).name,
    ).toBe('OwnableUnauthorizedAccount');
    expect(
      (await revertOf(ctx.priceOracle, ctx.deployer, 'setOracle', [dai, ORACLE_V3_WETH_POOL, pool])).name,
    ).toBe('BadOracle');

    const maker = daiMakers[0]!;
    const o = await order(maker, dai, usdc, 10n * ETHER, { minAmountOut: 0n });
    const viaOwnPool = await v3AmountOut(ctx, dai, usdc, 10_000, o.amountIn);
    // About half the maker's value: above what a bound read from this pool would demand, far below the real one.
    const boundOfOwnPool = (await ctx.orderExecutor.getFunction('minimumAtBound')(
      o.amountIn,
      poolPrice,
      0,
    )) as bigint;
    expect(viaOwnPool).toBeGreaterThan(boundOfOwnPool);
    expect(viaOwnPool).toBeLessThan(((await minimumAtBound(ctx, dai, usdc, o.amountIn)) * 6n) / 10n);
    const poolBalances = [await balanceOf(ctx, dai, pool), await balanceOf(ctx, usdc, pool)];

    const { executed, failed } = outcome(
      await execute([
        {
          tokenIn: dai,
          tokenOut: usdc,
          paths: [{ weight: 1n, hops: [v3Hop(usdc, 10_000)] }],
          orders: [o],
        },
      ]),
    );

    expect(executed.size).toBe(0);
    expect(failed).toEqual(new Map([[o.id, 'BELOW_PRICE_BOUND']]));
    expect(await balanceOf(ctx, dai, maker.address)).toBe(100_000n * ETHER);
    expect(await balanceOf(ctx, usdc, maker.address)).toBe(0n);
    expect(await isExecuted(o)).toBe(false);
    expect([await balanceOf(ctx, dai, pool), await balanceOf(ctx, usdc, pool)]).toEqual(poolBalances);
    expect(await priceBound(dai, usdc)).toBe(boundBefore);
  });

  it('bounds each order by the deviation its maker signed (tighter than the contract’s)', async () => {
    const [m0, m1, m2] = makers as [Wallet, Wallet, Wallet];
    // V2's 0.3% fee alone puts the output more than 1 bp below the V3 average, less than 1% below.
    const tight = await order(m0, usdc, weth, 1_000n * USDC, { maxDeviationBps: 1 });
    const onePercent = await order(m1, usdc, weth, 1_000n * USDC, { maxDeviationBps: 100 });
    const contractDefault = await order(m2, usdc, weth, 1_000n * USDC);
    const [shareTight] = shares(await v2AmountOut(ctx, usdc, weth, 3_000n * USDC), [
      tight.amountIn,
      onePercent.amountIn,
      contractDefault.amountIn,
    ]);
    expect(shareTight!).toBeLessThan(await minimumAtBound(ctx, usdc, weth, tight.amountIn, 1));
    const gross = await v2AmountOut(ctx, usdc, weth, 2_000n * USDC);
    // Settled again without `tight`, the others in their order (the last takes the rounding remainder).
    const [shareOne, shareDefault] = shares(gross, [onePercent.amountIn, contractDefault.amountIn]);

    const { executed, failed } = outcome(await execute([usdcToWeth([tight, onePercent, contractDefault])]));

    expect(failed).toEqual(new Map([[tight.id, 'BELOW_PRICE_BOUND']]));
    expect(executed.get(onePercent.id)?.amountOut).toBe(shareOne);
    expect(executed.get(contractDefault.id)?.amountOut).toBe(shareDefault);
    expect(await balanceOf(ctx, usdc, m0.address)).toBe(100_000n * USDC);
  });

  it('fails a group with NO_PRICE_BOUND when a token of its pair has no oracle', async () => {
    const link = ctx.address('LINK');
    // LINK trades on Uniswap V2 only: a USD feed is its configured source, and its only price.
    const [kind, linkFeed] = await oracleOf(link);
    expect(kind).toBe(ORACLE_USD_FEED);
    expect(linkFeed).not.toBe(ZERO_ADDRESS);
    expect(await priceBound(usdc, link)).toBeGreaterThan(0n);
    await mined(call(ctx.priceOracle, ctx.deployer, 'setOracle', [link, ORACLE_NONE, ZERO_ADDRESS]));
    expect(await oracleOf(link)).toEqual([ORACLE_NONE, ZERO_ADDRESS]);
    expect(await priceBound(usdc, link)).toBe(0n);
    expect(await priceBound(link, weth)).toBe(0n);
    const group = (orders: OrderInput[]): GroupInput => ({
      tokenIn: usdc,
      tokenOut: link,
      paths: [{ weight: 1n, hops: [v2Hop(weth), v2Hop(link)] }],
      orders,
    });
    const a = await order(makers[0]!, usdc, link, 1_000n * USDC);
    const b = await order(makers[1]!, usdc, link, 500n * USDC);
    const badSignature = await order(makers[2]!, usdc, link, 500n * USDC, { signer: makers[3]! });

    const first = outcome(await execute([group([a, b, badSignature])]));

    expect(first.executed.size).toBe(0);
    // The checks come first: the bad signature is named as such.
    expect(first.failures).toEqual([
      [badSignature.id, 'BAD_SIGNATURE'],
      [a.id, 'NO_PRICE_BOUND'],
      [b.id, 'NO_PRICE_BOUND'],
    ]);
    expect(await snapshotBalances(usdc, [makers[0]!.address, makers[1]!.address])).toEqual([
      100_000n * USDC,
      100_000n * USDC,
    ]);
    expect(await isExecuted(a)).toBe(false);

    // The feed back: the same orders execute.
    await mined(call(ctx.priceOracle, ctx.deployer, 'setOracle', [link, ORACLE_USD_FEED, linkFeed]));
    const second = outcome(await execute([group([a, b])]));
    expect(second.failed.size).toBe(0);
    expect([...second.executed.keys()]).toEqual([a.id, b.id]);
  });

  it('fails NO_PRICE_BOUND, never reverting the batch, when a token’s source is broken', async () => {
    const link = ctx.address('LINK');
    const [, linkFeed] = await oracleOf(link);
    // A feed answering with revert data shaped as the executor's own error, and an address with no code at all.
    const reverting = await deployRevertingContract(
      ctx,
      ctx.orderExecutor.interface.encodeErrorResult('OrderRejected', [0n, 5n, []]),
    );
    const noCode = ctx.accounts[0]!.address;
    for (const source of [reverting, noCode]) {
      await mined(call(ctx.priceOracle, ctx.deployer, 'setOracle', [link, ORACLE_USD_FEED, source]));
      // The view itself reverts; the executor reads it through a static call.
      await expect(priceBound(usdc, link)).rejects.toThrow();
      const broken = await order(makers[0]!, usdc, link, 1_000n * USDC);
      const honest = await order(makers[1]!, usdc, weth, 1_000n * USDC);
      const usdcToLink: GroupInput = {
        tokenIn: usdc,
        tokenOut: link,
        paths: [{ weight: 1n, hops: [v2Hop(weth), v2Hop(link)] }],
        orders: [broken],
      };

      const { executed, failed } = outcome(await execute([usdcToLink, usdcToWeth([honest])]));

      expect(failed).toEqual(new Map([[broken.id, 'NO_PRICE_BOUND']]));
      expect([...executed.keys()]).toEqual([honest.id]);
      expect(await balanceOf(ctx, usdc, makers[0]!.address)).toBe(100_000n * USDC);
    }
    await mined(call(ctx.priceOracle, ctx.deployer, 'setOracle', [link, ORACLE_USD_FEED, linkFeed]));
    expect(await priceBound(usdc, link)).toBeGreaterThan(0n);
  });

  it('converts a WETH-priced token to a USD-priced one through WETH’s own feed, and bounds no such pair without it', async () => {
    // USDC is priced by its WETH pool (WETH units), DAI and LINK by USD feeds, WETH by a USD feed.
    const link = ctx.address('LINK');
    expect((await oracleOf(usdc))[0]).toBe(ORACLE_V3_WETH_POOL);
    expect((await oracleOf(dai))[0]).toBe(ORACLE_USD_FEED);
    const [wethKind, wethFeed] = await oracleOf(weth);
    expect(wethKind).toBe(ORACLE_USD_FEED);
    // 1 USDC base unit is 10^12 DAI base units: the pool's WETH price times WETH's feed lands within 1% of it.
    const usdcDai = await priceBound(usdc, dai);
    const par = 10n ** 12n * Q128;
    expect(usdcDai > (par * 99n) / 100n && usdcDai < (par * 101n) / 100n).toBe(true);

    await mined(call(ctx.priceOracle, ctx.deployer, 'setOracle', [weth, ORACLE_NONE, ZERO_ADDRESS]));

    // Mixed units have no bound left; a pair in one unit keeps its own (WETH is 1 in WETH units).
    for (const [a, b] of [
      [usdc, dai],
      [dai, usdc],
      [link, weth],
      [weth, dai],
    ] as const) {
      expect(await priceBound(a, b)).toBe(0n);
    }
    for (const [a, b] of [
      [usdc, weth],
      [weth, usdc],
      [dai, link],
    ] as const) {
      expect(await priceBound(a, b)).toBeGreaterThan(0n);
    }
    const mixed = await order(makers[0]!, usdc, dai, 1_000n * USDC);
    const sameUnit = await order(makers[1]!, usdc, weth, 1_000n * USDC);
    const usdcToDai: GroupInput = {
      tokenIn: usdc,
      tokenOut: dai,
      paths: [{ weight: 1n, hops: [v2Hop(dai)] }],
      orders: [mixed],
    };

    const { executed, failed } = outcome(await execute([usdcToDai, usdcToWeth([sameUnit])]));

    expect(failed).toEqual(new Map([[mixed.id, 'NO_PRICE_BOUND']]));
    expect([...executed.keys()]).toEqual([sameUnit.id]);
    expect(await balanceOf(ctx, usdc, makers[0]!.address)).toBe(100_000n * USDC);

    await mined(call(ctx.priceOracle, ctx.deployer, 'setOracle', [weth, ORACLE_USD_FEED, wethFeed]));
    expect(await priceBound(usdc, dai)).toBe(usdcDai);
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

  it('executes the order of a contract-wallet maker (ERC-1271) and refuses a signature of another key', async () => {
    const oe = ctx.world.contracts.orderExecutor;
    const { address, owner } = await contractWalletMaker(
      ctx,
      'wallet-maker',
      usdc,
      10_000n * USDC,
      oe,
      MaxUint256,
    );
    const o = await order(address, usdc, weth, 1_000n * USDC, { signer: owner });
    const forged = await order(address, usdc, weth, 500n * USDC, { signer: makers[0]! });
    const gross = await v2AmountOut(ctx, usdc, weth, o.amountIn);

    const { executed, failed } = outcome(await execute([usdcToWeth([o, forged])]));

    expect(failed).toEqual(new Map([[forged.id, 'BAD_SIGNATURE']]));
    expect(executed.get(o.id)).toEqual({
      maker: address,
      amountIn: o.amountIn,
      fee: o.fee,
      amountOut: gross,
    });
    expect(await balanceOf(ctx, weth, address)).toBe(gross);
    expect(await balanceOf(ctx, usdc, address)).toBe(10_000n * USDC - o.amountIn - o.fee);
    expect(await isExecuted(o)).toBe(true);
  });

  it('pays native-out wallets that refuse coins or burn the gas in WETH, beside an honest maker paid in coins', async () => {
    const oe = ctx.world.contracts.orderExecutor;
    const reverting = await contractWalletMaker(
      ctx,
      'revert-wallet',
      usdc,
      10_000n * USDC,
      oe,
      MaxUint256,
      1,
    );
    const burning = await contractWalletMaker(ctx, 'burn-wallet', usdc, 10_000n * USDC, oe, MaxUint256, 2);
    const honestMaker = makers[0]!;
    const r = await order(reverting.address, usdc, NATIVE, 1_000n * USDC, { signer: reverting.owner });
    const g = await order(burning.address, usdc, NATIVE, 1_500n * USDC, { signer: burning.owner });
    const h = await order(honestMaker, usdc, NATIVE, 2_000n * USDC);
    const gross = await v2AmountOut(ctx, usdc, weth, r.amountIn + g.amountIn + h.amountIn);
    const [shareR, shareG, shareH] = shares(gross, [r.amountIn, g.amountIn, h.amountIn]) as [
      bigint,
      bigint,
      bigint,
    ];
    const ethBefore = await balanceOf(ctx, NATIVE, honestMaker.address);

    const { executed, failed } = outcome(
      await execute([
        { tokenIn: usdc, tokenOut: NATIVE, paths: [{ weight: 1n, hops: [v2Hop(weth)] }], orders: [r, g, h] },
      ]),
    );

    expect(failed.size).toBe(0);
    expect([r, g, h].map((o) => executed.get(o.id)?.amountOut)).toEqual([shareR, shareG, shareH]);
    expect(await balanceOf(ctx, weth, reverting.address)).toBe(shareR);
    expect(await balanceOf(ctx, weth, burning.address)).toBe(shareG);
    expect(await snapshotBalances(NATIVE, [reverting.address, burning.address])).toEqual([0n, 0n]);
    expect((await balanceOf(ctx, NATIVE, honestMaker.address)) - ethBefore).toBe(shareH);
    expect(await balanceOf(ctx, weth, honestMaker.address)).toBe(0n);
    expect(await snapshotBalances(NATIVE, [oe])).toEqual([0n]);
    expect(await snapshotBalances(weth, [oe])).toEqual([0n]);
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

  it('fails every order SWAP_FAILED when a source reverts with bytes shaped as OrderRejected or GroupFailed', async () => {
    // The review's repro: a whitelisted source passes on what a contract it calls reverts with. Passed through, the
    // first payload (OrderRejected(0, BAD_SIGNATURE, [order 1 INSUFFICIENT_BALANCE])) would fail the group's orders
    // one by one for reasons of its choosing, the second (GroupFailed(TRANSFER_IN_FAILED, [])) all of them as
    // TRANSFER_IN_FAILED: wrong orders, wrong reasons.
    const source = await deployTestContract(ctx, 'TestExternalSource');
    const target = await source.getAddress();
    await mined(call(ctx.token('DAI'), ctx.accounts[3]!, 'mint', [target, 10_000n * ETHER]));
    await mined(call(ctx.orderExecutor, ctx.deployer, 'setSourceWhitelisted', [target, true]));
    const errors = ctx.orderExecutor.interface;
    const forged = [
      {
        data: errors.encodeErrorResult('OrderRejected', [0n, 5n, [(1n << 8n) | 6n]]),
        name: 'OrderRejected',
        args: [0n, 5n, [(1n << 8n) | 6n]],
      },
      { data: errors.encodeErrorResult('GroupFailed', [11n, []]), name: 'GroupFailed', args: [11n, []] },
    ];
    const groupMakers = makers.slice(0, 3);
    const fillArgs = [usdc, dai, 3_000n * USDC, 2_997n * ETHER];
    const fill = source.interface.encodeFunctionData('fill', fillArgs);
    const group = async (): Promise<Omit<GroupInput, 'orders'> & { orders: Order[] }> => ({
      tokenIn: usdc,
      tokenOut: dai,
      paths: [{ weight: 1n, hops: [externalHop(dai, target, fill)] }],
      orders: await Promise.all(groupMakers.map((m) => order(m, usdc, dai, 1_000n * USDC))),
    });
    const owners = groupMakers.map((m) => m.address);
    const usdcBefore = await snapshotBalances(usdc, owners);

    for (const { data, name, args } of forged) {
      const reverter = await deployRevertingContract(ctx, data);
      await mined(call(source, ctx.accounts[3]!, 'setReentry', [reverter, '0x']));
      // What the source answers any caller: the forged error itself.
      expect(await revertOf(source, ctx.accounts[3]!, 'fill', fillArgs)).toEqual({ name, args });
      const g = await group();

      const { executed, failures } = outcome(await execute([g]));

      expect(executed.size).toBe(0);
      expect(failures).toEqual(g.orders.map((o) => [o.id, 'SWAP_FAILED']));
      expect(await snapshotBalances(usdc, owners)).toEqual(usdcBefore);
      expect(await snapshotBalances(dai, owners)).toEqual([0n, 0n, 0n]);
      for (const o of g.orders) expect(await isExecuted(o)).toBe(false);
    }

    // Disarmed, the same source fills a group of the same makers.
    await mined(call(source, ctx.accounts[3]!, 'setReentry', [ZERO_ADDRESS, '0x']));
    const g = await group();
    const { executed, failed } = outcome(await execute([g]));
    expect(failed.size).toBe(0);
    expect(g.orders.map((o) => executed.get(o.id)?.amountOut)).toEqual([
      999n * ETHER,
      999n * ETHER,
      999n * ETHER,
    ]);
  });

  it('accepts settleGroup and swapPaths only from itself', async () => {
    // One record: id; maker | index << 160; amountIn; fee; minAmountOut.
    const record = AbiCoder.defaultAbiCoder().encode(
      ['bytes32', 'uint256', 'uint256', 'uint256', 'uint256'],
      [orderRef('x'), BigInt(makers[0]!.address) | (7n << 160n), 1n, 0n, 0n],
    );
    const bound = (await ctx.orderExecutor.getFunction('priceBound')(usdc, weth)) as bigint;
    const paths = [{ weight: 1n, hops: [v2Hop(weth)] }];
    const args = [usdc, weth, bound, paths, record];
    expect((await revertOf(ctx.orderExecutor, executor, 'settleGroup', args)).name).toBe('NotSelf');
    expect((await revertOf(ctx.orderExecutor, executor, 'swapPaths', [usdc, weth, 1n, paths])).name).toBe(
      'NotSelf',
    );
  });

  it('exposes the EIP-712 domain and type hash that wallets sign against, and the on-chain id the service mirrors', async () => {
    expect(await ctx.orderExecutor.getFunction('domainSeparator')()).toBe(
      TypedDataEncoder.hashDomain(orderExecutorDomain(ctx)),
    );
    expect(await ctx.orderExecutor.getFunction('PAIR_AUTHORIZATION_TYPEHASH')()).toBe(
      id(
        'PairAuthorization(address maker,address tokenIn,address tokenOut,bytes32 integrator,uint16 maxDeviationBps,uint16 maxFeeBps)',
      ),
    );
    const args = {
      maker: makers[0]!.address,
      tokenIn: usdc,
      tokenOut: NATIVE,
      integrator: integratorOf('some-key'),
      ref: orderRef('some-order'),
      amountIn: 123_456_789n,
      index: 2n ** 64n - 1n,
    };
    expect(
      await ctx.orderExecutor.getFunction('orderId')(
        args.maker,
        args.tokenIn,
        args.tokenOut,
        args.integrator,
        args.ref,
        args.amountIn,
        args.index,
      ),
    ).toBe(onchainOrderIdOf(args));
  });

  it('keeps executors, fee collector, fee cap and oracles owner-managed and bounded', async () => {
    const outsider = ctx.accounts[0]!;
    expect((await revertOf(ctx.orderExecutor, outsider, 'setExecutor', [outsider.address, true])).name).toBe(
      'OwnableUnauthorizedAccount',
    );
    expect(
      (await revertOf(ctx.priceOracle, outsider, 'setOracle', [usdc, ORACLE_USD_FEED, outsider.address]))
        .name,
    ).toBe('OwnableUnauthorizedAccount');
    expect((await revertOf(ctx.orderExecutor, ctx.deployer, 'setMaxFeeBps', [1001])).name).toBe('BadConfig');
    expect((await revertOf(ctx.orderExecutor, ctx.deployer, 'setFeeCollector', [ZERO_ADDRESS])).name).toBe(
      'BadConfig',
    );
    // The price bound is fixed at deployment: the executor's oracle and deviation, the oracle's windows and feed age.
    expect(Number(await ctx.orderExecutor.getFunction('maxDeviationBps')())).toBe(
      DEFAULT_PRICE_BOUND.maxDeviationBps,
    );
    const oracleSettings = ['twapWindow', 'minTwapWindow', 'feedMaxAge'] as const;
    const deployed = await Promise.all(oracleSettings.map((f) => ctx.priceOracle.getFunction(f)()));
    expect(deployed.map(Number)).toEqual(oracleSettings.map((f) => DEFAULT_PRICE_BOUND[f]));
    expect(await ctx.priceOracle.getFunction('owner')()).toBe(ctx.deployer.address);
    expect(await ctx.priceOracle.getFunction('weth')()).toBe(weth);
    expect(await ctx.priceOracle.getFunction('v3Factory')()).toBe(ctx.world.contracts.uniswapV3Factory);
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

  it('sets a token’s oracle for the owner only: a USD feed, or the V3 factory’s own pool of the token and WETH', async () => {
    const wbtc = ctx.address('WBTC');
    const usdcPool500 = await v3PoolOf(ctx, usdc, weth, 500);
    const usdcPool3000 = await v3PoolOf(ctx, usdc, weth, 3000);
    const wbtcPool500 = await v3PoolOf(ctx, wbtc, weth, 500);
    // The devnet's configuration: a token's 0.05% pool against WETH where it has one, else a USD feed (WETH too).
    expect(await oracleOf(usdc)).toEqual([ORACLE_V3_WETH_POOL, usdcPool500]);
    expect(await oracleOf(wbtc)).toEqual([ORACLE_V3_WETH_POOL, wbtcPool500]);
    for (const symbol of ['WETH', 'USDT', 'DAI', 'LINK', 'UNI', 'SUSHI', 'BAL']) {
      const [kind, source] = await oracleOf(ctx.address(symbol));
      expect([symbol, kind]).toEqual([symbol, ORACLE_USD_FEED]);
      expect(source).not.toBe(ZERO_ADDRESS);
    }

    for (const who of [ctx.accounts[0]!, executor]) {
      for (const args of [
        [usdc, ORACLE_V3_WETH_POOL, usdcPool3000],
        [usdc, ORACLE_NONE, ZERO_ADDRESS],
      ]) {
        expect((await revertOf(ctx.priceOracle, who, 'setOracle', args)).name).toBe(
          'OwnableUnauthorizedAccount',
        );
      }
    }

    // A genuine factory pool of another pair (anyone can create one), WETH's pool of another token, a contract that
    // answers fee() but that the factory did not create, WETH priced by a pool, an unknown kind, no source.
    const daiUsdc = await createV3Pool(ctx, executor, 500, [dai, 1_000n * ETHER], [usdc, 1_000n * USDC]);
    const stableFactory = new Contract(
      ctx.world.contracts.stableSwapFactory,
      STABLE_SWAP_FACTORY_ABI,
      ctx.provider,
    );
    const stablePool = (await stableFactory.getFunction('getPool')(usdc, ctx.address('USDT'))) as string;
    expect(stablePool).not.toBe(ZERO_ADDRESS);
    const refused: Array<[string, number, string]> = [
      [dai, ORACLE_V3_WETH_POOL, daiUsdc],
      [usdc, ORACLE_V3_WETH_POOL, daiUsdc],
      [usdc, ORACLE_V3_WETH_POOL, wbtcPool500],
      [dai, ORACLE_V3_WETH_POOL, usdcPool500],
      [usdc, ORACLE_V3_WETH_POOL, stablePool],
      [weth, ORACLE_V3_WETH_POOL, usdcPool500],
      [usdc, 3, usdcPool500],
      [usdc, ORACLE_V3_WETH_POOL, ZERO_ADDRESS],
      [usdc, ORACLE_USD_FEED, ZERO_ADDRESS],
    ];
    for (const args of refused) {
      expect([args, await revertOf(ctx.priceOracle, ctx.deployer, 'setOracle', args)]).toEqual([
        args,
        { name: 'BadOracle', args: [] },
      ]);
    }
    expect(await oracleOf(usdc)).toEqual([ORACLE_V3_WETH_POOL, usdcPool500]);
    expect(await oracleOf(dai)).toEqual([ORACLE_USD_FEED, expect.not.stringMatching(/^0x0{40}$/)]);

    // The factory's pool of USDC and WETH at another fee is accepted; ORACLE_NONE keeps no source.
    const usdcWethBound = await priceBound(usdc, weth);
    const receipt = await mined(
      call(ctx.priceOracle, ctx.deployer, 'setOracle', [usdc, ORACLE_V3_WETH_POOL, usdcPool3000]),
    );
    expect(parseLogs(ctx.priceOracle, receipt, 'OracleSet').map((e) => [...e.args])).toEqual([
      [usdc, BigInt(ORACLE_V3_WETH_POOL), usdcPool3000],
    ]);
    expect(await oracleOf(usdc)).toEqual([ORACLE_V3_WETH_POOL, usdcPool3000]);
    const viaPool3000 = await priceBound(usdc, weth);
    expect(viaPool3000 > (usdcWethBound * 99n) / 100n && viaPool3000 < (usdcWethBound * 101n) / 100n).toBe(
      true,
    );
    await mined(call(ctx.priceOracle, ctx.deployer, 'setOracle', [usdc, ORACLE_NONE, usdcPool3000]));
    expect(await oracleOf(usdc)).toEqual([ORACLE_NONE, ZERO_ADDRESS]);
    expect(await priceBound(usdc, weth)).toBe(0n);
  });
});

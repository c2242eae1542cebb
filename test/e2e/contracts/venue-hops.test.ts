import { Contract, ContractFactory, MaxUint256, ZeroAddress, id, type Wallet } from 'ethers';
import { loadArtifact } from '../../../contracts-abi/artifacts';
import {
  BALANCER_VAULT_ABI,
  V2_FACTORY_ABI,
  V2_PAIR_ABI,
  V4_MODIFY_LIQUIDITY_ABI,
  V4_POOL_MANAGER_ABI,
} from '../../../devnet/world/abis';
import { loadNpmArtifact } from '../../../devnet/world/npm-artifacts';
import {
  balanceOf,
  balancerHop,
  call,
  fundedWallets,
  GAS_LIMIT,
  latestTimestamp,
  mined,
  minimumAtBound,
  NATIVE,
  onchainIdOf,
  orderRef,
  parseLogs,
  revertOf,
  revertTo,
  signPair,
  snapshot,
  stableHop,
  startContractsWorld,
  sushiHop,
  TEST_INTEGRATOR,
  v2AmountOut,
  v2Hop,
  v3AmountOut,
  v3Hop,
  v4Hop,
  ZERO_ADDRESS,
  type ContractsWorld,
  type GroupInput,
  type Hop,
  type OrderInput,
  type RoutePath,
} from './contracts-fixture';
import { DEFAULT_MAX_FEE_BPS } from '../../../devnet/world/deploy-service-contracts';
import { v4Key, venueKit, type VenueKit } from './venues-fixture';

/**
 * Hop kinds 3-6 (SushiSwap V2, Uniswap V4, Balancer V2 weighted, our StableSwap) through SwapRouter.swap and an
 * OrderExecutor batch on the chain 1 fixture world: exact outputs against each venue's own quote, the venue checks
 * that keep calldata from naming a pool of its own, and the gas of one hop of each kind.
 */

jest.setTimeout(240_000);

const USDC_UNIT = 10n ** 6n;
const ETHER = 10n ** 18n;

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

const single = (hop: Hop): RoutePath[] => [{ weight: 1n, hops: [hop] }];

describe('venue hops (kinds 3-6) on the fixture world', () => {
  let ctx: ContractsWorld;
  let user: Wallet;
  let kit: VenueKit;
  let t: Record<'WETH' | 'USDC' | 'USDT' | 'DAI' | 'UNI' | 'SUSHI' | 'BAL', string>;
  let pips: bigint;
  let balWeth: string;
  let usdcUsdt: string;
  let poolManager: string;
  let baseSnapshot: string;

  beforeAll(async () => {
    ctx = await startContractsWorld();
    // anvil runs Cancun: the world has Uniswap V4 (only a ganache world lacks it).
    poolManager = ctx.world.contracts.uniswapV4PoolManager!;
    expect(poolManager).toBeDefined();
    user = ctx.accounts[0]!;
    kit = await venueKit(ctx, ctx.accounts[2]!);
    t = Object.fromEntries(
      ['WETH', 'USDC', 'USDT', 'DAI', 'UNI', 'SUSHI', 'BAL'].map((s) => [s, ctx.address(s)]),
    ) as typeof t;
    for (const symbol of ['WETH', 'USDC', 'UNI', 'SUSHI', 'BAL']) {
      await mined(call(ctx.token(symbol), user, 'approve', [ctx.world.contracts.spender, MaxUint256]));
    }
    pips = (await ctx.swapRouter.getFunction('protocolFeePips')()) as bigint;
    balWeth = await kit.balancerPoolId(t.BAL, t.WETH);
    usdcUsdt = await kit.stablePool(t.USDC, t.USDT);
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
      tokenIn: t.USDC,
      tokenOut: t.WETH,
      amountIn: 3_000n * USDC_UNIT,
      minAmountOut: 0n,
      deadline: (await latestTimestamp(ctx.provider)) + 600n,
      integratorFeeBps: 0,
      integratorFeeRecipient: ZERO_ADDRESS,
      paths: [],
      ...overrides,
    };
  }

  const net = (gross: bigint): bigint => gross - (gross * pips) / 1_000_000n;

  /** Runs the swap with `minAmountOut` = the exact expected output, and checks what the account received. */
  async function expectSwapExactly(p: SwapParams, gross: bigint, value = 0n) {
    p.minAmountOut = net(gross);
    const before = await balanceOf(ctx, p.tokenOut, user.address);
    const receipt = await mined(call(ctx.swapRouter, user, 'swap', [p], value));
    const [event] = parseLogs(ctx.swapRouter, receipt, 'Swapped');
    expect(event?.args.getValue('grossAmountOut')).toBe(gross);
    const received = (await balanceOf(ctx, p.tokenOut, user.address)) - before;
    if (p.tokenOut !== NATIVE) expect(received).toBe(net(gross));
    for (const token of [
      t.WETH,
      p.tokenIn === NATIVE ? t.WETH : p.tokenIn,
      p.tokenOut === NATIVE ? t.WETH : p.tokenOut,
    ]) {
      expect(await balanceOf(ctx, token, ctx.world.contracts.swapRouter)).toBe(0n);
    }
    return receipt;
  }

  async function pairReserves(factory: string, a: string, b: string): Promise<[bigint, bigint]> {
    const pair = (await new Contract(factory, V2_FACTORY_ABI, ctx.provider).getFunction('getPair')(
      a,
      b,
    )) as string;
    const [r0, r1] = (await new Contract(pair, V2_PAIR_ABI, ctx.provider).getFunction(
      'getReserves',
    )()) as bigint[];
    return [r0!, r1!];
  }

  describe('SwapRouter.swap', () => {
    it('kind 3 swaps over the SushiSwap pair, leaving the Uniswap V2 pair of the same tokens alone', async () => {
      const p = await params({ paths: single(sushiHop(t.WETH)) });
      const gross = await kit.sushiAmountOut(t.USDC, t.WETH, p.amountIn);
      const uniswapBefore = await pairReserves(ctx.world.contracts.uniswapV2Factory, t.USDC, t.WETH);
      const sushiBefore = await pairReserves(ctx.world.contracts.sushiswapV2Factory, t.USDC, t.WETH);
      await expectSwapExactly(p, gross);
      expect(await pairReserves(ctx.world.contracts.uniswapV2Factory, t.USDC, t.WETH)).toEqual(uniswapBefore);
      const sushiAfter = await pairReserves(ctx.world.contracts.sushiswapV2Factory, t.USDC, t.WETH);
      const usdcIs0 = BigInt(t.USDC) < BigInt(t.WETH);
      expect(sushiAfter).toEqual(
        usdcIs0
          ? [sushiBefore[0] + p.amountIn, sushiBefore[1] - gross]
          : [sushiBefore[0] - gross, sushiBefore[1] + p.amountIn],
      );
    });

    it('kind 4 swaps UNI for WETH in the 0.05% V4 pool and settles with the PoolManager to the unit', async () => {
      const amountIn = 1_000n * ETHER;
      const p = await params({ tokenIn: t.UNI, amountIn, paths: single(v4Hop(t.WETH, 500, 10)) });
      const gross = await kit.v4AmountOut(t.UNI, t.WETH, 500, 10, amountIn);
      const manager = poolManager;
      const before = [await balanceOf(ctx, t.UNI, manager), await balanceOf(ctx, t.WETH, manager)];
      await expectSwapExactly(p, gross);
      expect(await balanceOf(ctx, t.UNI, manager)).toBe(before[0]! + amountIn);
      expect(await balanceOf(ctx, t.WETH, manager)).toBe(before[1]! - gross);
    });

    it('kind 4 takes native input: ETH -> USDC in the 0.3% V4 pool (tick spacing 60)', async () => {
      const amountIn = 2n * ETHER;
      const p = await params({
        tokenIn: NATIVE,
        tokenOut: t.USDC,
        amountIn,
        paths: single(v4Hop(t.USDC, 3000, 60)),
      });
      const gross = await kit.v4AmountOut(t.WETH, t.USDC, 3000, 60, amountIn);
      await expectSwapExactly(p, gross, amountIn);
    });

    it('kind 5 swaps BAL for WETH in the 80/20 Balancer pool and leaves no allowance to the Vault', async () => {
      const amountIn = 1_000n * ETHER;
      const p = await params({ tokenIn: t.BAL, amountIn, paths: single(balancerHop(t.WETH, balWeth)) });
      const gross = await kit.balancerAmountOut(balWeth, t.BAL, t.WETH, amountIn);
      const [tokens, balancesBefore] = (await kit.vault.getFunction('getPoolTokens')(balWeth)) as [
        string[],
        bigint[],
      ];
      await expectSwapExactly(p, gross);
      const [, balancesAfter] = (await kit.vault.getFunction('getPoolTokens')(balWeth)) as [
        string[],
        bigint[],
      ];
      const balIndex = tokens.indexOf(t.BAL);
      expect(balancesAfter[balIndex]).toBe(balancesBefore[balIndex]! + amountIn);
      expect(balancesAfter[1 - balIndex]).toBe(balancesBefore[1 - balIndex]! - gross);
      const bal = ctx.token('BAL');
      expect(
        await bal.getFunction('allowance')(ctx.world.contracts.swapRouter, ctx.world.contracts.balancerVault),
      ).toBe(0n);
    });

    it('kind 6: 100,000 USDC -> USDT on the StableSwap pool loses under 0.5% after our 15 bps fee', async () => {
      const amountIn = 100_000n * USDC_UNIT;
      const p = await params({ tokenOut: t.USDT, amountIn, paths: single(stableHop(t.USDT, usdcUsdt)) });
      const gross = await kit.stableAmountOut(usdcUsdt, t.USDC, t.USDT, amountIn);
      await expectSwapExactly(p, gross);
      const lossBps = Number(((amountIn - net(gross)) * 100_000n) / amountIn) / 10;
      console.warn(`[stableswap] 100,000 USDC -> ${net(gross)} USDT net of our fee: ${lossBps} bps lost`);
      expect(lossBps).toBeLessThan(50);
      const pool = new Contract(usdcUsdt, loadArtifact('StableSwapPool').abi, ctx.provider);
      expect(await ctx.token('USDC').getFunction('allowance')(ctx.world.contracts.swapRouter, usdcUsdt)).toBe(
        0n,
      );
      expect(await pool.getFunction('getDy')(0, 1, USDC_UNIT)).toBeGreaterThan(0n);
    });

    it('routes SUSHI -> WETH (SushiSwap) -> BAL (Balancer) in one path', async () => {
      const amountIn = 50_000n * ETHER;
      const p = await params({
        tokenIn: t.SUSHI,
        tokenOut: t.BAL,
        amountIn,
        paths: [{ weight: 1n, hops: [sushiHop(t.WETH), balancerHop(t.BAL, balWeth)] }],
      });
      const viaWeth = await kit.sushiAmountOut(t.SUSHI, t.WETH, amountIn);
      const gross = await kit.balancerAmountOut(balWeth, t.WETH, t.BAL, viaWeth);
      await expectSwapExactly(p, gross);
    });

    it('splits WETH -> USDC over Uniswap V3, Uniswap V4, SushiSwap and Uniswap V2 by weight', async () => {
      const amountIn = 20n * ETHER + 7n;
      const weights = [4n, 3n, 2n, 1n];
      const shares = weights.slice(0, 3).map((w) => (amountIn * w) / 10n);
      shares.push(amountIn - shares.reduce((a, b) => a + b, 0n));
      // Four different pools: each path's output is its own pool's quote.
      const gross =
        (await v3AmountOut(ctx, t.WETH, t.USDC, 500, shares[0]!)) +
        (await kit.v4AmountOut(t.WETH, t.USDC, 3000, 60, shares[1]!)) +
        (await kit.sushiAmountOut(t.WETH, t.USDC, shares[2]!)) +
        (await v2AmountOut(ctx, t.WETH, t.USDC, shares[3]!));
      const hops = [v3Hop(t.USDC, 500), v4Hop(t.USDC, 3000, 60), sushiHop(t.USDC), v2Hop(t.USDC)];
      const p = await params({
        tokenIn: t.WETH,
        tokenOut: t.USDC,
        amountIn,
        paths: hops.map((hop, i) => ({ weight: weights[i]!, hops: [hop] })),
      });
      await expectSwapExactly(p, gross);
    });
  });

  describe('venue checks', () => {
    it('kind 6 refuses a StableSwapPool the factory did not create, and a factory pool of another pair', async () => {
      const [coin0, coin1] = BigInt(t.USDC) < BigInt(t.USDT) ? [t.USDC, t.USDT] : [t.USDT, t.USDC];
      const artifact = loadArtifact('StableSwapPool');
      const rogue = await new ContractFactory(artifact.abi, artifact.bytecode, ctx.accounts[3]!).deploy(
        coin0,
        coin1,
        2000n,
        4_000_000n,
      );
      await rogue.waitForDeployment();
      const notFromFactory = await params({
        tokenOut: t.USDT,
        paths: single(stableHop(t.USDT, await rogue.getAddress())),
      });
      expect((await revertOf(ctx.swapRouter, user, 'swap', [notFromFactory])).name).toBe('NotPool');
      const usdcDai = await kit.stablePool(t.USDC, t.DAI);
      expect(await kit.stableFactory.getFunction('isPool')(usdcDai)).toBe(true);
      const otherPair = await params({ tokenOut: t.USDT, paths: single(stableHop(t.USDT, usdcDai)) });
      expect((await revertOf(ctx.swapRouter, user, 'swap', [otherPair])).name).toBe('NotPool');
    });

    it('kind 5 refuses a Vault pool that the weighted pool factory did not create', async () => {
      // Anyone can register a pool with the Vault: here an account registers itself (two-token specialization).
      const registrant = ctx.accounts[1]!;
      const vault = new Contract(
        ctx.world.contracts.balancerVault,
        [...BALANCER_VAULT_ABI, 'function registerPool(uint8 specialization) returns (bytes32)'],
        registrant,
      );
      const poolId = (await vault.getFunction('registerPool').staticCall(2)) as string;
      await mined(vault.getFunction('registerPool')(2));
      expect(((await vault.getFunction('getPool')(poolId)) as [string])[0]).toBe(registrant.address);
      const p = await params({ tokenIn: t.BAL, amountIn: ETHER, paths: single(balancerHop(t.WETH, poolId)) });
      expect((await revertOf(ctx.swapRouter, user, 'swap', [p])).name).toBe('NotPool');
    });

    it('kind 4 swaps only in pools that exist, and its callback answers the PoolManager alone', async () => {
      const noPool = await params({ tokenIn: t.UNI, amountIn: ETHER, paths: single(v4Hop(t.WETH, 100, 1)) });
      // v4-core's PoolNotInitialized(), bubbled up through the manager and the router.
      expect((await revertOf(ctx.swapRouter, user, 'swap', [noPool])).name).toBe(
        `unknown(${id('PoolNotInitialized()').slice(0, 10)})`,
      );
      for (const target of [ctx.swapRouter, ctx.orderExecutor]) {
        expect((await revertOf(target, user, 'unlockCallback', ['0x'])).name).toBe('NotPool');
      }
    });

    it('kind 4 reverts PartialFill when the pool runs out of liquidity before taking the whole input', async () => {
      // A new USDC/USDT V4 pool at 1:1 with liquidity in ticks [-10, 10] only: about 500 of each.
      const lp = ctx.accounts[3]!;
      const key = v4Key(t.USDC, t.USDT, 100, 1);
      const manager = new Contract(poolManager, V4_POOL_MANAGER_ABI, lp);
      await mined(manager.getFunction('initialize')(key, 2n ** 96n, { gasLimit: GAS_LIMIT }));
      const artifact = loadNpmArtifact('PoolModifyLiquidityTest');
      const deployment = await new ContractFactory(artifact.abi, artifact.bytecode, lp).deploy(
        manager.target,
        {
          gasLimit: GAS_LIMIT,
        },
      );
      await deployment.waitForDeployment();
      const router = new Contract(await deployment.getAddress(), V4_MODIFY_LIQUIDITY_ABI, lp);
      for (const symbol of ['USDC', 'USDT']) {
        await mined(call(ctx.token(symbol), lp, 'mint', [lp.address, 1_000_000n * USDC_UNIT]));
        await mined(call(ctx.token(symbol), lp, 'approve', [router.target, MaxUint256]));
      }
      await mined(
        router.getFunction('modifyLiquidity')(
          key,
          { tickLower: -10, tickUpper: 10, liquidityDelta: 10n ** 12n, salt: id('narrow') },
          '0x',
          { gasLimit: GAS_LIMIT },
        ),
      );
      const small = await params({
        tokenOut: t.USDT,
        amountIn: 100n * USDC_UNIT,
        paths: single(v4Hop(t.USDT, 100, 1)),
      });
      await expectSwapExactly(small, await kit.v4AmountOut(t.USDC, t.USDT, 100, 1, small.amountIn));
      const large = await params({
        tokenOut: t.USDT,
        amountIn: 10_000n * USDC_UNIT,
        paths: single(v4Hop(t.USDT, 100, 1)),
      });
      expect((await revertOf(ctx.swapRouter, user, 'swap', [large])).name).toBe('PartialFill');
    });

    it('a router deployed without a venue reverts BadPath for that venue hop kind', async () => {
      const owner = ctx.accounts[3]!;
      const spenderArtifact = loadArtifact('TokenSpender');
      const spender = await new ContractFactory(spenderArtifact.abi, spenderArtifact.bytecode, owner).deploy(
        owner.address,
      );
      await spender.waitForDeployment();
      const routerArtifact = loadArtifact('SwapRouter');
      const venues = {
        uniswapV2Factory: ctx.world.contracts.uniswapV2Factory,
        sushiswapV2Factory: ZeroAddress,
        uniswapV3Factory: ctx.world.contracts.uniswapV3Factory,
        uniswapV4PoolManager: ZeroAddress,
        balancerVault: ZeroAddress,
        balancerWeightedPoolFactory: ZeroAddress,
        stableSwapFactory: ZeroAddress,
      };
      const deployed = await new ContractFactory(routerArtifact.abi, routerArtifact.bytecode, owner).deploy(
        owner.address,
        t.WETH,
        venues,
        await spender.getAddress(),
        owner.address,
        1500,
        { gasLimit: GAS_LIMIT },
      );
      await deployed.waitForDeployment();
      const router = new Contract(await deployed.getAddress(), routerArtifact.abi, ctx.provider);
      await mined(
        call(
          new Contract(await spender.getAddress(), spenderArtifact.abi, ctx.provider),
          owner,
          'setCaller',
          [router.target, true],
        ),
      );
      await mined(call(ctx.token('USDC'), user, 'approve', [await spender.getAddress(), MaxUint256]));
      expect(await router.getFunction('v2Factory')()).toBe(venues.uniswapV2Factory);
      expect(await router.getFunction('uniswapV4PoolManager')()).toBe(ZeroAddress);

      const hops = [
        sushiHop(t.WETH),
        v4Hop(t.WETH, 3000, 60),
        balancerHop(t.WETH, await kit.balancerPoolId(t.WETH, t.DAI)),
        stableHop(t.USDT, usdcUsdt),
      ];
      for (const hop of hops) {
        const p = await params({ tokenOut: hop.tokenOut, paths: single(hop) });
        expect((await revertOf(router, user, 'swap', [p])).name).toBe('BadPath');
      }
      // The venues it has still work.
      const p = await params({ paths: single(v2Hop(t.WETH)) });
      const gross = await v2AmountOut(ctx, t.USDC, t.WETH, p.amountIn);
      await mined(call(router, user, 'swap', [p]));
      expect(await balanceOf(ctx, t.USDC, await router.getAddress())).toBe(0n);
      expect(gross).toBeGreaterThan(0n);
    });

    it('never whitelists the PoolManager or the Vault as an external source (they act for their caller)', async () => {
      for (const contract of [ctx.swapRouter, ctx.orderExecutor]) {
        for (const venue of [poolManager, ctx.world.contracts.balancerVault]) {
          expect(await revertOf(contract, ctx.deployer, 'setSourceWhitelisted', [venue, true])).toEqual({
            name: 'ForbiddenSource',
            args: [venue],
          });
        }
      }
    });

    it('every venue getter of the deployed router and order executor names the world venue', async () => {
      const c = ctx.world.contracts;
      for (const contract of [ctx.swapRouter, ctx.orderExecutor]) {
        expect(await contract.getFunction('v2Factory')()).toBe(c.uniswapV2Factory);
        expect(await contract.getFunction('v3Factory')()).toBe(c.uniswapV3Factory);
        expect(await contract.getFunction('sushiswapV2Factory')()).toBe(c.sushiswapV2Factory);
        expect(await contract.getFunction('uniswapV4PoolManager')()).toBe(c.uniswapV4PoolManager);
        expect(await contract.getFunction('balancerVault')()).toBe(c.balancerVault);
        expect(await contract.getFunction('balancerWeightedPoolFactory')()).toBe(
          c.balancerWeightedPoolFactory,
        );
        expect(await contract.getFunction('stableSwapFactory')()).toBe(c.stableSwapFactory);
      }
    });
  });

  describe('OrderExecutor', () => {
    it('settles one batch with a group on each new venue, each order its exact pro rata share', async () => {
      const oe = ctx.world.contracts.orderExecutor;
      const groupsSpec = [
        {
          tokenIn: t.USDC,
          tokenOut: t.USDT,
          amounts: [40_000n * USDC_UNIT, 60_000n * USDC_UNIT + 1n],
          hop: stableHop(t.USDT, usdcUsdt),
        },
        { tokenIn: t.SUSHI, tokenOut: t.WETH, amounts: [10_000n * ETHER], hop: sushiHop(t.WETH) },
        {
          tokenIn: t.BAL,
          tokenOut: t.WETH,
          amounts: [300n * ETHER, 700n * ETHER],
          hop: balancerHop(t.WETH, balWeth),
        },
        { tokenIn: t.UNI, tokenOut: NATIVE, amounts: [2_000n * ETHER], hop: v4Hop(t.WETH, 500, 10) },
      ];
      const expected = new Map<string, { maker: string; tokenOut: string; amountOut: bigint }>();
      const groups: GroupInput[] = [];
      for (const [g, spec] of groupsSpec.entries()) {
        const makers = await fundedWallets(
          ctx,
          `venue-maker-${g}`,
          spec.amounts.length,
          spec.tokenIn,
          10n ** 30n,
          oe,
          MaxUint256,
        );
        const orders: OrderInput[] = [];
        for (const [k, maker] of makers.entries()) {
          orders.push({
            maker: maker.address,
            index: BigInt(100 * (g + 1) + k),
            ref: orderRef(`venue-${g}-${k}`),
            integrator: TEST_INTEGRATOR,
            maxDeviationBps: 0,
            maxFeeBps: DEFAULT_MAX_FEE_BPS,
            amountIn: spec.amounts[k]!,
            fee: spec.amounts[k]! / 1000n,
            minAmountOut: 0n,
            signature: await signPair(ctx, maker, maker.address, spec.tokenIn, spec.tokenOut),
          });
        }
        const totalIn = spec.amounts.reduce((a, b) => a + b, 0n);
        const hopOut = spec.tokenOut === NATIVE ? t.WETH : spec.tokenOut;
        const gross =
          spec.hop.kind === 6
            ? await kit.stableAmountOut(usdcUsdt, spec.tokenIn, hopOut, totalIn)
            : spec.hop.kind === 3
              ? await kit.sushiAmountOut(spec.tokenIn, hopOut, totalIn)
              : spec.hop.kind === 5
                ? await kit.balancerAmountOut(balWeth, spec.tokenIn, hopOut, totalIn)
                : await kit.v4AmountOut(spec.tokenIn, hopOut, 500, 10, totalIn);
        let remaining = gross;
        for (const [k, order] of orders.entries()) {
          const share = k === orders.length - 1 ? remaining : (gross * order.amountIn) / totalIn;
          remaining -= share;
          // No pair here has Uniswap V3 pools (not even through WETH): each bound comes from the tokens' USD feeds.
          expect(share).toBeGreaterThan(
            await minimumAtBound(ctx, spec.tokenIn, spec.tokenOut, order.amountIn),
          );
          expected.set(onchainIdOf(order, spec.tokenIn, spec.tokenOut), {
            maker: order.maker,
            tokenOut: spec.tokenOut,
            amountOut: share,
          });
        }
        groups.push({ tokenIn: spec.tokenIn, tokenOut: spec.tokenOut, paths: single(spec.hop), orders });
      }
      const before = new Map<string, bigint>();
      for (const [orderKey, e] of expected) before.set(orderKey, await balanceOf(ctx, e.tokenOut, e.maker));

      const deadline = (await latestTimestamp(ctx.provider)) + 600n;
      const receipt = await mined(call(ctx.orderExecutor, ctx.executor, 'executeBatch', [groups, deadline]));
      expect(parseLogs(ctx.orderExecutor, receipt, 'OrderFailed')).toEqual([]);
      const executed = parseLogs(ctx.orderExecutor, receipt, 'OrderExecuted');
      expect(executed).toHaveLength(expected.size);
      for (const event of executed) {
        const e = expected.get(event.args.getValue('id') as string)!;
        expect(event.args.getValue('amountOut')).toBe(e.amountOut);
        expect(
          (await balanceOf(ctx, e.tokenOut, e.maker)) - before.get(event.args.getValue('id') as string)!,
        ).toBe(e.amountOut);
      }
      for (const token of [t.USDC, t.USDT, t.SUSHI, t.BAL, t.UNI, t.WETH]) {
        expect(await balanceOf(ctx, token, oe)).toBe(0n);
      }
    });
  });

  describe('gas', () => {
    it('measures one hop of each kind inside SwapRouter.swap (the second swap on a pool)', async () => {
      const cases: Array<{ kind: number; label: string; p: Partial<SwapParams> }> = [
        { kind: 0, label: 'Uniswap V2 USDC->WETH', p: { paths: single(v2Hop(t.WETH)) } },
        { kind: 1, label: 'Uniswap V3 0.05% USDC->WETH', p: { paths: single(v3Hop(t.WETH, 500)) } },
        { kind: 3, label: 'SushiSwap V2 USDC->WETH', p: { paths: single(sushiHop(t.WETH)) } },
        {
          kind: 4,
          label: 'Uniswap V4 0.05% UNI->WETH',
          p: { tokenIn: t.UNI, amountIn: 300n * ETHER, paths: single(v4Hop(t.WETH, 500, 10)) },
        },
        {
          kind: 5,
          label: 'Balancer 80/20 BAL->WETH',
          p: { tokenIn: t.BAL, amountIn: 300n * ETHER, paths: single(balancerHop(t.WETH, balWeth)) },
        },
        {
          kind: 6,
          label: 'StableSwap USDC->USDT',
          p: { tokenOut: t.USDT, paths: single(stableHop(t.USDT, usdcUsdt)) },
        },
      ];
      const gas = new Map<number, bigint>();
      for (const c of cases) {
        await mined(call(ctx.swapRouter, user, 'swap', [await params(c.p)]));
        const receipt = await mined(call(ctx.swapRouter, user, 'swap', [await params(c.p)]));
        gas.set(c.kind, receipt.gasUsed);
      }
      const v2 = gas.get(0)!;
      console.warn(
        `[gas] SwapRouter.swap with one hop (receipt gasUsed, and minus the V2 swap's): ${cases
          .map(
            (c) =>
              `kind ${c.kind} ${c.label}: ${gas.get(c.kind)} (${gas.get(c.kind)! - v2 >= 0n ? '+' : ''}${gas.get(c.kind)! - v2})`,
          )
          .join('; ')}`,
      );
      for (const c of cases) expect(gas.get(c.kind)!).toBeLessThan(400_000n);
    });
  });
});

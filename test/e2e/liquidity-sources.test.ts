import { AbiCoder, Contract, id, type BlockTag } from 'ethers';
import { ChainClient, type CallRequest } from '../../shared/chain/chain-client';
import { quoterV2TicksCrossed, simulateV3ExactIn } from '../../shared/routing/math/v3-swap';
import type { PoolState, V2PoolState, V3PoolState } from '../../shared/routing/pools/pool-state';
import { BlockFollower } from '../../shared/routing/sources/block-follower';
import { HOP_KIND_V2, HOP_KIND_V3, NEVER_REFRESHED } from '../../shared/routing/sources/liquidity-source';
import { PoolStateCache } from '../../shared/routing/sources/pool-state-cache';
import { devnetSourcesConfig, SourceRegistry } from '../../shared/routing/sources/source-registry';
import { UniswapV3Source, ticksMatchLiquidity } from '../../shared/routing/sources/uniswap-v3-source';
import { movePrice } from '../../devnet/market-mover';
import { V2_PAIR_ABI, V3_QUOTER_V2_ABI } from '../../devnet/world/abis';
import { loadNpmArtifact } from '../../devnet/world/npm-artifacts';
import { sortTokens, v2PairAddress, v3PoolAddress } from '../../devnet/world/uniswap-pool-address';
import { fullRangeTicks } from '../../devnet/world/v3-math';
import { worldSpec } from '../../devnet/world/world-spec';
import { startContractsWorld, wethUsdcMinter, type ContractsWorld } from './contracts/contracts-fixture';

// World deployment takes a few seconds; jest's per-project testTimeout does not apply to hooks run this way.
jest.setTimeout(180_000);

const CHAIN_ID = 1;
const MINT_TOPIC = id('Mint(address,address,int24,int24,uint128,uint256,uint256)');
const E18 = 10n ** 18n;

/** Counts the RPC requests the sources make (each eth_call is one multicall chunk). */
class CountingClient extends ChainClient {
  readonly counts = new Map<string, number>();
  /** The filters of the eth_getLogs requests since counts were last cleared. */
  readonly logFilters: Array<{ fromBlock: string; topics: unknown[] }> = [];
  private count(method: string): void {
    this.counts.set(method, (this.counts.get(method) ?? 0) + 1);
  }
  total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }
  override call(tx: CallRequest, blockTag?: BlockTag): Promise<string> {
    this.count('eth_call');
    return super.call(tx, blockTag);
  }
  override send(method: string, params?: readonly unknown[]): Promise<unknown> {
    this.count(method);
    if (method === 'eth_getLogs')
      this.logFilters.push(params![0] as { fromBlock: string; topics: unknown[] });
    return super.send(method, params);
  }
}

/**
 * A node that mishandles the whole-history eth_getLogs the V3 source asks for its Mint events: it refuses it (as
 * providers capping log ranges do), or it leaves out the logs `drop` selects.
 */
class FaultyLogsClient extends ChainClient {
  constructor(
    private readonly fault: 'refuse' | { drop: (log: { address: string; topics: string[] }) => boolean },
  ) {
    super({ chainId: CHAIN_ID, name: 'devnet', rpcUrls: [ctx.chain.rpcUrl] });
  }
  override async send(method: string, params?: readonly unknown[]): Promise<unknown> {
    const wholeHistory =
      method === 'eth_getLogs' && (params![0] as { fromBlock: string }).fromBlock === '0x0';
    if (!wholeHistory) return super.send(method, params);
    if (this.fault === 'refuse') throw new Error('query returned more than 10000 results');
    const { drop } = this.fault;
    const logs = (await super.send(method, params)) as Array<{ address: string; topics: string[] }>;
    return logs.filter((log) => !drop(log));
  }
}

let ctx: ContractsWorld;
let client: CountingClient;
let registry: SourceRegistry;
const report: string[] = [];

const lower = (a: string) => a.toLowerCase();
const v2Pools = (pools: readonly PoolState[]) => pools.filter((p): p is V2PoolState => p.kind === 'v2');
const v3Pools = (pools: readonly PoolState[]) => pools.filter((p): p is V3PoolState => p.kind === 'v3');
const poolAbi = () => loadNpmArtifact('UniswapV3Pool').abi;

async function timedRefresh(blockNumber: number, label: string) {
  client.counts.clear();
  client.logFilters.length = 0;
  const began = performance.now();
  const refresh = await registry.refreshAll(blockNumber);
  const ms = performance.now() - began;
  report.push(
    `${label}: ${client.total()} RPC requests (${JSON.stringify(Object.fromEntries(client.counts))}), ${ms.toFixed(1)} ms, ${refresh.pools.length} pools`,
  );
  expect(refresh.failures).toEqual([]);
  return refresh;
}

const sortPools = (pools: readonly PoolState[]) =>
  [...pools].sort((a, b) => a.address.localeCompare(b.address));

/**
 * The V3 pools a new source reads through `over` at the block (every tick set read from scratch), sorted; only
 * the pools of one fee tier between `only.symbols` when given.
 */
async function freshV3Pools(
  over: ChainClient,
  blockNumber: number,
  only?: { symbols: readonly string[]; fee: number },
): Promise<PoolState[]> {
  const fresh = new UniswapV3Source({
    client: over,
    id: 'uniswap-v3',
    name: 'Uniswap V3',
    factory: ctx.world.contracts.uniswapV3Factory,
    multicall: ctx.world.contracts.multicall,
    feeTiers: only && [only.fee],
  });
  await fresh.discover(
    only ? only.symbols.map((s) => ctx.address(s)) : ctx.world.tokens.map((t) => t.address),
  );
  await fresh.refresh(blockNumber);
  return sortPools(fresh.snapshot().pools);
}

function v3State(address: string): V3PoolState {
  const pool = v3Pools(registry.get('uniswap-v3')!.snapshot().pools).find(
    (p) => p.address === lower(address),
  );
  if (!pool) throw new Error(`no V3 pool ${address} in the snapshot`);
  return pool;
}

beforeAll(async () => {
  ctx = await startContractsWorld(CHAIN_ID);
  client = new CountingClient({ chainId: CHAIN_ID, name: 'devnet', rpcUrls: [ctx.chain.rpcUrl] });
  registry = SourceRegistry.fromConfig(
    client,
    // Uniswap V2 and V3 only: the other venues' sources have their own suite (venue-sources.test.ts).
    devnetSourcesConfig({
      chainId: CHAIN_ID,
      contracts: {
        multicall: ctx.world.contracts.multicall,
        uniswapV2Factory: ctx.world.contracts.uniswapV2Factory,
        uniswapV3Factory: ctx.world.contracts.uniswapV3Factory,
      },
    }),
  );
});

afterAll(async () => {
  if (report.length) console.warn(`liquidity source refreshes on the devnet world:\n${report.join('\n')}`);
  client?.close();
  await ctx?.stop();
});

describe('liquidity sources on the devnet world', () => {
  it('configures the devnet sources with their ids, dex names and hop kinds', () => {
    expect(registry.sources.map((s) => [s.id, s.name, s.chainId, s.hopKind])).toEqual([
      ['uniswap-v2', 'Uniswap V2', CHAIN_ID, HOP_KIND_V2],
      ['uniswap-v3', 'Uniswap V3', CHAIN_ID, HOP_KIND_V3],
    ]);
    expect(registry.get('uniswap-v2')!.snapshot()).toEqual({ blockNumber: NEVER_REFRESHED, pools: [] });
  });

  it('discovers exactly the seeded V2 pairs and V3 pools', async () => {
    client.counts.clear();
    await registry.discoverAll(ctx.world.tokens.map((t) => t.address));
    report.push(`discovery of ${ctx.world.tokens.length} tokens: ${client.total()} RPC requests`);
    const refresh = await timedRefresh(await client.blockNumber(), 'first refresh (all tick sets read)');

    const spec = worldSpec(CHAIN_ID);
    const { uniswapV2Factory, uniswapV3Factory } = ctx.world.contracts;
    const expectedV2 = spec.v2Pools.map((p) => {
      const [token0, token1] = sortTokens(ctx.address(p.base), ctx.address(p.quote)).map(lower);
      return { address: lower(v2PairAddress(uniswapV2Factory, token0!, token1!)), token0, token1 };
    });
    const expectedV3 = spec.v3Pools.map((p) => {
      const [token0, token1] = sortTokens(ctx.address(p.base), ctx.address(p.quote)).map(lower);
      const address = lower(v3PoolAddress(uniswapV3Factory, token0!, token1!, p.fee));
      return { address, token0, token1, fee: p.fee, tickSpacing: p.fee === 500 ? 10 : 60 };
    });
    const byAddress = (a: { address: string }, b: { address: string }) => a.address.localeCompare(b.address);
    expect(
      v2Pools(refresh.pools)
        .map(({ address, token0, token1 }) => ({ address, token0, token1 }))
        .sort(byAddress),
    ).toEqual(expectedV2.sort(byAddress));
    expect(
      v3Pools(refresh.pools)
        .map(({ address, token0, token1, fee, tickSpacing }) => ({
          address,
          token0,
          token1,
          fee,
          tickSpacing,
        }))
        .sort(byAddress),
    ).toEqual(expectedV3.sort(byAddress));
    expect(refresh.pools.every((p) => p.sourceId === (p.kind === 'v2' ? 'uniswap-v2' : 'uniswap-v3'))).toBe(
      true,
    );

    // Discovering again finds nothing new.
    await registry.discoverAll(ctx.world.tokens.map((t) => t.address.toUpperCase().replace('0X', '0x')));
    expect((await registry.refreshAll(refresh.blockNumber)).pools).toHaveLength(refresh.pools.length);
  });

  it('loads reserves equal to getReserves and V3 state equal to slot0, liquidity and the full-range ticks', async () => {
    const source = registry.get('uniswap-v2')!;
    const { blockNumber, pools } = source.snapshot();
    for (const pool of v2Pools(pools)) {
      const [r0, r1] = (await new Contract(pool.address, V2_PAIR_ABI, ctx.provider).getFunction(
        'getReserves',
      )({
        blockTag: blockNumber,
      })) as [bigint, bigint];
      expect([pool.reserve0, pool.reserve1, pool.feeBps]).toEqual([r0, r1, 30n]);
      expect(r0 > 0n && r1 > 0n).toBe(true);
    }
    for (const pool of v3Pools(registry.get('uniswap-v3')!.snapshot().pools)) {
      const contract = new Contract(pool.address, poolAbi(), ctx.provider);
      const [slot0, liquidity] = await Promise.all([
        contract.getFunction('slot0')({ blockTag: blockNumber }) as Promise<[bigint, bigint]>,
        contract.getFunction('liquidity')({ blockTag: blockNumber }) as Promise<bigint>,
      ]);
      expect([pool.sqrtPriceX96, pool.tick, pool.liquidity]).toEqual([slot0[0], Number(slot0[1]), liquidity]);
      // The seed is one full-range position: its two bounds are the only initialized ticks.
      const { tickLower, tickUpper } = fullRangeTicks(pool.fee);
      expect(pool.ticks).toEqual([
        { index: tickLower, liquidityNet: liquidity },
        { index: tickUpper, liquidityNet: -liquidity },
      ]);
    }
  });

  describe('after minting narrow positions on WETH/USDC 0.3 %', () => {
    let poolAddress: string;
    let narrow: Array<{ tickLower: number; tickUpper: number; liquidity: bigint }>;

    beforeAll(async () => {
      const [weth, usdc] = [ctx.address('WETH'), ctx.address('USDC')];
      poolAddress = v3PoolAddress(ctx.world.contracts.uniswapV3Factory, weth, usdc, 3000);
      const pool = new Contract(poolAddress, poolAbi(), ctx.provider);
      const lp = ctx.accounts[0]!;
      const minter = await wethUsdcMinter(ctx, lp);
      const tick = v3State(poolAddress).tick;
      const t0 = Math.floor(tick / 60) * 60;
      narrow = [];
      for (const [tickLower, tickUpper] of [
        [t0 - 120, t0 + 180],
        [t0 - 600, t0 - 240],
        [t0 + 60, t0 + 120],
      ] as Array<[number, number]>) {
        const receipt = await minter.mint(tickLower, tickUpper);
        const mint = receipt.logs
          .filter((log) => lower(log.address) === lower(poolAddress))
          .map((log) => pool.interface.parseLog(log))
          .find((parsed) => parsed?.name === 'Mint');
        narrow.push({ tickLower, tickUpper, liquidity: mint!.args.getValue('amount') as bigint });
      }
    });

    it('a refresh at the new block includes the new ticks with their liquidityNet (incremental = full read)', async () => {
      const blockNumber = await client.blockNumber();
      await timedRefresh(blockNumber, 'refresh after 3 mints (one pool re-reads its ticks)');
      const state = v3State(poolAddress);
      for (const { tickLower, tickUpper, liquidity } of narrow) {
        expect(state.ticks).toContainEqual({ index: tickLower, liquidityNet: liquidity });
        expect(state.ticks).toContainEqual({ index: tickUpper, liquidityNet: -liquidity });
      }
      expect(state.ticks).toHaveLength(2 + 2 * narrow.length);
      expect(state.ticks.map((t) => t.index)).toEqual(
        [...state.ticks.map((t) => t.index)].sort((a, b) => a - b),
      );

      // A fresh source reading every tick set gives the same state as the incremental refresh.
      expect(await freshV3Pools(client, blockNumber)).toEqual(
        sortPools(registry.get('uniswap-v3')!.snapshot().pools),
      );
    });

    it('reads every tick set by bitmap scan, to the same state, when the node refuses the Mint log history', async () => {
      const refusing = new FaultyLogsClient('refuse');
      try {
        // WETH/USDC 0.3 % only (with the narrow positions): a full bitmap scan takes seconds on ganache.
        const { blockNumber } = registry.get('uniswap-v3')!.snapshot();
        expect(await freshV3Pools(refusing, blockNumber, { symbols: ['WETH', 'USDC'], fee: 3000 })).toEqual([
          v3State(poolAddress),
        ]);
      } finally {
        refusing.close();
      }
    });

    it('notices Mint logs missing from the answer (ticks not adding up to the liquidity) and scans that pool instead', async () => {
      // The narrow position around the current tick: its ticks are no other position's, and it is in range.
      const straddling = narrow[0]!;
      const topicOf = (tick: number) => AbiCoder.defaultAbiCoder().encode(['int24'], [tick]);
      const dropping = new FaultyLogsClient({
        drop: (log) =>
          lower(log.address) === lower(poolAddress) &&
          log.topics[2] === topicOf(straddling.tickLower) &&
          log.topics[3] === topicOf(straddling.tickUpper),
      });
      try {
        const { blockNumber, pools } = registry.get('uniswap-v3')!.snapshot();
        const state = v3State(poolAddress);
        const withoutIt = state.ticks.filter(
          (t) => t.index !== straddling.tickLower && t.index !== straddling.tickUpper,
        );
        expect(ticksMatchLiquidity(withoutIt, state.tick, state.liquidity)).toBe(false);
        expect(ticksMatchLiquidity(state.ticks, state.tick, state.liquidity)).toBe(true);
        expect(await freshV3Pools(dropping, blockNumber)).toEqual(sortPools(pools));
      } finally {
        dropping.close();
      }
    });

    it('simulateV3ExactIn on the loaded state equals QuoterV2 for amounts crossing ticks', async () => {
      const state = v3State(poolAddress);
      const quoter = new Contract(ctx.world.contracts.uniswapV3QuoterV2, V3_QUOTER_V2_ABI, ctx.provider);
      const weth = lower(ctx.address('WETH'));
      for (const zeroForOne of [true, false]) {
        const [tokenIn, tokenOut] = zeroForOne ? [state.token0, state.token1] : [state.token1, state.token0];
        const amountIn = tokenIn === weth ? 40n * E18 : 150_000n * 10n ** 6n;
        const simulated = simulateV3ExactIn(state, zeroForOne, amountIn);
        expect(simulated.ticksCrossed).toBeGreaterThanOrEqual(2);
        const [amountOut, sqrtPriceX96After, ticksCrossed] = (await quoter
          .getFunction('quoteExactInputSingle')
          .staticCall(
            { tokenIn, tokenOut, amountIn, fee: 3000, sqrtPriceLimitX96: 0n },
            { blockTag: registry.get('uniswap-v3')!.snapshot().blockNumber },
          )) as [bigint, bigint, bigint];
        expect([
          simulated.amountOut,
          simulated.sqrtPriceX96After,
          quoterV2TicksCrossed(state.ticks, state.tickSpacing, state.tick, simulated.tickAfter),
        ]).toEqual([amountOut, sqrtPriceX96After, Number(ticksCrossed)]);
      }
    });

    it('after market moves, a refresh at the new block has the moved reserves and price', async () => {
      const before = await registry.refreshAll(await client.blockNumber());
      const v2Address = lower(
        v2PairAddress(ctx.world.contracts.uniswapV2Factory, ctx.address('WETH'), ctx.address('USDC')),
      );
      const moveOpts = {
        provider: ctx.provider,
        chainId: CHAIN_ID,
        world: ctx.world,
        signer: ctx.accounts[2]!,
      };
      await movePrice({ ...moveOpts, pair: 'WETH/USDC', by: 0.05, dex: 'v2' });
      await movePrice({ ...moveOpts, pair: 'WETH/USDC', by: -0.04, dex: 'v3', fee: 3000 });
      const blockNumber = await client.blockNumber();
      expect(blockNumber).toBeGreaterThan(before.blockNumber);
      const after = await timedRefresh(blockNumber, 'refresh after two swaps (no tick set re-read)');
      expect(client.counts.get('eth_getLogs')).toBe(1);

      const v2Before = v2Pools(before.pools).find((p) => p.address === v2Address)!;
      const v2After = v2Pools(after.pools).find((p) => p.address === v2Address)!;
      const [r0, r1] = (await new Contract(v2Address, V2_PAIR_ABI, ctx.provider).getFunction('getReserves')({
        blockTag: blockNumber,
      })) as [bigint, bigint];
      expect([v2After.reserve0, v2After.reserve1]).toEqual([r0, r1]);
      expect([v2After.reserve0, v2After.reserve1]).not.toEqual([v2Before.reserve0, v2Before.reserve1]);

      const v3Before = v3Pools(before.pools).find((p) => p.address === lower(poolAddress))!;
      const v3After = v3State(poolAddress);
      const contract = new Contract(poolAddress, poolAbi(), ctx.provider);
      const slot0 = (await contract.getFunction('slot0')({ blockTag: blockNumber })) as [bigint, bigint];
      const liquidity = (await contract.getFunction('liquidity')({ blockTag: blockNumber })) as bigint;
      expect([v3After.sqrtPriceX96, v3After.tick, v3After.liquidity]).toEqual([
        slot0[0],
        Number(slot0[1]),
        liquidity,
      ]);
      expect(v3After.sqrtPriceX96).not.toBe(v3Before.sqrtPriceX96);
      // Swaps cross ticks but do not change them.
      expect(v3After.ticks).toEqual(v3Before.ticks);
      // Pools the swaps did not touch are unchanged.
      const untouched = (pools: readonly PoolState[]) =>
        pools.filter((p) => p.address !== v2Address && p.address !== lower(poolAddress));
      expect(untouched(after.pools)).toEqual(untouched(before.pools));
    });
  });

  describe('BlockFollower and PoolStateCache', () => {
    it('picks up a new block and refreshes the cache at it', async () => {
      const cache = new PoolStateCache();
      const refreshed: number[] = [];
      const follower = new BlockFollower({
        client,
        registry,
        cache,
        pollMs: 25,
        onRefresh: (head) => refreshed.push(head.number),
      });
      const waitFor = async (blockNumber: number) => {
        for (let i = 0; i < 3000 && cache.get(CHAIN_ID)?.blockNumber !== blockNumber; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect(cache.get(CHAIN_ID)?.blockNumber).toBe(blockNumber);
      };
      try {
        follower.start();
        const first = await client.blockNumber();
        await waitFor(first);
        await movePrice({
          provider: ctx.provider,
          chainId: CHAIN_ID,
          world: ctx.world,
          signer: ctx.accounts[2]!,
          pair: 'WETH/USDC',
          by: 0.02,
          dex: 'v2',
        });
        const next = await client.blockNumber();
        await waitFor(next);
        const block = await ctx.provider.getBlock(next);
        const cached = cache.get(CHAIN_ID)!;
        expect(cached.blockHash).toBe(lower(block!.hash!));
        expect(cached.pools).toEqual((await registry.refreshAll(next)).pools);
        expect(refreshed[0]).toBe(first);
        expect(refreshed.at(-1)).toBe(next);
      } finally {
        await follower.stop();
      }
      const stoppedAt = cache.get(CHAIN_ID)!.blockNumber;
      await ctx.chain.mine();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(cache.get(CHAIN_ID)!.blockNumber).toBe(stoppedAt);
    });

    it('detects a real reorg (revert and re-mine), invalidates and re-reads every tick set', async () => {
      const cache = new PoolStateCache();
      const follower = new BlockFollower({ client, registry, cache, pollMs: 1000 });
      const snap = await ctx.chain.snapshot();
      await ctx.chain.mine();
      const first = await follower.poll();
      expect(first).toMatchObject({ refreshed: true, relation: 'empty' });
      const orphan = cache.get(CHAIN_ID)!;

      await ctx.chain.revert(snap);
      // The replacement branch: other timestamps, so other block hashes at the same heights.
      await ctx.chain.increaseTime(1000);
      await ctx.chain.mine();
      await ctx.chain.mine();
      client.counts.clear();
      client.logFilters.length = 0;
      const began = performance.now();
      const second = await follower.poll();
      report.push(
        `follower poll after a reorg (every tick set re-read): ${client.total()} RPC requests (${JSON.stringify(Object.fromEntries(client.counts))}), ${(performance.now() - began).toFixed(1)} ms`,
      );
      expect(second).toMatchObject({ refreshed: true, relation: 'reorg' });
      const current = cache.get(CHAIN_ID)!;
      expect(current.blockNumber).toBe(orphan.blockNumber + 1);
      expect(current.blockHash).not.toBe(orphan.blockHash);
      // Every tick set was read again: the Mint history of every pool, not the Mint/Burn logs since a block.
      expect(client.logFilters).toEqual([
        expect.objectContaining({ fromBlock: '0x0', topics: [MINT_TOPIC] }),
      ]);
      expect(await follower.poll()).toEqual({ refreshed: false });
    });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Interface } from 'ethers';
import { devnetKeys } from '../../devnet/keys';
import { loadDevnetConfig } from '../../devnet/devnet-config';
import type { ManifestChain } from '../../devnet/manifest';
import { v2Price, v3Price, type PairToken } from '../../devnet/market/pool-price';
import type { ChainHandle } from '../../devnet/start-chain';
import { startDevnet, type RunningDevnet } from '../../devnet/start-devnet';
import { MarketDriver } from '../../simulator/run/market-driver';
import { findMarketPools, type MarketPool } from '../../simulator/run/market-pools';
import { succeeded } from '../../simulator/run/mined-receipt';
import { TokenFunding } from '../../simulator/run/token-funding';
import { V2_PAIR_ABI, V3_POOL_ABI } from '../../devnet/world/abis';
import { readV4Slot0 } from '../../devnet/world/v4-pool-state';
import { createLogger } from '../../shared/log/create-logger';

/**
 * The simulation's market mover on a devnet chain: every pool of the market — Uniswap V2, SushiSwap V2, each
 * Uniswap V3 fee tier and Uniswap V4 — ends each block at the path's price, read back from the pools themselves.
 */

jest.setTimeout(120_000);

const PAIR = new Interface(V2_PAIR_ABI);
const POOL = new Interface(V3_POOL_ABI);

describe('the market mover moves every venue of a market', () => {
  let dataDir: string;
  let devnet: RunningDevnet;
  let chain: ChainHandle;
  let manifest: ManifestChain;
  let base: PairToken;
  let quote: PairToken;
  let pools: MarketPool[];
  let driver: MarketDriver;

  const priceOf = async (pool: MarketPool): Promise<number> => {
    if (pool.kind === 'v2' || pool.kind === 'sushi') {
      const raw = await chain.provider.call({
        to: pool.address,
        data: PAIR.encodeFunctionData('getReserves'),
      });
      const [r0, r1] = PAIR.decodeFunctionResult('getReserves', raw) as unknown as [bigint, bigint];
      return pool.baseIsToken0 ? v2Price(r0, r1, base, quote) : v2Price(r1, r0, base, quote);
    }
    const sqrt =
      pool.kind === 'v4'
        ? (await readV4Slot0(chain.provider, manifest.contracts.uniswapV4PoolManager!, pool.poolId))
            .sqrtPriceX96
        : (POOL.decodeFunctionResult(
            'slot0',
            await chain.provider.call({ to: pool.address, data: POOL.encodeFunctionData('slot0') }),
          )[0] as bigint);
    return v3Price(sqrt, pool.baseIsToken0, base, quote);
  };

  const expectAllAt = async (target: number): Promise<void> => {
    const prices = await Promise.all(pools.map(async (p) => [p.kind, await priceOf(p)] as const));
    for (const [kind, price] of prices) {
      expect({ kind, off: Math.abs(price / target - 1) < 1e-4 }).toEqual({ kind, off: true });
    }
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-mover-'));
    devnet = await startDevnet(
      loadDevnetConfig({ DATA_DIR: dataDir, DEVNET_CHAINS: '1', DEVNET_PORTS: '0' }),
      createLogger('silent', 'test'),
    );
    chain = devnet.handles[0]!;
    manifest = devnet.manifest.chains[0]!;
    const token = (symbol: string) => manifest.tokens.find((t) => t.symbol === symbol)!;
    [base, quote] = [token('WETH'), token('USDC')];
    pools = await findMarketPools(chain.provider, manifest, base, quote);
    driver = await MarketDriver.create(
      chain,
      manifest,
      [{ pair: 'WETH/USDC', base: 'WETH', quote: 'USDC' }],
      devnetKeys().mover.address,
      new TokenFunding(chain, manifest.contracts.weth),
    );
  });
  afterAll(async () => {
    await devnet?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds the pair on every venue the devnet has', () => {
    expect(
      pools.map((p) => (p.kind === 'v3' ? `v3 ${p.fee}` : p.kind === 'v4' ? `v4 ${p.key.fee}` : p.kind)),
    ).toEqual(['v2', 'sushi', 'v3 500', 'v3 3000', 'v4 3000']);
  });

  it('takes every pool down to the target (instant mining), then up within one mined block', async () => {
    const down = await driver.move([2800]);
    for (const hash of down.trades) expect(await succeeded(chain.provider, hash)).toBe(true);
    await expectAllAt(2800);

    await chain.pauseMining();
    const up = await driver.move([3300]);
    await chain.mine();
    await chain.resumeMining();
    for (const hash of up.trades) expect(await succeeded(chain.provider, hash)).toBe(true);
    await expectAllAt(3300);
    // Already there: nothing to trade.
    expect((await driver.move([3300])).trades).toEqual([]);
  });
});

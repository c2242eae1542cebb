import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Contract } from 'ethers';
import { loadDevnetConfig } from '../../devnet/devnet-config';
import { startDevnet, type RunningDevnet } from '../../devnet/start-devnet';
import { ERC20_ABI, V2_FACTORY_ABI, V2_PAIR_ABI } from '../../devnet/world/abis';
import { poolAmounts, worldSpec } from '../../devnet/world/world-spec';
import type { ChainConfig } from '../../shared/config/config-schema';
import { createLogger } from '../../shared/log/create-logger';
import { NATIVE_TOKEN_KEY } from '../../shared/domain/addresses';
import { tokensOfChain } from '../../shared/tokens/token-lists';
import { SPEC_CHAINS as CHAINS } from '../helpers/spec-chains';

/** Every chain of the spec on one devnet, each with its own native coin and wrapped native. */

/** The production chains file: the devnet names its chains and native coins as the service does in production. */
const PRODUCTION_CHAINS = (
  JSON.parse(readFileSync(path.resolve(__dirname, '../../config/chains.json'), 'utf8')) as {
    chains: ChainConfig[];
  }
).chains;

// Eight worlds deploy at once; on the in-process engine they share this process's one thread.
jest.setTimeout(240_000);

describe('a devnet of all eight chains of the spec', () => {
  let dataDir: string;
  let devnet: RunningDevnet;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-devnet-chains-'));
    const config = loadDevnetConfig({
      DATA_DIR: dataDir,
      DEVNET_CHAINS: CHAINS.map(([id]) => id).join(','),
      DEVNET_PORTS: CHAINS.map(() => '0').join(','),
    });
    devnet = await startDevnet(config, createLogger('silent', 'test'));
  });
  afterAll(async () => {
    await devnet?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the chains in the configured order, each on its own chain id', async () => {
    expect(devnet.manifest.chains.map((c) => c.chainId)).toEqual(CHAINS.map(([id]) => id));
    expect(devnet.deployed).toEqual(CHAINS.map(() => true));
    const served = await Promise.all(devnet.handles.map((h) => h.provider.send('eth_chainId', [])));
    expect(served).toEqual(CHAINS.map(([id]) => `0x${id.toString(16)}`));
  });

  describe.each(CHAINS)('chain %i', (chainId, native, wrapped, wrappedName) => {
    const indexOf = () => devnet.manifest.chains.findIndex((c) => c.chainId === chainId);

    it(`lists ${native} as native coin in the manifest, the api's chain and the token list`, () => {
      const i = indexOf();
      const entry = devnet.manifest.chains[i]!;
      const production = PRODUCTION_CHAINS.find((c) => c.chainId === chainId)!;
      expect(entry.nativeSymbol).toBe(native);
      expect([entry.name, entry.nativeSymbol]).toEqual([production.name, production.nativeSymbol]);
      // The manifest file on disk says the same as the returned one.
      const onDisk = JSON.parse(
        readFileSync(path.join(dataDir, 'devnet.json'), 'utf8'),
      ) as typeof devnet.manifest;
      expect(onDisk.chains[i]!.nativeSymbol).toBe(native);

      const config = devnet.chains[i]!;
      expect(config).toMatchObject({ chainId, nativeSymbol: native, wrappedNative: entry.contracts.weth });
      // What GET /tokens serves: the native coin first, then the wrapped native under its own symbol and name.
      const [coin, first] = tokensOfChain(config);
      expect(coin).toMatchObject({
        address: NATIVE_TOKEN_KEY,
        symbol: native,
        decimals: 18,
        native: true,
      });
      expect(first).toMatchObject({ address: entry.contracts.weth, symbol: wrapped, name: wrappedName });
    });

    it(`has a wrapped native whose name() and symbol() read "${wrappedName}" and ${wrapped}`, async () => {
      const i = indexOf();
      const entry = devnet.manifest.chains[i]!;
      expect(entry.tokens[0]).toEqual({ symbol: wrapped, address: entry.contracts.weth, decimals: 18 });
      const token = new Contract(entry.contracts.weth, ERC20_ABI, devnet.handles[i]!.provider);
      const [name, symbol, decimals] = await Promise.all([
        token.getFunction('name')(),
        token.getFunction('symbol')(),
        token.getFunction('decimals')(),
      ]);
      expect([name, symbol, decimals]).toEqual([wrappedName, wrapped, 18n]);
    });

    it(`holds the seeded reserves in the V2 pool of ${wrapped} and USDC`, async () => {
      const i = indexOf();
      const entry = devnet.manifest.chains[i]!;
      const provider = devnet.handles[i]!.provider;
      const usdc = entry.tokens.find((t) => t.symbol === 'USDC')!.address;
      const factory = new Contract(entry.contracts.uniswapV2Factory, V2_FACTORY_ABI, provider);
      const pair = new Contract(
        (await factory.getFunction('getPair')(entry.contracts.weth, usdc)) as string,
        V2_PAIR_ABI,
        provider,
      );
      const [reserve0, reserve1] = (await pair.getFunction('getReserves')()) as [bigint, bigint];
      const wrappedIs0 = ((await pair.getFunction('token0')()) as string) === entry.contracts.weth;
      const [wrappedReserve, usdcReserve] = wrappedIs0 ? [reserve0, reserve1] : [reserve1, reserve0];
      const spec = worldSpec(chainId);
      const pool = spec.v2Pools.find((p) => p.base === wrapped && p.quote === 'USDC')!;
      const seeded = poolAmounts(spec, pool);
      expect(wrappedReserve).toBeGreaterThan(0n);
      expect([wrappedReserve, usdcReserve]).toEqual([seeded.base, seeded.quote]);
    });
  });
});

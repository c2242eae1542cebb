import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Contract, MaxUint256, parseUnits, type JsonRpcProvider } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import { devnetKeys } from '../../devnet/keys';
import { buildManifestChain, readManifest, writeManifest, type ManifestChain } from '../../devnet/manifest';
import { manifestErrors } from '../../devnet/manifest-validator';
import { readV2Pool, readV3Pool } from '../../devnet/market/pool-price';
import { movePrice } from '../../devnet/market-mover';
import { startChain, type ChainHandle } from '../../devnet/start-chain';
import { ERC20_ABI, FAR_DEADLINE, V2_ROUTER_ABI, V3_QUOTER_V2_ABI } from '../../devnet/world/abis';
import { deployWorld, type DeployedWorld } from '../../devnet/world/deploy-world';
import {
  BRIDGE_LIQUIDITY_USD,
  BRIDGE_RELEASE_LIMIT_USD,
  bridgeInventory,
} from '../../devnet/world/bridge-inventory';
import {
  DEVNET_LOCK_TIMEOUT_SECONDS,
  DEVNET_RELEASE_DELAY_SECONDS,
  DEVNET_ROOT_BUNDLE_LIVENESS_SECONDS,
} from '../../devnet/world/deploy-bridges';
import { tokenListOf } from '../../devnet/world/token-list';
import {
  crossChainEntryInterface,
  lockReleaseBridgeInterface,
  rootBundleAdminInterface,
  spokePoolInterface,
} from '../../shared/bridges/contracts';
import { DEFAULT_PROTOCOL_FEE_PIPS } from '../../shared/domain/protocol-fee';
import { referencePrice, reserveTotals, worldSpec } from '../../devnet/world/world-spec';
import { mined } from '../../devnet/wait-for-receipt';

const keys = devnetKeys();
const fund = [...keys.accounts.map((a) => a.address), keys.mover.address];
const COIN = 10n ** 18n;

interface Deployed {
  chain: ChainHandle;
  world: DeployedWorld;
  manifest: ManifestChain;
}

async function deploy(chainId: number, dbPath?: string): Promise<Deployed> {
  const chain = await startChain({ chainId, dbPath });
  const world = await deployWorld({
    provider: chain.provider,
    mining: chain,
    chainId,
    deployer: keys.deployer,
    executors: keys.executors.map((e) => e.address),
    fund,
  });
  const nativeSymbol = worldSpec(chainId).nativeSymbol;
  const manifest = buildManifestChain(world, chain.rpcUrl, `chain-${chainId}`, nativeSymbol, keys.accounts);
  return { chain, world, manifest };
}

function tokenOf(world: DeployedWorld, symbol: string) {
  const token = world.tokens.find((t) => t.symbol === symbol);
  if (!token) throw new Error(`no ${symbol}`);
  return token;
}

async function snapshot(chain: ChainHandle): Promise<() => Promise<void>> {
  const id = await chain.snapshot();
  return () => chain.revert(id);
}

const deployed = new Map<number, Deployed>();

beforeAll(async () => {
  // Both chains side by side, as `npm start` runs them; each world deploys once for the whole file.
  for (const chainId of [1, 137]) deployed.set(chainId, await deploy(chainId));
});

afterAll(async () => {
  await Promise.all([...deployed.values()].map((d) => d.chain.stop()));
});

describe.each([1, 137])('the fixture world of chain %i', (chainId) => {
  const get = () => deployed.get(chainId) as Deployed;

  it('serves the chain id on eth_chainId and net_version', async () => {
    const { chain } = get();
    expect(await chain.provider.send('eth_chainId', [])).toBe(`0x${chainId.toString(16)}`);
    expect(await chain.provider.send('net_version', [])).toBe(String(chainId));
  });

  it('has code at every manifest address and the position manager', async () => {
    const { chain, world, manifest } = get();
    const addresses = [
      ...Object.values(manifest.contracts),
      ...manifest.tokens.slice(1).map((t) => t.address),
      world.contracts.uniswapV3PositionManager,
    ];
    // The wrapped native is both the `weth` contract and the first token; every other address is distinct.
    expect(manifest.tokens[0].address).toBe(manifest.contracts.weth);
    expect(new Set(addresses).size).toBe(addresses.length);
    for (const address of addresses) {
      expect((await chain.provider.getCode(address)).length).toBeGreaterThan(2);
    }
  });

  it('lists the tokens with their real symbols and decimals, the wrapped native first', async () => {
    const { chain, world } = get();
    const expected =
      chainId === 137
        ? [
            ['WPOL', 18],
            ['WETH', 18],
            ['USDC', 6],
            ['USDT', 6],
            ['DAI', 18],
            ['WBTC', 8],
            ['LINK', 18],
          ]
        : [
            ['WETH', 18],
            ['USDC', 6],
            ['USDT', 6],
            ['DAI', 18],
            ['WBTC', 8],
            ['LINK', 18],
            ['UNI', 18],
            ['SUSHI', 18],
            ['BAL', 18],
          ];
    expect(world.tokens.map((t) => [t.symbol, t.decimals])).toEqual(expected);
    expect(world.tokens[0].address).toBe(world.contracts.weth);
    // The wrapped native included: its contract takes the chain's name and symbol (WPOL on 137).
    for (const token of world.tokens) {
      const erc20 = new Contract(token.address, ERC20_ABI, chain.provider);
      expect(await erc20.getFunction('symbol')()).toBe(token.symbol);
      expect(await erc20.getFunction('decimals')()).toBe(BigInt(token.decimals));
    }
    const wrapped = new Contract(world.contracts.weth, ERC20_ABI, chain.provider);
    expect(await wrapped.getFunction('name')()).toBe(
      chainId === 137 ? 'Wrapped Polygon Ecosystem Token' : 'Wrapped Ether',
    );
  });

  it('seeds every V2 and V3 pool within 0.5 % of the reference price', async () => {
    const { chain, world } = get();
    const spec = worldSpec(chainId);
    expect(spec.v2Pools.length).toBeGreaterThanOrEqual(5);
    for (const pool of spec.v2Pools) {
      const state = await readV2Pool(
        chain.provider,
        world.contracts.uniswapV2Factory,
        tokenOf(world, pool.base),
        tokenOf(world, pool.quote),
      );
      const target = referencePrice(spec, pool.base, pool.quote);
      expect(Math.abs(state.price / target - 1)).toBeLessThan(0.005);
    }
    const fees = new Set<number>();
    for (const pool of spec.v3Pools) {
      const state = await readV3Pool(
        chain.provider,
        world.contracts.uniswapV3Factory,
        tokenOf(world, pool.base),
        tokenOf(world, pool.quote),
        pool.fee,
      );
      expect(Math.abs(state.price / referencePrice(spec, pool.base, pool.quote) - 1)).toBeLessThan(0.005);
      fees.add(pool.fee);
    }
    expect([...fees].sort()).toEqual([3000, 500]);
    const pairs = (list: Array<{ base: string; quote: string }>) => list.map((p) => `${p.base}/${p.quote}`);
    expect(pairs(spec.v2Pools)).toEqual(
      expect.arrayContaining(['WETH/USDC', 'WETH/USDT', 'WETH/DAI', 'WBTC/WETH', 'USDC/USDT']),
    );
    expect(pairs(spec.v3Pools)).toEqual(expect.arrayContaining(['WETH/USDC', 'WBTC/WETH']));
    if (chainId === 137)
      expect(pairs(spec.v2Pools)).toEqual(expect.arrayContaining(['WPOL/USDC', 'WETH/WPOL']));
  });

  it('swaps 1 WETH through Router02 exactly as the router quotes, moving WETH/USDC by less than 1 %', async () => {
    const { chain, world } = get();
    const revert = await snapshot(chain);
    try {
      const trader = keys.accounts[0].connect(chain.provider);
      const [weth, usdc] = [tokenOf(world, 'WETH'), tokenOf(world, 'USDC')];
      const router = new Contract(world.contracts.uniswapV2Router02, V2_ROUTER_ABI, trader);
      const usdcToken = new Contract(usdc.address, ERC20_ABI, chain.provider);
      const before = await readV2Pool(chain.provider, world.contracts.uniswapV2Factory, weth, usdc);
      const oneWeth = parseUnits('1', 18);
      // The router finds the pair by its CREATE2 init-code hash: a quote proves the hash matches the pair code.
      const [, quoted] = (await router.getFunction('getAmountsOut')(oneWeth, [
        weth.address,
        usdc.address,
      ])) as bigint[];
      await mined(
        new Contract(weth.address, ERC20_ABI, trader).getFunction('approve')(router.target, MaxUint256),
      );
      const usdcBefore = (await usdcToken.getFunction('balanceOf')(trader.address)) as bigint;
      const tx = await router.getFunction('swapExactTokensForTokens')(
        oneWeth,
        quoted,
        [weth.address, usdc.address],
        trader.address,
        FAR_DEADLINE,
        { gasLimit: 300_000n },
      );
      expect((await mined(tx)).status).toBe(1);
      expect((await usdcToken.getFunction('balanceOf')(trader.address)) - usdcBefore).toBe(quoted);
      // 1 WETH at 3,000 USD less the 0.3 % fee and a price impact of about 0.05 %.
      expect(Number(quoted) / 1e6).toBeGreaterThan(2985);
      const after = await readV2Pool(chain.provider, world.contracts.uniswapV2Factory, weth, usdc);
      expect(Math.abs(after.price / before.price - 1)).toBeLessThan(0.01);
      expect(after.reserveBase - before.reserveBase).toBe(oneWeth);
    } finally {
      await revert();
    }
  });

  it('quotes V3 swaps with QuoterV2 in both fee tiers', async () => {
    const { chain, world } = get();
    const quoter = new Contract(world.contracts.uniswapV3QuoterV2, V3_QUOTER_V2_ABI, chain.provider);
    const [weth, usdc, wbtc] = ['WETH', 'USDC', 'WBTC'].map((s) => tokenOf(world, s));
    for (const fee of [500, 3000]) {
      const [usdcOut] = (await quoter.getFunction('quoteExactInputSingle').staticCall({
        tokenIn: weth.address,
        tokenOut: usdc.address,
        amountIn: parseUnits('1', 18),
        fee,
        sqrtPriceLimitX96: 0n,
      })) as bigint[];
      const expected = 3000 * (1 - fee / 1e6);
      expect(Math.abs(Number(usdcOut) / 1e6 / expected - 1)).toBeLessThan(0.002);
      const [wethOut] = (await quoter.getFunction('quoteExactInputSingle').staticCall({
        tokenIn: wbtc.address,
        tokenOut: weth.address,
        amountIn: parseUnits('1', 8),
        fee,
        sqrtPriceLimitX96: 0n,
      })) as bigint[];
      expect(Math.abs(Number(wethOut) / 1e18 / (20 * (1 - fee / 1e6)) - 1)).toBeLessThan(0.02);
    }
  });

  it('funds every account with native coins and at least a third of each token’s largest pool reserve', async () => {
    const { chain, world } = get();
    const largest = reserveTotals(worldSpec(chainId));
    for (const account of fund) {
      expect(await chain.provider.getBalance(account)).toBeGreaterThanOrEqual(10_000n * COIN);
      for (const token of world.tokens) {
        const balance = (await new Contract(token.address, ERC20_ABI, chain.provider).getFunction(
          'balanceOf',
        )(account)) as bigint;
        const reserve = largest.get(token.symbol)?.largest ?? 0n;
        expect(reserve).toBeGreaterThan(0n);
        expect(balance * 3n).toBeGreaterThanOrEqual(reserve);
      }
    }
  });

  it('deploys and wires our contracts', async () => {
    const { chain, world } = get();
    const at = (name: 'TokenSpender' | 'SwapRouter' | 'OrderExecutor', address: string) =>
      new Contract(address, loadArtifact(name).abi, chain.provider);
    const spender = at('TokenSpender', world.contracts.spender);
    const router = at('SwapRouter', world.contracts.swapRouter);
    const executor = at('OrderExecutor', world.contracts.orderExecutor);
    expect(await spender.getFunction('isCaller')(world.contracts.swapRouter)).toBe(true);
    expect(await router.getFunction('protocolFeePips')()).toBe(1500n);
    expect(await router.getFunction('protocolFeeRecipient')()).toBe(keys.protocolFeeRecipient);
    expect(await executor.getFunction('maxFeeBps')()).toBe(500n);
    expect(await executor.getFunction('feeCollector')()).toBe(keys.feeCollector);
    for (const e of keys.executors) expect(await executor.getFunction('isExecutor')(e.address)).toBe(true);
    expect(await executor.getFunction('isExecutor')(keys.accounts[0].address)).toBe(false);
    expect(world.executors).toEqual(keys.executors.map((e) => e.address));
  });

  it('deploys the other venues, owned by the deployer, and builds our contracts against them', async () => {
    const { chain, world } = get();
    const { provider } = chain;
    const deployer = keys.deployer.address;
    const read = async (address: string, fragment: string) =>
      (await new Contract(address, [fragment], provider).getFunction(
        fragment.split(/[ (]/)[1]!,
      )()) as unknown;
    const c = world.contracts;
    expect(await read(c.sushiswapV2Factory, 'function feeToSetter() view returns (address)')).toBe(deployer);
    expect(await read(c.uniswapV4PoolManager!, 'function owner() view returns (address)')).toBe(deployer);
    expect(await read(c.balancerVault, 'function WETH() view returns (address)')).toBe(c.weth);
    expect(await read(c.balancerWeightedPoolFactory, 'function getVault() view returns (address)')).toBe(
      c.balancerVault,
    );
    expect(await read(c.stableSwapFactory, 'function owner() view returns (address)')).toBe(deployer);
    // The pools of every venue, as the world spec has them (the per-venue prices: devnet-venues.test.ts).
    const spec = worldSpec(chainId);
    expect(world.venuePools.sushi).toHaveLength(spec.sushiPools.length);
    expect(world.venuePools.v4.map((p) => p.key.fee)).toEqual(spec.v4Pools.map((p) => p.fee));
    expect(world.venuePools.balancer).toHaveLength(spec.balancerPools.length);
    expect(world.venuePools.stable).toHaveLength(3);
    // Our SwapRouter and OrderExecutor route through exactly these venues (PathExecutor's getters).
    for (const address of [c.swapRouter, c.orderExecutor]) {
      for (const key of [
        'sushiswapV2Factory',
        'uniswapV4PoolManager',
        'balancerVault',
        'balancerWeightedPoolFactory',
        'stableSwapFactory',
      ] as const) {
        expect(await read(address, `function ${key}() view returns (address)`)).toBe(c[key]);
      }
    }
  });

  it('deploys the bridges: the Across SpokePool owned by our RootBundleAdmin, our entry and lock-release bridge', async () => {
    const { chain, world } = get();
    const spokePool = world.contracts.spokePool!;
    const rootBundleAdmin = world.contracts.rootBundleAdmin!;
    const spoke = new Contract(spokePool, spokePoolInterface(), chain.provider);
    // The SpokePool's owner is a contract: the bridge admin proposes root bundles to it, the deployer owns it.
    expect(await spoke.getFunction('owner')()).toBe(rootBundleAdmin);
    expect(await spoke.getFunction('withdrawalRecipient')()).toBe(keys.bridgeAdmin.address);
    expect(await spoke.getFunction('wrappedNativeToken')()).toBe(world.contracts.weth);
    expect(await spoke.getFunction('depositQuoteTimeBuffer')()).toBe(3600n);
    expect(await spoke.getFunction('fillDeadlineBuffer')()).toBe(86_400n);
    expect(await spoke.getFunction('numberOfDeposits')()).toBe(0n);
    // The proxy's implementation slot (ERC-1967) holds code of its own.
    const slot = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';
    const implementation = `0x${(await chain.provider.getStorage(spokePool, slot)).slice(26)}`;
    expect((await chain.provider.getCode(implementation)).length).toBeGreaterThan(2);
    const admin = new Contract(rootBundleAdmin, rootBundleAdminInterface(), chain.provider);
    expect(await admin.getFunction('owner')()).toBe(keys.deployer.address);
    expect(await admin.getFunction('proposer')()).toBe(keys.bridgeAdmin.address);
    expect(await admin.getFunction('spokePool')()).toBe(spokePool);
    expect(await admin.getFunction('liveness')()).toBe(BigInt(DEVNET_ROOT_BUNDLE_LIVENESS_SECONDS));
    expect(await admin.getFunction('proposalCount')()).toBe(0n);
    const entry = new Contract(world.contracts.crossChainEntry!, crossChainEntryInterface(), chain.provider);
    expect(await entry.getFunction('spokePool')()).toBe(spokePool);
    expect(await entry.getFunction('lockReleaseBridge')()).toBe(world.contracts.lockReleaseBridge);
    expect(await entry.getFunction('wrappedNative')()).toBe(world.contracts.weth);
    expect(await entry.getFunction('protocolFeeRecipient')()).toBe(keys.protocolFeeRecipient);
    expect(await entry.getFunction('protocolFeePips')()).toBe(BigInt(DEFAULT_PROTOCOL_FEE_PIPS));
    const bridge = new Contract(
      world.contracts.lockReleaseBridge!,
      lockReleaseBridgeInterface(),
      chain.provider,
    );
    expect(await bridge.getFunction('owner')()).toBe(keys.deployer.address);
    expect(await bridge.getFunction('releaser')()).toBe(keys.bridgeAdmin.address);
    expect(await bridge.getFunction('feeTaker')()).toBe(world.contracts.crossChainEntry);
    expect(await bridge.getFunction('wrappedNative')()).toBe(world.contracts.weth);
    expect(await bridge.getFunction('lockTimeout')()).toBe(BigInt(DEVNET_LOCK_TIMEOUT_SECONDS));
    expect(await bridge.getFunction('releaseDelay')()).toBe(BigInt(DEVNET_RELEASE_DELAY_SECONDS));
    expect(await bridge.getFunction('lockCount')()).toBe(0n);
    expect([world.relayer, world.bridgeAdmin]).toEqual([keys.relayer.address, keys.bridgeAdmin.address]);
  });

  it('seeds the relayer’s inventory, approved to the SpokePool, and the lock-release bridge’s liquidity and release limits', async () => {
    const { chain, world } = get();
    const inventory = bridgeInventory(worldSpec(chainId));
    expect(inventory.map((t) => t.symbol)).toEqual(
      chainId === 137 ? ['WPOL', 'USDC', 'USDT', 'DAI', 'WETH'] : ['WETH', 'USDC', 'USDT', 'DAI'],
    );
    const bridge = new Contract(
      world.contracts.lockReleaseBridge!,
      lockReleaseBridgeInterface(),
      chain.provider,
    );
    for (const item of inventory) {
      const erc20 = new Contract(tokenOf(world, item.symbol).address, ERC20_ABI, chain.provider);
      expect(await erc20.getFunction('balanceOf')(keys.relayer.address)).toBe(item.relayer);
      expect(await erc20.getFunction('allowance')(keys.relayer.address, world.contracts.spokePool)).toBe(
        MaxUint256,
      );
      expect(await erc20.getFunction('balanceOf')(world.contracts.lockReleaseBridge)).toBe(item.bridge);
      // What the bridge releases at once per hour: BRIDGE_RELEASE_LIMIT_USD of each token, all of it open.
      expect(await bridge.getFunction('releaseLimit')(erc20.target)).toBe(item.releaseLimit);
      expect(await bridge.getFunction('releasableNow')(erc20.target)).toBe(item.releaseLimit);
      expect(item.releaseLimit).toBe((item.bridge * BRIDGE_RELEASE_LIMIT_USD) / BRIDGE_LIQUIDITY_USD);
    }
    // 50,000 USDC and 10 WETH move many times over; the relayer keeps native coins for gas (and native fills).
    const usdc = inventory.find((t) => t.symbol === 'USDC')!;
    expect(usdc.relayer).toBe(1_000_000n * 10n ** 6n);
    expect(inventory.find((t) => t.symbol === 'WETH')!.relayer).toBeGreaterThan(300n * COIN);
    expect(await chain.provider.getBalance(keys.relayer.address)).toBeGreaterThan(1_000_000n * COIN);
  });

  it('builds a manifest entry that passes the validator, and a token list', () => {
    const { chain, world, manifest } = get();
    expect(manifestErrors({ version: 1, chains: [manifest] })).toEqual([]);
    expect(manifest.rpcUrl).toBe(chain.rpcUrl);
    expect(manifest.nativeSymbol).toBe(chainId === 137 ? 'POL' : 'ETH');
    expect(manifest.accounts.map((a) => a.address)).toEqual(keys.accounts.map((a) => a.address));
    const list = tokenListOf(world, `chain ${chainId}`, '2024-01-01T00:00:00.000Z');
    expect(list.tokens.map((t) => t.symbol)).toEqual(world.tokens.map((t) => t.symbol));
    expect(list.tokens.every((t) => t.chainId === chainId && t.name.length > 0)).toBe(true);
    if (chainId === 137)
      expect(list.tokens[0]).toMatchObject({ symbol: 'WPOL', name: 'Wrapped Polygon Ecosystem Token' });
  });
});

describe('the manifest file', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-devnet-manifest-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is written and read back exactly in the documented format', () => {
    const chains = [1, 137].map((id) => (deployed.get(id) as Deployed).manifest);
    const file = writeManifest(dataDir, { version: 1, chains });
    expect(file).toBe(path.join(dataDir, 'devnet.json'));
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(raw)).toEqual(['version', 'chains']);
    const chain = (raw.chains as Array<Record<string, Record<string, unknown>>>)[0];
    expect(Object.keys(chain)).toEqual([
      'chainId',
      'name',
      'rpcUrl',
      'nativeSymbol',
      'contracts',
      'tokens',
      'accounts',
    ]);
    expect(Object.keys(chain.contracts)).toEqual([
      'weth',
      'multicall',
      'uniswapV2Factory',
      'uniswapV2Router02',
      'uniswapV3Factory',
      'uniswapV3QuoterV2',
      'uniswapV3SwapRouter',
      'sushiswapV2Factory',
      'uniswapV4PoolManager',
      'balancerVault',
      'balancerWeightedPoolFactory',
      'stableSwapFactory',
      'swapRouter',
      'spender',
      'orderExecutor',
      'spokePool',
      'crossChainEntry',
      'lockReleaseBridge',
      'rootBundleAdmin',
    ]);
    expect(Object.keys((chain.tokens as unknown as object[])[0])).toEqual(['symbol', 'address', 'decimals']);
    expect(Object.keys((chain.accounts as unknown as object[])[0])).toEqual(['address', 'privateKey']);
    expect(readManifest(dataDir)).toEqual({ version: 1, chains });
  });

  it('is rejected by the validator when its format is off', () => {
    const good = (deployed.get(1) as Deployed).manifest;
    const variants: Array<[string, unknown]> = [
      [
        'lowercase address',
        { ...good, contracts: { ...good.contracts, weth: good.contracts.weth.toLowerCase() } },
      ],
      ['missing contract', { ...good, contracts: { ...good.contracts, spender: undefined } }],
      ['three bridges of four', { ...good, contracts: { ...good.contracts, lockReleaseBridge: undefined } }],
      [
        'the bridges before the RootBundleAdmin',
        { ...good, contracts: { ...good.contracts, rootBundleAdmin: undefined } },
      ],
      [
        'reordered keys',
        {
          name: good.name,
          chainId: good.chainId,
          rpcUrl: good.rpcUrl,
          nativeSymbol: good.nativeSymbol,
          contracts: good.contracts,
          tokens: good.tokens,
          accounts: good.accounts,
        },
      ],
      [
        'foreign key',
        { ...good, accounts: [{ ...good.accounts[0], privateKey: keys.accounts[1].privateKey }] },
      ],
      ['bad decimals', { ...good, tokens: [{ ...good.tokens[0], decimals: 1.5 }] }],
    ];
    // As read from a file: a key set to undefined is absent.
    const asRead = (chain: unknown): unknown => JSON.parse(JSON.stringify(chain));
    for (const [, chain] of variants)
      expect(manifestErrors({ version: 1, chains: [asRead(chain)] })).not.toEqual([]);
    const beforeAdmin = variants.find(([name]) => name === 'the bridges before the RootBundleAdmin')![1];
    expect(manifestErrors({ version: 1, chains: [asRead(beforeAdmin)] })).toEqual([
      expect.stringMatching(
        /^\$\.chains\[0\]\.contracts must have exactly the keys .*lockReleaseBridge, rootBundleAdmin in/,
      ),
    ]);
    expect(manifestErrors({ version: 2, chains: [good] })).not.toEqual([]);
    expect(manifestErrors({ version: 1, chains: [good, good] })).toEqual([
      '$.chains[1].chainId 1 is listed twice',
    ]);
  });
});

describe('the market mover', () => {
  const chainOne = () => deployed.get(1) as Deployed;
  let revert: () => Promise<void>;
  beforeEach(async () => {
    revert = await snapshot(chainOne().chain);
  });
  afterEach(() => revert());

  it.each([
    ['v2', 0.05, undefined],
    ['v2', -0.05, undefined],
    ['v3', 0.05, 3000],
    ['v3', -0.05, 3000],
    ['v3', 0.05, 500],
    ['v3', -0.05, 500],
  ] as const)('moves WETH/USDC on %s by %d (fee %s) within 0.1 percentage point', async (dex, by, fee) => {
    const { chain, world } = chainOne();
    const moved = await movePrice({
      provider: chain.provider,
      chainId: 1,
      world,
      pair: 'WETH/USDC',
      by,
      dex,
      fee,
      signer: keys.mover,
    });
    expect(Math.abs(moved.after / moved.before - 1 - by)).toBeLessThan(0.001);
    expect(Math.abs(moved.before / 3000 - 1)).toBeLessThan(0.005);
    expect(moved.tokenIn).toBe(by > 0 ? 'USDC' : 'WETH');
    expect(moved.amountIn).toBeGreaterThan(0n);
    // The price really changed on-chain, as read independently of the mover.
    const [weth, usdc] = [tokenOf(world, 'WETH'), tokenOf(world, 'USDC')];
    const now =
      dex === 'v2'
        ? await readV2Pool(chain.provider, world.contracts.uniswapV2Factory, weth, usdc)
        : await readV3Pool(chain.provider, world.contracts.uniswapV3Factory, weth, usdc, fee ?? 3000);
    expect(now.price).toBe(moved.after);
  });

  it('moves a pair given in either order and refuses unknown tokens', async () => {
    const { chain, world } = chainOne();
    const moved = await movePrice({
      provider: chain.provider,
      chainId: 1,
      world,
      pair: 'USDC/WETH',
      by: 0.1,
      signer: keys.mover,
    });
    expect(Math.abs(moved.after / moved.before - 1.1)).toBeLessThan(0.001);
    await expect(
      movePrice({
        provider: chain.provider,
        chainId: 1,
        world,
        pair: 'WETH/XYZ',
        by: 0.1,
        signer: keys.mover,
      }),
    ).rejects.toThrow('no token XYZ');
  });
});

describe('a persistent chain', () => {
  let dbPath: string;
  beforeAll(() => {
    dbPath = mkdtempSync(path.join(tmpdir(), 'tas-devnet-db-'));
  });
  afterAll(() => rmSync(dbPath, { recursive: true, force: true }));

  it('keeps its contracts, balances and blocks across a restart', async () => {
    const first = await deploy(1, dbPath);
    const usdc = tokenOf(first.world, 'USDC');
    const balanceOf = (p: JsonRpcProvider) =>
      new Contract(usdc.address, ERC20_ABI, p).getFunction('balanceOf')(
        keys.accounts[0].address,
      ) as Promise<bigint>;
    const block = await first.chain.provider.getBlockNumber();
    const deployerBalance = await first.chain.provider.getBalance(keys.deployer.address);
    const usdcBalance = await balanceOf(first.chain.provider);
    await first.chain.stop();

    const second = await startChain({ chainId: 1, dbPath });
    try {
      expect(await second.provider.getBlockNumber()).toBe(block);
      for (const address of Object.values(first.manifest.contracts)) {
        expect((await second.provider.getCode(address)).length).toBeGreaterThan(2);
      }
      expect(await balanceOf(second.provider)).toBe(usdcBalance);
      // Genesis funding is not applied again over the saved state.
      expect(await second.provider.getBalance(keys.deployer.address)).toBe(deployerBalance);
    } finally {
      await second.stop();
    }
  });
});

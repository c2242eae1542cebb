import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Contract, Wallet, id, type JsonRpcProvider } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import { loadDevnetConfig } from '../../devnet/devnet-config';
import { devnetKeys } from '../../devnet/keys';
import { readManifest, writeManifest, type ManifestChain } from '../../devnet/manifest';
import { MANIFEST_BASE_CONTRACT_KEYS } from '../../devnet/manifest-validator';
import { bridgeInventory } from '../../devnet/world/bridge-inventory';
import { worldSpec } from '../../devnet/world/world-spec';
import {
  lockReleaseBridgeInterface,
  rootBundleAdminInterface,
  spokePoolInterface,
} from '../../shared/bridges/contracts';
import { startDevnet, type RunningDevnet } from '../../devnet/start-devnet';
import { createLogger } from '../../shared/log/create-logger';
import { mined } from '../../devnet/wait-for-receipt';

/** What `npm start` brings up: the devnet chains, their manifest, and our contracts working on them. */

const ERC20 = [
  'function balanceOf(address) view returns (uint256)',
  'function approve(address, uint256) returns (bool)',
];
const V2_FACTORY = ['function getPair(address, address) view returns (address)'];
const V2_PAIR = [
  'function getReserves() view returns (uint112, uint112, uint32)',
  'function token0() view returns (address)',
];
const GAS = 6_000_000n;
const ZERO = '0x0000000000000000000000000000000000000000';

const v2Path = (weight: bigint, tokenOut: string) => ({
  weight,
  hops: [{ kind: 0, tokenOut, fee: 0, target: ZERO, data: '0x' }],
});

async function v2Out(
  provider: JsonRpcProvider,
  chain: ManifestChain,
  tokenIn: string,
  tokenOut: string,
  amountIn: bigint,
) {
  const factory = new Contract(chain.contracts.uniswapV2Factory, V2_FACTORY, provider);
  const pair = new Contract(await factory.getPair(tokenIn, tokenOut), V2_PAIR, provider);
  const [r0, r1] = (await pair.getReserves()) as [bigint, bigint];
  const inIs0 = ((await pair.token0()) as string).toLowerCase() === tokenIn.toLowerCase();
  const [rIn, rOut] = inIs0 ? [r0, r1] : [r1, r0];
  const withFee = amountIn * 997n;
  return (withFee * rOut) / (rIn * 1000n + withFee);
}

/**
 * The bridges as the devnet sets them up: the SpokePool owned by our RootBundleAdmin (owned by the deployer, the
 * bridge admin its proposer), the LockReleaseBridge owned by the deployer and released by the bridge admin, with the
 * entry as its fee taker and each inventory token's release limit, the relayer's inventory approved to the pool.
 */
async function expectBridgesSetUp(chain: ManifestChain, provider: JsonRpcProvider): Promise<void> {
  const keys = devnetKeys();
  const c = chain.contracts;
  const spoke = new Contract(c.spokePool!, spokePoolInterface(), provider);
  expect(await spoke.getFunction('owner')()).toBe(c.rootBundleAdmin);
  const admin = new Contract(c.rootBundleAdmin!, rootBundleAdminInterface(), provider);
  expect(await admin.getFunction('owner')()).toBe(keys.deployer.address);
  expect(await admin.getFunction('proposer')()).toBe(keys.bridgeAdmin.address);
  expect(await admin.getFunction('spokePool')()).toBe(c.spokePool);
  const bridge = new Contract(c.lockReleaseBridge!, lockReleaseBridgeInterface(), provider);
  expect(await bridge.getFunction('owner')()).toBe(keys.deployer.address);
  expect(await bridge.getFunction('releaser')()).toBe(keys.bridgeAdmin.address);
  expect(await bridge.getFunction('feeTaker')()).toBe(c.crossChainEntry);
  const inventory = bridgeInventory(worldSpec(chain.chainId));
  for (const token of inventory) {
    const address = token.wrapped ? c.weth : chain.tokens.find((t) => t.symbol === token.symbol)!.address;
    expect(await bridge.getFunction('releaseLimit')(address)).toBe(token.releaseLimit);
    const allowance = (await new Contract(
      address,
      ['function allowance(address, address) view returns (uint256)'],
      provider,
    ).getFunction('allowance')(keys.relayer.address, c.spokePool)) as bigint;
    expect(allowance).toBe(2n ** 256n - 1n);
  }
}

describe('devnet started as npm start does', () => {
  let dataDir: string;
  let devnet: RunningDevnet;
  const log = createLogger('silent', 'test');
  const config = () => loadDevnetConfig({ DATA_DIR: dataDir, DEVNET_CHAINS: '1,137', DEVNET_PORTS: '0,0' });

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tas-devnet-'));
    devnet = await startDevnet(config(), log);
  });
  afterAll(async () => {
    await devnet?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes DATA_DIR/devnet.json exactly in the documented shape, every address with code', async () => {
    const text = readFileSync(path.join(dataDir, 'devnet.json'), 'utf8');
    const manifest = JSON.parse(text) as { version: number; chains: ManifestChain[] };
    expect(Object.keys(manifest)).toEqual(['version', 'chains']);
    expect(manifest.version).toBe(1);
    expect(manifest.chains.map((c) => c.chainId)).toEqual([1, 137]);
    const keys = devnetKeys();
    const serviceSenders = [keys.deployer, ...keys.executors, keys.mover, keys.relayer, keys.bridgeAdmin].map(
      (w) => w.address,
    );
    for (const [i, chain] of manifest.chains.entries()) {
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
      expect(chain.rpcUrl).toBe(devnet.handles[i].rpcUrl);
      const provider = devnet.handles[i].provider;
      const addresses = [...Object.values(chain.contracts), ...chain.tokens.map((t) => t.address)];
      for (const address of addresses) {
        expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
        expect(await provider.getCode(address)).not.toBe('0x');
      }
      await expectBridgesSetUp(chain, provider);
      for (const token of chain.tokens) expect(Object.keys(token)).toEqual(['symbol', 'address', 'decimals']);
      expect(chain.accounts.length).toBeGreaterThanOrEqual(4);
      for (const account of chain.accounts) {
        expect(Object.keys(account)).toEqual(['address', 'privateKey']);
        expect(new Wallet(account.privateKey).address).toBe(account.address);
        expect(serviceSenders).not.toContain(account.address);
        expect(await provider.getBalance(account.address)).toBeGreaterThanOrEqual(10_000n * 10n ** 18n);
      }
    }
    expect(manifest.chains.map((c) => c.nativeSymbol)).toEqual(['ETH', 'POL']);
    expect(devnet.chains.map((c) => [c.chainId, c.wrappedNative])).toEqual(
      manifest.chains.map((c) => [c.chainId, c.contracts.weth]),
    );
    // The service's chains name the bridges.
    expect(devnet.chains.map((c) => c.contracts?.spokePool)).toEqual(
      manifest.chains.map((c) => c.contracts.spokePool),
    );
    expect(devnet.chains.map((c) => c.contracts?.crossChainEntry)).toEqual(
      manifest.chains.map((c) => c.contracts.crossChainEntry),
    );
    expect(devnet.chains.map((c) => c.contracts?.lockReleaseBridge)).toEqual(
      manifest.chains.map((c) => c.contracts.lockReleaseBridge),
    );
    expect(devnet.chains.map((c) => c.contracts?.rootBundleAdmin)).toEqual(
      manifest.chains.map((c) => c.contracts.rootBundleAdmin),
    );
  });

  it('swaps 1 WETH for USDC through our SwapRouter with exact balances', async () => {
    const chain = devnet.manifest.chains[0];
    const provider = devnet.handles[0].provider;
    const account = new Wallet(chain.accounts[0].privateKey, provider);
    const weth = chain.tokens.find((t) => t.symbol === 'WETH')!.address;
    const usdc = chain.tokens.find((t) => t.symbol === 'USDC')!.address;
    const wethToken = new Contract(weth, ERC20, account);
    const usdcToken = new Contract(usdc, ERC20, account);
    const router = new Contract(chain.contracts.swapRouter, loadArtifact('SwapRouter').abi, account);
    const amountIn = 10n ** 18n;
    await mined(wethToken.approve(chain.contracts.spender, amountIn));
    const gross = await v2Out(provider, chain, weth, usdc, amountIn);
    const protocolFee = (gross * 1500n) / 1_000_000n;
    const expected = gross - protocolFee;
    const [wethBefore, usdcBefore] = await Promise.all([
      wethToken.balanceOf(account.address) as Promise<bigint>,
      usdcToken.balanceOf(account.address) as Promise<bigint>,
    ]);
    const deadline = BigInt((await provider.getBlock('latest'))!.timestamp + 300);
    const receipt = await mined(
      router.swap(
        {
          account: account.address,
          tokenIn: weth,
          tokenOut: usdc,
          amountIn,
          minAmountOut: expected,
          deadline,
          integratorFeeBps: 0,
          integratorFeeRecipient: ZERO,
          paths: [v2Path(amountIn, usdc)],
        },
        { gasLimit: GAS },
      ),
    );
    expect(receipt!.status).toBe(1);
    expect(await wethToken.balanceOf(account.address)).toBe(wethBefore - amountIn);
    expect(await usdcToken.balanceOf(account.address)).toBe(usdcBefore + expected);
    expect(expected).toBeGreaterThan(2_900n * 10n ** 6n);
  });

  it('executes a 5-order USDC→WETH batch through the OrderExecutor, paying each maker and the fee collector', async () => {
    const chain = devnet.manifest.chains[0];
    const provider = devnet.handles[0].provider;
    const keys = devnetKeys();
    const weth = chain.tokens.find((t) => t.symbol === 'WETH')!.address;
    const usdc = chain.tokens.find((t) => t.symbol === 'USDC')!.address;
    const executorAbi = loadArtifact('OrderExecutor').abi;
    const domain = {
      name: 'TradeAggregationService',
      version: '1',
      chainId: 1,
      verifyingContract: chain.contracts.orderExecutor,
    };
    const types = {
      PairAuthorization: [
        { name: 'maker', type: 'address' },
        { name: 'tokenIn', type: 'address' },
        { name: 'tokenOut', type: 'address' },
        { name: 'integrator', type: 'bytes32' },
        { name: 'maxDeviationBps', type: 'uint16' },
        { name: 'maxFeeBps', type: 'uint16' },
      ],
    };
    const integrator = id('devnet-e2e-integrator');
    // The cap the devnet deploys with: the fee below stays within it.
    const maxFeeBps = 500;
    // Five orders from the four test accounts: the first account has two, covered by one allowance.
    const makers = [0, 1, 2, 3, 0].map((i) => new Wallet(chain.accounts[i].privateKey, provider));
    const amounts = [100n, 250n, 500n, 1_000n, 2_000n].map((usd) => usd * 10n ** 6n);
    const fee = 2n * 10n ** 6n;
    for (const [i, maker] of makers.entries()) {
      if (i < 4) {
        const total = makers.reduce(
          (sum, m, j) => (m.address === maker.address ? sum + amounts[j] + fee : sum),
          0n,
        );
        await mined(new Contract(usdc, ERC20, maker).approve(chain.contracts.orderExecutor, total));
      }
    }
    const orders = await Promise.all(
      makers.map(async (maker, i) => ({
        maker: maker.address,
        // Consecutive execution indices, as the store assigns them to orders claimed together.
        index: BigInt(1_000_000 + i),
        ref: id(`devnet-e2e-order-${i}`),
        integrator,
        maxDeviationBps: 0,
        maxFeeBps,
        amountIn: amounts[i],
        fee,
        minAmountOut: 1n,
        signature: await maker.signTypedData(domain, types, {
          maker: maker.address,
          tokenIn: usdc,
          tokenOut: weth,
          integrator,
          maxDeviationBps: 0,
          maxFeeBps,
        }),
      })),
    );
    const usdcToken = new Contract(usdc, ERC20, provider);
    const wethToken = new Contract(weth, ERC20, provider);
    const unique = [...new Set(makers.map((m) => m.address))];
    const before = await Promise.all(
      unique.map(
        async (a) =>
          [a, (await usdcToken.balanceOf(a)) as bigint, (await wethToken.balanceOf(a)) as bigint] as const,
      ),
    );
    const collectorBefore = (await usdcToken.balanceOf(keys.feeCollector)) as bigint;
    const total = amounts.reduce((a, b) => a + b, 0n);
    const grossOut = await v2Out(provider, chain, usdc, weth, total);

    const executor = new Contract(
      chain.contracts.orderExecutor,
      executorAbi,
      keys.executors[0].connect(provider),
    );
    const deadline = BigInt((await provider.getBlock('latest'))!.timestamp + 300);
    const receipt = await mined(
      executor.executeBatch(
        [{ tokenIn: usdc, tokenOut: weth, paths: [v2Path(1n, weth)], orders }],
        deadline,
        {
          gasLimit: GAS,
        },
      ),
    );
    const events = receipt.logs
      .map((l) => executor.interface.parseLog(l))
      .filter((e) => e?.name === 'OrderExecuted');
    expect(events).toHaveLength(5);
    const outs = events.map((e) => e!.args.amountOut as bigint);
    expect(outs.reduce((a: bigint, b: bigint) => a + b, 0n)).toBe(grossOut);
    // Pro rata to amountIn; the last order takes the rounding remainder.
    for (let i = 0; i < 4; i++) expect(outs[i]).toBe((grossOut * amounts[i]) / total);
    expect(await usdcToken.balanceOf(keys.feeCollector)).toBe(collectorBefore + 5n * fee);
    for (const [address, usdcBefore, wethBefore] of before) {
      const mine = makers.map((m, i) => (m.address === address ? i : -1)).filter((i) => i >= 0);
      const paid = mine.reduce((sum, i) => sum + amounts[i] + fee, 0n);
      const received = mine.reduce((sum, i) => sum + outs[i], 0n);
      expect(await usdcToken.balanceOf(address)).toBe(usdcBefore - paid);
      expect(await wethToken.balanceOf(address)).toBe(wethBefore + received);
    }
  });

  it('finds the same world after a restart on the same data folder', async () => {
    const first = devnet.manifest;
    await devnet.stop();
    devnet = await startDevnet(config(), log);
    expect(devnet.deployed).toEqual([false, false]);
    expect(devnet.manifest.chains.map((c) => c.contracts)).toEqual(first.chains.map((c) => c.contracts));
    const provider = devnet.handles[0].provider;
    expect(await provider.getCode(first.chains[0].contracts.orderExecutor)).not.toBe('0x');
  });

  it('adds the bridges to a world saved by a version without them', async () => {
    const withBridges = devnet.manifest;
    await devnet.stop();
    const strip = (chain: ManifestChain): ManifestChain => {
      const base = Object.fromEntries(MANIFEST_BASE_CONTRACT_KEYS.map((key) => [key, chain.contracts[key]]));
      return { ...chain, contracts: base as ManifestChain['contracts'] };
    };
    writeManifest(dataDir, { version: 1, chains: withBridges.chains.map(strip) });
    devnet = await startDevnet(config(), log);
    expect(devnet.deployed).toEqual([false, false]);
    for (const [i, chain] of devnet.manifest.chains.entries()) {
      expect(strip(chain).contracts).toEqual(strip(withBridges.chains[i]!).contracts);
      expect(chain.contracts.spokePool).toBeDefined();
      expect(chain.contracts.spokePool).not.toBe(withBridges.chains[i]!.contracts.spokePool);
      expect(chain.contracts.rootBundleAdmin).toBeDefined();
      const provider = devnet.handles[i].provider;
      await expectBridgesSetUp(chain, provider);
    }
    expect(readManifest(dataDir)).toEqual(devnet.manifest);
  });

  it('deploys the world anew when the saved LockReleaseBridge or CrossChainEntry is another build', async () => {
    const saved = devnet.manifest;
    await devnet.stop();
    // Another contract's code where the chain 1 bridge and the chain 137 entry should be: an older build's.
    const older = (chain: ManifestChain): ManifestChain => ({
      ...chain,
      contracts:
        chain.chainId === 1
          ? { ...chain.contracts, lockReleaseBridge: chain.contracts.rootBundleAdmin }
          : { ...chain.contracts, crossChainEntry: chain.contracts.rootBundleAdmin },
    });
    writeManifest(dataDir, { version: 1, chains: saved.chains.map(older) });
    devnet = await startDevnet(config(), log);
    expect(devnet.deployed).toEqual([true, true]);
    for (const [i, chain] of devnet.manifest.chains.entries()) {
      expect(chain.contracts.lockReleaseBridge).not.toBe(saved.chains[i]!.contracts.lockReleaseBridge);
      await expectBridgesSetUp(chain, devnet.handles[i].provider);
    }
  });

  it('deploys the world anew over a manifest an older build wrote (its bridges without a RootBundleAdmin)', async () => {
    const saved = devnet.manifest;
    await devnet.stop();
    // Written as the build before the RootBundleAdmin did: three bridge keys, which this build's validator refuses.
    const older = saved.chains.map((chain) => {
      const contracts: Partial<ManifestChain['contracts']> = { ...chain.contracts };
      delete contracts.rootBundleAdmin;
      return { ...chain, contracts };
    });
    writeFileSync(
      path.join(dataDir, 'devnet.json'),
      `${JSON.stringify({ version: 1, chains: older }, null, 2)}\n`,
    );
    expect(() => readManifest(dataDir)).toThrow(/rootBundleAdmin/);
    devnet = await startDevnet(config(), log);
    expect(devnet.deployed).toEqual([true, true]);
    for (const [i, chain] of devnet.manifest.chains.entries())
      await expectBridgesSetUp(chain, devnet.handles[i].provider);
    expect(readManifest(dataDir)).toEqual(devnet.manifest);
  });

  it('deploys the world anew when the saved OrderExecutor is another build of the contract', async () => {
    const saved = devnet.manifest;
    await devnet.stop();
    // Another contract's code where the OrderExecutor should be: what an older build's would look like.
    const older = (chain: ManifestChain): ManifestChain => ({
      ...chain,
      contracts: { ...chain.contracts, orderExecutor: chain.contracts.spender },
    });
    writeManifest(dataDir, { version: 1, chains: saved.chains.map(older) });
    devnet = await startDevnet(config(), log);
    expect(devnet.deployed).toEqual([true, true]);
    for (const [i, chain] of devnet.manifest.chains.entries()) {
      expect(chain.contracts.orderExecutor).not.toBe(saved.chains[i]!.contracts.orderExecutor);
      expect(await devnet.handles[i].provider.getCode(chain.contracts.orderExecutor)).toHaveLength(
        loadArtifact('OrderExecutor').deployedBytecode.length,
      );
    }
  });
});

import { Contract, Wallet, hexlify, parseUnits, randomBytes, MaxUint256, type ContractRunner } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import { findBalanceMapping } from '../../devnet/fork/balance-slot';
import { deployForked, forkFunding, knownForkWorld, type ForkWorld } from '../../devnet/fork/deploy-forked';
import { chainStorageProbe, fundForkAccounts } from '../../devnet/fork/fund-fork-accounts';
import { devnetKeys } from '../../devnet/keys';
import type { ManifestChain } from '../../devnet/manifest';
import { manifestErrors } from '../../devnet/manifest-validator';
import { DEVNET_ENGINES } from '../../devnet/engine/devnet-chain';
import { startChain, type ChainHandle } from '../../devnet/start-chain';
import { ERC20_ABI, FAR_DEADLINE, V2_FACTORY_ABI, V2_ROUTER_ABI } from '../../devnet/world/abis';
import { deployWorld, type DeployedWorld } from '../../devnet/world/deploy-world';
import { BRIDGE_SYMBOLS } from '../../devnet/world/bridge-inventory';
import {
  lockReleaseBridgeInterface,
  rootBundleAdminInterface,
  spokePoolInterface,
} from '../../shared/bridges/contracts';
import { mined } from '../../devnet/wait-for-receipt';

/**
 * Forked mode without internet: a fork of a local chain is a real anvil fork (state read lazily over RPC from
 * the original), so the fixture world on the original stands in for a real chain's tokens and Uniswap.
 */

const keys = devnetKeys();
const COIN = 10n ** 18n;
let origin: ChainHandle;
let world: DeployedWorld;
/** The original's head once the world is deployed: the forks start there (DEVNET_FORK_BLOCK). */
let forkBlock: number;

const erc20 = (address: string, runner: ContractRunner) => new Contract(address, ERC20_ABI, runner);
const balanceOf = async (chain: ChainHandle, token: string, holder: string): Promise<bigint> =>
  (await erc20(token, chain.provider).getFunction('balanceOf')(holder)) as bigint;

function tokenOf(symbol: string): DeployedWorld['tokens'][number] {
  const token = world.tokens.find((t) => t.symbol === symbol);
  if (!token) throw new Error(`no ${symbol}`);
  return token;
}

/** The original world as forked mode sees a real chain: the contracts it did not deploy, and the tokens. */
function originAsForkWorld(): ForkWorld {
  const c = world.contracts;
  return {
    contracts: {
      weth: c.weth,
      multicall: c.multicall,
      uniswapV2Factory: c.uniswapV2Factory,
      uniswapV2Router02: c.uniswapV2Router02,
      uniswapV3Factory: c.uniswapV3Factory,
      uniswapV3QuoterV2: c.uniswapV3QuoterV2,
      uniswapV3SwapRouter: c.uniswapV3SwapRouter,
    },
    tokens: world.tokens,
  };
}

beforeAll(async () => {
  origin = await startChain({ chainId: 1, engine: 'anvil' });
  // Nobody is funded on the original: whatever a test account holds on a fork, the fork's funding gave it.
  world = await deployWorld({
    provider: origin.provider,
    mining: origin,
    chainId: 1,
    deployer: keys.deployer,
    executors: keys.executors.map((e) => e.address),
    fund: [],
  });
  forkBlock = await origin.provider.getBlockNumber();
}, 120_000);

afterAll(async () => {
  await origin?.stop();
});

// Forked mode runs on either engine; a pinned block because ganache otherwise forks 5 blocks behind the head.
describe.each(DEVNET_ENGINES)('a fork on %s of a chain with the fixture world', (engine) => {
  let fork: ChainHandle;

  beforeAll(async () => {
    fork = await startChain({ chainId: 1, engine, fork: { url: origin.rpcUrl, blockNumber: forkBlock } });
  }, 60_000);

  afterAll(async () => {
    await fork?.stop();
  });

  it('reads the original chain’s state', async () => {
    expect(await fork.provider.send('eth_chainId', [])).toBe('0x1');
    // ganache hashes a forked block's header its own way (Shanghai fields): compare what both keep.
    const [forked, original] = await Promise.all([fork, origin].map((c) => c.provider.getBlock(forkBlock)));
    expect([forked?.number, forked?.timestamp]).toEqual([original?.number, original?.timestamp]);
    expect(await fork.provider.getCode(world.contracts.uniswapV2Factory)).toBe(
      await origin.provider.getCode(world.contracts.uniswapV2Factory),
    );
    const usdc = tokenOf('USDC').address;
    expect(await balanceOf(fork, usdc, keys.deployer.address)).toBe(
      await balanceOf(origin, usdc, keys.deployer.address),
    );
  });

  it('funds a fresh account with exact balances, each token’s balance mapping found by probing', async () => {
    const fresh = new Wallet(hexlify(randomBytes(32)));
    await fork.setBalance(fresh.address, 1_000n * COIN);
    const amounts: Record<string, bigint> = {
      USDC: parseUnits('1234.5', 6),
      USDT: parseUnits('77', 6),
      DAI: parseUnits('3.25', 18),
      WBTC: parseUnits('0.125', 8),
      UNI: 1n,
    };
    const tokens = Object.entries(amounts).map(([symbol, amount]) => ({ ...tokenOf(symbol), amount }));
    const wrapped = { ...tokenOf('WETH'), amount: 5n * COIN };
    const found = await fundForkAccounts(fork, { wrapped, tokens }, [fresh]);
    // TestToken is OpenZeppelin's ERC20: `_balances` is its first variable.
    expect(found).toEqual(
      Object.keys(amounts).map((symbol) => ({ symbol, mapping: { layout: 'solidity', slot: 0n } })),
    );
    for (const token of [wrapped, ...tokens]) {
      expect(await balanceOf(fork, token.address, fresh.address)).toBe(token.amount);
      expect(await balanceOf(origin, token.address, fresh.address)).toBe(0n);
    }
    // The wrapped native was deposited: its coins moved into the token, as on the real chain.
    expect(await fork.provider.getBalance(world.contracts.weth)).toBe(
      (await origin.provider.getBalance(world.contracts.weth)) + 5n * COIN,
    );
    expect(await origin.provider.getBalance(fresh.address)).toBe(0n);
  });

  it('finds WETH9’s balanceOf at slot 2 with a pool as the holder, and leaves the balance as it was', async () => {
    const weth = tokenOf('WETH').address;
    const pair = (await new Contract(
      world.contracts.uniswapV2Factory,
      V2_FACTORY_ABI,
      fork.provider,
    ).getFunction('getPair')(weth, tokenOf('USDC').address)) as string;
    const before = await balanceOf(fork, weth, pair);
    expect(before).toBeGreaterThan(0n);
    expect(await findBalanceMapping(chainStorageProbe(fork), weth, pair)).toEqual({
      layout: 'solidity',
      slot: 2n,
    });
    expect(await balanceOf(fork, weth, pair)).toBe(before);
  });

  describe('started as forked mode starts it', () => {
    let entry: ManifestChain;
    const funded = [...keys.accounts, keys.mover];

    beforeAll(async () => {
      entry = await deployForked({ chain: fork, keys, world: originAsForkWorld(), name: 'Ethereum' });
    }, 120_000);

    it('deploys and wires our contracts on the fork only, against the forked WETH and factories', async () => {
      const { swapRouter, spender, orderExecutor } = entry.contracts;
      for (const address of [swapRouter, spender, orderExecutor]) {
        expect((await fork.provider.getCode(address)).length).toBeGreaterThan(2);
        expect(await origin.provider.getCode(address)).toBe('0x');
      }
      const at = (name: 'TokenSpender' | 'SwapRouter' | 'OrderExecutor', address: string) =>
        new Contract(address, loadArtifact(name).abi, fork.provider);
      const router = at('SwapRouter', swapRouter);
      const executor = at('OrderExecutor', orderExecutor);
      expect(await router.getFunction('weth')()).toBe(world.contracts.weth);
      expect(await router.getFunction('v2Factory')()).toBe(world.contracts.uniswapV2Factory);
      expect(await executor.getFunction('v3Factory')()).toBe(world.contracts.uniswapV3Factory);
      expect(await at('TokenSpender', spender).getFunction('isCaller')(swapRouter)).toBe(true);
      for (const e of keys.executors) expect(await executor.getFunction('isExecutor')(e.address)).toBe(true);
    });

    it('deploys the bridges on an anvil fork (none on ganache: no Cancun), owned and limited as on the devnet, relayer and bridge funded', async () => {
      if (engine === 'ganache') {
        expect(entry.contracts.spokePool).toBeUndefined();
        expect(entry.contracts.rootBundleAdmin).toBeUndefined();
        return;
      }
      const { spokePool, rootBundleAdmin, lockReleaseBridge, crossChainEntry } = entry.contracts;
      const spoke = new Contract(spokePool!, spokePoolInterface(), fork.provider);
      // The SpokePool's owner is our RootBundleAdmin: the bridge admin proposes root bundles, the deployer owns it.
      expect(await spoke.getFunction('owner')()).toBe(rootBundleAdmin);
      expect(await spoke.getFunction('wrappedNativeToken')()).toBe(world.contracts.weth);
      const admin = new Contract(rootBundleAdmin!, rootBundleAdminInterface(), fork.provider);
      expect(await admin.getFunction('owner')()).toBe(keys.deployer.address);
      expect(await admin.getFunction('proposer')()).toBe(keys.bridgeAdmin.address);
      expect(await admin.getFunction('spokePool')()).toBe(spokePool);
      const bridge = new Contract(lockReleaseBridge!, lockReleaseBridgeInterface(), fork.provider);
      expect(await bridge.getFunction('owner')()).toBe(keys.deployer.address);
      expect(await bridge.getFunction('releaser')()).toBe(keys.bridgeAdmin.address);
      expect(await bridge.getFunction('feeTaker')()).toBe(crossChainEntry);
      for (const address of [spokePool!, rootBundleAdmin!, lockReleaseBridge!, crossChainEntry!])
        expect(await origin.provider.getCode(address)).toBe('0x');
      // The bridge carries the wrapped native and the bridged tokens, each funded as a test account is; a fifth
      // of that is released at once per hour.
      const funding = forkFunding(1, originAsForkWorld());
      const carried = [
        funding.wrapped!,
        ...funding.tokens.filter((t) => (BRIDGE_SYMBOLS as readonly string[]).includes(t.symbol)),
      ];
      expect(carried.map((t) => t.symbol)).toEqual(['WETH', 'USDC', 'USDT', 'DAI']);
      for (const t of carried) {
        const token = new Contract(t.address, ERC20_ABI, fork.provider);
        expect(await token.getFunction('balanceOf')(keys.relayer.address)).toBe(t.amount);
        expect(await token.getFunction('allowance')(keys.relayer.address, spokePool)).toBe(MaxUint256);
        expect(await token.getFunction('balanceOf')(lockReleaseBridge)).toBe(t.amount);
        expect(await bridge.getFunction('releaseLimit')(t.address)).toBe(t.amount / 5n);
        expect(await bridge.getFunction('releasableNow')(t.address)).toBe(t.amount / 5n);
      }
    });

    it('writes a valid manifest entry listing the forked tokens and the test accounts', () => {
      expect(manifestErrors({ version: 1, chains: [entry] })).toEqual([]);
      expect(entry.rpcUrl).toBe(fork.rpcUrl);
      expect(entry.nativeSymbol).toBe('ETH');
      expect(entry.tokens).toEqual(world.tokens);
      expect(entry.contracts).toMatchObject(originAsForkWorld().contracts);
      expect(entry.accounts.map((a) => a.address)).toEqual(keys.accounts.map((a) => a.address));
    });

    it('gives the test accounts and the market mover every token, as much as the fixture world gives', async () => {
      const funding = forkFunding(1, originAsForkWorld());
      expect(funding.wrapped?.symbol).toBe('WETH');
      expect(funding.tokens.map((t) => t.symbol)).toEqual([
        'USDC',
        'USDT',
        'DAI',
        'WBTC',
        'LINK',
        'UNI',
        'SUSHI',
        'BAL',
      ]);
      for (const token of [funding.wrapped!, ...funding.tokens]) {
        expect(token.amount).toBeGreaterThan(0n);
        for (const account of funded) {
          expect(await balanceOf(fork, token.address, account.address)).toBe(token.amount);
          expect(await balanceOf(origin, token.address, account.address)).toBe(0n);
        }
      }
    });

    it('lets a funded account trade its tokens in the forked pools', async () => {
      const trader = keys.accounts[0].connect(fork.provider);
      const [weth, usdc] = [tokenOf('WETH').address, tokenOf('USDC').address];
      const router = new Contract(world.contracts.uniswapV2Router02, V2_ROUTER_ABI, trader);
      const [, quoted] = (await router.getFunction('getAmountsOut')(COIN, [weth, usdc])) as bigint[];
      await mined(erc20(weth, trader).getFunction('approve')(router.target, MaxUint256));
      const before = await balanceOf(fork, usdc, trader.address);
      const tx = await router.getFunction('swapExactTokensForTokens')(
        COIN,
        quoted,
        [weth, usdc],
        trader.address,
        FAR_DEADLINE,
        { gasLimit: 300_000n },
      );
      expect((await mined(tx)).status).toBe(1);
      expect((await balanceOf(fork, usdc, trader.address)) - before).toBe(quoted);
      expect(Number(quoted) / 1e6).toBeGreaterThan(2900);
    });
  });

  it('refuses the real chain’s addresses on a fork of another chain, before deploying anything', async () => {
    const nonce = await fork.provider.getTransactionCount(keys.deployer.address);
    await expect(
      deployForked({ chain: fork, keys, world: knownForkWorld(1), name: 'Ethereum' }),
    ).rejects.toThrow(
      /^the fork of chain 1 has no code at 0x[0-9a-fA-F]{40} \(\w+\): does DEVNET_FORK_URL serve chain 1\?$/,
    );
    expect(await fork.provider.getTransactionCount(keys.deployer.address)).toBe(nonce);
  });
});

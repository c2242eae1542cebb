import { Contract, ZeroAddress } from 'ethers';
import type { ChainHandle } from '../engine/devnet-chain';
import { FORK_CONTRACTS, FORK_TOKENS, type KnownForkContracts } from '../fork-addresses';
import type { DevnetKeys } from '../keys';
import type { ManifestChain, ManifestToken } from '../manifest';
import { MANIFEST_VENUE_KEYS } from '../manifest-validator';
import { ERC20_ABI } from '../world/abis';
import { BRIDGE_SYMBOLS } from '../world/bridge-inventory';
import {
  deployBridgeContracts,
  queueReleaseLimits,
  seedBridgeWallets,
  supportsBridges,
} from '../world/deploy-bridges';
import { TxQueue } from '../world/tx-queue';
import { deployServiceContracts } from '../world/deploy-service-contracts';
import { fundAmount, tokenSpec, worldSpec } from '../world/world-spec';
import { fundForkAccounts, type ForkFunding } from './fund-fork-accounts';
import { forkPriceOracles } from './fork-price-oracles';

/** What a forked chain already has and the manifest lists: everything but our contracts. */
export interface ForkWorld {
  contracts: KnownForkContracts;
  /** The wrapped native first (at contracts.weth), then the ERC-20s the test accounts are funded with. */
  tokens: ManifestToken[];
}

/** The real contracts and tokens of a chain that forked mode knows (fork-addresses.ts). */
export function knownForkWorld(chainId: number): ForkWorld {
  const contracts = FORK_CONTRACTS[chainId];
  const tokens = FORK_TOKENS[chainId];
  if (!contracts || !tokens) {
    const known = Object.keys(FORK_CONTRACTS).join(' and ');
    throw new Error(`Forked mode knows the contracts of chains ${known} only, not ${chainId}`);
  }
  const wrapped = worldSpec(chainId).wrapped;
  return {
    contracts,
    tokens: [{ symbol: wrapped.symbol, address: contracts.weth, decimals: wrapped.decimals }, ...tokens],
  };
}

/**
 * What each test account gets on a fork: as much as on the chain's fixture world (fundAmount), scaled to the
 * token's own decimals. The wrapped native is the token at `contracts.weth`.
 */
export function forkFunding(chainId: number, world: ForkWorld): ForkFunding {
  const spec = worldSpec(chainId);
  const funded = world.tokens.map((token) => {
    const worldDecimals = BigInt(tokenSpec(spec, token.symbol).decimals);
    const amount = (fundAmount(spec, token.symbol) * 10n ** BigInt(token.decimals)) / 10n ** worldDecimals;
    return { ...token, amount };
  });
  const isWrapped = (t: ManifestToken) => t.address.toLowerCase() === world.contracts.weth.toLowerCase();
  return { wrapped: funded.find(isWrapped), tokens: funded.filter((t) => !isWrapped(t)) };
}

const VENUE_KEYS: readonly string[] = MANIFEST_VENUE_KEYS;

/**
 * A wrong fork URL (another chain) shows as missing code: say so, naming the first one, before deploying. The
 * venues are not required: a fork of a block before one was deployed (Uniswap V4 is from 2025) does without it.
 * Returns the contracts with the venues that have no code left out.
 */
async function checkForkWorld(chain: ChainHandle, world: ForkWorld): Promise<KnownForkContracts> {
  const venues = Object.entries(world.contracts).filter(([name]) => VENUE_KEYS.includes(name));
  const venueCodes = await Promise.all(venues.map(([, address]) => chain.provider.getCode(address)));
  const absent = new Set(venues.filter((_, i) => venueCodes[i] === '0x').map(([name]) => name));
  const expected = [
    ...Object.entries(world.contracts)
      .filter(([name]) => !VENUE_KEYS.includes(name))
      .map(([name, address]) => ({ name, address })),
    ...world.tokens.map((t) => ({ name: t.symbol, address: t.address })),
  ];
  // Every read is awaited before failing: none is left running against the fork URL after the chain stops.
  const codes = await Promise.all(expected.map(({ address }) => chain.provider.getCode(address)));
  const missing = expected.find((_, i) => codes[i] === '0x');
  if (missing) {
    throw new Error(
      `the fork of chain ${chain.chainId} has no code at ${missing.address} (${missing.name}): ` +
        `does DEVNET_FORK_URL serve chain ${chain.chainId}?`,
    );
  }
  const decimals = await Promise.all(
    world.tokens.map(
      async (token) =>
        (await new Contract(token.address, ERC20_ABI, chain.provider).getFunction('decimals')()) as bigint,
    ),
  );
  const wrong = world.tokens.findIndex((token, i) => decimals[i] !== BigInt(token.decimals));
  if (wrong >= 0) {
    const token = world.tokens[wrong]!;
    throw new Error(
      `${token.symbol} at ${token.address} has ${decimals[wrong]} decimals on the fork of chain ` +
        `${chain.chainId}, not ${token.decimals}`,
    );
  }
  // A Balancer Vault is only quoted (and executed) with its weighted pool factory: both or neither.
  if (absent.has('balancerVault') || absent.has('balancerWeightedPoolFactory')) {
    absent.add('balancerVault').add('balancerWeightedPoolFactory');
  }
  return Object.fromEntries(
    Object.entries(world.contracts).filter(([name]) => !absent.has(name)),
  ) as KnownForkContracts;
}

export interface DeployForkedOptions {
  chain: ChainHandle;
  keys: DevnetKeys;
  /** startDevnet passes knownForkWorld(chainId); a test passes the addresses of a world it forked. */
  world: ForkWorld;
  name: string;
}

/**
 * Forked mode's start: deploys only our contracts and the bridges (Across SpokePool, CrossChainEntry,
 * LockReleaseBridge), against the fork's own wrapped native and venues (Uniswap, SushiSwap, Balancer), funds the
 * test accounts (and the market mover) with the fork's tokens, and seeds the relayer's inventory and the
 * LockReleaseBridge's liquidity the same way. Returns the manifest entry.
 */
export async function deployForked(opts: DeployForkedOptions): Promise<ManifestChain> {
  const { chain, keys, world } = opts;
  const known = await checkForkWorld(chain, world);
  const ours = await deployServiceContracts({
    provider: chain.provider,
    deployer: keys.deployer.connect(chain.provider),
    weth: known.weth,
    // The fork's own venues; no StableSwap of ours exists there.
    venues: {
      uniswapV2Factory: known.uniswapV2Factory,
      sushiswapV2Factory: known.sushiswapV2Factory ?? ZeroAddress,
      uniswapV3Factory: known.uniswapV3Factory,
      uniswapV4PoolManager: known.uniswapV4PoolManager ?? ZeroAddress,
      balancerVault: known.balancerVault ?? ZeroAddress,
      balancerWeightedPoolFactory: known.balancerWeightedPoolFactory ?? ZeroAddress,
      stableSwapFactory: ZeroAddress,
    },
    feeCollector: keys.feeCollector,
    protocolFeeRecipient: keys.protocolFeeRecipient,
    executors: keys.executors.map((w) => w.address),
    oracles: await forkPriceOracles(
      chain.provider,
      known.uniswapV3Factory,
      known.weth,
      world.tokens.map((t) => t.address),
    ),
  });
  // A fork on ganache (no Cancun) gets no bridges.
  const bridges = (await supportsBridges(chain.provider))
    ? await deployBridgeContracts({
        provider: chain.provider,
        deployer: keys.deployer,
        mining: chain,
        weth: world.contracts.weth,
        bridgeAdmin: keys.bridgeAdmin.address,
        bridgeOwner: keys.deployer.address,
        protocolFeeRecipient: keys.protocolFeeRecipient,
      })
    : undefined;
  const funding = forkFunding(chain.chainId, world);
  // The relayer's inventory and the bridge admin's liquidity are funded as the test accounts are.
  const bridgeWallets = bridges ? [keys.relayer, keys.bridgeAdmin] : [];
  await fundForkAccounts(chain, funding, [...keys.accounts, keys.mover, ...bridgeWallets]);
  const carried = [
    ...(funding.wrapped ? [funding.wrapped] : []),
    ...funding.tokens.filter((t) => (BRIDGE_SYMBOLS as readonly string[]).includes(t.symbol)),
  ];
  if (bridges)
    await seedBridgeWallets({
      provider: chain.provider,
      mining: chain,
      relayer: keys.relayer,
      bridgeAdmin: keys.bridgeAdmin,
      weth: world.contracts.weth,
      contracts: bridges,
      relayerWraps: 0n,
      relayerTokens: carried.map((t) => t.address),
      adminWraps: 0n,
      adminTransfers: carried.map((t) => ({ token: t.address, amount: t.amount })),
    });
  if (bridges) {
    // A fifth of the bridge's liquidity per hour is released at once; more waits the bridge's delay.
    const owner = await TxQueue.create(chain.provider, keys.deployer.connect(chain.provider), {
      mining: chain,
    });
    queueReleaseLimits(
      owner,
      bridges.lockReleaseBridge,
      carried.map((t) => ({ token: t.address, limit: t.amount / 5n })),
    );
    await owner.flush();
  }
  return {
    chainId: chain.chainId,
    name: opts.name,
    rpcUrl: chain.rpcUrl,
    nativeSymbol: worldSpec(chain.chainId).nativeSymbol,
    contracts: {
      ...known,
      swapRouter: ours.swapRouter,
      spender: ours.spender,
      orderExecutor: ours.orderExecutor,
      ...(bridges ?? {}),
    },
    tokens: world.tokens.map((t) => ({ symbol: t.symbol, address: t.address, decimals: t.decimals })),
    accounts: keys.accounts.map((a) => ({ address: a.address, privateKey: a.privateKey })),
  };
}

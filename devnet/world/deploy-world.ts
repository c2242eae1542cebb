import { Contract, getAddress, type JsonRpcProvider, type Wallet } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import { devnetKeys } from '../keys';
import { V2_FACTORY_ABI, V3_FACTORY_ABI } from './abis';
import {
  queueBridgeContracts,
  queueBridgeTokenSupply,
  seedBridgeWallets,
  worldBridgeSeeding,
  type BridgeContracts,
} from './deploy-bridges';
import { supportsCancun } from './cancun';
import { queuePriceOracles } from './deploy-price-oracles';
import { queueServiceContracts, type ServiceContracts } from './deploy-service-contracts';
import { queueUniswap, type UniswapContracts } from './deploy-uniswap';
import {
  checkVenuePools,
  queueVenuePools,
  queueVenues,
  venueAddresses,
  type VenueContracts,
  type VenuePools,
} from './deploy-venues';
import { queueDeployerSupply, queueFunding, wrappedNeeded } from './fund-accounts';
import { loadNpmArtifact } from './npm-artifacts';
import { queueSeedApprovals, queueV2Pools, queueV3Pools, type SeedContext } from './seed-pools';
import { TxQueue, type MiningControls } from './tx-queue';
import { V2_PAIR_INIT_CODE_HASH, v2PairAddress, v3PoolAddress } from './uniswap-pool-address';
import { worldSpec } from './world-spec';

export interface DeployedWorld {
  chainId: number;
  /**
   * The bridges' addresses and Uniswap V4's PoolManager are absent on a chain without Cancun (see supportsCancun).
   */
  /** The PriceOracle is not listed: the OrderExecutor names it (`priceOracle()`). */
  contracts: { weth: string } & UniswapContracts &
    VenueContracts &
    Omit<ServiceContracts, 'priceOracle'> &
    Partial<BridgeContracts>;
  /** The other venues' pools as seeded (addresses, V4 pool ids, Balancer pool ids). */
  venuePools: VenuePools;
  /** The wrapped native first, then the TestTokens. */
  tokens: Array<{ symbol: string; address: string; decimals: number }>;
  feeCollector: string;
  protocolFeeRecipient: string;
  executors: string[];
  /** The intent bridge's relayer (holds the fill inventory) and the bridges' admin. */
  relayer: string;
  bridgeAdmin: string;
}

export interface DeployWorldOptions {
  provider: JsonRpcProvider;
  chainId: number;
  deployer: Wallet;
  executors: string[];
  /** Accounts that get native coins wrapped and every token (see fundAmount). */
  fund: string[];
  /** Defaults to the devnet keys' fee collector / protocol fee recipient. */
  feeCollector?: string;
  protocolFeeRecipient?: string;
  /**
   * The bridges' relayer and admin (default: the devnet keys'); both must hold native coins (genesis). A chain
   * without Cancun gets no bridges.
   */
  relayer?: Wallet;
  bridgeAdmin?: Wallet;
  /** The chain's mining controls: the world's transactions are then mined in a few blocks. */
  mining?: MiningControls;
}

/** Native coins kept for gas on top of what the deployer wraps. */
export const GAS_RESERVE = 100n * 10n ** 18n;

/**
 * Deploys the fixture world of one chain (worldSpec): the wrapped native (WrappedNative under the chain's name
 * and symbol), TestTokens, Uniswap V2 and V3, SushiSwap V2, Uniswap V4 (with Cancun), Balancer V2 and our
 * StableSwap with seeded pools, a Multicall, our contracts, and funds the given accounts. Every address is known
 * before anything is mined (CREATE and CREATE2 addresses, V4 pool ids), so the whole world is one stream of
 * transactions from the deployer, waited for once at the end.
 */
export async function deployWorld(opts: DeployWorldOptions): Promise<DeployedWorld> {
  const spec = worldSpec(opts.chainId);
  const deployer = opts.deployer.connect(opts.provider);
  const balance = await opts.provider.getBalance(deployer.address);
  const needed = wrappedNeeded(spec, opts.fund.length) + GAS_RESERVE;
  if (balance < needed) {
    throw new Error(
      `deployer ${deployer.address} holds ${balance} wei; the world of chain ${opts.chainId} needs ${needed} ` +
        `to wrap for ${opts.fund.length} funded accounts`,
    );
  }
  // Router02 finds pairs by CREATE2 with a hard-coded init-code hash; quotes only work if it is the real one.
  if (!loadNpmArtifact('UniswapV2Router02').bytecode.includes(V2_PAIR_INIT_CODE_HASH.slice(2))) {
    throw new Error('the installed @uniswap/v2-periphery does not use the v2-core pair init-code hash');
  }
  const defaults = devnetKeys(0);
  const feeCollector = opts.feeCollector ?? defaults.feeCollector;
  const protocolFeeRecipient = opts.protocolFeeRecipient ?? defaults.protocolFeeRecipient;
  const relayer = opts.relayer ?? defaults.relayer;
  const bridgeAdmin = opts.bridgeAdmin ?? defaults.bridgeAdmin;

  // Uniswap V4 and the bridges need Cancun's opcodes.
  const cancun = await supportsCancun(opts.provider);
  const queue = await TxQueue.create(opts.provider, deployer, { mining: opts.mining });
  const weth = queue.deploy(`WrappedNative ${spec.wrapped.symbol}`, loadArtifact('WrappedNative'), [
    spec.wrapped.name,
    spec.wrapped.symbol,
  ]);
  const testToken = loadArtifact('TestToken');
  const addresses = new Map<string, string>([[spec.wrapped.symbol, weth]]);
  for (const token of spec.tokens) {
    addresses.set(
      token.symbol,
      queue.deploy(`TestToken ${token.symbol}`, testToken, [token.name, token.symbol, token.decimals]),
    );
  }
  const addressOf = (symbol: string): string => {
    const address = addresses.get(symbol);
    if (!address) throw new Error(`token ${symbol} is not deployed on chain ${opts.chainId}`);
    return address;
  };

  const uniswap = queueUniswap(queue, weth);
  const venues = queueVenues(queue, { weth, cancun });
  const ctx: SeedContext = { spec, uniswap, addressOf };
  queueDeployerSupply(queue, spec, addressOf, opts.fund.length);
  queueSeedApprovals(queue, ctx);
  queueV2Pools(queue, ctx);
  queueV3Pools(queue, ctx);
  const venuePools = queueVenuePools(queue, ctx, venues);
  const oracles = queuePriceOracles(queue, spec, addressOf, uniswap.uniswapV3Factory);
  const service = queueServiceContracts(queue, {
    oracles,
    weth,
    venues: venueAddresses(uniswap, venues.contracts),
    feeCollector,
    protocolFeeRecipient,
    executors: opts.executors,
  });
  const bridges = cancun
    ? queueBridgeContracts(queue, {
        weth,
        bridgeAdmin: bridgeAdmin.address,
        bridgeOwner: opts.deployer.address,
        protocolFeeRecipient,
      })
    : undefined;
  queueFunding(queue, spec, addressOf, opts.fund);
  if (bridges) {
    queueBridgeTokenSupply(queue, spec, addressOf, {
      relayer: relayer.address,
      lockReleaseBridge: bridges.lockReleaseBridge,
      weth,
    });
  }
  await queue.flush();
  if (bridges) {
    const seeding = {
      provider: opts.provider,
      mining: opts.mining,
      spec,
      addressOf,
      relayer,
      bridgeAdmin,
      weth,
    };
    await seedBridgeWallets(worldBridgeSeeding(seeding, bridges));
  }

  const world: DeployedWorld = {
    chainId: opts.chainId,
    contracts: {
      weth,
      multicall: uniswap.multicall,
      uniswapV2Factory: uniswap.uniswapV2Factory,
      uniswapV2Router02: uniswap.uniswapV2Router02,
      uniswapV3Factory: uniswap.uniswapV3Factory,
      uniswapV3QuoterV2: uniswap.uniswapV3QuoterV2,
      uniswapV3SwapRouter: uniswap.uniswapV3SwapRouter,
      uniswapV3PositionManager: uniswap.uniswapV3PositionManager,
      ...venues.contracts,
      swapRouter: service.swapRouter,
      spender: service.spender,
      orderExecutor: service.orderExecutor,
      ...bridges,
    },
    venuePools,
    tokens: [spec.wrapped, ...spec.tokens].map((t) => ({
      symbol: t.symbol,
      address: addressOf(t.symbol),
      decimals: t.decimals,
    })),
    feeCollector: getAddress(feeCollector),
    protocolFeeRecipient: getAddress(protocolFeeRecipient),
    executors: opts.executors.map((e) => getAddress(e)),
    relayer: relayer.address,
    bridgeAdmin: bridgeAdmin.address,
  };
  await Promise.all([
    checkPoolAddresses(opts.provider, world, ctx),
    checkVenuePools(opts.provider, ctx, venues.contracts, venuePools),
  ]);
  return world;
}

/** The factories must have created every pool where the periphery's CREATE2 computation looks for it. */
async function checkPoolAddresses(
  provider: JsonRpcProvider,
  world: DeployedWorld,
  ctx: SeedContext,
): Promise<void> {
  const v2 = new Contract(world.contracts.uniswapV2Factory, V2_FACTORY_ABI, provider);
  const v3 = new Contract(world.contracts.uniswapV3Factory, V3_FACTORY_ABI, provider);
  const checks = [
    ...ctx.spec.v2Pools.map(async (p) => {
      const [a, b] = [ctx.addressOf(p.base), ctx.addressOf(p.quote)];
      const actual = (await v2.getFunction('getPair')(a, b)) as string;
      if (actual !== v2PairAddress(world.contracts.uniswapV2Factory, a, b)) {
        throw new Error(`V2 pair ${p.base}/${p.quote} is at ${actual}, not where Router02 computes it`);
      }
    }),
    ...ctx.spec.v3Pools.map(async (p) => {
      const [a, b] = [ctx.addressOf(p.base), ctx.addressOf(p.quote)];
      const actual = (await v3.getFunction('getPool')(a, b, p.fee)) as string;
      if (actual !== v3PoolAddress(world.contracts.uniswapV3Factory, a, b, p.fee)) {
        throw new Error(
          `V3 pool ${p.base}/${p.quote} ${p.fee} is at ${actual}, not where the periphery computes it`,
        );
      }
    }),
  ];
  await Promise.all(checks);
}

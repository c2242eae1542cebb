import { ContractFactory, ZeroAddress, type InterfaceAbi } from 'ethers';
import { loadArtifact, type ContractArtifact } from '../../contracts-abi/artifacts';
import { DEFAULT_PROTOCOL_FEE_PIPS } from '../../shared/domain/protocol-fee';
import { create2Address } from './create2';
import type { Venues } from './known-chains';

/** Where the PathExecutors find each hop kind's pools (RouteTypes.sol `Venues`, in its field order). */
const PATH_VENUE_KEYS = [
  'uniswapV2Factory',
  'sushiswapV2Factory',
  'uniswapV3Factory',
  'uniswapV4PoolManager',
  'balancerVault',
  'balancerWeightedPoolFactory',
  'stableSwapFactory',
] as const;

/**
 * The price bound of a live chain: half an hour of the token's Uniswap V3 average against the wrapped native, used
 * once a pool has five minutes of history (a younger pool, or one pumped for a block, gives no bound), orders filled
 * at most 5% below it; a USD feed older than a day is not used.
 */
export const LIVE_PRICE_BOUND = {
  twapWindow: 1800,
  minTwapWindow: 300,
  feedMaxAge: 86_400,
  maxDeviationBps: 500,
};

/** The OrderExecutor's cap on an order's execution fee when deployed; raising it waits the timelock. */
export const LIVE_MAX_FEE_BPS = 500;

/** A lock unreleased this long is refundable by its depositor; a release past the hourly limit waits this long. */
export const LIVE_LOCK_TIMEOUT_SECONDS = 4 * 3600;
export const LIVE_RELEASE_DELAY_SECONDS = 3600;

/** Two days between a widening change's proposal and its execution: time for makers to revoke allowances. */
export const DEFAULT_TIMELOCK_DELAY_SECONDS = 172_800;

export interface PlanInputs {
  deployer: string;
  /** The timelock's proposer, executor and the contracts' guardian (--owner, else the deployer). */
  owner: string;
  timelockDelay: number;
  venues: Venues & { weth: string; uniswapV3Factory: string };
  /** CrossChainEntry's protocol fee recipient (immutable there); the others are set after deployment. */
  protocolFeeRecipient: string;
  /** With the chain's SpokePool: the LockReleaseBridge and the CrossChainEntry are deployed too. */
  bridges: boolean;
}

export type PlannedName =
  | 'TokenSpender'
  | 'SwapRouter'
  | 'PriceOracle'
  | 'OrderExecutor'
  | 'TimelockController'
  | 'LockReleaseBridge'
  | 'CrossChainEntry';

export interface PlannedContract {
  name: PlannedName;
  artifact: ContractArtifact;
  initCode: string;
  address: string;
}

export type ContractPlan = Partial<Record<PlannedName, PlannedContract>> &
  Record<
    'TokenSpender' | 'SwapRouter' | 'PriceOracle' | 'OrderExecutor' | 'TimelockController',
    PlannedContract
  >;

function planned(name: PlannedName, args: unknown[]): PlannedContract {
  const artifact = loadArtifact(name);
  const factory = new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode);
  const initCode = factory.interface.encodeDeploy(args);
  const full = artifact.bytecode + initCode.slice(2);
  return { name, artifact, initCode: full, address: create2Address(full) };
}

/**
 * Our contracts as CREATE2 init codes, in deployment order. Every constructor argument that may change later (fee
 * collector, protocol fee recipient, releaser) starts as the deployer, so the addresses depend only on the deployer,
 * the owner and the chain's venues: a re-run with other settings finds the same contracts and changes the settings.
 */
export function planContracts(inputs: PlanInputs): ContractPlan {
  const { deployer, venues } = inputs;
  const venueTuple = PATH_VENUE_KEYS.map((key) => venues[key] ?? ZeroAddress);
  const spender = planned('TokenSpender', [deployer]);
  const swapRouter = planned('SwapRouter', [
    deployer,
    venues.weth,
    venueTuple,
    spender.address,
    deployer,
    DEFAULT_PROTOCOL_FEE_PIPS,
  ]);
  const bound = LIVE_PRICE_BOUND;
  const priceOracle = planned('PriceOracle', [
    deployer,
    venues.weth,
    venues.uniswapV3Factory,
    [bound.twapWindow, bound.minTwapWindow, bound.feedMaxAge],
  ]);
  const orderExecutor = planned('OrderExecutor', [
    deployer,
    venues.weth,
    venueTuple,
    deployer,
    LIVE_MAX_FEE_BPS,
    priceOracle.address,
    bound.maxDeviationBps,
  ]);
  const timelock = planned('TimelockController', [
    inputs.timelockDelay,
    [inputs.owner],
    [inputs.owner],
    ZeroAddress,
  ]);
  const plan: ContractPlan = {
    TokenSpender: spender,
    SwapRouter: swapRouter,
    PriceOracle: priceOracle,
    OrderExecutor: orderExecutor,
    TimelockController: timelock,
  };
  if (inputs.bridges && venues.spokePool) {
    const bridge = planned('LockReleaseBridge', [
      deployer,
      deployer,
      venues.weth,
      LIVE_LOCK_TIMEOUT_SECONDS,
      LIVE_RELEASE_DELAY_SECONDS,
    ]);
    plan.LockReleaseBridge = bridge;
    plan.CrossChainEntry = planned('CrossChainEntry', [
      venues.spokePool,
      bridge.address,
      venues.weth,
      inputs.protocolFeeRecipient,
      DEFAULT_PROTOCOL_FEE_PIPS,
    ]);
  }
  return plan;
}

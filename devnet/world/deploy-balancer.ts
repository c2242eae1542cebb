import { AbiCoder, ZeroAddress } from 'ethers';
import { BALANCER_VAULT_ABI, BALANCER_WEIGHTED_POOL_FACTORY_ABI } from './abis';
import type { VenueSeedContext } from './deploy-sushiswap';
import { loadNpmArtifact } from './npm-artifacts';
import type { TxQueue } from './tx-queue';
import { sortTokens } from './uniswap-pool-address';
import { BALANCER_TWO_TOKEN_SPECIALIZATION, balancerPoolId, weightedPoolAddress } from './venue-pool-address';
import { weightedPoolAmounts, type WeightedPoolSpec } from './world-spec';

export interface BalancerContracts {
  balancerVault: string;
  balancerWeightedPoolFactory: string;
  /** Holds every Vault permission; its admin (DEFAULT_ADMIN_ROLE) is the deployer. */
  balancerAuthorizer: string;
  balancerProtocolFeeProvider: string;
}

const DAY = 86_400;
/** The Vault's emergency pause window and buffer: the longest the Vault allows, as deployed on mainnet. */
const PAUSE_WINDOW_DURATION = 90 * DAY;
const BUFFER_PERIOD_DURATION = 30 * DAY;
/** Caps on the yield and AUM protocol fees the provider accepts (50%, mainnet's task input); both start at 0. */
const MAX_YIELD_FEE = 5n * 10n ** 17n;
const MAX_AUM_FEE = 5n * 10n ** 17n;
const FACTORY_VERSION = JSON.stringify({
  name: 'WeightedPoolFactory',
  version: 3,
  deployment: '20230206-weighted-pool-v3',
});
const POOL_VERSION = JSON.stringify({
  name: 'WeightedPool',
  version: 3,
  deployment: '20230206-weighted-pool-v3',
});
/** WeightedPoolUserData.JoinKind.INIT: the first join sets the balances (and so the price) freely. */
const JOIN_KIND_INIT = 0n;

// The Vault's runtime is 24 KB and its constructor deploys the ProtocolFeesCollector; the factory's constructor
// stores the pool's 31 KB creation code as two contracts; a pool creation deploys 24 KB and registers it.
const VAULT_GAS = 9_000_000n;
const FEE_PROVIDER_GAS = 3_000_000n;
const FACTORY_GAS = 10_000_000n;
const CREATE_POOL_GAS = 9_000_000n;
const JOIN_GAS = 800_000n;

/**
 * Queues Balancer V2 from its mainnet deployment artifacts: the Authorizer (admin: the deployer), the Vault on the
 * world's wrapped native, the ProtocolFeePercentagesProvider and the weighted pool factory (v3, the current math).
 */
export function queueBalancer(queue: TxQueue, weth: string): BalancerContracts {
  const balancerAuthorizer = queue.deploy('Balancer Authorizer', loadNpmArtifact('BalancerAuthorizer'), [
    queue.address,
  ]);
  const balancerVault = queue.deploy(
    'Balancer Vault',
    loadNpmArtifact('BalancerVault'),
    [balancerAuthorizer, weth, PAUSE_WINDOW_DURATION, BUFFER_PERIOD_DURATION],
    VAULT_GAS,
  );
  const balancerProtocolFeeProvider = queue.deploy(
    'Balancer ProtocolFeePercentagesProvider',
    loadNpmArtifact('ProtocolFeePercentagesProvider'),
    [balancerVault, MAX_YIELD_FEE, MAX_AUM_FEE],
    FEE_PROVIDER_GAS,
  );
  const balancerWeightedPoolFactory = queue.deploy(
    'Balancer WeightedPoolFactory',
    loadNpmArtifact('WeightedPoolFactory'),
    [balancerVault, balancerProtocolFeeProvider, FACTORY_VERSION, POOL_VERSION],
    FACTORY_GAS,
  );
  return { balancerVault, balancerWeightedPoolFactory, balancerAuthorizer, balancerProtocolFeeProvider };
}

export interface SeededWeightedPool {
  address: string;
  /** The Vault's pool id (bytes32): what a swap names. */
  id: string;
  /** Sorted, as the Vault registers them. */
  tokens: [string, string];
  balances: [bigint, bigint];
  weights: [bigint, bigint];
  spec: WeightedPoolSpec;
}

const ONE = 10n ** 18n;

/**
 * Creates every weighted pool of the spec through the factory (no owner: the swap fee is fixed) and INIT-joins it
 * with the deployer's tokens at the reference price. The Vault must be the deployer's only Balancer: pool ids count
 * the Vault's registrations from 0.
 */
export function queueBalancerPools(
  queue: TxQueue,
  ctx: VenueSeedContext,
  balancer: BalancerContracts,
): SeededWeightedPool[] {
  return ctx.spec.balancerPools.map((pool, index) => {
    const base = ctx.addressOf(pool.base);
    const tokens = sortTokens(base, ctx.addressOf(pool.quote));
    const amounts = weightedPoolAmounts(ctx.spec, pool);
    const baseWeight = (pool.baseWeightPercent * ONE) / 100n;
    const baseFirst = tokens[0].toLowerCase() === base.toLowerCase();
    const balances: [bigint, bigint] = baseFirst
      ? [amounts.base, amounts.quote]
      : [amounts.quote, amounts.base];
    const weights: [bigint, bigint] = baseFirst
      ? [baseWeight, ONE - baseWeight]
      : [ONE - baseWeight, baseWeight];
    const quoteWeight = 100n - pool.baseWeightPercent;
    const name = `Balancer ${pool.baseWeightPercent} ${pool.base} ${quoteWeight} ${pool.quote}`;
    const symbol = `B-${pool.baseWeightPercent}${pool.base}-${quoteWeight}${pool.quote}`;
    const address = weightedPoolAddress(balancer.balancerWeightedPoolFactory, index);
    const id = balancerPoolId(address, BALANCER_TWO_TOKEN_SPECIALIZATION, BigInt(index));
    queue.call(
      `Balancer ${symbol} create`,
      balancer.balancerWeightedPoolFactory,
      BALANCER_WEIGHTED_POOL_FACTORY_ABI,
      'create',
      [name, symbol, tokens, weights, [ZeroAddress, ZeroAddress], pool.swapFee, ZeroAddress],
      CREATE_POOL_GAS,
    );
    const userData = AbiCoder.defaultAbiCoder().encode(['uint256', 'uint256[]'], [JOIN_KIND_INIT, balances]);
    queue.call(
      `Balancer ${symbol} INIT join`,
      balancer.balancerVault,
      BALANCER_VAULT_ABI,
      'joinPool',
      [
        id,
        queue.address,
        queue.address,
        { assets: tokens, maxAmountsIn: balances, userData, fromInternalBalance: false },
      ],
      JOIN_GAS,
    );
    return { address, id, tokens, balances, weights, spec: pool };
  });
}

import { parseUnits, type Wallet } from 'ethers';
import type { ChainClient } from '../shared/chain/chain-client';
import type { ChainConfig, ChainContracts, KeeperConfig } from '../shared/config/config-schema';
import type { Logger } from '../shared/log/create-logger';
import type { QuoteEngine } from '../shared/routing/quote-engine';
import type { Prices, PriceListToken } from '../shared/routing/prices/usd-prices';
import type { Store } from '../shared/store/store';
import type { StoreWatch } from '../shared/store/store-watch';
import { ChainKeeper, type TickStage } from './chain-keeper';
import { ClaimStage } from './claim/claim-stage';
import { DcaScheduler } from './dca/dca-scheduler';
import { DcaWork } from './dca/dca-work';
import type { DiagnosisWriter } from './diagnose/diagnosis-writer';
import { OrderDiagnoses } from './diagnose/order-diagnoses';
import type { KeeperMetrics } from './keeper-metrics';
import { OrderMoves } from './order-moves';
import type { OrderWork } from './order-work';
import { NonceGapFiller } from './outbox/nonce-gap-filler';
import type { SendPolicy } from './outbox/send-policy';
import { BATCH_BASE_GAS, GAS_PER_ORDER, PRICE_BOUND_GAS_PER_GROUP } from '../shared/routing/execution-fee';
import { PlanStage } from './plan/plan-stage';
import { RowGuard } from './row-guard';
import { LimitOrderWork } from './select/limit-order-work';
import type { OrderIndex } from './select/order-index';
import { SelectStage } from './select/select-stage';
import { StageTimer } from './stage-timer';
import type { ExecutorWallet } from './outbox/executor-wallet';
import { FeePolicy } from './outbox/fee-policy';
import { BlockGasBudget } from './submit/block-gas-budget';
import { SubmitStage } from './submit/submit-stage';
import { WalletPool } from './submit/wallet-pool';
import { BatchSettler } from './settle/batch-settler';
import { confirmationDepthOf } from './settle/confirmation-depths';
import { SettleStage } from './settle/settle-stage';
import { TrackStage } from './track/track-stage';
import { TransactionTracker } from './track/transaction-tracker';
import { BlockFeedWatch } from './watch/block-feed-watch';
import { ChainAvailability } from './watch/chain-availability';
import { PublishStage } from './watch/publish-stage';
import { ReferencePricePublisher } from './watch/reference-price-publisher';

export interface ChainKeeperParts {
  chain: ChainConfig & { contracts: ChainContracts };
  client: ChainClient;
  engine: QuoteEngine;
  prices: Prices;
  /** The chain's listed tokens. */
  tokens: () => readonly PriceListToken[];
  index: OrderIndex;
  store: Pick<Store, 'keeperLimitOrders' | 'keeperDca' | 'keeperTransactions' | 'referencePrices'>;
  signers: readonly Wallet[];
  /**
   * Where the chain's signed transactions go out (public or private RPCs: outbox/send-policy-of-chain.ts): the
   * executors' sends and replacements, and what follows them must re-broadcast through it too.
   */
  sendPolicy: SendPolicy;
  keeper: KeeperConfig;
  metrics: KeeperMetrics;
  owner: string;
  log: Logger;
  now: () => number;
  /** Further kinds of work run after the order batches (the cross-chain relay stages), in order. */
  more?: readonly TickStage[];
  /** The relay's wallets on this chain: the track stage checks their nonces for gaps too. */
  relayWallets?: () => readonly ExecutorWallet[];
  /** Told of store calls that could not reach the store (the keeper logs the outage once, not per stage or row). */
  storeWatch?: Pick<StoreWatch, 'failed'>;
  /** Where the chain's diagnoses of pending orders go (written off the hot path); none: orders are not diagnosed. */
  diagnoses?: Pick<DiagnosisWriter, 'submit'>;
}

/** Blocks' worth of our gas that may wait unmined: the next block's and the one after. */
const BLOCKS_AHEAD = 3;
/** A batch split to fill the rest of a block keeps at least this many orders. */
const MIN_SPLIT_ORDERS = 10;
/** A group's share of a batch's gas limit beyond its orders: its route (twice the pools' estimate) and price read. */
const GROUP_GAS = PRICE_BOUND_GAS_PER_GROUP + 2n * 200_000n;

function blockGasBudget(keeper: KeeperConfig): BlockGasBudget {
  return new BlockGasBudget({
    model: { baseGas: BATCH_BASE_GAS, perOrderGas: GAS_PER_ORDER, groupGas: GROUP_GAS },
    maxBatchOrders: keeper.maxBatchOrders,
    batchGasCap: BigInt(keeper.batchGasCap),
    blocksAhead: BLOCKS_AHEAD,
    minSplitOrders: MIN_SPLIT_ORDERS,
  });
}

/**
 * One chain's keeper from its parts: the kinds of order work (limit orders, DCA iterations), the moves they share,
 * the tracker, scheduler and publisher, and the pipeline's stages. A new kind of work is one more OrderWork in
 * `works`; a new stage is built here and run by ChainKeeper.
 */
export function buildChainKeeper(parts: ChainKeeperParts): ChainKeeper {
  const { chain, client, engine, prices, store, metrics, owner, log, now } = parts;
  const chainId = chain.chainId;
  const config = parts.keeper;
  const depth = confirmationDepthOf(chainId, chain.confirmations, parts.keeper.confirmations);
  const token = (address: string) => prices.token(chainId, address);
  const availability = new ChainAvailability(chainId, engine);
  const storeFailed = (err: unknown): boolean => parts.storeWatch?.failed(err) ?? false;
  const guard = new RowGuard(chainId, metrics, log, () => availability.rpcFailed(), storeFailed);
  const timer = new StageTimer(chainId, metrics, log, storeFailed);
  const pool = new WalletPool(client, parts.signers, {
    maxInFlightPerWallet: config.maxInFlightPerWallet,
    lowBalanceWei: BigInt(config.lowBalanceWei),
    onBalance: (address, wei, low) => metrics.walletBalance(chainId, address, wei, low),
    onResync: (e) => metrics.nonceResync(chainId, e.address),
    sendPolicy: parts.sendPolicy,
    onPutToUse: (wallet, inUse) => log.info({ wallet, inUse }, 'executor wallet put to use'),
  });
  const fees = new FeePolicy(client, {
    maxFeePerGasCap: parseUnits(String(chain.maxFeePerGasGwei ?? config.maxFeePerGasGwei), 'gwei'),
  });

  const diagnoses = parts.diagnoses ? new OrderDiagnoses(parts.diagnoses, now) : undefined;
  const scheduler = new DcaScheduler(chainId, store.keeperDca, prices, token, metrics, guard, log, diagnoses);
  const works = new Map<OrderWork['kind'], OrderWork>(
    [
      new LimitOrderWork({
        chainId,
        repository: store.keeperLimitOrders,
        index: parts.index,
        prices,
        token,
        metrics,
        diagnoses,
      }),
      new DcaWork({ chainId, repository: store.keeperDca, scheduler, token, metrics, now, diagnoses }),
    ].map((work) => [work.kind, work]),
  );
  const moves = new OrderMoves({ chainId, works, guard, metrics, owner, log, now, diagnoses });
  const settler = new BatchSettler({
    chainId,
    client,
    pool,
    transactions: store.keeperTransactions,
    works,
    metrics,
    guard,
    orderExecutor: chain.contracts.orderExecutor,
    owner,
    confirmations: depth.confirmations,
    log,
    now,
    diagnoses,
  });
  const budget = blockGasBudget(config);
  const tracker = new TransactionTracker({
    chainId,
    client,
    pool,
    fees,
    policy: parts.sendPolicy,
    transactions: store.keeperTransactions,
    onMined: (gasUsed, gasLimit) => budget.observe(gasUsed, gasLimit),
    settler,
    metrics,
    guard,
    owner,
    leaseMs: config.leaseMs,
    replaceAfterBlocks: config.replaceAfterBlocks,
    log,
    now,
  });
  const gaps = new NonceGapFiller({ chainId, client, fees, metrics, log, now });
  const feed = new BlockFeedWatch(chainId, metrics, log, {
    stallMs: config.blockStallMs,
    expectedBlockTimeMs: chain.blockTimeSeconds === undefined ? undefined : chain.blockTimeSeconds * 1000,
  });
  const publisher = new ReferencePricePublisher(chainId, prices, parts.tokens, store.referencePrices);

  return new ChainKeeper({
    chainId,
    stages: {
      track: new TrackStage({
        chainId,
        client,
        tracker,
        relayWallets: parts.relayWallets ?? (() => []),
        gaps,
        feed,
        pool,
        works,
        availability,
        metrics,
        timer,
      }),
      settle: new SettleStage({
        chainId,
        client,
        transactions: store.keeperTransactions,
        settler,
        pool,
        metrics,
        guard,
        timer,
        owner,
        leaseMs: config.leaseMs,
        recheckBlocks: depth.recheckBlocks,
        log,
        now,
      }),
      select: new SelectStage({ chainId, works, metrics, timer }),
      claim: new ClaimStage({
        chainId,
        works,
        moves,
        guard,
        metrics,
        tokens: { decimalsOf: (_chainId, address) => token(address)?.decimals },
        owner,
        leaseMs: config.leaseMs,
        log,
        diagnoses,
      }),
      plan: new PlanStage({
        chain,
        client,
        engine,
        prices,
        transactions: store.keeperTransactions,
        availability,
        moves,
        guard,
        metrics,
        log,
        diagnoses,
      }),
      submit: new SubmitStage({
        chain,
        client,
        fees,
        transactions: store.keeperTransactions,
        availability,
        moves,
        metrics,
        owner,
        leaseMs: config.leaseMs,
        log,
        now,
      }),
      more: parts.more ?? [],
      publish: new PublishStage(publisher, availability, now),
    },
    engine,
    availability,
    feed,
    pool,
    timer,
    metrics,
    budget,
    blockGasLimit: (head) =>
      client.getBlock(head).then(
        (block) => block?.gasLimit,
        () => undefined,
      ),
    log,
    now,
  });
}

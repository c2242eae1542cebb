import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { StoreMetrics } from '../shared/metrics/store-metrics';
import { WebhookMetrics } from '../shared/metrics/webhook-metrics';
import {
  INTENT_STATUSES,
  LOCK_RELEASE_STATUSES,
  TRANSFER_PROVIDERS,
} from '../shared/store/repositories/transfer-rows';
import { FAILURE_KINDS } from './plan/failure-kinds';

/** Which pipeline an order belongs to: a limit order or one DCA iteration. */
export const ORDER_KINDS = ['limit', 'dca'] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];

/** The keeper's stages (one folder each); `main` is the process around them. */
export const KEEPER_STAGES = [
  'watch',
  'publish',
  'select',
  'claim',
  'plan',
  'submit',
  'track',
  'settle',
  'dca',
  'relay_index',
  'relay_fill',
  'relay_settle',
  'relay_release',
  'relay_inventory',
] as const;
export type KeeperStage = (typeof KEEPER_STAGES)[number];

/** Limit-order states the keeper still has work on; final ones are not gauged (they only grow). */
export const OPEN_LIMIT_ORDER_STATUSES = ['pending', 'executing', 'submitted'] as const;
export type OpenLimitOrderStatus = (typeof OPEN_LIMIT_ORDER_STATUSES)[number];

/** DCA iteration states the keeper still has work on. */
export const OPEN_DCA_ORDER_STATUSES = ['pending', 'executing'] as const;
export type OpenDcaOrderStatus = (typeof OPEN_DCA_ORDER_STATUSES)[number];

/**
 * How one order ended in an included transaction: `executed` (OrderExecuted event), `failed` (OrderFailed event:
 * the batch went on without it), `reverted` (the whole transaction reverted, so every order in it).
 */
export const EXECUTION_RESULTS = ['executed', 'failed', 'reverted'] as const;
export type ExecutionResult = (typeof EXECUTION_RESULTS)[number];

/** What the failure table decided for a failed order: try again next block, back off, or settle it `failed`. */
export const FAILURE_DISPOSITIONS = ['retry', 'backoff', 'final'] as const;
export type FailureDisposition = (typeof FAILURE_DISPOSITIONS)[number];

/** How a DCA iteration ended (its final DCA order state). */
export const DCA_ITERATION_RESULTS = ['successful', 'error', 'expired', 'cancelled'] as const;
export type DcaIterationResult = (typeof DCA_ITERATION_RESULTS)[number];

/** The cross-chain providers the keeper relays (see shared/store/repositories/transfer-rows.ts). */
export const RELAY_PROVIDERS = ['intent', 'lock-release'] as const;
export type RelayProvider = (typeof RELAY_PROVIDERS)[number];

/**
 * How one of the relayer's fills (or one of the bridge admin's releases) ended: `filled` (its receipt succeeded),
 * `filled_by_other` (another relayer filled the deposit first), `reverted` (retried later), `dropped` (its nonce
 * went to another transaction; retried), `not_sent` (the simulation or the broadcast failed; retried); for locks also
 * `queued` (the release waits the bridge's delay, past the token's hourly limit), `refunded` (paid back to its
 * depositor on the origin: a lock the keeper would not release), `refused` (never released, its refund left to its
 * depositor) and `rejected_accepted` (accepted on its origin by a releaser key this keeper did not use it with, for
 * a lock it would never accept: a stolen key at work, never paid).
 */
export const RELAY_OUTCOMES = [
  'filled',
  'filled_by_other',
  'reverted',
  'dropped',
  'not_sent',
  'queued',
  'refunded',
  'refused',
  'rejected_accepted',
] as const;
export type RelayOutcome = (typeof RELAY_OUTCOMES)[number];

/**
 * Why the relayer held back a fill it could otherwise send (retried later): the input's spot value strays from its
 * reference value (`price_deviation`), the oracle has no price for it (`no_reference_price`), or a cap holds
 * (`max_fill` per fill, `max_hourly` per token and chain, `inventory_floor` on the chain).
 */
export const RELAY_HOLD_REASONS = [
  'price_deviation',
  'no_reference_price',
  'max_fill',
  'max_hourly',
  'inventory_floor',
] as const;
export type RelayHoldReason = (typeof RELAY_HOLD_REASONS)[number];

/** What a root bundle leaf paid on the origin: the relayer's repayment for a fill, or a depositor's refund. */
export const SETTLEMENT_KINDS = ['repayment', 'refund'] as const;
export type SettlementKind = (typeof SETTLEMENT_KINDS)[number];

/** Steps of a root bundle's life on a SpokePool. */
export const BUNDLE_EVENTS = ['planned', 'relayed', 'executed'] as const;
export type BundleEvent = (typeof BUNDLE_EVENTS)[number];

/** `status` of a transaction receipt. */
export const RECEIPT_STATUSES = ['success', 'reverted'] as const;
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number];

/**
 * Reasons of `tas_keeper_order_failures_total`: the failure table's codes (OrderExecutor's OrderFailed reasons and
 * the keeper's own), each started at 0 on every chain.
 */
export const FAILURE_REASONS = Object.keys(FAILURE_KINDS) as readonly (keyof typeof FAILURE_KINDS)[];

/** What a stage set aside: a limit order, a DCA iteration, a DCA strategy, or a keeper transaction. */
export const SET_ASIDE_KINDS = ['limit', 'dca', 'dca_strategy', 'transaction'] as const;
export type SetAsideKind = (typeof SET_ASIDE_KINDS)[number];

/**
 * Why a row was set aside: a value that cannot execute (the codes of the failure table), or `ERROR`, a throw the
 * stage did not expect (the row is tried again on a later tick).
 */
export const SET_ASIDE_REASONS = [
  'TOKEN_NOT_LISTED',
  'INVALID_AMOUNT',
  'INVALID_PRICE',
  'INVALID_SLIPPAGE',
  'INVALID_SCHEDULE',
  'ERROR',
] as const;
export type SetAsideReason = (typeof SET_ASIDE_REASONS)[number];

/**
 * Gas units per order; the devnet snapshot has 192,775 for a single order and about 80,000 per order in batches of
 * 20, real routes over several hops cost more.
 */
const GAS_PER_ORDER_BUCKETS = [
  50_000, 75_000, 100_000, 125_000, 150_000, 200_000, 250_000, 300_000, 400_000, 500_000, 750_000, 1_000_000,
];
/** Selection must stay under 5 ms per block at 100,000 open orders: fine buckets around that target. */
const SELECTION_BUCKETS = [0.0005, 0.001, 0.002, 0.003, 0.004, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.1];
/** One stage's work for one block: a store round trip at the fast end, RPC calls and receipts at the slow end. */
const TICK_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const BATCH_SIZE_BUCKETS = [1, 2, 3, 5, 8, 10, 15, 20, 30, 50, 75, 100];
/** 1 = included in the block right after the trigger block, the target. */
const INCLUSION_BLOCK_BUCKETS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100];
const INCLUSION_SECONDS_BUCKETS = [0.5, 1, 2, 3, 5, 8, 13, 20, 30, 45, 60, 120, 300, 600];
/**
 * Fees valued in the chain's native coin span decades between chains (ETH against POL) and gas prices: log-spaced
 * buckets.
 */
/** Origin receipt to destination fill: the goal is 2 destination blocks, about 2 s. */
const FILL_LATENCY_BLOCK_BUCKETS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100];
const FILL_LATENCY_SECONDS_BUCKETS = [0.5, 1, 2, 3, 4, 6, 8, 10, 15, 20, 30, 60, 120, 300];
const FEE_NATIVE_BUCKETS = [
  1e-7, 1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 50,
];

/**
 * The EVM accounts balances and gas prices in wei, 10^-18 of the native coin on every EVM chain: gauges and
 * counters of native amounts are in whole coins (ETH, POL) so dashboards read them without scaling. A double keeps
 * 15 significant digits, plenty for monitoring.
 */
const WEI_PER_NATIVE = 1e18;

function native(wei: bigint): number {
  return Number(wei) / WEI_PER_NATIVE;
}

/**
 * Every metric of the keeper process, on its own registry served by the keeper's admin port (`/metrics`). Names
 * start with `tas_keeper_` and carry `chain_id` wherever the value belongs to one chain. RPC requests, latency and
 * failovers are the shared `RpcMetrics`, built by the wiring on this registry with the same prefix.
 *
 * Label values are bounded sets: stages, statuses, results and failure reason codes (never free text, order ids or
 * transaction hashes); wallets are the configured executor addresses.
 */
export class KeeperMetrics {
  readonly registry = new Registry();
  private readonly chains = new Set<number>();
  /** (provider, status) pairs of the transfers gauge written so far. */
  private readonly transferSeries = new Set<string>();

  readonly openLimitOrders = new Gauge({
    name: 'tas_keeper_open_limit_orders',
    help: 'Limit orders not yet final in the store, by chain and status (pending, executing, submitted)',
    labelNames: ['chain_id', 'status'] as const,
    registers: [this.registry],
  });
  readonly openDcaOrders = new Gauge({
    name: 'tas_keeper_open_dca_orders',
    help: 'DCA iterations not yet final in the store, by chain and status (pending, executing)',
    labelNames: ['chain_id', 'status'] as const,
    registers: [this.registry],
  });

  readonly selectionDuration = new Histogram({
    name: 'tas_keeper_selection_duration_seconds',
    help: 'Time to select the orders whose trigger a new block reached, from the in-memory index, per block and chain',
    labelNames: ['chain_id'] as const,
    buckets: SELECTION_BUCKETS,
    registers: [this.registry],
  });
  readonly tickDuration = new Histogram({
    name: 'tas_keeper_tick_duration_seconds',
    help: 'Time one pipeline stage spends on one tick (one block of one chain), by chain and stage',
    labelNames: ['chain_id', 'stage'] as const,
    buckets: TICK_BUCKETS,
    registers: [this.registry],
  });
  readonly oldestCrossedOrderBlocks = new Gauge({
    name: 'tas_keeper_oldest_crossed_order_blocks',
    help: 'Blocks since the oldest order still open past its trigger was first selected as crossed (0: none waits), by chain and kind',
    labelNames: ['chain_id', 'kind'] as const,
    registers: [this.registry],
  });
  readonly ordersTriggeredTotal = new Counter({
    name: 'tas_keeper_orders_triggered_total',
    help: 'Orders whose trigger was reached and confirmed by an exact quote, handed to the claim stage, by chain and kind',
    labelNames: ['chain_id', 'kind'] as const,
    registers: [this.registry],
  });

  readonly headBlock = new Gauge({
    name: 'tas_keeper_head_block',
    help: 'Number of the newest block the keeper has seen, by chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly blocksSeenTotal = new Counter({
    name: 'tas_keeper_blocks_seen_total',
    help: 'New head blocks the block feed delivered, by chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly lastBlockSeenTimestamp = new Gauge({
    name: 'tas_keeper_last_block_seen_timestamp_seconds',
    help: 'Unix time (keeper clock) at which the newest block was seen, by chain; time() minus this is the feed age',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly priceLagBlocks = new Gauge({
    name: 'tas_keeper_price_lag_blocks',
    help: 'Head block minus the block of the pool state the last selection priced orders with, by chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly feedStallsTotal = new Counter({
    name: 'tas_keeper_feed_stalls_total',
    help: "Times the block feed watchdog found no new block within the chain's stall window, by chain",
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly feedStalled = new Gauge({
    name: 'tas_keeper_feed_stalled',
    help: 'Whether the block feed of a chain is stalled now (1) or delivering blocks (0), by chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly reorgsTotal = new Counter({
    name: 'tas_keeper_reorgs_total',
    help: 'Chain reorganisations detected through block-hash checkpoints, by chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly settlementsReopenedTotal = new Counter({
    name: 'tas_keeper_settlements_reopened_total',
    help: 'Settled batches whose block left the chain after their confirmations (a deeper reorg): their orders went back into them, by chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly nonceGapsFilledTotal = new Counter({
    name: 'tas_keeper_nonce_gaps_filled_total',
    help: 'Nonces the chain had not got below a transaction the keeper waits on, filled by re-sending what was recorded for them or an empty transaction, by chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });

  readonly claimsTotal = new Counter({
    name: 'tas_keeper_claims_total',
    help: 'Orders this keeper moved to executing under its lease, by chain and kind',
    labelNames: ['chain_id', 'kind'] as const,
    registers: [this.registry],
  });
  readonly claimsLostTotal = new Counter({
    name: 'tas_keeper_claims_lost_total',
    help: 'Selected orders not claimed because another keeper held them or the api changed or cancelled them first, by chain and kind',
    labelNames: ['chain_id', 'kind'] as const,
    registers: [this.registry],
  });
  readonly leaseReclaimsTotal = new Counter({
    name: 'tas_keeper_lease_reclaims_total',
    help: 'Orders taken back from an expired lease (a keeper that crashed or stalled), by chain and kind',
    labelNames: ['chain_id', 'kind'] as const,
    registers: [this.registry],
  });

  readonly executionsTotal = new Counter({
    name: 'tas_keeper_executions_total',
    help: 'Orders in included transactions, by chain, kind and result (executed, failed: OrderFailed event, reverted: whole transaction)',
    labelNames: ['chain_id', 'kind', 'result'] as const,
    registers: [this.registry],
  });
  readonly orderFailuresTotal = new Counter({
    name: 'tas_keeper_order_failures_total',
    help: 'Order failures at any stage, by chain, kind, reason code and disposition (retry, backoff, final)',
    labelNames: ['chain_id', 'kind', 'reason', 'disposition'] as const,
    registers: [this.registry],
  });
  readonly dcaIterationsTotal = new Counter({
    name: 'tas_keeper_dca_iterations_total',
    help: 'DCA iterations ended, by chain and result (successful, error, expired, cancelled)',
    labelNames: ['chain_id', 'result'] as const,
    registers: [this.registry],
  });

  readonly batchSize = new Histogram({
    name: 'tas_keeper_batch_size_orders',
    help: 'Orders per OrderExecutor batch transaction sent, by chain',
    labelNames: ['chain_id'] as const,
    buckets: BATCH_SIZE_BUCKETS,
    registers: [this.registry],
  });
  readonly gasUsedTotal = new Counter({
    name: 'tas_keeper_gas_used_total',
    help: 'Gas units used by included keeper transactions (reverted ones too), by chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly gasPerOrder = new Histogram({
    name: 'tas_keeper_gas_per_order',
    help: 'Gas units per order of an included batch (transaction gas used divided by its orders, once per order), by chain',
    labelNames: ['chain_id'] as const,
    buckets: GAS_PER_ORDER_BUCKETS,
    registers: [this.registry],
  });
  readonly gasCostNativeTotal = new Counter({
    name: 'tas_keeper_gas_cost_native_total',
    help: "Gas paid by the executor wallets (gas used times effective gas price), in the chain's native coin, by chain",
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly executionFeeNative = new Histogram({
    name: 'tas_keeper_execution_fee_native',
    help: "Execution fee charged per executed order, valued in the chain's native coin at the price the keeper computed it with, by chain",
    labelNames: ['chain_id'] as const,
    buckets: FEE_NATIVE_BUCKETS,
    registers: [this.registry],
  });

  readonly transactionsSentTotal = new Counter({
    name: 'tas_keeper_transactions_sent_total',
    help: 'Signed transactions broadcast by the executor wallets (replacements included), by chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly replacementsTotal = new Counter({
    name: 'tas_keeper_transaction_replacements_total',
    help: 'Stuck transactions replaced with higher fees at the same nonce, by chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly droppedTotal = new Counter({
    name: 'tas_keeper_transactions_dropped_total',
    help: 'Transactions that left the mempool without a receipt (their orders went back to the pipeline), by chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly receiptsTotal = new Counter({
    name: 'tas_keeper_receipts_total',
    help: 'Receipts of keeper transactions, by chain and status (success, reverted)',
    labelNames: ['chain_id', 'status'] as const,
    registers: [this.registry],
  });
  readonly inclusionBlocks = new Histogram({
    name: 'tas_keeper_trigger_to_inclusion_blocks',
    help: 'Blocks from the block that reached an order trigger to the block that included its transaction, per order, by chain',
    labelNames: ['chain_id'] as const,
    buckets: INCLUSION_BLOCK_BUCKETS,
    registers: [this.registry],
  });
  readonly inclusionSeconds = new Histogram({
    name: 'tas_keeper_trigger_to_inclusion_seconds',
    help: 'Seconds (keeper clock) from seeing the block that reached an order trigger to seeing its receipt, per order, by chain',
    labelNames: ['chain_id'] as const,
    buckets: INCLUSION_SECONDS_BUCKETS,
    registers: [this.registry],
  });
  readonly nonceResyncsTotal = new Counter({
    name: 'tas_keeper_nonce_resyncs_total',
    help: "Times a wallet's local nonce was reset from the chain after an error, by chain and wallet",
    labelNames: ['chain_id', 'wallet'] as const,
    registers: [this.registry],
  });

  readonly walletBalanceNative = new Gauge({
    name: 'tas_keeper_wallet_balance_native',
    help: "Executor wallet balance in the chain's native coin, by chain and wallet",
    labelNames: ['chain_id', 'wallet'] as const,
    registers: [this.registry],
  });
  readonly walletBalanceLow = new Gauge({
    name: 'tas_keeper_wallet_balance_low',
    help: 'Whether an executor wallet balance is below its alert threshold (1) or not (0), by chain and wallet',
    labelNames: ['chain_id', 'wallet'] as const,
    registers: [this.registry],
  });
  readonly walletInFlight = new Gauge({
    name: 'tas_keeper_wallet_in_flight_transactions',
    help: 'Transactions of an executor wallet sent and not yet included, by chain and wallet',
    labelNames: ['chain_id', 'wallet'] as const,
    registers: [this.registry],
  });

  readonly rowsSetAsideTotal = new Counter({
    name: 'tas_keeper_rows_set_aside_total',
    help: 'Rows a stage could not handle and left aside while it went on with the others, by chain, kind (limit, dca, dca_strategy, transaction) and reason (a failure-table code, or ERROR for an unexpected throw)',
    labelNames: ['chain_id', 'kind', 'reason'] as const,
    registers: [this.registry],
  });
  readonly outageDelaysTotal = new Counter({
    name: 'tas_keeper_outage_delays_total',
    help: 'Orders sent back to pending by an RPC or chain outage, without counting an attempt, by chain and kind',
    labelNames: ['chain_id', 'kind'] as const,
    registers: [this.registry],
  });
  readonly claimsHeld = new Gauge({
    name: 'tas_keeper_claims_held',
    help: 'Whether the keeper claims nothing on a chain now (1) because its pool state is stale or its RPC is failing, or claims as usual (0), by chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });

  readonly relayDepositsTotal = new Counter({
    name: 'tas_keeper_relay_deposits_total',
    help: 'Bridge deposits the keeper indexed from an origin chain (new or read again after a reorg), by origin chain and provider (intent, lock-release)',
    labelNames: ['chain_id', 'provider'] as const,
    registers: [this.registry],
  });
  readonly relayFillsTotal = new Counter({
    name: 'tas_keeper_relay_fills_total',
    help: 'Destination transactions of the relayer (intent fills) and the bridge admin (lock-release releases), by destination chain, provider and outcome (filled, filled_by_other, reverted, dropped, not_sent)',
    labelNames: ['chain_id', 'provider', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly relayFillsHeldTotal = new Counter({
    name: 'tas_keeper_relay_fills_held_total',
    help: 'Checks that held back a fill (or a release) the relayer would otherwise send, by destination chain, provider and reason (price_deviation, no_reference_price, max_fill, max_hourly, inventory_floor); the transfer is looked at again later',
    labelNames: ['chain_id', 'provider', 'reason'] as const,
    registers: [this.registry],
  });
  readonly relayFillLatencyBlocks = new Histogram({
    name: 'tas_keeper_relay_fill_latency_blocks',
    help: 'Destination blocks from the head when the deposit was first seen to the block of its fill, per transfer, by destination chain and provider',
    labelNames: ['chain_id', 'provider'] as const,
    buckets: FILL_LATENCY_BLOCK_BUCKETS,
    registers: [this.registry],
  });
  readonly relayFillLatencySeconds = new Histogram({
    name: 'tas_keeper_relay_fill_latency_seconds',
    help: 'Seconds from the origin block of the deposit to the destination block of its fill (chain clocks), per transfer, by destination chain and provider',
    labelNames: ['chain_id', 'provider'] as const,
    buckets: FILL_LATENCY_SECONDS_BUCKETS,
    registers: [this.registry],
  });
  readonly relaySettlementsTotal = new Counter({
    name: 'tas_keeper_relay_settlements_total',
    help: 'Transfers paid on their origin chain by an executed root bundle leaf, by origin chain and kind (repayment of our fill, refund of an expired deposit)',
    labelNames: ['chain_id', 'kind'] as const,
    registers: [this.registry],
  });
  readonly relayExpiredTotal = new Counter({
    name: 'tas_keeper_relay_expired_total',
    help: 'Intent deposits found past their fill deadline and unfilled at a confirmed destination block (their refund is due), by origin chain',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly relayBundlesTotal = new Counter({
    name: 'tas_keeper_relay_root_bundles_total',
    help: 'Root bundles of repayments and refunds on a SpokePool, by origin chain and event (planned, relayed, executed)',
    labelNames: ['chain_id', 'event'] as const,
    registers: [this.registry],
  });
  readonly relayRebalancesTotal = new Counter({
    name: 'tas_keeper_relay_rebalances_total',
    help: 'Relayer inventory moves sent through the lock-and-release bridge, by the chain they leave',
    labelNames: ['chain_id'] as const,
    registers: [this.registry],
  });
  readonly relayerInventory = new Gauge({
    name: 'tas_keeper_relayer_inventory',
    help: "Relayer inventory in whole tokens, by chain, token symbol and relayer wallet (the intent bridge's fills pay out of it)",
    labelNames: ['chain_id', 'token', 'wallet'] as const,
    registers: [this.registry],
  });
  readonly transfers = new Gauge({
    name: 'tas_keeper_transfers',
    help: 'Cross-chain transfers in the store, by provider and status',
    labelNames: ['provider', 'status'] as const,
    registers: [this.registry],
  });

  readonly unhandledErrorsTotal = new Counter({
    name: 'tas_keeper_unhandled_errors_total',
    help: 'Errors caught by the loop wrapper rather than classified by a stage, by stage (main: outside the stages)',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });

  /** `tas_keeper_store_up` and the store's outages, driven by the keeper's StoreWatch. */
  readonly store = new StoreMetrics(this.registry, 'tas_keeper_');
  readonly webhooks = new WebhookMetrics(this.registry, 'tas_keeper_');

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'tas_keeper_' });
    for (const stage of [...KEEPER_STAGES, 'main'] as const) this.unhandledErrorsTotal.inc({ stage }, 0);
    // Every (provider, status) at 0 from the start: the panel reads 0 transfers, not "No data", before the first one.
    this.setTransfers(
      TRANSFER_PROVIDERS.flatMap((provider) =>
        (provider === 'intent' ? INTENT_STATUSES : LOCK_RELEASE_STATUSES).map((status) => ({
          provider,
          status,
          count: 0,
        })),
      ),
    );
  }

  /**
   * Creates every known series of a chain at 0 before its first event: Prometheus sees a labelled series only once
   * it exists, so `increase()` and `rate()` never count the event that creates it (the first BAD_SIGNATURE, the
   * first executed DCA iteration), and a panel over a series never written reads "No data" instead of 0. Label
   * sets are the bounded ones: kinds, stages, results, statuses, dispositions and the failure table's reasons.
   * Idempotent: a second call for a chain changes nothing (it would zero its histograms).
   */
  initChain(chainId: number): void {
    if (this.chains.has(chainId)) return;
    this.chains.add(chainId);
    const chain_id = String(chainId);
    const chain = { chain_id };
    this.setOpenLimitOrders(chainId, {});
    this.setOpenDcaOrders(chainId, {});
    this.feedStalled.set(chain, 0);
    this.claimsHeld.set(chain, 0);
    for (const counter of [
      this.blocksSeenTotal,
      this.feedStallsTotal,
      this.reorgsTotal,
      this.settlementsReopenedTotal,
      this.nonceGapsFilledTotal,
      this.gasUsedTotal,
      this.gasCostNativeTotal,
      this.transactionsSentTotal,
      this.replacementsTotal,
      this.droppedTotal,
      this.relayExpiredTotal,
      this.relayRebalancesTotal,
    ])
      counter.inc(chain, 0);
    for (const provider of RELAY_PROVIDERS) {
      this.relayDepositsTotal.inc({ chain_id, provider }, 0);
      this.relayFillLatencyBlocks.zero({ chain_id, provider });
      this.relayFillLatencySeconds.zero({ chain_id, provider });
      for (const outcome of RELAY_OUTCOMES) this.relayFillsTotal.inc({ chain_id, provider, outcome }, 0);
      for (const reason of RELAY_HOLD_REASONS)
        this.relayFillsHeldTotal.inc({ chain_id, provider, reason }, 0);
    }
    for (const kind of SETTLEMENT_KINDS) this.relaySettlementsTotal.inc({ chain_id, kind }, 0);
    for (const event of BUNDLE_EVENTS) this.relayBundlesTotal.inc({ chain_id, event }, 0);
    for (const histogram of [
      this.selectionDuration,
      this.batchSize,
      this.gasPerOrder,
      this.executionFeeNative,
      this.inclusionBlocks,
      this.inclusionSeconds,
    ])
      histogram.zero(chain);
    for (const stage of KEEPER_STAGES) this.tickDuration.zero({ chain_id, stage });
    for (const kind of ORDER_KINDS) {
      for (const counter of [
        this.ordersTriggeredTotal,
        this.claimsTotal,
        this.claimsLostTotal,
        this.leaseReclaimsTotal,
        this.outageDelaysTotal,
      ])
        counter.inc({ chain_id, kind }, 0);
      this.oldestCrossedOrderBlocks.set({ chain_id, kind }, 0);
      for (const result of EXECUTION_RESULTS) this.executionsTotal.inc({ chain_id, kind, result }, 0);
      for (const reason of FAILURE_REASONS)
        for (const disposition of FAILURE_DISPOSITIONS)
          this.orderFailuresTotal.inc({ chain_id, kind, reason, disposition }, 0);
    }
    for (const result of DCA_ITERATION_RESULTS) this.dcaIterationsTotal.inc({ chain_id, result }, 0);
    for (const status of RECEIPT_STATUSES) this.receiptsTotal.inc({ chain_id, status }, 0);
    for (const kind of SET_ASIDE_KINDS)
      for (const reason of SET_ASIDE_REASONS) this.rowsSetAsideTotal.inc({ chain_id, kind, reason }, 0);
  }

  /** The `Content-Type` of `registry.metrics()`, for the admin server. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Sets every open status of the chain, so a status that emptied reads 0 rather than its last count. */
  setOpenLimitOrders(chainId: number, counts: Readonly<Partial<Record<OpenLimitOrderStatus, number>>>): void {
    for (const status of OPEN_LIMIT_ORDER_STATUSES) {
      this.openLimitOrders.set({ chain_id: String(chainId), status }, counts[status] ?? 0);
    }
  }

  setOpenDcaOrders(chainId: number, counts: Readonly<Partial<Record<OpenDcaOrderStatus, number>>>): void {
    for (const status of OPEN_DCA_ORDER_STATUSES) {
      this.openDcaOrders.set({ chain_id: String(chainId), status }, counts[status] ?? 0);
    }
  }

  observeSelection(chainId: number, seconds: number): void {
    this.selectionDuration.observe({ chain_id: String(chainId) }, seconds);
  }

  observeTick(chainId: number, stage: KeeperStage, seconds: number): void {
    this.tickDuration.observe({ chain_id: String(chainId), stage }, seconds);
  }

  /**
   * After each selection: how many blocks the oldest order that is past its trigger and still open has waited since
   * it was first selected as crossed (0 when none). An order that keeps failing or waiting past its trigger shows
   * here long before its maker asks; the alert TasOrdersPastTrigger reads it.
   */
  setOldestCrossedOrder(chainId: number, kind: OrderKind, blocks: number): void {
    this.oldestCrossedOrderBlocks.set({ chain_id: String(chainId), kind }, blocks);
  }

  ordersTriggered(chainId: number, kind: OrderKind, count: number): void {
    if (count > 0) this.ordersTriggeredTotal.inc({ chain_id: String(chainId), kind }, count);
  }

  /** A new head block: counts it, moves the head and clears a stall (the feed is delivering again). */
  blockSeen(chainId: number, blockNumber: number, seenAtMs: number): void {
    const labels = { chain_id: String(chainId) };
    this.blocksSeenTotal.inc(labels);
    this.headBlock.set(labels, blockNumber);
    this.lastBlockSeenTimestamp.set(labels, seenAtMs / 1000);
    this.feedStalled.set(labels, 0);
  }

  setPriceLag(chainId: number, blocks: number): void {
    this.priceLagBlocks.set({ chain_id: String(chainId) }, blocks);
  }

  /** The watchdog fired: counted once per stall; `feedResumed` (or `blockSeen`) clears the gauge. */
  feedStall(chainId: number): void {
    const labels = { chain_id: String(chainId) };
    this.feedStallsTotal.inc(labels);
    this.feedStalled.set(labels, 1);
  }

  feedResumed(chainId: number): void {
    this.feedStalled.set({ chain_id: String(chainId) }, 0);
  }

  reorgDetected(chainId: number): void {
    this.reorgsTotal.inc({ chain_id: String(chainId) });
  }

  settlementReopened(chainId: number): void {
    this.settlementsReopenedTotal.inc({ chain_id: String(chainId) });
  }

  nonceGapFilled(chainId: number): void {
    this.nonceGapsFilledTotal.inc({ chain_id: String(chainId) });
  }

  ordersClaimed(chainId: number, kind: OrderKind, count: number): void {
    if (count > 0) this.claimsTotal.inc({ chain_id: String(chainId), kind }, count);
  }

  claimsLost(chainId: number, kind: OrderKind, count: number): void {
    if (count > 0) this.claimsLostTotal.inc({ chain_id: String(chainId), kind }, count);
  }

  leasesReclaimed(chainId: number, kind: OrderKind, count: number): void {
    if (count > 0) this.leaseReclaimsTotal.inc({ chain_id: String(chainId), kind }, count);
  }

  orderExecution(chainId: number, kind: OrderKind, result: ExecutionResult): void {
    this.executionsTotal.inc({ chain_id: String(chainId), kind, result });
  }

  /** `reason` is a stable code from the failure table (e.g. `expired`, `insufficient_allowance`), never a message. */
  orderFailure(chainId: number, kind: OrderKind, reason: string, disposition: FailureDisposition): void {
    this.orderFailuresTotal.inc({ chain_id: String(chainId), kind, reason, disposition });
  }

  dcaIteration(chainId: number, result: DcaIterationResult): void {
    this.dcaIterationsTotal.inc({ chain_id: String(chainId), result });
  }

  /** A batch transaction was broadcast for the first time (its replacements are `transactionSent` only). */
  batchSent(chainId: number, orders: number): void {
    this.batchSize.observe({ chain_id: String(chainId) }, orders);
  }

  transactionSent(chainId: number, replacement: boolean): void {
    const labels = { chain_id: String(chainId) };
    this.transactionsSentTotal.inc(labels);
    if (replacement) this.replacementsTotal.inc(labels);
  }

  transactionDropped(chainId: number): void {
    this.droppedTotal.inc({ chain_id: String(chainId) });
  }

  /** An included keeper transaction carrying `orders` orders: receipt status, gas and its cost. */
  receipt(
    chainId: number,
    receipt: { status: ReceiptStatus; gasUsed: bigint; effectiveGasPrice: bigint; orders: number },
  ): void {
    const labels = { chain_id: String(chainId) };
    this.receiptsTotal.inc({ ...labels, status: receipt.status });
    this.gasUsedTotal.inc(labels, Number(receipt.gasUsed));
    this.gasCostNativeTotal.inc(labels, native(receipt.gasUsed * receipt.effectiveGasPrice));
    if (receipt.orders > 0) {
      const perOrder = Number(receipt.gasUsed) / receipt.orders;
      for (let i = 0; i < receipt.orders; i += 1) this.gasPerOrder.observe(labels, perOrder);
    }
  }

  /** One order's latency from its trigger block to the block including it. */
  orderIncluded(chainId: number, blocks: number, seconds: number): void {
    const labels = { chain_id: String(chainId) };
    this.inclusionBlocks.observe(labels, blocks);
    this.inclusionSeconds.observe(labels, seconds);
  }

  /**
   * One executed order's fee, valued in wei of the native coin: the gas cost the fee was computed from (estimate
   * times effective gas price), lowered to the contract's cap when the cap applied, before its conversion into the
   * sold token. Native value rather than the sold token's base units, so fees of every pair add up and compare with
   * `tas_keeper_gas_cost_native_total`.
   */
  executionFee(chainId: number, feeWeiEquivalent: bigint): void {
    this.executionFeeNative.observe({ chain_id: String(chainId) }, native(feeWeiEquivalent));
  }

  nonceResync(chainId: number, wallet: string): void {
    this.nonceResyncsTotal.inc({ chain_id: String(chainId), wallet });
  }

  /**
   * After a balance read; `low` is the wallet pool's verdict against its threshold, so the alert and the pool's
   * choice of wallets agree. A low balance is an alert, never a crash: the pool goes on with the other wallets.
   */
  walletBalance(chainId: number, wallet: string, balanceWei: bigint, low: boolean): void {
    const labels = { chain_id: String(chainId), wallet };
    this.walletBalanceNative.set(labels, native(balanceWei));
    this.walletBalanceLow.set(labels, low ? 1 : 0);
    // The wallets are known from their first balance read: their resyncs count from 0 (adding 0 keeps the count).
    this.nonceResyncsTotal.inc(labels, 0);
  }

  setInFlight(chainId: number, wallet: string, transactions: number): void {
    this.walletInFlight.set({ chain_id: String(chainId), wallet }, transactions);
  }

  rowSetAside(chainId: number, kind: SetAsideKind, reason: SetAsideReason): void {
    this.rowsSetAsideTotal.inc({ chain_id: String(chainId), kind, reason });
  }

  outageDelay(chainId: number, kind: OrderKind): void {
    this.outageDelaysTotal.inc({ chain_id: String(chainId), kind });
  }

  setClaimsHeld(chainId: number, held: boolean): void {
    this.claimsHeld.set({ chain_id: String(chainId) }, held ? 1 : 0);
  }

  relayDeposits(chainId: number, provider: RelayProvider, count: number): void {
    if (count > 0) this.relayDepositsTotal.inc({ chain_id: String(chainId), provider }, count);
  }

  relayFill(chainId: number, provider: RelayProvider, outcome: RelayOutcome): void {
    this.relayFillsTotal.inc({ chain_id: String(chainId), provider, outcome });
  }

  /** A check held back a fill or a release (the transfer waits for a later look). */
  relayFillHeld(chainId: number, provider: RelayProvider, reason: RelayHoldReason): void {
    this.relayFillsHeldTotal.inc({ chain_id: String(chainId), provider, reason });
  }

  /** One transfer's latency from its origin deposit to its destination fill or release. */
  relayFillLatency(chainId: number, provider: RelayProvider, blocks: number, seconds: number): void {
    const labels = { chain_id: String(chainId), provider };
    this.relayFillLatencyBlocks.observe(labels, Math.max(0, blocks));
    this.relayFillLatencySeconds.observe(labels, Math.max(0, seconds));
  }

  relaySettlement(chainId: number, kind: SettlementKind, count: number): void {
    if (count > 0) this.relaySettlementsTotal.inc({ chain_id: String(chainId), kind }, count);
  }

  relayExpired(chainId: number): void {
    this.relayExpiredTotal.inc({ chain_id: String(chainId) });
  }

  relayBundle(chainId: number, event: BundleEvent): void {
    this.relayBundlesTotal.inc({ chain_id: String(chainId), event });
  }

  relayRebalance(chainId: number): void {
    this.relayRebalancesTotal.inc({ chain_id: String(chainId) });
  }

  /** `units` of a token of `decimals` the relayer wallet holds, exported in whole tokens. */
  setRelayerInventory(chainId: number, token: string, wallet: string, units: bigint, decimals: number): void {
    this.relayerInventory.set({ chain_id: String(chainId), token, wallet }, Number(units) / 10 ** decimals);
  }

  /** Sets every (provider, status) seen, so a status that emptied reads 0 rather than its last count. */
  setTransfers(counts: readonly { provider: string; status: string; count: number }[]): void {
    const now = new Map(counts.map((c) => [`${c.provider}\u0000${c.status}`, c]));
    for (const key of this.transferSeries) {
      if (now.has(key)) continue;
      const [provider, status] = key.split('\u0000');
      this.transfers.set({ provider, status }, 0);
    }
    for (const [key, { provider, status, count }] of now) {
      this.transferSeries.add(key);
      this.transfers.set({ provider, status }, count);
    }
  }

  unhandledError(stage: KeeperStage | 'main'): void {
    this.unhandledErrorsTotal.inc({ stage });
  }
}

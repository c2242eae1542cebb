import type { Logger } from '../shared/log/create-logger';
import type { QuoteEngine } from '../shared/routing/quote-engine';
import type { ClaimStage } from './claim/claim-stage';
import type { BlockGasBudget } from './submit/block-gas-budget';
import type { FeedHealth } from './keeper-health';
import type { KeeperMetrics, KeeperStage } from './keeper-metrics';
import type { ExecutorWallet } from './outbox/executor-wallet';
import type { ExecutionOrder } from './plan/execution-order';
import type { PlanStage } from './plan/plan-stage';
import type { SelectStage } from './select/select-stage';
import type { StageTimer } from './stage-timer';
import type { SubmitStage } from './submit/submit-stage';
import type { WalletPool } from './submit/wallet-pool';
import type { SettleStage } from './settle/settle-stage';
import type { TrackStage } from './track/track-stage';
import type { ChainAvailability, HoldReason } from './watch/chain-availability';
import type { PublishStage } from './watch/publish-stage';

/** Batches planned and submitted at once within a tick (selection and claims stay one at a time). */
const PARALLEL_BATCHES = 3;

/**
 * Keeper work beyond order batches (relaying cross-chain transfers, rebalancing inventory, simulation drivers): a
 * stage run once per tick after the batches went out and before the block's prices are published, timed and
 * guarded under its own name like every other stage.
 */
export interface TickStage {
  readonly name: KeeperStage;
  run(head: number, now: number, newBlock: boolean): Promise<void>;
}

/** One chain's stages, built by build-chain-keeper.ts. */
export interface ChainStages {
  track: Pick<TrackStage, 'run' | 'followLatest'>;
  settle: Pick<SettleStage, 'run'>;
  select: Pick<SelectStage, 'prepare' | 'next'> & Partial<Pick<SelectStage, 'afterBatches'>>;
  claim: Pick<ClaimStage, 'run'>;
  plan: Pick<PlanStage, 'run' | 'done'>;
  submit: Pick<SubmitStage, 'run'>;
  /** Further kinds of work, in order. */
  more: readonly TickStage[];
  publish: Pick<PublishStage, 'run'>;
}

export interface ChainKeeperDeps {
  chainId: number;
  stages: ChainStages;
  /** The chain's pool state: its head is the block the tick works on. */
  engine: Pick<QuoteEngine, 'blockNumber'>;
  availability: ChainAvailability;
  /** The chain's block feed as /healthz reads it. */
  feed: FeedHealth;
  pool: Pick<WalletPool, 'wallets' | 'acquire' | 'free'>;
  timer: StageTimer;
  metrics: KeeperMetrics;
  /** Sizes each batch to the chain's blocks and says when enough of ours waits unmined. */
  budget: Pick<BlockGasBudget, 'onHead' | 'nextBatchOrders' | 'reserve' | 'settle'>;
  /** The gas limit of the chain's block at `head` (undefined when it cannot be read: the caps alone size batches). */
  blockGasLimit: (head: number) => Promise<bigint | undefined>;
  log: Logger;
  now: () => number;
}

/**
 * One chain's pipeline, ticked by the keeper (and at once when the chain's pool state reaches a new block):
 *
 *   track → select → claim → plan → submit → settle → (relay stages) → publish
 *
 * track follows our transactions on a new block to their receipts (and the feed, leases, nonce gaps, balances);
 * select keeps each kind of order work up to date and picks what is ready; claim takes those orders under our lease;
 * plan checks, prices, funds and routes them into a batch and simulates it from the wallet that will send it; submit
 * records and sends it through the outbox (batches sized to the blocks, several in flight per wallet); settle then
 * makes final what is deep enough and re-checks settled batches against reorgs (after the batches, so that it never
 * delays what a block crossed); then any further kinds of work run (`more`), and publish
 * writes the block's reference prices for the api. Each stage is timed under its own name and hands its result to
 * the next; none calls back into an earlier one. Ticks never overlap, and each chain has its own, so one chain's
 * slow RPC never delays another's. While the chain's pool state is stale or its RPC fails, nothing is claimed.
 */
export class ChainKeeper {
  readonly chainId: number;
  readonly feed: FeedHealth;
  private heldBy: HoldReason | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: ChainKeeperDeps) {
    this.chainId = deps.chainId;
    this.feed = deps.feed;
    deps.metrics.initChain(this.chainId);
  }

  /** Runs one tick unless one is running (then waits for it). */
  tick(): Promise<void> {
    if (!this.running) {
      this.running = this.runTick().finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }

  private async runTick(): Promise<void> {
    const { deps } = this;
    const { stages, timer } = deps;
    const head = deps.engine.blockNumber(this.chainId);
    if (head === undefined) return;
    const newBlock = await stages.track.run(head, deps.now());
    if (newBlock) deps.budget.onHead(head, await deps.blockGasLimit(head));
    await stages.select.prepare(deps.now());
    const held = this.holdClaims();
    if (!held) await this.runBatches(head);
    await stages.select.afterBatches?.(deps.now(), held);
    // After the batches: making the last blocks' batches final must never hold back the orders this block crossed.
    await stages.settle.run(head, newBlock);
    for (const stage of stages.more) await timer.run(stage.name, () => stage.run(head, deps.now(), newBlock));
    await timer.run('publish', () => stages.publish.run(head, newBlock));
  }

  /**
   * select → claim → plan → submit, batch after batch while orders are ready, a wallet has a free slot (several
   * transactions in flight each, on consecutive nonces) and the block budget wants more: the budget sizes each batch
   * to what is left of the block our unmined transactions are filling, and stops once enough waits for the blocks
   * ahead. Selecting and claiming go one batch at a time (a claim takes its orders out of the next selection);
   * planning and submitting run for up to PARALLEL_BATCHES batches at once, so that one batch's simulation and
   * broadcast wait on the node while the next is prepared (the plan stage reserves each batch's funds, so batches
   * planned side by side never count the same maker's balance twice). Every batch started ends within the tick.
   */
  private async runBatches(head: number): Promise<void> {
    const { deps } = this;
    const { stages, timer } = deps;
    const running = new Set<Promise<void>>();
    let stopped = false;
    try {
      while (!stopped) {
        const maxOrders = deps.budget.nextBatchOrders();
        if (maxOrders <= 0) return;
        const now = deps.now();
        const selection = await timer.measure('select', () => stages.select.next(now, head, maxOrders));
        if (!selection?.size) return;
        const wallet = deps.pool.acquire();
        if (!wallet) return;
        const orders = await timer.measure('claim', () => stages.claim.run(selection, head, now));
        if (!orders?.length) {
          deps.pool.free(wallet);
          return;
        }
        const batch = this.sendBatch(wallet, orders, head, now).then((sent) => {
          if (!sent) stopped = true;
        });
        running.add(batch);
        // Its failure reaches the tick through `running`; this branch only keeps the set current.
        batch.finally(() => running.delete(batch)).catch(() => undefined);
        if (running.size >= PARALLEL_BATCHES) await Promise.race(running);
      }
    } finally {
      await Promise.all(running);
    }
  }

  /** plan → submit of one claimed batch from `wallet`; whether it went out (else the wallet's slot is freed). */
  private async sendBatch(
    wallet: ExecutorWallet,
    orders: readonly ExecutionOrder[],
    head: number,
    now: number,
  ): Promise<boolean> {
    const { deps } = this;
    const { stages, timer } = deps;
    const reserved = deps.budget.reserve(orders.length);
    const plan = await timer.measure('plan', () => stages.plan.run(orders, wallet.address, now));
    const sent = plan ? await timer.measure('submit', () => stages.submit.run(wallet, plan, head)) : false;
    if (plan) stages.plan.done(plan);
    deps.budget.settle(reserved, sent ? plan!.call.gasLimit : 0n, orders.length);
    if (!sent) {
      deps.pool.free(wallet);
      return false;
    }
    await stages.track.followLatest(head);
    return true;
  }

  /** Whether claims wait on this chain now; logs and gauges the changes. */
  private holdClaims(): boolean {
    const heldBy = this.deps.availability.heldBy(this.deps.now());
    if (heldBy !== this.heldBy) {
      if (heldBy) this.deps.log.warn({ reason: heldBy }, 'chain unavailable: claiming nothing on it');
      else this.deps.log.info('chain available again: claiming resumes');
      this.deps.metrics.setClaimsHeld(this.chainId, heldBy !== undefined);
      this.heldBy = heldBy;
    }
    return heldBy !== undefined;
  }
}

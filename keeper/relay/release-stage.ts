import { getAddress } from 'ethers';
import { latestBlock } from '../../shared/bridges/chain-reads';
import { lockReleaseBridgeInterface } from '../../shared/bridges/contracts';
import {
  findReleased,
  findReleaseQueued,
  freeLiquidity,
  isReleased,
  LOCK_STATE,
  pendingReleaseAt,
  readLock,
  type ReleaseMessage,
} from '../../shared/bridges/lock-release/bridge-reads';
import {
  lockedEventsOf,
  releasedEventsOf,
  releaseQueuedEventsOf,
  type LockedEvent,
} from '../../shared/bridges/lock-release/locked-event';
import type { ChainClient, ReceiptSummary } from '../../shared/chain/chain-client';
import type { Transfer } from '../../shared/store/repositories/transfers-repository';
import type { TickStage } from '../chain-keeper';
import { isOutageError } from '../watch/chain-availability';
import type { FillCaps } from './fill-caps';
import type { FillValuation } from './fill-valuation';
import { followTransferTx } from './recorded-tx';
import { clientOf, eachOnItsOwn, retryDelayMs, TickMemo, type RelayContext } from './relay-context';
import type { DeliveryRecheck } from './delivery-recheck';
import type { RelaySender } from './relay-sender';

export interface ReleaseStageDeps extends RelayContext {
  /** This (destination) chain's client. */
  client: ChainClient;
  bridge: string;
  /** The bridge admin (the bridge's releaser) on this chain. */
  sender: RelaySender;
  /** Sends done transfers of this destination back in flight when a reorg took their block. */
  recheck?: Pick<DeliveryRecheck, 'run'>;
  /** The bridge admin on an origin chain: it accepts and refunds the locks made there. */
  originSender(chainId: number): RelaySender | undefined;
  valuation: FillValuation;
  /** The relayer's caps, which bound what a release pays out as they bound fills; absent: none. */
  caps?: FillCaps;
  /** The relayer's address: its own rebalancing locks (to itself) owe no fees. */
  relayer?: string;
  /** Origin blocks a lock (and its acceptance) needs, its own block included. */
  confirmations: number;
  /** The bridge's fee on what a lock bridges (LOCK_RELEASE_FEE_BPS): a lock asking for more never paid it. */
  feeBps: number;
  maxReleasesPerTick?: number;
}

/** Whether a release pays exactly what the lock asks, to whom it asks. */
function paysThisLock(e: { outputToken: string; amount: bigint; recipient: string }, t: Transfer): boolean {
  return (
    e.outputToken.toLowerCase() === t.outputToken.toLowerCase() &&
    e.amount === t.outputAmount &&
    e.recipient.toLowerCase() === t.recipient.toLowerCase()
  );
}

/** Where a bridge event was mined, as the store records a release. */
const fillOf = (e: { transactionHash: string; blockNumber: number; blockHash: string }) => ({
  txHash: e.transactionHash,
  blockNumber: e.blockNumber,
  blockHash: e.blockHash,
});

const SWEEP_MS = 5_000;
const RELEASE_SEARCH_BLOCKS = 50_000;
/** An acceptance is not sent this close to the lock's deadline (it could land after it): the lock is refunded. */
const ACCEPT_MARGIN_SECONDS = 60;
/** How long a lock waits for its acceptance or refund to be mined before it is looked at again. */
const ORIGIN_TX_WAIT_MS = 2_000;
/** Accepted locks remembered at most (a bound on memory; forgetting only makes the liquidity check looser). */
const ACCEPTED_LIMIT = 10_000;
/** Refunds of one lock the keeper sends at most; then it is left to its depositor (its refund may never go through). */
const MAX_REFUND_ATTEMPTS = 3;
/** A refused lock waiting for its deadline is looked at again after this at most. */
const REFUSED_RECHECK_MS = 15_000;
/** Gas a release may use at most (~80k; a native payout's recipient gets a bounded 30k). */
const RELEASE_MAX_GAS = 300_000n;
/** Gas an acceptance or a refund may use at most (~45k and ~60k for a plain ERC-20). */
const ORIGIN_CALL_MAX_GAS = 200_000n;

/**
 * The lock-and-release bridge's relayer on one destination chain. A confirmed lock is first judged: one that paid no
 * fees (not made through our CrossChainEntry, nor the relayer's own rebalancing), of an unlisted token, asking for
 * another asset or more than it locked, past a cap, or beyond the bridge's liquidity is refused, and refunded on its
 * origin (at once when the refusal is final, near its deadline otherwise). Otherwise the origin bridge's `accept`
 * is sent first, so the lock can no longer be refunded, and only once that acceptance has the origin confirmations
 * is `release` sent here (signed, stored, then broadcast), once per (origin chain, origin bridge, nonce). A release
 * past the token's hourly limit waits the bridge's delay and is executed once it ends.
 */
export class ReleaseStage implements TickStage {
  readonly name = 'relay_release' as const;
  private lastSweep = 0;
  /**
   * Locks accepted on their origin and not yet claimed for release here, by transfer: what they will take out of
   * the bridge, so that a burst of locks is never accepted past its liquidity (an accepted lock cannot be refunded).
   * Refilled after a restart as each accepted lock is looked at again (oldest first).
   */
  private readonly accepted = new Map<string, { token: string; amount: bigint }>();

  constructor(private readonly deps: ReleaseStageDeps) {}

  async run(head: number, now: number): Promise<void> {
    const { deps } = this;
    await deps.recheck?.run(head);
    if (now - this.lastSweep >= SWEEP_MS) {
      this.lastSweep = now;
      await deps.transfers.reclaimExpiredLeases(now);
      await deps.transfers.takeOverExpired('lock-release', deps.chainId, deps.owner, deps.leaseMs, now);
    }
    const inFlight = await deps.transfers.listInFlight('lock-release', deps.chainId, deps.owner);
    await eachOnItsOwn(
      inFlight,
      (t) => t.id,
      (t) => this.follow(t, head),
      this.failed,
    );
    const queued = await deps.transfers.listReleaseQueued(deps.chainId, deps.maxReleasesPerTick ?? 8);
    await eachOnItsOwn(
      queued,
      (t) => t.id,
      (t) => this.followQueued(t),
      this.failed,
    );
    await this.judgeWaiting(now);
  }

  private async judgeWaiting(now: number): Promise<void> {
    const { deps } = this;
    const max = deps.maxReleasesPerTick ?? 8;
    const waiting = await deps.transfers.listWaiting('lock-release', deps.chainId, now, max * 2);
    if (!waiting.length) return;
    const originHeads = new TickMemo((chainId) => latestBlock(clientOf(deps.clients, chainId)));
    let sent = 0;
    for (const t of waiting) {
      if (sent >= max) break;
      try {
        const originHead = await originHeads.get(t.originChainId);
        if (originHead.number - t.depositBlockNumber + 1 < deps.confirmations) continue;
        if (await this.judge(t, originHead)) sent += 1;
      } catch (err) {
        this.failed(t.id, err);
        if (isOutageError(err)) return;
      }
    }
  }

  private message(t: Transfer): ReleaseMessage {
    return {
      originChainId: t.originChainId,
      originBridge: getAddress(t.originContract),
      nonce: BigInt(t.depositId),
    };
  }

  /** One step for a confirmed lock; resolves whether a transaction went out. */
  private async judge(t: Transfer, originHead: { number: number; timestamp: number }): Promise<boolean> {
    const { deps } = this;
    const now = deps.now();
    const originClient = clientOf(deps.clients, t.originChainId);
    const receipt = await originClient.getTransactionReceipt(t.depositTxHash);
    if (!receipt || receipt.blockHash !== t.depositBlockHash) {
      if (await deps.transfers.markReorged(t.id, now))
        deps.log.warn({ transferId: t.id }, 'lock no longer in its origin block: not released');
      return false;
    }
    if (await this.resolveIfReleased(t)) return false;
    const message = this.message(t);
    const lock = await readLock(originClient, message.originBridge, message.nonce);
    const locked = lockedEventsOf(receipt.logs, message.originBridge).find((e) => e.nonce === message.nonce);
    const final = locked ? this.finalRefusal(t, locked) : 'no Locked event';
    switch (lock.state) {
      case LOCK_STATE.refunded:
        this.accepted.delete(t.id);
        if (await deps.transfers.markLockRefunded(t.id, 'refunded on its origin', now)) {
          deps.metrics.relayFill(deps.chainId, 'lock-release', 'refunded');
          deps.log.info({ transferId: t.id }, 'lock refunded on its origin');
        }
        return false;
      case LOCK_STATE.accepted: {
        if (final) {
          // Accepted, yet not a lock this keeper would have accepted: a releaser key used by someone else. Never
          // paid, whoever holds the key now; the owner decides.
          this.accepted.delete(t.id);
          if (await deps.transfers.markLockRefused(t.id, `accepted on its origin, but ${final}`, now)) {
            deps.metrics.relayFill(deps.chainId, 'lock-release', 'rejected_accepted');
            deps.log.error(
              { transferId: t.id, reason: final },
              'an accepted lock this keeper never accepted',
            );
          }
          return false;
        }
        this.commit(t);
        // Released only once the acceptance is as deep as the lock had to be: a reorg cannot make it refundable.
        const confirmedBlock = originHead.number - Math.max(1, deps.confirmations) + 1;
        const confirmed = await readLock(originClient, message.originBridge, message.nonce, confirmedBlock);
        if (confirmed.state !== LOCK_STATE.accepted) {
          await deps.transfers.postpone(t.id, now + ORIGIN_TX_WAIT_MS, 'acceptance not confirmed yet', now);
          return false;
        }
        return this.release(t);
      }
      case LOCK_STATE.locked:
        break;
      default:
        await deps.transfers.postpone(t.id, now + ORIGIN_TX_WAIT_MS, 'lock not found on its origin', now);
        return false;
    }
    const refusal = final ?? (locked && (await this.refusal(t, locked)));
    const secondsLeft = lock.deadline - originHead.timestamp;
    if (refusal === undefined && secondsLeft > ACCEPT_MARGIN_SECONDS) {
      const sent = await this.sendOrigin(t, 'accept', 'accepting on its origin');
      if (sent) this.commit(t);
      return sent;
    }
    if (final && secondsLeft >= 0) {
      // Never released. Refunded after its deadline, when anyone may (the depositor too): a stranger's junk locks
      // cost the keeper nothing before, and one whose refund cannot go through is left to its depositor.
      // Looked at again every REFUSED_RECHECK_MS (chain clocks can jump): at the back of the due page each time.
      await deps.transfers.postpone(
        t.id,
        now + Math.min((secondsLeft + 1) * 1000, REFUSED_RECHECK_MS),
        final,
        now,
      );
      deps.log.info({ transferId: t.id, reason: final }, 'lock refused: refunded after its deadline');
      return false;
    }
    if (refusal && !final && secondsLeft > ACCEPT_MARGIN_SECONDS) {
      await deps.transfers.postpone(t.id, now + 10_000, refusal, now);
      deps.log.info({ transferId: t.id, reason: refusal }, 'lock not released yet');
      return false;
    }
    const reason = refusal ?? 'its deadline is too close to accept it';
    if (t.attempts >= MAX_REFUND_ATTEMPTS) {
      if (await deps.transfers.markLockRefused(t.id, `${reason}; its refund did not go through`, now))
        deps.log.warn(
          { transferId: t.id, reason },
          'lock refused; its depositor may refund it on the origin',
        );
      return false;
    }
    deps.log.warn({ transferId: t.id, reason }, 'lock refused: refunding it on its origin');
    return this.sendOrigin(t, 'refund', reason);
  }

  private commit(t: Transfer): void {
    if (this.accepted.size >= ACCEPTED_LIMIT) this.accepted.clear();
    this.accepted.set(t.id, { token: t.outputToken.toLowerCase(), amount: t.outputAmount });
  }

  /** The bridge's free liquidity of a token less what outstanding releases and other accepted locks will take. */
  private async uncommittedLiquidity(t: Transfer): Promise<bigint> {
    const { deps } = this;
    const token = t.outputToken.toLowerCase();
    const [free, outstanding] = await Promise.all([
      freeLiquidity(deps.client, deps.bridge, t.outputToken),
      deps.transfers.sumReleasesOutstanding(deps.chainId, token),
    ]);
    let committed = outstanding;
    for (const [id, lock] of this.accepted) if (id !== t.id && lock.token === token) committed += lock.amount;
    return free > committed ? free - committed : 0n;
  }

  /** Sends the origin bridge's `accept` or `refund` of the lock; the lock is looked at again once it is mined. */
  private async sendOrigin(t: Transfer, fn: 'accept' | 'refund', note: string): Promise<boolean> {
    const { deps } = this;
    const sender = deps.originSender(t.originChainId);
    const now = deps.now();
    if (!sender) {
      await deps.transfers.postpone(t.id, now + 60_000, `no bridge admin on chain ${t.originChainId}`, now);
      return false;
    }
    const message = this.message(t);
    const data = lockReleaseBridgeInterface().encodeFunctionData(fn, [message.nonce]);
    // Bounded gas: a token whose transfer burns gas makes its own refund fail, never the keeper pay for it.
    const result = await sender.send(
      { to: message.originBridge, data, maxGas: ORIGIN_CALL_MAX_GAS },
      async () => true,
    );
    const sent = result.kind === 'sent' || result.kind === 'recorded';
    const reason =
      result.kind === 'sent' || result.kind === 'recorded' ? note : `${fn} not sent: ${result.reason}`;
    // A refund counts as an attempt (a lock whose refund never goes through is left to its depositor).
    await deps.transfers.postpone(
      t.id,
      deps.now() + (sent ? ORIGIN_TX_WAIT_MS : retryDelayMs(t.attempts)),
      reason,
      now,
      fn === 'refund',
    );
    deps.log.info({ transferId: t.id, fn, result: result.kind }, `lock ${fn} sent on its origin`);
    return sent;
  }

  /** Why the lock can never be released (whatever the market or the bridge); undefined when it may be. */
  private finalRefusal(t: Transfer, locked: LockedEvent): string | undefined {
    const { deps } = this;
    if (!locked.feesPaid && !this.ownRebalancing(locked))
      return 'invalid lock: made straight on the bridge, it paid no fees';
    const tokens = deps.valuation.tokens(t.originChainId, t.inputToken, deps.chainId, t.outputToken);
    if (!tokens) return 'invalid lock: a token is not listed';
    // The bridge's fee, rounded up as the quote rounds it; the relayer's own rebalancing owes none.
    const fee = this.ownRebalancing(locked) ? 0n : (t.inputAmount * BigInt(deps.feeBps) + 9_999n) / 10_000n;
    const max = deps.valuation.maxRelease(tokens.input, t.inputAmount - fee, tokens.output);
    if (max === undefined) return 'invalid lock: the output is another asset than the input';
    if (t.outputAmount > max) return 'invalid lock: the output exceeds the amount locked less the bridge fee';
    return undefined;
  }

  /** The relayer's own rebalancing (from and to itself): it owes no fees and no caps. */
  private ownRebalancing(locked: LockedEvent): boolean {
    const relayer = this.deps.relayer?.toLowerCase();
    return (
      relayer !== undefined &&
      locked.depositor.toLowerCase() === relayer &&
      locked.recipient.toLowerCase() === relayer
    );
  }

  /** Why the lock cannot be accepted now (liquidity, a cap); undefined when it may. */
  private async refusal(t: Transfer, locked: LockedEvent): Promise<string | undefined> {
    const { deps } = this;
    const tokens = deps.valuation.tokens(t.originChainId, t.inputToken, deps.chainId, t.outputToken);
    if (!tokens) return 'invalid lock: a token is not listed';
    const liquidity = await this.uncommittedLiquidity(t);
    if (liquidity < t.outputAmount) return 'bridge liquidity too low';
    if (this.ownRebalancing(locked) || !deps.caps) return undefined;
    const usdValue = await deps.valuation.usdValue(tokens.output, t.outputAmount);
    if (usdValue === undefined) {
      deps.metrics.relayFillHeld(deps.chainId, 'lock-release', 'no_reference_price');
      return 'no price to cap the release with';
    }
    const held = await deps.caps.check({
      destinationChainId: deps.chainId,
      token: tokens.output,
      amount: t.outputAmount,
      usdValue,
      balance: liquidity,
    });
    if (!held) return undefined;
    deps.metrics.relayFillHeld(deps.chainId, 'lock-release', held.reason);
    return held.message;
  }

  private async release(t: Transfer): Promise<boolean> {
    const { deps } = this;
    const claimed = await deps.transfers.claim(t.id, deps.owner, deps.leaseMs, deps.now());
    if (!claimed) return false;
    // Releasing, it counts among the store's outstanding releases.
    this.accepted.delete(t.id);
    const message = this.message(t);
    const data = lockReleaseBridgeInterface().encodeFunctionData('release', [
      message.originChainId,
      message.originBridge,
      message.nonce,
      t.outputToken,
      t.outputAmount,
      t.recipient,
    ]);
    const sentBlock = await deps.client.blockNumber();
    const result = await deps.sender
      .send({ to: deps.bridge, data, maxGas: RELEASE_MAX_GAS }, (signed) =>
        deps.transfers.markSubmitted(
          t.id,
          deps.owner,
          { txHash: signed.hash, rawTx: signed.raw, sender: signed.wallet, nonce: signed.nonce, sentBlock },
          deps.leaseMs,
          deps.now(),
        ),
      )
      .catch((err: unknown) => ({
        kind: 'not-sent' as const,
        reason: String(err),
        outage: isOutageError(err),
      }));
    if (result.kind === 'recorded' && result.gone) {
      deps.metrics.relayFill(deps.chainId, 'lock-release', 'not_sent');
      await deps.transfers.releaseLease(t.id, deps.owner, deps.now(), { error: result.reason });
      return false;
    }
    if (result.kind === 'sent' || result.kind === 'recorded') {
      deps.log.info({ transferId: t.id, result: result.kind }, 'release sent');
      const sent = await deps.transfers.findById(t.id);
      if (sent && result.kind === 'sent')
        await this.follow(sent, sent.fillSentBlock ?? 0).catch((err: unknown) => this.failed(t.id, err));
      return true;
    }
    deps.metrics.relayFill(deps.chainId, 'lock-release', 'not_sent');
    const outage = result.kind === 'not-sent' && result.outage;
    await deps.transfers.releaseLease(t.id, deps.owner, deps.now(), {
      nextAttemptAt: deps.now() + (outage ? 1_000 : retryDelayMs(t.attempts)),
      error: `${result.kind === 'reverted' ? 'simulation reverted' : 'not sent'}: ${result.reason}`,
      attempt: !outage,
    });
    deps.log.warn({ transferId: t.id, reason: result.reason }, 'release not sent; retrying later');
    return false;
  }

  private async follow(t: Transfer, head: number): Promise<void> {
    const { deps } = this;
    const now = deps.now();
    const fate = await followTransferTx(deps, t, head);
    if (!fate) return;
    if (fate.kind === 'mined' && fate.receipt.status === 1 && (await this.settled(t, fate.receipt))) return;
    deps.metrics.relayFill(deps.chainId, 'lock-release', fate.kind === 'mined' ? 'reverted' : 'dropped');
    if (await this.resolveIfReleased(t)) return;
    const error = fate.kind === 'mined' ? `release ${fate.receipt.hash} reverted` : 'release dropped';
    await deps.transfers.releaseLease(t.id, deps.owner, now, {
      nextAttemptAt: now + retryDelayMs(t.attempts),
      error,
      attempt: true,
    });
  }

  /** What the mined release did for this lock: paid (Released) or queued behind the delay (ReleaseQueued). */
  private async settled(t: Transfer, receipt: ReceiptSummary): Promise<boolean> {
    const { deps } = this;
    const message = this.message(t);
    const same = (e: { originChainId: bigint; originBridge: string; nonce: bigint }): boolean =>
      e.originChainId === BigInt(message.originChainId) &&
      e.originBridge === message.originBridge &&
      e.nonce === message.nonce;
    const fill = { txHash: receipt.hash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash };
    if (releasedEventsOf(receipt.logs, deps.bridge).some(same)) {
      await this.released(t, fill, receipt);
      return true;
    }
    const queued = releaseQueuedEventsOf(receipt.logs, deps.bridge).find(same);
    if (!queued) return false;
    if (await deps.transfers.markReleaseQueued(t.id, fill, deps.now())) {
      deps.metrics.relayFill(deps.chainId, 'lock-release', 'queued');
      deps.log.warn(
        { transferId: t.id, executableAt: queued.executableAt },
        'release past the hourly limit: it waits the bridge delay',
      );
    }
    return true;
  }

  private async released(
    t: Transfer,
    fill: { txHash: string; blockNumber: number; blockHash: string },
    receipt?: ReceiptSummary,
  ): Promise<void> {
    const { deps } = this;
    if (!(await deps.transfers.markFilled(t.id, fill, deps.now()))) return;
    deps.metrics.relayFill(deps.chainId, 'lock-release', 'filled');
    deps.log.info({ transferId: t.id, txHash: fill.txHash, nonce: t.depositId }, 'lock released');
    if (!receipt) return;
    const [releaseBlock, lockBlock] = await Promise.all([
      deps.client.getBlock(receipt.blockNumber),
      clientOf(deps.clients, t.originChainId).getBlock(t.depositBlockHash),
    ]).catch(() => [null, null]);
    if (releaseBlock && lockBlock)
      deps.metrics.relayFillLatency(
        deps.chainId,
        'lock-release',
        receipt.blockNumber - (t.fillSentBlock ?? receipt.blockNumber),
        releaseBlock.timestamp - lockBlock.timestamp,
      );
  }

  /** A release waiting the bridge's delay: executed once it ends, recorded once paid, re-opened if cancelled. */
  private async followQueued(t: Transfer): Promise<void> {
    const { deps } = this;
    const message = this.message(t);
    const from = (t.fillBlockNumber ?? 0) - 1;
    const paid = await findReleased(deps.client, deps.bridge, message, from);
    if (paid) {
      await this.released(t, fillOf(paid));
      return;
    }
    const executableAt = await pendingReleaseAt(deps.client, deps.bridge, message);
    if (executableAt === undefined) {
      if (await isReleased(deps.client, deps.bridge, message)) return;
      if (
        await deps.transfers.markReleaseCancelled(t.id, 'release cancelled by the bridge owner', deps.now())
      )
        deps.log.error({ transferId: t.id }, 'the bridge owner cancelled a delayed release');
      return;
    }
    const head = await latestBlock(deps.client);
    if (head.timestamp < executableAt) return;
    const data = lockReleaseBridgeInterface().encodeFunctionData('executeRelease', [
      message.originChainId,
      message.originBridge,
      message.nonce,
    ]);
    const result = await deps.sender.send(
      { to: deps.bridge, data, maxGas: RELEASE_MAX_GAS },
      async () => true,
    );
    if (result.kind === 'sent' || result.kind === 'recorded')
      deps.log.info({ transferId: t.id, result: result.kind }, 'delayed release executed');
    // Reverting past its delay: its releaser was rotated away, or the bridge lacks free liquidity.
    else deps.log.warn({ transferId: t.id, reason: result.reason }, 'delayed release not executed');
  }

  /**
   * When the bridge shows the message taken already: paid (its Released event) or queued behind the delay — each
   * only if it pays this lock's token and amount to its recipient. A release of the message that does not (a
   * stolen releaser key burning the messages of locks to come) is never taken for this lock's: the lock, still
   * unaccepted, is refunded at once; accepted, it is left to the owner.
   */
  private async resolveIfReleased(t: Transfer): Promise<boolean> {
    const { deps } = this;
    const message = this.message(t);
    if (!(await isReleased(deps.client, deps.bridge, message))) return false;
    const from = (await deps.client.blockNumber()) - RELEASE_SEARCH_BLOCKS;
    const paid = await findReleased(deps.client, deps.bridge, message, from);
    const queued = paid ? undefined : await findReleaseQueued(deps.client, deps.bridge, message, from);
    const found = paid ?? queued;
    if (found && !paysThisLock(found, t)) {
      await this.forged(t, found.transactionHash);
      return true;
    }
    if (paid) await this.released(t, fillOf(paid));
    else if (queued && (await deps.transfers.markReleaseQueued(t.id, fillOf(queued), deps.now())))
      deps.metrics.relayFill(deps.chainId, 'lock-release', 'queued');
    return true;
  }

  /** The message of this lock was released with other terms: refund the lock while it can be, else flag it. */
  private async forged(t: Transfer, txHash: string): Promise<void> {
    const { deps } = this;
    const now = deps.now();
    deps.metrics.relayFill(deps.chainId, 'lock-release', 'rejected_accepted');
    deps.log.error({ transferId: t.id, txHash }, 'the message of a lock was released with other terms');
    const message = this.message(t);
    const lock = await readLock(clientOf(deps.clients, t.originChainId), message.originBridge, message.nonce);
    if (lock.state === LOCK_STATE.refunded) {
      await deps.transfers.markLockRefunded(t.id, 'refunded on its origin', now);
      return;
    }
    if (lock.state === LOCK_STATE.locked && t.attempts < MAX_REFUND_ATTEMPTS) {
      await this.sendOrigin(t, 'refund', `its message was released with other terms by ${txHash}`);
      return;
    }
    await deps.transfers.markLockRefused(t.id, `its message was released with other terms by ${txHash}`, now);
  }

  private readonly failed = (id: string, err: unknown): void => {
    this.deps.log.warn({ err, transferId: id }, 'relaying a lock failed; trying again next tick');
  };
}

import { MaxUint256, ZeroHash, type Block } from 'ethers';
import { addressToBytes32, bytes32ToAddress, FillStatus } from '../../shared/bridges/across/relay-data';
import { erc20Allowance, erc20Balance } from '../../shared/bridges/chain-reads';
import { spokePoolInterface } from '../../shared/bridges/contracts';
import type { ChainClient, ReceiptSummary } from '../../shared/chain/chain-client';
import { erc20Interface } from '../../shared/chain/contract-interfaces';
import type { Transfer } from '../../shared/store/repositories/transfers-repository';
import type { TickStage } from '../chain-keeper';
import type { RelayHoldReason } from '../keeper-metrics';
import { isOutageError } from '../watch/chain-availability';
import type { CapReason, FillCaps } from './fill-caps';
import type { FillValuation } from './fill-valuation';
import { followTransferTx } from './recorded-tx';
import { clientOf, eachOnItsOwn, retryDelayMs, TickMemo, type RelayContext } from './relay-context';
import type { DeliveryRecheck } from './delivery-recheck';
import type { RelaySender } from './relay-sender';
import { fillStatusOf, findFill, relayDataOf } from './spoke-pool-reads';

export interface FillStageDeps extends RelayContext {
  /** This (destination) chain's client. */
  client: ChainClient;
  spokePool: string;
  /** The relayer's wallet on this chain; it holds the inventory and is repaid on the origin. */
  sender: RelaySender;
  /** Sends done transfers of this destination back in flight when a reorg took their block. */
  recheck?: Pick<DeliveryRecheck, 'run'>;
  valuation: FillValuation;
  /** The relayer's limits per fill, per token and hour, and its floor per chain. */
  caps: Pick<FillCaps, 'check'>;
  /** Origin blocks a deposit needs, its own block included (the keeper's convention for confirmations). */
  confirmations: number;
  minProfitBps: number;
  /** Fills sent per tick at most; the rest wait for the next tick. */
  maxFillsPerTick?: number;
  /** Waiting transfers looked at per tick at most (each costs a few RPC calls). */
  maxChecksPerTick?: number;
}

/**
 * What the checks decided for a waiting transfer. A postponement `held` by a price check or a cap is counted and
 * logged as a warning with its figures: it is the relayer refusing a payout, not a transfer not ready yet.
 */
type Verdict =
  | { kind: 'fill' }
  | { kind: 'postpone'; ms: number; reason: string; held?: RelayHoldReason; figures?: Record<string, string> }
  | { kind: 'reorged' }
  | { kind: 'filled' };

/** Gas of one fillRelay for the profit check (an ERC-20 fill is ~90k; an unwrapping one more). */
const FILL_GAS = 150_000n;
/**
 * Gas a fill may take at most (an ERC-20 fill ~90k, an unwrapping one more): a recipient or a message made to burn
 * gas (an EIP-7702 account, a message handler) is not filled at the relayer's expense.
 */
const FILL_MAX_GAS = 400_000n;
/** A fill sent this close to its deadline may land after it and revert: left to the refund. */
const DEADLINE_MARGIN_SECONDS = 2;
const SWEEP_MS = 5_000;
const FILL_SEARCH_BLOCKS = 50_000;
/** Blocks of the destination when each transfer was first looked at, for the latency metric (bounded). */
const FIRST_SEEN_LIMIT = 10_000;
/** A pool pumped for a few blocks is arbitraged back or its pump enters the average: looked at again soon. */
const PRICE_HOLD_MS = 30_000;
/** How long a capped fill waits: one over the per-fill cap waits for the operator, the others for the hour. */
const CAP_HOLD_MS: Readonly<Record<CapReason, number>> = {
  max_fill: 600_000,
  max_hourly: 60_000,
  inventory_floor: 60_000,
};

/**
 * The intent bridge's relayer on one destination chain: fills deposits from its own inventory with `fillRelay`,
 * repaid on the origin to itself. A deposit is filled only when its origin block has the confirmations and is still
 * canonical (its receipt is in the recorded block), it is before its fill deadline on this chain's clock, no other
 * relayer holds it exclusively, it is Unfilled here, the relayer holds the output, the input's spot value is within
 * RELAYER_MAX_PRICE_DEVIATION_BPS of its reference (oracle) value, the fill pays at least the configured profit at
 * the lower of the two, and the caps (per fill, per token and hour, the chain's inventory floor) allow it. The
 * transfer is claimed under this keeper's lease first (keepers sharing the store never both fill it), the signed
 * fill is stored before its broadcast, and its receipt decides: success → filled; revert → filled by another
 * relayer, or retried with back-off until the deadline (then refunded by the settlement).
 */
export class FillStage implements TickStage {
  readonly name = 'relay_fill' as const;
  private lastSweep = 0;
  private readonly firstSeen = new Map<string, number>();
  /** Tokens whose approval of the SpokePool was sent, until the allowance shows it. */
  private readonly approving = new Map<string, number>();

  constructor(private readonly deps: FillStageDeps) {}

  async run(head: number, now: number): Promise<void> {
    await this.deps.recheck?.run(head);
    await this.sweep(now);
    await this.followInFlight(head);
    await this.fillWaiting(now);
  }

  private async sweep(now: number): Promise<void> {
    const { deps } = this;
    if (now - this.lastSweep < SWEEP_MS) return;
    this.lastSweep = now;
    await deps.transfers.reclaimExpiredLeases(now);
    const taken = await deps.transfers.takeOverExpired('intent', deps.chainId, deps.owner, deps.leaseMs, now);
    for (const t of taken)
      deps.log.warn({ transferId: t.id, txHash: t.fillTxHash }, 'took over a fill of an expired keeper');
  }

  private async followInFlight(head: number): Promise<void> {
    const { deps } = this;
    const rows = await deps.transfers.listInFlight('intent', deps.chainId, deps.owner);
    await eachOnItsOwn(
      rows,
      (t) => t.id,
      (t) => this.follow(t, head),
      this.failed,
    );
  }

  /** Where our fill transaction is: mined (success or revert), pending, or gone. */
  private async follow(t: Transfer, head: number): Promise<void> {
    const { deps } = this;
    const now = deps.now();
    const fate = await followTransferTx(deps, t, head);
    if (!fate) return;
    if (fate.kind === 'mined' && fate.receipt.status === 1) {
      await this.filled(t, fate.receipt);
      return;
    }
    deps.metrics.relayFill(deps.chainId, 'intent', fate.kind === 'mined' ? 'reverted' : 'dropped');
    if (await this.resolveIfFilled(t)) return;
    const error =
      fate.kind === 'mined' ? `fill ${fate.receipt.hash} reverted` : 'fill dropped: its nonce was used';
    deps.log.warn({ transferId: t.id, txHash: t.fillTxHash, attempts: t.attempts + 1 }, `${error}; retrying`);
    await deps.transfers.releaseLease(t.id, deps.owner, now, {
      nextAttemptAt: now + retryDelayMs(t.attempts),
      error,
      attempt: true,
    });
  }

  private async filled(t: Transfer, receipt: ReceiptSummary): Promise<void> {
    const { deps } = this;
    const moved = await deps.transfers.markFilled(
      t.id,
      { txHash: receipt.hash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash },
      deps.now(),
    );
    if (!moved) return;
    deps.metrics.relayFill(deps.chainId, 'intent', 'filled');
    await this.observeLatency(t, receipt).catch(() => undefined);
    deps.log.info(
      { transferId: t.id, originChainId: t.originChainId, depositId: t.depositId, txHash: receipt.hash },
      'deposit filled',
    );
  }

  private async observeLatency(t: Transfer, receipt: ReceiptSummary): Promise<void> {
    const { deps } = this;
    const seen = this.firstSeen.get(t.id) ?? t.fillSentBlock ?? receipt.blockNumber;
    this.firstSeen.delete(t.id);
    const [fillBlock, depositBlock] = await Promise.all([
      deps.client.getBlock(receipt.blockNumber),
      clientOf(deps.clients, t.originChainId).getBlock(t.depositBlockHash),
    ]);
    if (!fillBlock || !depositBlock) return;
    deps.metrics.relayFillLatency(
      deps.chainId,
      'intent',
      receipt.blockNumber - seen,
      fillBlock.timestamp - depositBlock.timestamp,
    );
  }

  /** When the destination shows the transfer Filled: by us (an earlier transaction) or by another relayer. */
  private async resolveIfFilled(t: Transfer): Promise<boolean> {
    const { deps } = this;
    if (!t.relayHash) return false;
    if ((await fillStatusOf(deps.client, deps.spokePool, t.relayHash)) !== FillStatus.Filled) return false;
    const head = await deps.client.blockNumber();
    const fill = await findFill(deps.client, deps.spokePool, t, head - FILL_SEARCH_BLOCKS);
    const ours = addressToBytes32(deps.sender.address);
    if (fill && fill.relayer === ours) {
      await deps.transfers.markFilled(t.id, fill, deps.now());
      deps.metrics.relayFill(deps.chainId, 'intent', 'filled');
      return true;
    }
    if (await deps.transfers.markFilledByOther(t.id, fill?.relayer ?? null, fill, deps.now())) {
      deps.metrics.relayFill(deps.chainId, 'intent', 'filled_by_other');
      deps.log.info({ transferId: t.id, relayer: fill?.relayer }, 'deposit filled by another relayer');
    }
    return true;
  }

  private async fillWaiting(now: number): Promise<void> {
    const { deps } = this;
    const maxChecks = deps.maxChecksPerTick ?? 16;
    const waiting = await deps.transfers.listWaiting('intent', deps.chainId, now, maxChecks * 2);
    if (!waiting.length) return;
    const latest = await deps.client.getBlock('latest');
    if (!latest) return;
    const originHeads = new TickMemo((chainId) => clientOf(deps.clients, chainId).blockNumber());
    const inventory = new Map<string, bigint>();
    const gasPrice = new TickMemo(async () => {
      const fees = await deps.client.feeData();
      return fees.maxFeePerGas ?? fees.gasPrice;
    });
    let checks = 0;
    let sent = 0;
    for (const t of waiting) {
      if (checks >= maxChecks || sent >= (deps.maxFillsPerTick ?? 8)) break;
      if (!this.firstSeen.has(t.id)) {
        if (this.firstSeen.size >= FIRST_SEEN_LIMIT) this.firstSeen.clear();
        this.firstSeen.set(t.id, latest.number);
      }
      try {
        const originHead = await originHeads.get(t.originChainId);
        if (originHead - t.depositBlockNumber + 1 < deps.confirmations) continue;
        checks += 1;
        const verdict = await this.check(t, latest, inventory, () => gasPrice.get(deps.chainId));
        if (verdict.kind === 'fill') {
          if (await this.fill(t, latest.number, inventory)) sent += 1;
        } else await this.apply(t, verdict);
      } catch (err) {
        this.failed(t.id, err);
        if (isOutageError(err)) return;
      }
    }
  }

  private async apply(t: Transfer, verdict: Exclude<Verdict, { kind: 'fill' }>): Promise<void> {
    const { deps } = this;
    const now = deps.now();
    switch (verdict.kind) {
      case 'postpone':
        await deps.transfers.postpone(t.id, now + verdict.ms, verdict.reason, now);
        if (verdict.held) {
          deps.metrics.relayFillHeld(deps.chainId, 'intent', verdict.held);
          deps.log.warn(
            {
              transferId: t.id,
              originChainId: t.originChainId,
              depositId: t.depositId,
              held: verdict.held,
              reason: verdict.reason,
              ...verdict.figures,
              ms: verdict.ms,
            },
            'fill held back',
          );
        } else deps.log.debug({ transferId: t.id, reason: verdict.reason, ms: verdict.ms }, 'fill postponed');
        return;
      case 'reorged':
        if (await deps.transfers.markReorged(t.id, now)) {
          deps.metrics.reorgDetected(t.originChainId);
          deps.log.warn(
            { transferId: t.id, originChainId: t.originChainId, depositTxHash: t.depositTxHash },
            'deposit no longer in its origin block: not filled',
          );
        }
        return;
      case 'filled':
        await this.resolveIfFilled(t);
        return;
    }
  }

  private async check(
    t: Transfer,
    latest: Block,
    inventory: Map<string, bigint>,
    gasPrice: () => Promise<bigint>,
  ): Promise<Verdict> {
    const { deps } = this;
    const receipt = await clientOf(deps.clients, t.originChainId).getTransactionReceipt(t.depositTxHash);
    if (!receipt || receipt.blockHash !== t.depositBlockHash) return { kind: 'reorged' };
    let outputToken: string;
    try {
      outputToken = bytes32ToAddress(t.outputToken);
      bytes32ToAddress(t.recipient);
    } catch {
      return { kind: 'postpone', ms: 3_600_000, reason: 'unfillable: not an EVM recipient or output token' };
    }
    if (t.fillDeadline === null || !t.relayHash)
      return { kind: 'postpone', ms: 3_600_000, reason: 'no relay data' };
    if (latest.timestamp + DEADLINE_MARGIN_SECONDS > t.fillDeadline) {
      // Left to the settlement, which refunds it once a confirmed destination block is past the deadline.
      return { kind: 'postpone', ms: 60_000, reason: 'past its fill deadline' };
    }
    const ours = addressToBytes32(deps.sender.address);
    const exclusive = t.exclusiveRelayer ?? ZeroHash;
    if (
      exclusive !== ZeroHash &&
      exclusive.toLowerCase() !== ours &&
      (t.exclusivityDeadline ?? 0) >= latest.timestamp
    ) {
      const ms = ((t.exclusivityDeadline ?? 0) - latest.timestamp + 1) * 1000;
      return { kind: 'postpone', ms, reason: 'another relayer holds the exclusivity' };
    }
    if ((await fillStatusOf(deps.client, deps.spokePool, t.relayHash)) === FillStatus.Filled)
      return { kind: 'filled' };
    // Listed first: a deposit of a token with no code must cost no RPC call that could fail the whole tick.
    const tokens = deps.valuation.tokens(
      t.originChainId,
      bytes32ToAddress(t.inputToken),
      deps.chainId,
      outputToken,
    );
    if (!tokens) return { kind: 'postpone', ms: 600_000, reason: 'token not listed' };
    const key = outputToken.toLowerCase();
    if (!inventory.has(key))
      inventory.set(key, await erc20Balance(deps.client, outputToken, deps.sender.address));
    if (inventory.get(key)! < t.outputAmount)
      return { kind: 'postpone', ms: 10_000, reason: 'relayer inventory too low' };
    const valued = await deps.valuation.value(
      tokens.input,
      t.inputAmount,
      tokens.output,
      t.outputAmount,
      FILL_GAS * (await gasPrice()),
    );
    switch (valued.kind) {
      case 'no-spot-price':
        return { kind: 'postpone', ms: 5_000, reason: 'no price for the fill now' };
      case 'no-reference-price':
        return {
          kind: 'postpone',
          ms: PRICE_HOLD_MS,
          reason: 'no reference price for the fill',
          held: 'no_reference_price',
        };
      case 'price-deviation':
        return {
          kind: 'postpone',
          ms: PRICE_HOLD_MS,
          reason: `price deviation: the input is worth ${valued.spotInOutput} at spot and ${valued.referenceInOutput} at the reference prices (${valued.deviationBps} bps apart)`,
          held: 'price_deviation',
          figures: {
            spotInOutput: valued.spotInOutput.toString(),
            referenceInOutput: valued.referenceInOutput.toString(),
            outputAmount: t.outputAmount.toString(),
            deviationBps: String(valued.deviationBps),
          },
        };
      case 'value':
        break;
    }
    const { value } = valued;
    // A negative margin absorbs a price move between the quote and the fill; an asset moved to itself has none, so
    // there a loss would be a plain gift (a deposit made straight to the SpokePool asking a little more than it pays).
    const minProfitBps = deps.valuation.sameAsset(tokens.input, tokens.output)
      ? Math.max(0, deps.minProfitBps)
      : deps.minProfitBps;
    if (value.profitBps < minProfitBps)
      return { kind: 'postpone', ms: 30_000, reason: `unprofitable: ${value.profitBps} bps` };
    const usdValue = await deps.valuation.usdValue(tokens.output, t.outputAmount);
    if (usdValue === undefined) {
      return {
        kind: 'postpone',
        ms: PRICE_HOLD_MS,
        reason: 'no USD value of the output for the caps',
        held: 'no_reference_price',
      };
    }
    const hold = await deps.caps.check({
      destinationChainId: deps.chainId,
      token: tokens.output,
      amount: t.outputAmount,
      usdValue,
      balance: inventory.get(key)!,
    });
    if (hold) {
      return {
        kind: 'postpone',
        ms: CAP_HOLD_MS[hold.reason],
        reason: `${hold.reason}: ${hold.message}`,
        held: hold.reason,
        figures: { usdMicros: usdValue.toString(), outputAmount: t.outputAmount.toString() },
      };
    }
    if (!(await this.approved(outputToken, t.outputAmount)))
      return { kind: 'postpone', ms: 2_000, reason: 'approving the SpokePool' };
    return { kind: 'fill' };
  }

  /** Whether the SpokePool may pull the output token from the relayer; sends the approval once when not. */
  private async approved(token: string, amount: bigint): Promise<boolean> {
    const { deps } = this;
    const allowance = await erc20Allowance(deps.client, token, deps.sender.address, deps.spokePool);
    if (allowance >= amount) {
      this.approving.delete(token);
      return true;
    }
    const since = this.approving.get(token);
    if (since !== undefined && deps.now() - since < 30_000) return false;
    this.approving.set(token, deps.now());
    const result = await deps.sender.send(
      { to: token, data: erc20Interface().encodeFunctionData('approve', [deps.spokePool, MaxUint256]) },
      async () => true,
    );
    deps.log.info({ token, result: result.kind }, 'relayer approves the SpokePool for its inventory');
    return false;
  }

  /** Claims the transfer, then signs, records and broadcasts its fill. Resolves whether a fill went out. */
  private async fill(
    t: Transfer,
    destinationBlock: number,
    inventory: Map<string, bigint>,
  ): Promise<boolean> {
    const { deps } = this;
    const claimed = await deps.transfers.claim(t.id, deps.owner, deps.leaseMs, deps.now());
    if (!claimed) return false;
    const data = spokePoolInterface().encodeFunctionData('fillRelay', [
      relayDataOf(claimed),
      claimed.originChainId,
      addressToBytes32(deps.sender.address),
    ]);
    const result = await deps.sender
      .send({ to: deps.spokePool, data, maxGas: FILL_MAX_GAS }, (signed) =>
        deps.transfers.markSubmitted(
          t.id,
          deps.owner,
          {
            txHash: signed.hash,
            rawTx: signed.raw,
            sender: signed.wallet,
            nonce: signed.nonce,
            sentBlock: destinationBlock,
          },
          deps.leaseMs,
          deps.now(),
        ),
      )
      .catch((err: unknown) => ({
        kind: 'not-sent' as const,
        reason: String(err),
        outage: isOutageError(err),
      }));
    const now = deps.now();
    switch (result.kind) {
      case 'sent': {
        const key = bytes32ToAddress(t.outputToken).toLowerCase();
        inventory.set(key, (inventory.get(key) ?? 0n) - t.outputAmount);
        deps.log.info({ transferId: t.id, txHash: result.tx.txHash, depositId: t.depositId }, 'fill sent');
        // Instant-mining chains include it at once: settle it in this tick.
        const sent = await deps.transfers.findById(t.id);
        if (sent)
          await this.follow(sent, sent.fillSentBlock ?? 0).catch((err: unknown) => this.failed(t.id, err));
        return true;
      }
      case 'recorded':
        if (result.gone) {
          // Refused for good (another keeper on the same relayer key took the nonce): tried again at once.
          deps.metrics.relayFill(deps.chainId, 'intent', 'not_sent');
          await deps.transfers.releaseLease(t.id, deps.owner, now, {
            nextAttemptAt: now,
            error: result.reason,
          });
          return false;
        }
        deps.log.warn(
          { transferId: t.id, reason: result.reason },
          'fill recorded, broadcast failed: followed',
        );
        return true;
      case 'reverted':
      case 'not-sent': {
        deps.metrics.relayFill(deps.chainId, 'intent', 'not_sent');
        const outage = result.kind === 'not-sent' && result.outage;
        await deps.transfers.releaseLease(t.id, deps.owner, now, {
          nextAttemptAt: now + (outage ? 1_000 : retryDelayMs(t.attempts)),
          error: `${result.kind === 'reverted' ? 'simulation reverted' : 'not sent'}: ${result.reason}`,
          attempt: !outage,
        });
        deps.log.warn({ transferId: t.id, reason: result.reason }, 'fill not sent; retrying later');
        return false;
      }
    }
  }

  private readonly failed = (id: string, err: unknown): void => {
    this.deps.log.warn({ err, transferId: id }, 'relaying a transfer failed; trying again next tick');
  };
}

import { zeroPadValue, toBeHex, type TransactionReceipt } from 'ethers';
import { readView } from '../../shared/bridges/chain-reads';
import { lockReleaseBridgeInterface } from '../../shared/bridges/contracts';
import { decodeReleased } from '../../shared/bridges/lock-release/locked-event';
import type { ChainClient } from '../../shared/chain/chain-client';
import type { Transfer } from '../../shared/store/repositories/transfers-repository';
import type { TickStage } from '../chain-keeper';
import { isOutageError } from '../watch/chain-availability';
import type { FillValuation } from './fill-valuation';
import { followTransferTx } from './recorded-tx';
import { clientOf, eachOnItsOwn, retryDelayMs, TickMemo, type RelayContext } from './relay-context';
import type { RelaySender } from './relay-sender';

export interface ReleaseStageDeps extends RelayContext {
  /** This (destination) chain's client. */
  client: ChainClient;
  bridge: string;
  /** The bridge admin (the bridge's releaser) on this chain. */
  sender: RelaySender;
  valuation: FillValuation;
  /** Origin blocks a lock needs, its own block included. */
  confirmations: number;
  maxReleasesPerTick?: number;
}

const SWEEP_MS = 5_000;
const RELEASE_SEARCH_BLOCKS = 50_000;

interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

/**
 * The lock-and-release bridge's relayer on one destination chain: after the origin confirmations, and while the
 * lock is still in its recorded origin block, the bridge admin calls `release` once per (origin chain, nonce), from
 * the bridge's own liquidity. `released()` is read first (a release found after a crash is recorded, not repeated);
 * the signed release is stored before its broadcast. A lock asking for another asset, or for more than it locked,
 * is never released.
 */
export class ReleaseStage implements TickStage {
  readonly name = 'relay_release' as const;
  private lastSweep = 0;

  constructor(private readonly deps: ReleaseStageDeps) {}

  async run(_head: number, now: number): Promise<void> {
    const { deps } = this;
    if (now - this.lastSweep >= SWEEP_MS) {
      this.lastSweep = now;
      await deps.transfers.reclaimExpiredLeases(now);
      await deps.transfers.takeOverExpired('lock-release', deps.chainId, deps.owner, deps.leaseMs, now);
    }
    const inFlight = await deps.transfers.listInFlight('lock-release', deps.chainId, deps.owner);
    await eachOnItsOwn(
      inFlight,
      (t) => t.id,
      (t) => this.follow(t),
      this.failed,
    );
    await this.releaseWaiting(now);
  }

  private async releaseWaiting(now: number): Promise<void> {
    const { deps } = this;
    const max = deps.maxReleasesPerTick ?? 8;
    const waiting = await deps.transfers.listWaiting('lock-release', deps.chainId, now, max * 2);
    if (!waiting.length) return;
    const originHeads = new TickMemo((chainId) => clientOf(deps.clients, chainId).blockNumber());
    let sent = 0;
    for (const t of waiting) {
      if (sent >= max) break;
      try {
        const originHead = await originHeads.get(t.originChainId);
        if (originHead - t.depositBlockNumber + 1 < deps.confirmations) continue;
        if (await this.release(t)) sent += 1;
      } catch (err) {
        this.failed(t.id, err);
        if (isOutageError(err)) return;
      }
    }
  }

  private async release(t: Transfer): Promise<boolean> {
    const { deps } = this;
    const now = deps.now();
    const receipt = await clientOf(deps.clients, t.originChainId).getTransactionReceipt(t.depositTxHash);
    if (!receipt || receipt.blockHash !== t.depositBlockHash) {
      if (await deps.transfers.markReorged(t.id, now))
        deps.log.warn({ transferId: t.id }, 'lock no longer in its origin block: not released');
      return false;
    }
    if (await this.resolveIfReleased(t)) return false;
    const invalid = this.invalid(t);
    if (invalid) {
      await deps.transfers.postpone(t.id, now + 3_600_000, invalid, now);
      deps.log.warn({ transferId: t.id, reason: invalid }, 'lock not released');
      return false;
    }
    const claimed = await deps.transfers.claim(t.id, deps.owner, deps.leaseMs, now);
    if (!claimed) return false;
    const data = lockReleaseBridgeInterface().encodeFunctionData('release', [
      t.originChainId,
      BigInt(t.depositId),
      t.outputToken,
      t.outputAmount,
      t.recipient,
    ]);
    const sentBlock = await deps.client.blockNumber();
    const result = await deps.sender
      .send({ to: deps.bridge, data }, (signed) =>
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
        await this.follow(sent).catch((err: unknown) => this.failed(t.id, err));
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

  /** Why a lock must not be released (another asset, or more than it locked); undefined when it may. */
  private invalid(t: Transfer): string | undefined {
    const tokens = this.deps.valuation.tokens(
      t.originChainId,
      t.inputToken,
      this.deps.chainId,
      t.outputToken,
    );
    if (!tokens) return 'invalid lock: a token is not listed';
    const max = this.deps.valuation.maxRelease(tokens.input, t.inputAmount, tokens.output);
    if (max === undefined) return 'invalid lock: the output is another asset than the input';
    if (t.outputAmount > max) return 'invalid lock: the output exceeds the amount locked';
    return undefined;
  }

  private async follow(t: Transfer): Promise<void> {
    const { deps } = this;
    const now = deps.now();
    const fate = await followTransferTx(deps, t);
    if (!fate) return;
    if (fate.kind === 'mined' && fate.receipt.status === 1) {
      await this.released(t, fate.receipt);
      return;
    }
    deps.metrics.relayFill(deps.chainId, 'lock-release', fate.kind === 'mined' ? 'reverted' : 'dropped');
    if (await this.resolveIfReleased(t)) return;
    const error = fate.kind === 'mined' ? `release ${fate.receipt.hash} reverted` : 'release dropped';
    await deps.transfers.releaseLease(t.id, deps.owner, now, {
      nextAttemptAt: now + retryDelayMs(t.attempts),
      error,
      attempt: true,
    });
  }

  private async released(t: Transfer, receipt: TransactionReceipt): Promise<void> {
    const { deps } = this;
    const fill = { txHash: receipt.hash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash };
    if (!(await deps.transfers.markFilled(t.id, fill, deps.now()))) return;
    deps.metrics.relayFill(deps.chainId, 'lock-release', 'filled');
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
    deps.log.info({ transferId: t.id, txHash: receipt.hash, nonce: t.depositId }, 'lock released');
  }

  /** When the bridge shows the lock released already: its Released event becomes the transfer's release. */
  private async resolveIfReleased(t: Transfer): Promise<boolean> {
    const { deps } = this;
    const iface = lockReleaseBridgeInterface();
    const done = await readView<boolean>(deps.client, iface, deps.bridge, 'released', [
      t.originChainId,
      BigInt(t.depositId),
    ]);
    if (!done) return false;
    const head = await deps.client.blockNumber();
    const logs = (await deps.client.send('eth_getLogs', [
      {
        address: deps.bridge,
        topics: [
          iface.getEvent('Released')!.topicHash,
          zeroPadValue(toBeHex(t.originChainId), 32),
          zeroPadValue(toBeHex(BigInt(t.depositId)), 32),
        ],
        fromBlock: `0x${Math.max(0, head - RELEASE_SEARCH_BLOCKS).toString(16)}`,
        toBlock: 'latest',
      },
    ])) as RawLog[];
    const log = logs.find((l) => !l.removed);
    const event = log
      ? decodeReleased({
          ...log,
          blockNumber: Number(BigInt(log.blockNumber)),
          index: Number(BigInt(log.logIndex)),
        })
      : undefined;
    if (event) {
      const fill = {
        txHash: event.transactionHash,
        blockNumber: event.blockNumber,
        blockHash: event.blockHash,
      };
      if (await deps.transfers.markFilled(t.id, fill, deps.now()))
        deps.metrics.relayFill(deps.chainId, 'lock-release', 'filled');
    }
    return true;
  }

  private readonly failed = (id: string, err: unknown): void => {
    this.deps.log.warn({ err, transferId: id }, 'relaying a lock failed; trying again next tick');
  };
}

import type { ChainClient } from '../../shared/chain/chain-client';
import { sanitizedError } from '../../shared/chain/rpc-errors';
import type { Logger } from '../../shared/log/create-logger';
import { followTransaction, type TxFate } from '../outbox/follow-transaction';
import type { SendPolicy } from '../outbox/send-policy';
import { sendRecorded } from '../outbox/send-recorded';
import type { ExecutorWallet, SignedTx } from '../outbox/executor-wallet';
import type { FeePolicy } from '../outbox/fee-policy';
import { isOutageError } from '../watch/chain-availability';

/** A contract call the relay stages send. */
export interface RelayCall {
  to: string;
  data: string;
  value?: bigint;
  /** The most gas the call may take: a simulation needing more is not sent (a contract made to burn our gas). */
  maxGas?: bigint;
}

/** A relay transaction as its stage recorded it. */
export interface SentTx {
  txHash: string;
  rawTx: string;
  nonce: number;
  /** The address that signed it. */
  sender: string;
  /** Every hash signed for its nonce, oldest first, when it was replaced; `[txHash]` otherwise. */
  hashes?: readonly string[];
  /** The block of its latest broadcast, when the stage keeps it (replacement waits count from it). */
  sentBlock?: number | null;
}

/**
 * How a send ended (outbox/send-recorded.ts):
 * - `sent`: recorded, then accepted by the node;
 * - `recorded`: recorded, and the broadcast failed; `gone`: it can never be mined, its record may be cleared;
 * - `reverted`: the simulation reverted (nothing signed);
 * - `not-sent`: nothing recorded (fees above the cap, no node, the record refused: the work is not ours any more).
 */
export type RelaySendResult =
  | { kind: 'sent'; tx: SentTx }
  | { kind: 'recorded'; tx: SentTx; reason: string; gone: boolean }
  | { kind: 'reverted'; reason: string }
  | { kind: 'not-sent'; reason: string; outage: boolean };

/** Gas units over the estimate: state moves between the simulation and the block. */
const GAS_HEADROOM_PERCENT = 130n;
const GAS_FLOOR = 25_000n;

const sentTx = (signed: SignedTx): SentTx => ({
  txHash: signed.hash,
  rawTx: signed.raw,
  nonce: signed.nonce,
  sender: signed.wallet,
});

/**
 * The relay stages' access to the keeper's outbox on one chain for one key (the relayer's fills, the bridge
 * admin's bundles and releases), each its own ExecutorWallet so their nonces never meet the executors'. Every call
 * is simulated first (eth_estimateGas from the sender: a revert costs nothing), then sent through the outbox's one
 * send path (recorded by the caller after signing and before the broadcast) and followed through its one follow
 * path (re-broadcast, replaced with higher fees when the stage records replacements, dropped when its nonce went).
 */
export class RelaySender {
  constructor(
    readonly client: ChainClient,
    readonly wallet: ExecutorWallet,
    private readonly fees: FeePolicy,
    private readonly policy: SendPolicy,
    private readonly replaceAfterBlocks: number,
    private readonly log: Logger,
  ) {}

  get address(): string {
    return this.wallet.address;
  }

  /** Simulates the call from the sender; the gas it would use, or the revert reason. */
  async simulate(call: RelayCall): Promise<{ ok: true; gas: bigint } | { ok: false; reason: string }> {
    try {
      const gas = await this.client.estimateGas({ from: this.address, ...call });
      return { ok: true, gas };
    } catch (err) {
      if (isOutageError(err)) throw err;
      return { ok: false, reason: sanitizedError(err).message };
    }
  }

  /**
   * Simulates, then sends through the outbox: `record` stores the signed transaction (false: do not broadcast).
   * Throws only when the chain cannot be reached before anything was recorded.
   */
  async send(call: RelayCall, record: (signed: SignedTx) => Promise<boolean>): Promise<RelaySendResult> {
    const { maxGas, ...tx } = call;
    const simulated = await this.simulate(tx);
    if (!simulated.ok) return { kind: 'reverted', reason: simulated.reason };
    if (maxGas !== undefined && simulated.gas > maxGas)
      return { kind: 'reverted', reason: `needs ${simulated.gas} gas, over the cap of ${maxGas}` };
    const gasLimit = maxOf(GAS_FLOOR, (simulated.gas * GAS_HEADROOM_PERCENT) / 100n);
    const sent = await sendRecorded(this.wallet, { ...tx, gasLimit }, this.fees, record);
    switch (sent.kind) {
      case 'sent':
        return { kind: 'sent', tx: sentTx(sent.signed) };
      case 'recorded':
        return { kind: 'recorded', tx: sentTx(sent.signed), reason: sent.reason, gone: sent.gone };
      default:
        return {
          kind: 'not-sent',
          reason: sent.reason === 'fees' ? `fees: ${sent.detail}` : sent.detail,
          outage: sent.reason === 'outage',
        };
    }
  }

  /**
   * Where a recorded transaction is (outbox/follow-transaction.ts). With `recordReplacement`, one that waited
   * KEEPER_REPLACE_AFTER_BLOCKS since `tx.sentBlock` is replaced with higher fees, the dearer copy recorded first.
   */
  follow(
    tx: SentTx,
    head: number,
    recordReplacement?: (signed: SignedTx) => Promise<boolean>,
  ): Promise<TxFate> {
    return followTransaction(
      {
        hashes: tx.hashes?.length ? tx.hashes : [tx.txHash],
        rawTx: tx.rawTx,
        nonce: tx.nonce,
        sender: tx.sender,
        sentBlock: tx.sentBlock ?? null,
      },
      head,
      {
        client: this.client,
        policy: this.policy,
        log: this.log.child({ sender: tx.sender, nonce: tx.nonce }),
        replacing: recordReplacement && {
          wallet: this.wallet,
          fees: this.fees,
          afterBlocks: this.replaceAfterBlocks,
          record: recordReplacement,
        },
      },
    );
  }
}

const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);

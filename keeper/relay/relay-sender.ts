import type { ChainClient } from '../../shared/chain/chain-client';
import { sanitizedError } from '../../shared/chain/rpc-errors';
import type { ExecutorWallet, SignedTx } from '../submit/executor-wallet';
import type { FeePolicy } from '../submit/fee-policy';
import { SendError } from '../submit/send-error';
import { isOutageError } from '../watch/chain-availability';
import type { RecordedTx } from './recorded-tx';

/** A contract call the relay stages send. */
export interface RelayCall {
  to: string;
  data: string;
  value?: bigint;
  /** The most gas the call may take: a simulation needing more is not sent (a contract made to burn our gas). */
  maxGas?: bigint;
}

/**
 * How a send ended:
 * - `sent`: recorded, then accepted by the node;
 * - `recorded`: recorded, and the broadcast failed. `gone`: the node refused it for good (its nonce is taken, its
 *   fees too low, the wallet short of funds…), so it can never be mined and the record may be cleared. Otherwise
 *   (no node answered) the record stands, and whoever follows it broadcasts it again or finds its nonce used
 *   (never a second transaction for the same work);
 * - `reverted`: the simulation reverted (nothing signed);
 * - `not-sent`: nothing recorded (fees above the cap, no node, the record refused: the work is not ours any more).
 */
export type RelaySendResult =
  | { kind: 'sent'; tx: RecordedTx }
  | { kind: 'recorded'; tx: RecordedTx; reason: string; gone: boolean }
  | { kind: 'reverted'; reason: string }
  | { kind: 'not-sent'; reason: string; outage: boolean };

/** Gas units over the estimate: state moves between the simulation and the block. */
const GAS_HEADROOM_PERCENT = 130n;
const GAS_FLOOR = 25_000n;

/**
 * Sends the relay stages' transactions from one key on one chain (the relayer's fills, the bridge admin's bundles
 * and releases), each its own ExecutorWallet so their nonces never meet the executors'. Every call is simulated
 * first (eth_estimateGas from the sender: a revert costs nothing), priced by the chain's FeePolicy, and recorded by
 * the caller after signing and before the broadcast.
 */
export class RelaySender {
  constructor(
    readonly client: ChainClient,
    readonly wallet: ExecutorWallet,
    private readonly fees: FeePolicy,
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
   * Simulates, signs, lets `record` store the signed transaction (false: do not broadcast) and broadcasts.
   * Throws only when the chain cannot be reached before anything was recorded.
   */
  async send(call: RelayCall, record: (signed: SignedTx) => Promise<boolean>): Promise<RelaySendResult> {
    const { maxGas, ...tx } = call;
    const simulated = await this.simulate(tx);
    if (!simulated.ok) return { kind: 'reverted', reason: simulated.reason };
    if (maxGas !== undefined && simulated.gas > maxGas)
      return { kind: 'reverted', reason: `needs ${simulated.gas} gas, over the cap of ${maxGas}` };
    const decision = await this.fees.current();
    if (decision.kind === 'too-expensive') {
      return {
        kind: 'not-sent',
        reason: `fees: needs ${decision.neededPerGas} wei/gas, cap ${decision.capPerGas}`,
        outage: false,
      };
    }
    const gasLimit = maxOf(GAS_FLOOR, (simulated.gas * GAS_HEADROOM_PERCENT) / 100n);
    let recorded: RecordedTx | undefined;
    let refused = false;
    try {
      const sent = await this.wallet.send({ ...tx, gasLimit }, decision.fees, {
        beforeBroadcast: async (signed) => {
          const tx = { txHash: signed.hash, rawTx: signed.raw, nonce: signed.nonce, sender: signed.wallet };
          if (!(await record(signed))) {
            refused = true;
            throw new Error('the work is no longer held');
          }
          recorded = tx;
        },
      });
      return {
        kind: 'sent',
        tx: { txHash: sent.hash, rawTx: sent.raw, nonce: sent.nonce, sender: sent.wallet },
      };
    } catch (err) {
      const reason = err instanceof SendError ? err.message : sanitizedError(err).message;
      if (recorded) {
        const gone =
          err instanceof SendError && err.kind !== 'unavailable' && err.kind !== 'before-broadcast-failed';
        return { kind: 'recorded', tx: recorded, reason, gone };
      }
      return {
        kind: 'not-sent',
        reason: refused ? 'the work is no longer held' : reason,
        outage: isOutageError(err),
      };
    }
  }
}

const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);

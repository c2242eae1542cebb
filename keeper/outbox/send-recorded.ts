import { sanitizedError } from '../../shared/chain/rpc-errors';
import type { ExecutorWallet, SignedTx, TxRequest } from './executor-wallet';
import type { FeePolicy, TxFees } from './fee-policy';
import { SendError } from './send-error';
import { isOutageError } from '../watch/chain-availability';

/**
 * How a send ended:
 * - `sent`: recorded, then accepted by the node;
 * - `recorded`: recorded, and the broadcast failed. `gone`: the node refused it for good (its nonce is taken, its
 *   fees too low, the wallet short of funds…), so it can never be mined and its record may be closed. Otherwise
 *   (no node answered) the record stands and the follow path puts it out again or finds its nonce used — never a
 *   second transaction for the same work;
 * - `not-sent`: nothing recorded, nothing out. `fees`: above the cap; `refused`: the record was refused (the work
 *   is not ours any more, or changed); `outage`: no node; `rejected`: the node refuses the transaction itself;
 *   `failed`: the wallet could not send it (nonce, fees, funds: it has worked out what to do next).
 */
export type RecordedSend =
  | { kind: 'sent'; signed: SignedTx; fees: TxFees }
  | { kind: 'recorded'; signed: SignedTx; fees: TxFees; reason: string; gone: boolean }
  | { kind: 'not-sent'; reason: 'fees' | 'refused' | 'outage' | 'rejected' | 'failed'; detail: string };

/**
 * The one send path of every transaction the keeper signs: fees from the chain under the cap, a signature from the
 * wallet's next nonce, `record` (the caller's store write, false: do not send) after signing and before anything
 * goes out, then the broadcast through the chain's send policy (ExecutorWallet). A crash at any point leaves either
 * nothing signed out there, or a record the follow path (follow-transaction.ts) picks up.
 */
export async function sendRecorded(
  wallet: ExecutorWallet,
  request: TxRequest,
  feePolicy: FeePolicy,
  record: (signed: SignedTx) => Promise<boolean>,
): Promise<RecordedSend> {
  const decision = await feePolicy.current().catch((err: unknown) => err as Error);
  if (decision instanceof Error) {
    const detail = sanitizedError(decision).message;
    return { kind: 'not-sent', reason: isOutageError(decision) ? 'outage' : 'failed', detail };
  }
  if (decision.kind === 'too-expensive') {
    return {
      kind: 'not-sent',
      reason: 'fees',
      detail: `needs ${decision.neededPerGas} wei/gas, cap ${decision.capPerGas}`,
    };
  }
  const fees = decision.fees;
  let recorded: SignedTx | undefined;
  let refused = false;
  try {
    await wallet.send(request, fees, {
      beforeBroadcast: async (signed) => {
        if (!(await record(signed))) {
          refused = true;
          throw new Error('the work is no longer held');
        }
        recorded = signed;
      },
    });
  } catch (err) {
    const detail = err instanceof SendError ? `${err.kind}: ${err.message}` : sanitizedError(err).message;
    if (recorded) {
      const gone =
        err instanceof SendError && err.kind !== 'unavailable' && err.kind !== 'before-broadcast-failed';
      return { kind: 'recorded', signed: recorded, fees, reason: detail, gone };
    }
    if (refused) return { kind: 'not-sent', reason: 'refused', detail: 'the work is no longer held' };
    if (isOutageError(err)) return { kind: 'not-sent', reason: 'outage', detail };
    const rejected = err instanceof SendError && err.kind === 'rejected';
    return { kind: 'not-sent', reason: rejected ? 'rejected' : 'failed', detail };
  }
  return { kind: 'sent', signed: recorded!, fees };
}

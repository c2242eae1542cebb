import { Transaction } from 'ethers';
import type { ChainClient, ReceiptSummary } from '../../shared/chain/chain-client';
import type { Logger } from '../../shared/log/create-logger';
import type { ExecutorWallet, SignedTx } from './executor-wallet';
import type { FeePolicy, TxFees } from './fee-policy';
import { isOutageError } from '../watch/chain-availability';
import type { SendPolicy } from './send-policy';

/** A transaction the keeper recorded (after signing, before broadcasting) and follows until it ends. */
export interface RecordedTx {
  /** Every hash signed for this nonce, oldest first; the last is `rawTx`'s. */
  hashes: readonly string[];
  rawTx: string;
  nonce: number;
  /** The address that signed it. */
  sender: string;
  /** The block at which it was last put out (null: never, or not known): how long it has waited. */
  sentBlock: number | null;
}

/**
 * What became of a recorded transaction: `mined` (a receipt of one of its hashes, success or revert), `pending`
 * (out there, or just put out again, or replaced by a dearer copy), `dropped` (its nonce was used by another
 * transaction: none of its hashes can ever be mined).
 */
export type TxFate =
  | { kind: 'mined'; receipt: ReceiptSummary }
  | { kind: 'pending'; rebroadcast: boolean; replacedBy?: string }
  | { kind: 'dropped' };

/** How a stuck transaction is replaced: its wallet re-signs the nonce with higher fees, recorded first. */
export interface Replacing {
  wallet: ExecutorWallet;
  fees: FeePolicy;
  /** Blocks a transaction may wait unmined before it is replaced. */
  afterBlocks: number;
  /** Stores the dearer copy (its hash added to the record) before it is broadcast; false: not ours any more. */
  record(signed: SignedTx): Promise<boolean>;
}

export interface FollowDeps {
  client: ChainClient;
  policy: SendPolicy;
  log: Logger;
  /** Absent: a stuck transaction is only put out again (same hash). */
  replacing?: Replacing;
}

export function feesOf(raw: Transaction): TxFees {
  return raw.type === 2
    ? { type: 2, maxFeePerGas: raw.maxFeePerGas ?? 0n, maxPriorityFeePerGas: raw.maxPriorityFeePerGas ?? 0n }
    : { type: 0, gasPrice: raw.gasPrice ?? 0n };
}

/**
 * The one follow path of every transaction the keeper signs (order batches, relay fills, releases, bundles,
 * rebalancing, approvals, gap fillers). Looks at the chain before anything is sent again:
 * 1. a receipt of any of its hashes (a replacement or the original may be the one mined) → mined;
 * 2. none known to the node and the sender's nonce used → dropped (re-read once: mined between the two reads?);
 * 3. not known and the nonce free → put out again, same hash (never put out before: a crash before the broadcast,
 *    a batch reopened after a reorg; or held by a private relay), or replaced with higher fees (put out publicly
 *    and forgotten by the node: evicted);
 * 4. known and waiting `afterBlocks` → replaced with fees at least 12.5% higher under the cap (capped: put out
 *    again as it is).
 * An unreachable node throws: the caller looks again at a later block.
 */
export async function followTransaction(tx: RecordedTx, head: number, deps: FollowDeps): Promise<TxFate> {
  const { client } = deps;
  const mined = await receiptOf(client, tx.hashes);
  if (mined) return { kind: 'mined', receipt: mined };
  const waited = tx.sentBlock === null ? 0 : Math.max(0, head - tx.sentBlock);
  const known = await knownToNode(client, tx.hashes);
  if (!known) {
    const count = Number(BigInt(String(await client.send('eth_getTransactionCount', [tx.sender, 'latest']))));
    if (count > tx.nonce) {
      const late = await receiptOf(client, tx.hashes);
      return late ? { kind: 'mined', receipt: late } : { kind: 'dropped' };
    }
    // Never put out yet (a crash before the broadcast, a batch reopened after a reorg), or with a private relay
    // the node cannot see: the same transaction goes out. Put out publicly and forgotten by the node (evicted
    // for its fees, a node that lost its pool): it is replaced with higher fees at once.
    const lost = tx.sentBlock !== null && deps.policy.publicPool;
    if (!lost || !deps.replacing) {
      await putOut(deps, tx.rawTx, waited);
      if (!deps.replacing || waited < deps.replacing.afterBlocks)
        return { kind: 'pending', rebroadcast: true };
    }
  } else if (!deps.replacing || waited < deps.replacing.afterBlocks) {
    return { kind: 'pending', rebroadcast: false };
  }
  return replace(tx, waited, deps, deps.replacing);
}

async function replace(
  tx: RecordedTx,
  waited: number,
  deps: FollowDeps,
  replacing: Replacing,
): Promise<TxFate> {
  const previous = Transaction.from(tx.rawTx);
  const decision = replacing.fees.bumpForReplacement(feesOf(previous));
  if (decision.kind === 'capped') {
    // Cannot outbid the stuck one under the cap: put the same transaction out again and wait.
    await putOut(deps, tx.rawTx, waited);
    return { kind: 'pending', rebroadcast: true };
  }
  const request = {
    to: previous.to!,
    data: previous.data,
    gasLimit: previous.gasLimit,
    value: previous.value,
  };
  try {
    const sent = await replacing.wallet.replace(
      {
        hash: tx.hashes[tx.hashes.length - 1]!,
        nonce: tx.nonce,
        raw: tx.rawTx,
        fees: feesOf(previous),
        wallet: tx.sender,
        chainId: replacing.wallet.chainId,
        request,
      },
      decision.fees,
      {
        beforeBroadcast: async (signed) => {
          if (!(await replacing.record(signed))) throw new Error('transaction no longer held');
        },
      },
    );
    deps.log.info(
      { nonce: tx.nonce, txHash: sent.hash, waited },
      'replaced a stuck transaction with higher fees',
    );
    return { kind: 'pending', rebroadcast: false, replacedBy: sent.hash };
  } catch (err) {
    if (isOutageError(err)) throw err;
    deps.log.warn({ err, nonce: tx.nonce }, 'replacement not sent');
    return { kind: 'pending', rebroadcast: false };
  }
}

async function receiptOf(client: ChainClient, hashes: readonly string[]): Promise<ReceiptSummary | null> {
  for (const hash of [...hashes].reverse()) {
    const receipt = await client.getReceiptSummary(hash);
    if (receipt) return receipt;
  }
  return null;
}

/** Whether the node has any of the hashes; a node that cannot be reached throws (the row waits). */
async function knownToNode(client: ChainClient, hashes: readonly string[]): Promise<boolean> {
  for (const hash of [...hashes].reverse()) {
    try {
      if ((await client.getTransaction(hash)) !== null) return true;
    } catch (err) {
      if (isOutageError(err)) throw err;
    }
  }
  return false;
}

/**
 * Puts a recorded transaction out again. A node that already has it answers "already known" or "nonce too low":
 * both mean it went out, and the next look tells which. No node reached: thrown.
 */
async function putOut(deps: FollowDeps, raw: string, waited: number): Promise<void> {
  try {
    await deps.policy.rebroadcast(raw, waited);
  } catch (err) {
    if (isOutageError(err)) throw err;
    deps.log.debug({ err }, 're-broadcast refused');
  }
}

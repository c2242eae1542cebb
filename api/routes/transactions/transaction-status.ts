import type {
  ChainTransactionReader,
  MinedReceipt,
  TransactionStatusSource,
} from './transaction-status-source';
import type { OnChainTransactionStatus } from './schemas';

/** The chain could not be read (no endpoint, RPC error or timeout); the cause stays in the server log. */
export class ChainReadError extends Error {
  constructor(
    readonly chainId: number,
    readonly reason: unknown,
  ) {
    super(`chain ${chainId} could not be read`);
    this.name = 'ChainReadError';
  }
}

function minedStatus(
  hash: string,
  chainId: number,
  receipt: MinedReceipt,
  latest: number,
): OnChainTransactionStatus {
  return {
    hash,
    chainId,
    // A receipt without a status (pre-Byzantium, state root instead) cannot show a revert: only 0 is one.
    status: receipt.status === 0 ? 'reverted' : 'success',
    blockNumber: receipt.blockNumber,
    // The head is read alongside the receipt, so it can trail the receipt's block by one: a mined
    // transaction always has at least its own block as a confirmation.
    confirmations: Math.max(1, latest - receipt.blockNumber + 1),
    gasUsed: receipt.gasUsed.toString(),
  };
}

async function readStatus(
  reader: ChainTransactionReader,
  hash: string,
  chainId: number,
): Promise<OnChainTransactionStatus> {
  const [receipt, latest] = await Promise.all([reader.getTransactionReceipt(hash), reader.blockNumber()]);
  if (receipt) return minedStatus(hash, chainId, receipt, latest);
  const tx = await reader.getTransaction(hash);
  if (tx?.blockNumber != null) {
    // Mined between the two reads: its receipt exists now.
    const minedReceipt = await reader.getTransactionReceipt(hash);
    if (minedReceipt) return minedStatus(hash, chainId, minedReceipt, await reader.blockNumber());
  }
  return {
    hash,
    chainId,
    status: tx ? 'pending' : 'not_found',
    blockNumber: null,
    confirmations: 0,
    gasUsed: null,
  };
}

/**
 * Status of `hash` (already validated, lowercase) on an enabled chain. The receipt decides first: a node keeps
 * a transaction's receipt once mined, and only a transaction without one can be pending or unknown.
 */
export async function transactionStatus(
  source: TransactionStatusSource,
  hash: string,
  chainId: number,
): Promise<OnChainTransactionStatus> {
  const reader = source.forChain(chainId);
  if (!reader) throw new ChainReadError(chainId, new Error('no RPC endpoint configured'));
  try {
    return await readStatus(reader, hash, chainId);
  } catch (err) {
    throw new ChainReadError(chainId, err);
  }
}

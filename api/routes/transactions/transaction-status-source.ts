/*
 * What GET /transactions/{hash} needs from a chain, and nothing more: the route depends on this narrow interface so
 * that the RPC client behind it (a bare provider today, the retrying, failing-over chain client later) can change
 * without touching the route.
 */

/** A transaction the node knows; `blockNumber` is null while it waits in the mempool. */
export interface KnownTransaction {
  blockNumber: number | null;
}

/** The parts of a receipt the status needs. */
export interface MinedReceipt {
  blockNumber: number;
  /** 1 success, 0 reverted; null only on pre-Byzantium chains, which carry a state root instead. */
  status: number | null;
  gasUsed: bigint;
}

/** Reads of one chain. Every method rejects when the RPC fails or times out; null means the node does not know it. */
export interface ChainTransactionReader {
  getTransaction(hash: string): Promise<KnownTransaction | null>;
  getTransactionReceipt(hash: string): Promise<MinedReceipt | null>;
  blockNumber(): Promise<number>;
}

export interface TransactionStatusSource {
  /** The reader of an enabled chain; undefined when the chain has no RPC endpoint to read from. */
  forChain(chainId: number): ChainTransactionReader | undefined;
}

/** A source with no chain behind it: every status read fails (500 TX_STATUS_ERROR), never a wrong `not_found`. */
export const NO_TRANSACTION_STATUS_SOURCE: TransactionStatusSource = { forChain: () => undefined };

/**
 * Where the keeper's signed transactions go out. Receipts, nonces and every read still come from the chain's
 * public RPCs; only `eth_sendRawTransaction` follows the policy. A failure is thrown as the RPC's own error, so
 * the caller classifies it (already known, nonce too low, underpriced…) the same way whatever the path.
 */
export interface SendPolicy {
  /**
   * Whether what it sends is in the public node's pool: then a transaction the node does not know was lost
   * (evicted, forgotten) and is replaced with higher fees; through a private relay the node never knows it.
   */
  readonly publicPool: boolean;
  /** The first broadcast of a signed transaction. */
  broadcast(raw: string): Promise<void>;
  /**
   * A later broadcast of a transaction first sent `waitedBlocks` blocks ago and not mined yet (a re-send after a
   * restart or a reorg, or a replacement of the same nonce): a private policy may fall back to public here.
   */
  rebroadcast(raw: string, waitedBlocks: number): Promise<void>;
}

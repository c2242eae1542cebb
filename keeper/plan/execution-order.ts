/** A claimed limit order or DCA iteration, in the terms the plan, submit and settle stages share. */
export interface ExecutionOrder {
  kind: 'limit' | 'dca';
  /** The service id (limit order id or DCA order id). */
  id: string;
  /** OrderExecutor.orderId of the order (maker, pair, integrator, ref, amountIn, execution index), lowercase. */
  onchainId: string;
  /**
   * The order's execution index, given by the store at its first claim and never changed: its bit in the
   * OrderExecutor's executed bitmap (an order re-planned after a dropped or reorged batch carries the same one, so
   * the contract executes it once at most).
   */
  executionIndex: bigint;
  /** keccak256 of `id`: the service's reference of the order on-chain. */
  ref: string;
  /** keccak256 of the API key that created the order: the maker's authorization must name it. */
  integrator: string;
  /** The version the claim returned (submitBatch refuses an order changed since). */
  version: number;
  attemptNumber: number;
  chainId: number;
  maker: string;
  /** Lowercase ERC-20 addresses. */
  tokenIn: string;
  tokenOut: string;
  decimalsIn: number;
  decimalsOut: number;
  amountIn: bigint;
  signature: string;
  /**
   * The fee cap the maker signed with `signature`, as stored with the order; null: not given at creation (the
   * plan stage then checks the signature against the contract's cap now).
   */
  maxFeeBps: number | null;
  /**
   * The least output the order accepts for `amountIn` alone (limit: amount × trigger × (1 − slippage); DCA:
   * none before routing, its minimum comes from the routed quote and its slippage).
   */
  minAmountOut: bigint;
  /**
   * Limit orders: the price the maker asked (out per in, decimal string); the order runs only when the routed
   * output covers amountIn plus the execution fee at this price. Undefined for DCA.
   */
  priceTrigger?: string;
  /** DCA: percent, applied to the routed output. */
  slippagePercent?: string;
  /**
   * DCA: Unix ms of the end of the iteration's window (its next slot). Short of funds, an iteration waits until then
   * and then fails with the funding reason; a limit order waits until its expiry.
   */
  waitsUntil?: number;
  /** The block whose price selected the order (latency metrics). */
  triggerBlock: number;
}

/**
 * External swap aggregators (0x, 1inch, ParaSwap, Odos, KyberSwap) as quote sources on real networks. Each one is
 * an HTTP client for the aggregator's documented API behind this interface; the calldata it returns is executed by
 * our SwapRouter or OrderExecutor through hop kind 2 (a whitelisted external target the router approves tokenIn to).
 */

export type ExternalAggregatorId = '0x' | '1inch' | 'paraswap' | 'odos' | 'kyberswap';

export const EXTERNAL_AGGREGATOR_IDS: readonly ExternalAggregatorId[] = [
  '0x',
  '1inch',
  'paraswap',
  'odos',
  'kyberswap',
];

export interface ExternalQuoteRequest {
  chainId: number;
  tokenIn: string;
  tokenOut: string;
  /** ERC-20s only (the caller wraps native) */
  amountIn: bigint;
  /** our SwapRouter or OrderExecutor: the contract that calls the aggregator and receives the output */
  taker: string;
}

export interface ExternalQuote {
  aggregatorId: ExternalAggregatorId;
  amountOut: bigint;
  gasEstimate: bigint;
}

export interface ExternalSwapRequest extends ExternalQuoteRequest {
  slippageBps: number;
  /**
   * The account that will send the transaction (the user, or the keeper for orders), when known. 0x and ParaSwap
   * ask for it when the taker is a contract; left out, they treat the taker as the sender.
   */
  txOrigin?: string;
}

export interface ExternalSwap {
  aggregatorId: ExternalAggregatorId;
  /** the aggregator's contract to call */
  to: string;
  data: string;
  value: bigint;
  /** the address that pulls tokenIn (must equal `to` for our router to execute it) */
  spender: string;
  amountOut: bigint;
  minAmountOut: bigint;
  gasEstimate: bigint;
}

export interface ExternalAggregator {
  readonly id: ExternalAggregatorId;
  readonly name: string;
  supports(chainId: number): boolean;
  quote(req: ExternalQuoteRequest, signal: AbortSignal): Promise<ExternalQuote>;
  buildSwap(req: ExternalSwapRequest, signal: AbortSignal): Promise<ExternalSwap>;
}

/**
 * Why an aggregator gave no usable answer:
 * - `no-route`: it has no route for the pair and amount (0x `liquidityAvailable: false`, 1inch "insufficient
 *   liquidity", ParaSwap `ESTIMATED_LOSS_GREATER_THAN_MAX_IMPACT`, Odos 2000 NO_VIABLE_PATH, KyberSwap 4008);
 * - `unavailable`: no answer in time, no connection, 429/5xx, or an answer that is not what its API documents;
 * - `rejected`: it refused our request (unknown token, invalid parameter, wrong API key).
 */
export type ExternalAggregatorErrorKind = 'no-route' | 'unavailable' | 'rejected';

/** The aggregator's own message is kept; the clients scrub their API key out of it. */
export class ExternalAggregatorError extends Error {
  constructor(
    readonly aggregatorId: ExternalAggregatorId,
    readonly kind: ExternalAggregatorErrorKind,
    message: string,
    /** The HTTP status the aggregator answered; null when no answer came. */
    readonly httpStatus: number | null = null,
    /** The aggregator's own error code (0x `name`, Odos `errorCode`, KyberSwap `code`…), when it sent one. */
    readonly code: string | number | null = null,
  ) {
    super(message);
    this.name = 'ExternalAggregatorError';
  }
}

const BPS = 10_000n;

/** The least output a swap of `amountOut` accepts under `slippageBps`, rounded down as the aggregators do. */
export function minAmountOutFor(amountOut: bigint, slippageBps: number): bigint {
  return (amountOut * (BPS - BigInt(slippageBps))) / BPS;
}

/** Arguments no aggregator should ever be asked about are our bug, not the aggregator's refusal. */
export function checkQuoteRequest(req: ExternalQuoteRequest): void {
  if (req.amountIn <= 0n) throw new RangeError(`amountIn must be positive, got ${req.amountIn}`);
  if (req.tokenIn.toLowerCase() === req.tokenOut.toLowerCase()) {
    throw new RangeError('tokenIn and tokenOut are the same token');
  }
}

export function checkSwapRequest(req: ExternalSwapRequest): void {
  checkQuoteRequest(req);
  if (!Number.isInteger(req.slippageBps) || req.slippageBps < 0 || req.slippageBps >= 5000) {
    throw new RangeError(`slippageBps must be an integer in [0, 5000), got ${req.slippageBps}`);
  }
}

export const sameAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/**
 * Gas assumed for an aggregator swap when its answer carries no estimate (0x sends `gas: null` when it could not
 * simulate): a typical two- or three-pool aggregator route, so the missing figure neither hides the cost nor
 * rules the aggregator out.
 */
export const FALLBACK_SWAP_GAS = 350_000n;
